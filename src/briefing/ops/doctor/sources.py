"""Doctor checks of the configured sources: the config, each local path, each API source's credentials."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from briefing.errors import AuthError, BriefError, NotConfiguredError, SourceError
from briefing.ops.doctor.report import Report
from briefing.settings import Settings
from briefing.sources import ApiSource


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
