"""Every command's --help ends with an example that uses only options the command has; flags show no `<bool>`."""

from __future__ import annotations

import re
import shlex
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from briefing.cli.app import app


def commands(group: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    found = []
    ctx = typer.Context(group)  # the root group imports a command's module when the command is looked up
    for name in sorted(group.list_commands(ctx)):
        command = group.get_command(ctx, name)
        if hasattr(command, "commands"):
            found.extend(commands(command, (*path, name)))
        found.append(((*path, name), command))
    return found


ROOT = typer.main.get_command(app)
ALL = commands(ROOT)


def options(command: Any) -> set[str]:
    return {o for p in command.params for o in (*getattr(p, "opts", ()), *getattr(p, "secondary_opts", ()))}


def test_the_walk_sees_every_command() -> None:
    names = {" ".join(path) for path, _ in ALL}
    assert {"ask", "search", "digest", "timeline", "mcp", "slack-bot", "schedule add", "watch remove"} <= names


@pytest.mark.parametrize(("path", "command"), ALL, ids=[" ".join(p) for p, _ in ALL])
def test_help_has_an_example_with_real_options(path: tuple[str, ...], command: Any) -> None:
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    lines = [line.strip(" │$") for line in result.output.splitlines()]
    start = next((i for i, line in enumerate(lines) if "Example" in line), len(lines))
    lines = lines[start:]  # what the help offers as examples, not prose that names another command
    examples = [line for line in lines if line.startswith("brief ")]
    examples += [m for line in lines for m in re.findall(r"`(brief [^`]+)`", line)]
    assert examples, f"brief {' '.join(path)} --help shows no example"
    if hasattr(command, "commands"):
        return  # a group's examples run its commands, whose own examples are checked
    for example in examples:
        words = shlex.split(example.split("| ")[-1])
        assert words[0] == "brief" and path[-1] in words, f"{example!r} does not run brief {' '.join(path)}"
        at = words.index(path[-1])
        flags = {w.split("=")[0] for w in words[at + 1 :] if w.startswith("-") and w != "-"}
        globals_ = {w.split("=")[0] for w in words[1:at] if w.startswith("-")}
        assert flags <= options(command), f"{example!r} uses an option brief {' '.join(path)} lacks"
        assert globals_ <= options(ROOT), f"{example!r} uses a global option brief lacks"


def test_flags_show_no_bool_type() -> None:
    result = CliRunner().invoke(app, ["ask", "--help"], env={"COLUMNS": "200"})
    line = next(line for line in result.output.splitlines() if "--json" in line)
    assert "<bool>" not in line and "Print one JSON object" in line
