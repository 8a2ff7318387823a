"""No argument becomes a command: a newline anywhere in a schedule cannot write a crontab line of its own."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from briefing.cli.app import app
from briefing.errors import InputError
from briefing.ops import schedule

runner = CliRunner()
INJECTED = "\n* * * * * touch PWNED"


def _config(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "docs").mkdir(exist_ok=True)
    path = folder / "brief.toml"
    path.write_text('[workspace]\nname = "sched"\n[sources.handbook]\ntype = "files"\npath = "docs"\n')
    return path


def _lines(tab: Path) -> list[str]:
    text = tab.read_text(encoding="utf-8") if tab.exists() else ""
    return [line for line in text.splitlines() if line.strip()]


def _cases(tmp_path: Path) -> dict[str, tuple[Path, list[str]]]:
    plain = _config(tmp_path / "plain")
    evil_env = tmp_path / f"tokens{INJECTED}.env"
    evil_env.write_text("X=1\n")
    return {
        "argument": (plain, ["ask", f"x{INJECTED}", "--every", "30m"]),
        "carriage return": (plain, ["ask", "x\r* * * * * touch PWNED", "--every", "30m"]),
        "line separator": (plain, ["ask", "x\u2028* * * * * touch PWNED", "--every", "30m"]),
        "--id": (plain, ["ingest", "--every", "30m", "--id", f"a{INJECTED}"]),
        "--out": (plain, ["digest", "--every", "1d", "--out", f"x{INJECTED}.md"]),
        "--env-file": (plain, ["ingest", "--every", "30m", "--env-file", str(evil_env)]),
        "config path": (_config(tmp_path / f"cfg{INJECTED}"), ["ingest", "--every", "30m"]),
        "--id path": (plain, ["ingest", "--every", "30m", "--id", "../../x"]),
        "--id slash": (plain, ["ingest", "--every", "30m", "--id", "a/b"]),
    }


@pytest.mark.parametrize("systemd", [False, True])
def test_no_newline_or_path_in_any_part_reaches_the_crontab_or_a_unit(tmp_path: Path, systemd: bool) -> None:
    tab = tmp_path / "crontab"
    for name, (config, args) in _cases(tmp_path).items():
        extra = ["--systemd"] if systemd else ["--tabfile", str(tab)]
        result = runner.invoke(app, ["--config", str(config), "schedule", "add", *args, *extra])
        assert result.exit_code == InputError.exit_code, (name, result.output)
        assert "PWNED" not in result.stdout, name  # no unit printed either
        assert _lines(tab) == [], name
    # The same command with harmless values writes exactly one line, tagged as brief's.
    config = _config(tmp_path / "plain")
    ok = runner.invoke(
        app,
        [
            "--config",
            str(config),
            "schedule",
            "add",
            "ask",
            "x; $(touch y) `z` 100%",
            "--every",
            "30m",
            "--id",
            "ok_1",
            "--tabfile",
            str(tab),
        ],
    )
    assert ok.exit_code == 0, ok.output
    assert len(_lines(tab)) == 1 and _lines(tab)[0].endswith("# brief:ok_1")
    assert not list(tmp_path.rglob("PWNED"))


def test_the_crontab_layer_refuses_a_line_break_whoever_calls_it(tmp_path: Path) -> None:
    tab = schedule.Crontab(tmp_path / "tab")
    with pytest.raises(InputError):
        tab.add("ok", "* * * * *", "true" + INJECTED)
    with pytest.raises(InputError):
        tab.add("../x", "* * * * *", "true")
    with pytest.raises(InputError):
        schedule.systemd_units("ok", "* * * * *", "true" + INJECTED)
    with pytest.raises(InputError):
        schedule.output_path(tmp_path, "../../x")
    assert _lines(tmp_path / "tab") == []
