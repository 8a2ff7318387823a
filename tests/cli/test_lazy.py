"""`brief --help` lists every command without importing a command module or a heavy library.

The root group (briefing.cli.lazy) lists commands from a table and imports a command's module when the command
runs or shows its own help. These tests check the table against what the modules register, that the root help is
what typer renders with every command loaded, and, in a new process, what `--help` imports.
"""

from __future__ import annotations

import importlib
import inspect
import json
import subprocess
import sys
from pathlib import Path

import typer
from typer.testing import CliRunner

from briefing.cli.app import app
from briefing.cli.lazy import COMMANDS, MODULES, build

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("langgraph", "qdrant_client", "qdrant_edge", "fastembed", "dspy", "onnxruntime", "numpy", "litellm")
PROBE = """
import json, sys
sys.argv = ["brief", *json.loads(sys.argv[1])]
from briefing.cli.app import app
try:
    app()
except SystemExit:
    pass
sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)) + "\\n")
"""


def first_paragraph(command: object) -> str:
    text = getattr(command, "short_help", None) or getattr(command, "help", None) or ""
    return inspect.cleandoc(text).split("\n\n")[0].strip()


def imported(*argv: str) -> tuple[str, set[str]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(list(argv))],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{ROOT / 'src'}:{ROOT}", "COLUMNS": "120"},
    )
    head, _, tail = done.stderr.rpartition("\nMODULES ")
    assert tail, done.stderr
    return done.stdout + head, set(json.loads(tail))


def test_the_table_is_what_the_modules_register() -> None:
    eager = typer.Typer(rich_markup_mode="rich")  # one app with every module registered, as before the table
    for module in MODULES:
        importlib.import_module(module).register(eager)
    listed = [(name, first_paragraph(cmd)) for name, cmd in typer.main.get_group(eager).commands.items()]
    assert listed == [(e.name, e.help) for e in COMMANDS]
    owners = {name: module for module in MODULES for name in build(module)}
    assert owners == {e.name: e.module for e in COMMANDS}


def test_root_help_is_what_typer_renders_with_every_command_loaded() -> None:
    lazy = CliRunner().invoke(app, ["--help"], prog_name="brief", env={"COLUMNS": "120"})
    assert lazy.exit_code == 0, lazy.output
    root = typer.main.get_command(app)
    ctx = typer.Context(root, info_name="brief")
    for name in root.list_commands(ctx):
        root.get_command(ctx, name)  # imports every command module
    assert all(name in root.commands for name in root.list_commands(ctx))
    with CliRunner(env={"COLUMNS": "120"}).isolation() as streams:
        root.main(["--help"], prog_name="brief", standalone_mode=False)  # the real commands, listed by typer
        eager = streams[0].getvalue().decode()
    assert lazy.output == eager
    for entry in COMMANDS:
        assert entry.name in lazy.output


def test_root_help_imports_no_command_module_and_no_heavy_library() -> None:
    output, modules = imported("--help")
    assert "ask" in output and "ingest" in output and "people" in output
    assert not {m for m in modules if m.split(".")[0] in HEAVY}
    assert not {entry.module for entry in COMMANDS} & modules
    assert "pydantic" not in {m.split(".")[0] for m in modules}
    assert not {"markdown_it", "pygments"} & {m.split(".")[0] for m in modules}  # typer's help needs neither


def test_a_command_help_imports_its_module_only() -> None:
    output, modules = imported("ask", "--help")
    assert "--json" in output and "Example" in output
    assert "briefing.cli.query" in modules
    assert not {m for m in modules if m.split(".")[0] in HEAVY}
    assert not ({entry.module for entry in COMMANDS} - {"briefing.cli.query"}) & modules


def test_a_mistyped_command_is_suggested() -> None:
    result = CliRunner().invoke(app, ["ak", "what?"])
    assert result.exit_code == 2
    assert "Did you mean 'ask'?" in result.output


def test_the_deferred_rich_classes_are_the_real_ones_when_used() -> None:
    script = """
import sys
from briefing.cli.lazy import light_rich_help
light_rich_help()
import typer.rich_utils as ru
assert "markdown_it" not in sys.modules and "rich.markdown" not in sys.modules
from rich.console import Console
console = Console(width=60, record=True, color_system=None)
console.print(ru._make_rich_text(text="**bold** and `code`", markup_mode="markdown"))
import rich.markdown
assert isinstance(ru._make_rich_text(text="x", markup_mode="markdown"), rich.markdown.Markdown)
try:
    raise ValueError("boom")
except ValueError as exc:
    from typer.models import DeveloperExceptionConfig
    console.print(ru.get_traceback(exc, DeveloperExceptionConfig(), []))
print(console.export_text())
"""
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{ROOT / 'src'}:{ROOT}"},
    )
    assert done.returncode == 0, done.stderr
    assert "bold and code" in done.stdout and "**" not in done.stdout  # rendered as Markdown
    assert "ValueError" in done.stdout and "boom" in done.stdout  # a pretty traceback
