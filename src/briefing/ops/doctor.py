"""`brief doctor`: what is wrong with this setup, each problem with its fix.

Checks the config, each API source's credentials (one cheap authenticated call: the first batch of a dry-run
fetch, which opens with the vendor's identity or search call), the model files (sha256), the index (collection,
vector size, model, payload indexes, points against the raw cache), the raw cache, disk space, the schedules and
the last run of each. The exit code is the worst finding's: 0 when everything is fine or informational,
1 for warnings, and for errors the exit code of the error family (5 for rejected credentials, ...).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from briefing.errors import AuthError, BriefError, ConfigError, IndexError_, ModelError, NotConfiguredError, SourceError
from briefing.ops import runlog
from briefing.settings import Settings
from briefing.sources import ApiSource

SEVERITY = {"ok": 0, "info": 1, "warning": 2, "error": 3}
LOW_DISK_WARN = 2 * 1024**3
LOW_DISK_ERROR = 200 * 1024**2


@dataclass
class Finding:
    check: str
    severity: str  # ok, info, warning, error
    message: str
    fix: str = ""
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "severity": self.severity,
            "message": self.message,
            "fix": self.fix,
            "exit_code": self.exit_code,
        }


@dataclass
class Report:
    findings: list[Finding] = field(default_factory=list)

    def add(self, check: str, severity: str, message: str, fix: str = "", exit_code: int | None = None) -> None:
        code = exit_code if exit_code is not None else {"ok": 0, "info": 0, "warning": 1, "error": 1}[severity]
        self.findings.append(Finding(check, severity, message, fix, code))

    def error(self, check: str, exc: BriefError, fix: str = "") -> None:
        self.add(check, "error", str(exc), fix, exc.exit_code)

    @property
    def exit_code(self) -> int:
        worst = max((SEVERITY[f.severity] for f in self.findings), default=0)
        if worst < SEVERITY["warning"]:
            return 0
        worst_codes = [f.exit_code for f in self.findings if SEVERITY[f.severity] == worst]
        # The first error that has its own family's code (5 credentials, 2 config, ...) says most.
        return next((code for code in worst_codes if code > 1), 1)

    def to_json(self) -> dict[str, Any]:
        counts = {s: sum(f.severity == s for f in self.findings) for s in SEVERITY}
        return {"exit_code": self.exit_code, "counts": counts, "findings": [f.to_json() for f in self.findings]}


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else 0


def _human(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"


def check_config(report: Report, settings: Settings) -> None:
    where = settings.config_path or "no config file (./brief.toml or $BRIEF_HOME/brief.toml)"
    if not settings.sources:
        report.add("config", "error", f"no sources are configured ({where})", "add a [sources.NAME] table", exit_code=3)
        return
    enabled = [n for n, c in settings.sources.items() if c.enabled]
    report.add("config", "ok", f"{where}: {len(settings.sources)} sources ({len(enabled)} enabled)")


def check_paths(report: Report, settings: Settings) -> None:
    """Sources read from a local path (exports, folders, repositories, mailboxes): the path must be there."""
    for name, config in settings.sources.items():
        value = getattr(config, "path", None)
        if not config.enabled or not isinstance(value, str | Path):
            continue
        path = settings.resolve(Path(value))
        if not path.exists():
            report.add(
                f"source {name}",
                "error",
                f"sources.{name}.path {path} does not exist",
                "fix the path (relative paths resolve against the config file's folder)",
                SourceError.exit_code,
            )
        elif not os.access(path, os.R_OK):
            report.add(
                f"source {name}", "error", f"{path} is not readable", "fix its permissions", SourceError.exit_code
            )
        else:
            report.add(f"source {name}", "ok", f"{path} is readable")


def check_credentials(report: Report, settings: Settings, probe: Callable[[Settings, str], None] | None = None) -> None:
    for name, config in settings.sources.items():
        if not config.enabled or not isinstance(config, ApiSource):
            continue
        check = f"credentials {name}"
        try:
            (probe or _probe)(settings, name)
        except AuthError as exc:
            report.error(check, exc, "export a valid credential in the environment variable named above")
        except NotConfiguredError as exc:
            report.add(check, "info", str(exc))
        except BriefError as exc:
            report.error(check, exc, f"check sources.{name}.base_url and that the service is reachable")
        except Exception as exc:  # an SDK failure the connector did not map: still one line
            report.add(check, "error", f"{name}: {type(exc).__name__}: {exc}", "run `brief ingest` with --verbose")
        else:
            report.add(check, "ok", f"{name}: the {config.type} API accepted the credentials")


def _probe(settings: Settings, name: str) -> None:
    """One authenticated round trip: a connector's `check()` if it has one, else the first batch of a dry run."""
    from briefing.ingest import make_connector
    from briefing.registry import FetchOptions

    connector = make_connector(settings, name, FetchOptions(dry_run=True))
    check = getattr(connector, "check", None)
    if callable(check):
        check()
        return
    batches = connector.fetch(connector.initial_cursor())
    try:
        next(iter(batches), None)
    finally:
        close = getattr(batches, "close", None)
        if callable(close):
            close()


def check_models(report: Report, settings: Settings) -> None:
    from briefing.embed import BUNDLED, BUNDLED_FILES, _package_file, _sha256

    emb = settings.embedding
    if emb.model == BUNDLED and emb.path is None:
        for name, (package, relative, expected) in BUNDLED_FILES.items():
            try:
                path = _package_file(package, relative)
            except ModelError as exc:
                report.error("model", exc)
                continue
            if not path.is_file():
                report.add("model", "error", f"{path} is missing", f"reinstall the '{package}' package", 8)
            elif _sha256(path) != expected:
                report.add(
                    "model",
                    "error",
                    f"{path}: sha256 differs from the one brief was built with",
                    f"pin the '{package}' version from brief's dependencies",
                    8,
                )
            else:
                report.add("model", "ok", f"{name}: sha256 {expected[:12]}... verified")
        return
    if emb.path is not None:
        folder = settings.resolve(emb.path)
        missing = [f for f in ("model.onnx", "tokenizer.json") if not (folder / f).is_file()]
        if missing:
            report.add(
                "model",
                "error",
                f"[embedding] path {folder} lacks {', '.join(missing)}",
                "point path at a folder with the ONNX model and its tokenizer files",
                8,
            )
        else:
            report.add("model", "ok", f"[embedding] path {folder} has model.onnx and tokenizer.json")
        return
    report.add("model", "info", f"[embedding] model '{emb.model}' is fetched by fastembed; not checked offline")


def check_index(report: Report, settings: Settings) -> None:
    from briefing.embed import Embedder
    from briefing.index import PAYLOAD_INDEXES, ClientIndex, Filter, Index, content_hash, payload_to_chunk
    from briefing.store import RawStore

    try:
        index = Index.open(settings)
    except BriefError as exc:
        report.error("index", exc)
        return
    try:
        if not index.exists():
            report.add(
                "index", "warning", f"no collection '{index.collection}' at {index.location}", "run `brief ingest`"
            )
            return
        size = index.dense_size()
        embedder = Embedder(settings.embedding, settings.home)
        try:
            dim, model = embedder.dim, embedder.name
        except ModelError as exc:
            report.error("index", exc)
            return
        finally:
            embedder.close()
        if size != dim:
            report.add(
                "index",
                "error",
                f"the index holds {size}-d vectors, [embedding] model '{model}' gives {dim}-d",
                "run `brief reindex --full`",
                IndexError_.exit_code,
            )
        else:
            report.add("index", "ok", f"collection '{index.collection}': {dim}-d vectors, {index.count()} points")
        sample = next(iter(index.scroll(Filter())), None)
        if sample is not None and sample.payload.get("hash") != content_hash(payload_to_chunk(sample.payload), model):
            report.add(
                "index",
                "warning",
                f"indexed chunks were embedded with another model than '{model}'",
                "run `brief reindex` to re-embed them",
            )
        if isinstance(index, ClientIndex) and index.location.startswith(("http://", "https://")):
            info = index.client.get_collection(index.collection)
            present = set(getattr(info, "payload_schema", {}) or {})
            missing = sorted(set(PAYLOAD_INDEXES) - present)
            if missing:
                report.add(
                    "index",
                    "warning",
                    f"payload indexes missing: {', '.join(missing)}",
                    "run `brief reindex --full` (or create them) so filtered searches stay fast",
                )
            else:
                report.add("index", "ok", "payload indexes present")
        for name in settings.sources:
            store = RawStore.for_source(settings, name)
            try:
                cached = len(store)
            finally:
                store.close()
            points = index.count(Filter(source_names=(name,)))
            if cached and not points:
                report.add(
                    "index",
                    "warning",
                    f"{name}: {cached} cached records but no chunks in the index",
                    f"run `brief reindex {name}`",
                )
            elif points and not cached:
                report.add(
                    "index",
                    "warning",
                    f"{name}: {points} chunks in the index but nothing in the raw cache",
                    f"run `brief ingest {name} --full`",
                )
            elif cached:
                report.add("index", "ok", f"{name}: {cached} cached records, {points} chunks")
    except Exception as exc:  # a damaged collection: still one line
        report.add(
            "index",
            "error",
            f"the index at {index.location} cannot be read: {type(exc).__name__}: {exc}",
            "run `brief reindex --full`",
            IndexError_.exit_code,
        )
    finally:
        index.close()


def check_cache(report: Report, settings: Settings) -> None:
    raw = settings.workspace_home / "raw"
    if not raw.exists():
        report.add("cache", "info", f"no raw cache yet at {raw}", "run `brief ingest`")
        return
    try:
        size = _size(raw)
        sources = sorted(p.name for p in raw.iterdir() if p.is_dir())
    except OSError as exc:
        report.add(
            "cache", "error", f"{raw} cannot be read: {exc.strerror}", "fix its permissions", SourceError.exit_code
        )
        return
    orphans = sorted(set(sources) - set(settings.sources))
    report.add("cache", "ok", f"{raw}: {_human(size)} for {len(sources)} sources")
    if orphans:
        report.add(
            "cache",
            "info",
            f"cached data of sources no longer configured: {', '.join(orphans)}",
            f"delete {raw}/<name> to reclaim the space",
        )


def check_disk(report: Report, settings: Settings) -> None:
    home = settings.home
    probe = home if home.exists() else home.parent
    while not probe.exists():
        probe = probe.parent
    free = shutil.disk_usage(probe).free
    if free < LOW_DISK_ERROR:
        report.add("disk", "error", f"only {_human(free)} free under {probe}", "free disk space or move BRIEF_HOME")
    elif free < LOW_DISK_WARN:
        report.add("disk", "warning", f"{_human(free)} free under {probe}", "free disk space before the next ingest")
    else:
        report.add("disk", "ok", f"{_human(free)} free under {probe}")


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


def run_checks(
    settings: Settings,
    *,
    tabfile: Path | None = None,
    online: bool = True,
    probe: Callable[[Settings, str], None] | None = None,
) -> Report:
    report = Report()
    check_config(report, settings)
    check_paths(report, settings)
    if online:
        check_credentials(report, settings, probe)
    check_models(report, settings)
    check_index(report, settings)
    check_cache(report, settings)
    check_disk(report, settings)
    check_schedules(report, settings, tabfile)
    return report
