"""Schedules: cron expressions, systemd timers, crontab files where brief edits only its own lines."""

from __future__ import annotations

import json
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from briefing.cli.app import app
from briefing.errors import InputError
from briefing.ops.schedule import check_cron, cron_to_oncalendar, every_to_cron, next_runs

runner = CliRunner()


@pytest.fixture
def config(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    path = tmp_path / "brief.toml"
    path.write_text('[workspace]\nname = "sched"\n[sources.handbook]\ntype = "files"\npath = "docs"\n')
    return path


def test_periods_become_cron_expressions_and_bad_ones_are_named() -> None:
    assert every_to_cron("30m") == "*/30 * * * *"
    assert every_to_cron("1h") == "0 * * * *"
    assert every_to_cron("6h") == "0 */6 * * *"
    assert every_to_cron("1d") == "0 0 * * *"
    for bad in ("7m", "5h", "2d", "soon"):
        with pytest.raises(InputError, match=bad):
            every_to_cron(bad)
    assert check_cron("0  8 * *   MON-FRI") == "0 8 * * MON-FRI"
    with pytest.raises(InputError, match="five-field"):
        check_cron("0 8 * *")


def test_next_runs_follow_the_cron_calendar() -> None:
    monday_7am = datetime(2026, 12, 7, 7, 0, tzinfo=UTC)
    runs = next_runs("0 8 * * MON-FRI", 6, now=monday_7am)
    assert [r.astimezone(UTC).strftime("%a %H:%M") for r in runs] == [
        "Mon 08:00",
        "Tue 08:00",
        "Wed 08:00",
        "Thu 08:00",
        "Fri 08:00",
        "Mon 08:00",
    ]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
@pytest.mark.parametrize("expression", ["*/30 * * * *", "0 8 * * MON-FRI", "0 */6 * * *", "15 9 1 * *", "5 7 * * 0,6"])
def test_the_systemd_timer_fires_when_cron_would(expression: str) -> None:
    """systemd's own parser reads our OnCalendar= and finds the same next runs croniter does."""
    start = datetime(2026, 12, 2, 10, 1, tzinfo=UTC)
    spec = cron_to_oncalendar(expression)
    result = subprocess.run(
        ["systemd-analyze", "calendar", "--iterations=3", f"--base-time={start:%Y-%m-%d %H:%M:%S} UTC", spec + " UTC"],
        capture_output=True,
        text=True,
        check=True,
        env={"TZ": "UTC", "PATH": "/usr/bin:/bin"},
    )
    lines = result.stdout.splitlines()
    elapses = [line.split(": ", 1)[1].strip() for line in lines if "Next elapse" in line or "Iter. #" in line]
    ours = [r.astimezone(UTC).strftime("%a %Y-%m-%d %H:%M:%S UTC") for r in next_runs(expression, 3, now=start)]
    assert elapses[:3] == ours, result.stdout


def test_brief_edits_only_its_own_crontab_lines(config: Path, tmp_path: Path) -> None:
    tab = tmp_path / "crontab"
    mine = "SHELL=/bin/sh\n# the nightly backup\n17 3 * * * /usr/local/bin/backup --nightly\n"
    tab.write_text(mine)
    base = ["--config", str(config), "schedule"]
    added = runner.invoke(app, [*base, "add", "ingest", "handbook", "--every", "15m", "--tabfile", str(tab), "--json"])
    assert added.exit_code == 0, added.output
    entry = json.loads(added.stdout)
    assert entry["cron"] == "*/15 * * * *" and entry["args"] == ["ingest", "handbook"]
    assert tab.read_text().startswith(mine)
    listed = runner.invoke(app, [*base, "list", "--tabfile", str(tab), "--json"])
    assert [s["id"] for s in json.loads(listed.stdout)["schedules"]] == [entry["id"]]
    removed = runner.invoke(app, [*base, "remove", entry["id"], "--tabfile", str(tab)])
    assert removed.exit_code == 0, removed.output
    assert tab.read_text().strip() == mine.strip()
    missing = runner.invoke(app, [*base, "remove", "nope", "--tabfile", str(tab)])
    assert missing.exit_code == InputError.exit_code and "no schedule 'nope'" in missing.output


def test_schedule_add_names_what_is_wrong(config: Path, tmp_path: Path) -> None:
    base = ["--config", str(config), "schedule", "add"]
    tab = ["--tabfile", str(tmp_path / "tab")]
    typo = runner.invoke(app, [*base, "injest", "--every", "30m", *tab])
    assert typo.exit_code == InputError.exit_code and "'injest' is not a brief command" in typo.output
    no_out = runner.invoke(app, [*base, "ingest", "--every", "30m", "--out", "x.md", *tab])
    assert no_out.exit_code == InputError.exit_code and "has no --out option" in no_out.output
    both = runner.invoke(app, [*base, "ingest", "--every", "30m", "--cron", "* * * * *", *tab])
    assert both.exit_code == InputError.exit_code


def test_without_a_crontab_command_it_says_how_to_install_cron(config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    result = runner.invoke(app, ["--config", str(config), "schedule", "add", "ingest", "--every", "30m"])
    assert result.exit_code == 3
    assert "apt-get install cron" in result.output and "--tabfile" in result.output and "--systemd" in result.output


def test_systemd_option_prints_a_service_and_a_timer(config: Path) -> None:
    result = runner.invoke(
        app,
        ["--config", str(config), "schedule", "add", "ingest", "--cron", "0 8 * * MON-FRI", "--systemd", "--id", "am"],
    )
    assert result.exit_code == 0, result.output
    assert "OnCalendar=Mon..Fri *-*-* 08:00:00" in result.stdout
    assert "ExecStart=/bin/sh -c" in result.stdout and str(config.resolve()) in result.stdout
    assert "systemctl --user enable --now brief-am.timer" in result.stdout


def test_schedule_run_runs_the_line_cron_would_run(config: Path, tmp_path: Path) -> None:
    tab = ["--tabfile", str(tmp_path / "tab")]
    added = runner.invoke(
        app, ["--config", str(config), "schedule", "add", "sources", "--every", "1h", "--id", "s1", *tab]
    )
    assert added.exit_code == 0, added.output
    result = runner.invoke(app, ["--config", str(config), "schedule", "run", "s1", *tab])
    assert result.exit_code == 0, result.output
    assert "workspace sched" in result.stderr and "handbook" in result.stderr


def test_doctor_reports_a_failed_last_run_and_a_vanished_executable(config: Path, tmp_path: Path) -> None:
    from briefing.ops import runlog

    tab = tmp_path / "tab"
    line = f"BRIEF_SCHEDULE_ID=old /gone/venv/bin/brief --config {config} --log-format json ingest"
    tab.write_text(f"*/30 * * * * {line} # brief:old\n")
    runlog.write_run(
        load_home(),
        {
            "ts": datetime.now(UTC).isoformat(),
            "schedule": "old",
            "status": "failed",
            "run_id": "r",
            "error": "environment variable SLACK_TOKEN is empty or unset",
            "exit_code": 5,
        },
    )
    result = runner.invoke(app, ["--config", str(config), "doctor", "--json", "--offline", "--tabfile", str(tab)])
    findings = [f for f in json.loads(result.stdout)["findings"] if f["check"] == "schedule old"]
    assert {f["severity"] for f in findings} == {"error"}
    messages = " ".join(f["message"] for f in findings)
    assert "/gone/venv/bin/brief no longer exists" in messages and "SLACK_TOKEN is empty" in messages
    assert result.exit_code == 5  # the most specific error's code: the credentials of the failed run


def load_home() -> Path:
    from briefing.settings import brief_home

    return brief_home()


def test_doctor_warns_about_a_token_file_others_can_read_and_a_missing_source_path(
    config: Path, tmp_path: Path
) -> None:
    env = tmp_path / "brief.env"
    env.write_text("SLACK_TOKEN=xoxb-secret\n")
    env.chmod(0o644)
    tab = ["--tabfile", str(tmp_path / "tab")]
    add = ["--config", str(config), "schedule", "add", "ingest", "--every", "30m", "--id", "e", "--env-file", str(env)]
    assert runner.invoke(app, [*add, *tab]).exit_code == 0
    (tmp_path / "docs").rmdir()
    result = runner.invoke(app, ["--config", str(config), "doctor", "--json", "--offline", *tab])
    by_check: dict[str, list[dict[str, str]]] = {}
    for finding in json.loads(result.stdout)["findings"]:
        by_check.setdefault(finding["check"], []).append(finding)
    assert any(f["fix"] == f"chmod 600 {env}" for f in by_check["schedule e"])
    assert (
        by_check["source handbook"][0]["severity"] == "error"
        and "does not exist" in by_check["source handbook"][0]["message"]
    )
    assert result.exit_code == 4
    assert "xoxb-secret" not in result.stdout
