"""Schedules: `brief` command lines in the user's crontab (python-crontab), or in a crontab file (`--tabfile`).

Every entry `brief` writes carries the comment `brief:<id>`, and `brief` reads, changes and removes only those
lines, never the user's own. A line names the absolute path of the `brief` executable and of the config file,
sets `BRIEF_HOME` (and `PYTHONPATH` when it selects the code) and `BRIEF_SCHEDULE_ID`, so that the run log says
which schedule ran, and keeps the last run's output in `BRIEF_HOME/logs/schedule-<id>.out`.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
import unicodedata
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from briefing.errors import ConfigError, InputError, NotConfiguredError
from briefing.ops.runlog import SCHEDULE_ENV

TAG = "brief:"
INSTALL_CRON = (
    "no `crontab` command on this machine: install cron (Debian/Ubuntu: sudo apt-get install cron; "
    "Fedora/RHEL: sudo dnf install cronie; macOS has it), or write a crontab file with --tabfile FILE "
    "(or [schedule] tabfile), or print a systemd timer with --systemd"
)
_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_EVERY = re.compile(r"^(\d+)\s*(m|min|h|d)$")
_DAYS = {"SUN": "Sun", "MON": "Mon", "TUE": "Tue", "WED": "Wed", "THU": "Thu", "FRI": "Fri", "SAT": "Sat"}
_DAY_NUMBERS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


def check_id(entry_id: str) -> str:
    """A schedule id: letters, digits, `_` and `-` only (it names a log file and a systemd unit)."""
    if not _ID.fullmatch(entry_id):
        raise InputError(f"--id {entry_id!r} is not a schedule id: use 1 to 64 letters, digits, '_' or '-'")
    return entry_id


def check_text(what: str, value: str) -> str:
    """Refuse a control character (a newline would start a crontab line of its own) in any part of a line."""
    if any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in value):
        raise InputError(f"{what} {value!r} contains a control character: a schedule takes printable text only")
    return value


def every_to_cron(every: str) -> str:
    """`30m`, `2h`, `1d` as a cron expression; only periods that divide the hour or the day evenly."""
    match = _EVERY.match(every.strip().lower())
    if not match:
        raise InputError(f"--every '{every}' is not a period: use e.g. 15m, 30m, 2h or 1d (or --cron EXPR)")
    n, unit = int(match.group(1)), match.group(2)
    if unit in ("m", "min"):
        if n <= 0 or 60 % n:
            raise InputError(f"--every '{every}': minutes must divide 60 (1, 2, 5, 10, 15, 20, 30); or use --cron")
        return "* * * * *" if n == 1 else f"*/{n} * * * *"
    if unit == "h":
        if n <= 0 or 24 % n:
            raise InputError(f"--every '{every}': hours must divide 24 (1, 2, 3, 4, 6, 8, 12); or use --cron")
        return "0 * * * *" if n == 1 else f"0 */{n} * * *"
    if n != 1:
        raise InputError(f"--every '{every}': use 1d for daily runs, or --cron for other calendars")
    return "0 0 * * *"


def check_cron(expression: str) -> str:
    from croniter import croniter

    expression = " ".join(expression.split())
    if len(expression.split()) != 5 or not croniter.is_valid(expression):
        raise InputError(
            f"--cron '{expression}' is not a five-field cron expression (minute hour day month weekday): "
            'use e.g. "0 8 * * MON-FRI"'
        )
    return expression


def next_runs(expression: str, count: int = 3, now: datetime | None = None) -> list[datetime]:
    """The next `count` times cron would start this entry, in local time (cron's own clock)."""
    from croniter import croniter

    start = (now or datetime.now(UTC)).astimezone()
    it = croniter(expression, start)
    return [it.get_next(datetime) for _ in range(count)]


def brief_executable() -> list[str]:
    """How to start this very `brief`: its console script beside the interpreter, else `python -m briefing`."""
    beside = Path(sys.executable).parent / "brief"
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    found = shutil.which("brief")
    if found:
        return [str(Path(found).resolve())]
    return [str(Path(sys.executable).resolve()), "-m", "briefing"]


@dataclass(frozen=True)
class Entry:
    """One schedule as it stands in the crontab."""

    id: str
    expression: str
    command: str  # the shell command cron runs
    args: tuple[str, ...]  # the brief arguments, for display
    enabled: bool

    def to_json(self, runs: int = 3) -> dict[str, object]:
        return {
            "id": self.id,
            "cron": self.expression,
            "args": list(self.args),
            "command": self.command,
            "enabled": self.enabled,
            "next_runs": [t.isoformat() for t in next_runs(self.expression, runs)] if self.enabled else [],
        }


def _args_of(command: str) -> tuple[str, ...]:
    """The brief arguments of a line we wrote (after `--log-format json`), for display."""
    try:
        words = shlex.split(command)
    except ValueError:
        return ()
    if "--log-format" in words:
        start = words.index("--log-format") + 2
        end = words.index(">") if ">" in words else len(words)
        return tuple(words[start:end])
    return ()


class Crontab:
    """The crontab `brief` edits: the user's (through the `crontab` command) or a crontab file."""

    def __init__(self, tabfile: Path | None = None) -> None:
        from crontab import CronTab

        self.tabfile = tabfile
        if tabfile is None:
            if shutil.which("crontab") is None:
                raise NotConfiguredError(INSTALL_CRON)
            self.tab = CronTab(user=True)
            self.where = "your crontab"
        else:
            tabfile = tabfile.expanduser()
            if tabfile.exists() and not tabfile.is_file():
                raise ConfigError(f"--tabfile {tabfile} is not a file: name a crontab file to write")
            tabfile.parent.mkdir(parents=True, exist_ok=True)
            if not tabfile.exists():
                tabfile.write_text("", encoding="utf-8")
            self.tab = CronTab(tabfile=str(tabfile))
            self.where = str(tabfile)

    def entries(self) -> list[Entry]:
        found = []
        for job in self.tab:
            comment = job.comment or ""
            if not comment.startswith(TAG):
                continue  # not ours: never read, changed or removed
            found.append(
                Entry(
                    id=comment[len(TAG) :],
                    expression=str(job.slices),
                    command=str(job.command),
                    args=_args_of(str(job.command)),
                    enabled=bool(job.is_enabled()),
                )
            )
        return found

    def get(self, entry_id: str) -> Entry:
        for entry in self.entries():
            if entry.id == entry_id:
                return entry
        known = ", ".join(e.id for e in self.entries()) or "none"
        raise InputError(
            f"no schedule '{entry_id}' in {self.where} (brief's schedules: {known}); see `brief schedule list`"
        )

    def add(self, entry_id: str, expression: str, command: str) -> Entry:
        check_id(entry_id)
        check_text("the command line", command)
        check_text("the cron expression", expression)
        if any(e.id == entry_id for e in self.entries()):
            raise InputError(
                f"schedule '{entry_id}' already exists in {self.where}: remove it first or pick another id"
            )
        job = self.tab.new(command=command, comment=TAG + entry_id)
        job.setall(expression)
        if not job.is_valid():
            raise InputError(f"cron rejected the schedule '{expression}': use a five-field cron expression")
        self.tab.write()
        return self.get(entry_id)

    def remove(self, entry_id: str) -> Entry:
        entry = self.get(entry_id)
        self.tab.remove_all(comment=TAG + entry_id)
        self.tab.write()
        return entry


def new_id(args: list[str]) -> str:
    return f"{args[0] if args else 'brief'}-{uuid.uuid4().hex[:6]}"


def command_line(
    args: list[str],
    *,
    entry_id: str,
    config: Path | None,
    home: Path,
    env_file: Path | None = None,
) -> str:
    """The shell line cron runs: environment, absolute executable and config, JSON logs, output kept per entry.

    Every part is checked for control characters first: a newline anywhere would let an argument or a path
    write a crontab line (a command) of its own."""
    check_id(entry_id)
    for arg in args:
        check_text("the argument", arg)
    check_text("BRIEF_HOME", str(home))
    if config is not None:
        check_text("the config path", str(config.resolve()))
    if env_file is not None:
        check_text("--env-file", str(env_file.expanduser().resolve()))
    if os.environ.get("PYTHONPATH"):
        check_text("PYTHONPATH", os.environ["PYTHONPATH"])
    for word in brief_executable():
        check_text("the brief executable", word)
    logs = home.expanduser().resolve() / "logs"
    # The output file below is opened by the shell, so its folder must exist first (BRIEF_HOME may be new).
    parts: list[str] = [f"mkdir -p {shlex.quote(str(logs))};"]
    if env_file is not None:
        # `set -a` exports what the file assigns (the tokens the config names); the file stays the user's.
        parts.append(f"set -a; . {shlex.quote(str(env_file.expanduser().resolve()))}; set +a;")
    env = {"BRIEF_HOME": str(home.expanduser().resolve()), SCHEDULE_ENV: entry_id}
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    parts += [f"{name}={shlex.quote(value)}" for name, value in env.items()]
    parts += [shlex.quote(word) for word in brief_executable()]
    if config is not None:
        parts += ["--config", shlex.quote(str(config.resolve()))]
    parts += ["--log-format", "json"]
    parts += [shlex.quote(a) for a in args]
    out = home.expanduser().resolve() / "logs" / f"schedule-{entry_id}.out"
    parts += [">", shlex.quote(str(out)), "2>&1"]
    line = check_text("the command line", " ".join(parts))
    # cron turns an unescaped % into a newline (stdin for the command).
    return line.replace("%", r"\%")


def cron_to_oncalendar(expression: str) -> str:
    """A five-field cron expression as a systemd OnCalendar= value (lists, ranges, steps, day names)."""
    minute, hour, dom, month, dow = expression.split()
    if dom != "*" and dow != "*":
        # cron starts on either (day of month OR weekday); systemd needs both: no faithful translation.
        raise InputError(f"'{expression}' sets both a day of the month and a weekday: no equivalent systemd timer")

    def field(value: str, *, pad: bool = True) -> str:
        if value == "*":
            return "*"
        out = []
        for part in value.split(","):
            if part.startswith("*/"):
                out.append(f"0/{part[2:]}" if pad else f"1/{part[2:]}")
            elif "/" in part:
                base, step = part.split("/")
                out.append(f"{base.split('-')[0]}/{step}")
            elif "-" in part:
                low, high = part.split("-")
                out.append(f"{low}..{high}")
            else:
                out.append(part.zfill(2) if pad else part)
        return ",".join(out)

    def day(value: str) -> str:
        if value.isdigit():
            return _DAY_NUMBERS[int(value)]
        return _DAYS.get(value.upper(), value)

    days = ""
    if dow != "*":
        names = []
        for part in dow.split(","):
            if "-" in part:
                low, high = part.split("-")
                names.append(f"{day(low)}..{day(high)}")
            else:
                names.append(day(part))
        days = ",".join(names) + " "
    date = f"*-{field(month, pad=False) if month != '*' else '*'}-{field(dom, pad=False) if dom != '*' else '*'}"
    return f"{days}{date} {field(hour)}:{field(minute)}:00"


def systemd_units(entry_id: str, expression: str, command: str) -> str:
    """An equivalent systemd service + timer pair, to install as user units."""
    check_id(entry_id)
    check_text("the command line", command)
    check_text("the cron expression", expression)
    on_calendar = cron_to_oncalendar(expression)
    unit = f"brief-{entry_id}"
    exec_line = command.replace(r"\%", "%%")
    return (
        f"# ~/.config/systemd/user/{unit}.service\n"
        "[Unit]\n"
        f"Description=brief schedule {entry_id}\n\n"
        "[Service]\n"
        "Type=oneshot\n"
        f"ExecStart=/bin/sh -c {shlex.quote(exec_line)}\n\n"
        f"# ~/.config/systemd/user/{unit}.timer\n"
        "[Unit]\n"
        f"Description=brief schedule {entry_id} ({expression})\n\n"
        "[Timer]\n"
        f"OnCalendar={on_calendar}\n"
        "Persistent=true\n\n"
        "[Install]\n"
        "WantedBy=timers.target\n\n"
        f"# then: systemctl --user daemon-reload && systemctl --user enable --now {unit}.timer\n"
    )


def output_path(home: Path, entry_id: str) -> Path:
    check_id(entry_id)
    return home.expanduser().resolve() / "logs" / f"schedule-{entry_id}.out"


def run_entry(entry: Entry) -> int:
    """Run the entry's line exactly as cron does (`/bin/sh -c`, `\\%` unescaped); returns its exit code."""
    import subprocess

    line = entry.command.replace(r"\%", "%")
    return subprocess.run(["/bin/sh", "-c", line], check=False).returncode
