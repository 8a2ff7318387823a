"""`brief --help` prints a copy rendered once by typer, without importing typer, and renders again when the
terminal or the code changes (briefing.cli.entry)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from briefing.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
PROBE = """
import json, sys
sys.argv = ["brief", *json.loads(sys.argv[1])]
from briefing.cli.entry import main
code = 0
try:
    main()
except SystemExit as done:
    code = done.code or 0
sys.stdout.flush()
sys.stderr.write("\\nSTATE " + json.dumps({"code": code, "typer": "typer" in sys.modules}) + "\\n")
"""


def run(cache: Path, *argv: str, columns: str = "100") -> tuple[str, dict[str, object]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(list(argv))],
        capture_output=True,
        text=True,
        timeout=120,
        env={
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": f"{ROOT / 'src'}:{ROOT}",
            "COLUMNS": columns,
            "XDG_CACHE_HOME": str(cache),
            "HOME": str(cache),
        },
    )
    head, _, tail = done.stderr.rpartition("\nSTATE ")
    assert tail, done.stderr
    return done.stdout, json.loads(tail)


def rendered(columns: str) -> str:
    result = CliRunner().invoke(app, ["--help"], prog_name="brief", env={"COLUMNS": columns})
    assert result.exit_code == 0, result.output
    return result.output


def test_the_second_help_is_the_same_text_without_typer(tmp_path: Path) -> None:
    first, state = run(tmp_path, "--help")
    assert state == {"code": 0, "typer": True}  # rendered through typer, and kept
    second, state = run(tmp_path, "--help")
    assert state == {"code": 0, "typer": False}
    assert second == first == rendered("100")
    assert "ask" in second and "ingest" in second


def test_another_terminal_width_renders_again(tmp_path: Path) -> None:
    run(tmp_path, "--help")
    narrow, state = run(tmp_path, "--help", columns="60")
    assert state["typer"] is True
    assert narrow == rendered("60")
    assert max(len(line) for line in narrow.splitlines()) <= 60
    assert len(list((tmp_path / "brief" / "help").glob("*.txt"))) == 2


def test_an_unwritable_cache_still_prints_the_help(tmp_path: Path) -> None:
    blocker = tmp_path / "cache"
    blocker.write_text("not a directory")
    for _ in range(2):
        out, state = run(blocker, "-h")
        assert state == {"code": 0, "typer": True}
        assert out == rendered("100")


def test_version_is_the_same_text_without_typer(tmp_path: Path) -> None:
    out, state = run(tmp_path, "--version")
    assert state == {"code": 0, "typer": False}
    result = CliRunner().invoke(app, ["--version"], prog_name="brief")
    assert result.exit_code == 0 and out == result.output and out.startswith("brief ")


def test_the_second_ask_help_is_the_same_text_without_typer(tmp_path: Path) -> None:
    first, state = run(tmp_path, "ask", "--help")
    assert state == {"code": 0, "typer": True}
    second, state = run(tmp_path, "ask", "--help")
    assert state == {"code": 0, "typer": False}
    expected = CliRunner().invoke(app, ["ask", "--help"], prog_name="brief", env={"COLUMNS": "100"})
    assert second == first == expected.output
    assert "--json" in second


def test_other_arguments_go_to_typer(tmp_path: Path) -> None:
    _, state = run(tmp_path, "no-such-command")
    assert state["code"] == 2
    assert not (tmp_path / "brief" / "help").exists()  # nothing kept but the help texts
