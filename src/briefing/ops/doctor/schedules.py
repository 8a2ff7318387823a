"""Doctor checks of the schedules: each entry's executable and token file, and whether its last run was good."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from briefing.errors import ConfigError, NotConfiguredError
from briefing.ops import runlog
from briefing.ops.doctor.report import Report
from briefing.settings import Settings


def check_schedules(report: Report, settings: Settings, tabfile: Path | None, now: datetime | None = None) -> None:
    from croniter import croniter

    from briefing.ops.schedule import INSTALL_CRON, Crontab

    tabfile = tabfile or (settings.resolve(settings.schedule.tabfile) if settings.schedule.tabfile else None)
    try:
        tab = Crontab(tabfile)
    except NotConfiguredError:
        report.add("schedule", "info", INSTALL_CRON)
        return
    except ConfigError as exc:
        report.error("schedule", exc)
        return
    entries = tab.entries()
    if not entries:
        report.add(
            "schedule", "info", f"no brief schedules in {tab.where}", "add one: brief schedule add ingest --every 30m"
        )
        return
    runs = runlog.last_runs(settings.home)
    now = now or datetime.now(UTC)
    for entry in entries:
        check = f"schedule {entry.id}"
        executable = _executable(entry.command)
        if executable and not Path(executable).exists():
            report.add(
                check,
                "error",
                f"its brief executable {executable} no longer exists",
                f"brief schedule remove {entry.id}, then add it again from the current install",
            )
        env_file = _env_file(entry.command)
        if env_file is not None and env_file.exists() and env_file.stat().st_mode & 0o077:
            report.add(
                check,
                "warning",
                f"its environment file {env_file} (tokens) is readable by others",
                f"chmod 600 {env_file}",
            )
        elif env_file is not None and not env_file.exists():
            report.add(
                check,
                "error",
                f"its environment file {env_file} does not exist, so cron runs lack the tokens",
                "recreate it with the VAR=value lines the config names",
                5,
            )
        if not entry.enabled:
            report.add(check, "info", f"disabled in {tab.where}")
            continue
        last = runs.get(entry.id)
        it = croniter(entry.expression, now.astimezone())
        previous = it.get_prev(datetime)
        before = it.get_prev(datetime)
        if last is None:
            report.add(check, "info", f"'{entry.expression}' has not run yet", "check that cron is running")
            continue
        when = datetime.fromisoformat(str(last.get("ts")))
        status = last.get("status")
        summary = f"last run {when.isoformat(timespec='minutes')} ({last.get('run_id')}): {status}"
        if status == "failed":
            report.add(
                check,
                "error",
                f"{summary}: {last.get('error')}",
                "fix the error above; see BRIEF_HOME/logs/",
                int(last.get("exit_code") or 1),
            )
        elif when < before and previous > when:
            report.add(
                check,
                "warning",
                f"{summary}; it missed the runs since {before.isoformat(timespec='minutes')}",
                "check that cron is running and the entry's command works: brief schedule run " + entry.id,
            )
        elif status in ("partial", "locked"):
            report.add(check, "warning", summary, "see the failures in BRIEF_HOME/logs/runs.jsonl")
        else:
            report.add(check, "ok", summary)


def _env_file(command: str) -> Path | None:
    """The file a line of ours loads with `set -a; . FILE; set +a`, if any."""
    import shlex

    marker = "set -a; . "
    if marker not in command:
        return None
    rest = command.split(marker, 1)[1].split("; set +a", 1)[0]
    try:
        words = shlex.split(rest)
    except ValueError:
        return None
    return Path(words[0]) if words else None


def _executable(command: str) -> str:
    """The `brief` executable a line of ours starts: the word before `--config` (or before `-m briefing`)."""
    import shlex

    try:
        words = shlex.split(command.replace(r"\%", "%"))
    except ValueError:
        return ""
    if "--config" not in words:
        return ""
    at = words.index("--config")
    if at >= 3 and words[at - 2 : at] == ["-m", "briefing"]:
        return words[at - 3]  # the interpreter of `python -m briefing`
    return words[at - 1] if at >= 1 else ""
