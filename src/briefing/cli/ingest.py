"""`brief ingest`, `brief reindex`, `brief warm`, `brief sources`."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from briefing.cli.common import AsOpt, cli_errors, err, escape, load, out, state
from briefing.errors import BriefError, InputError

if TYPE_CHECKING:
    from briefing.ingest.reports import RunSummary


def _date(value: str | None, option: str) -> datetime | None:
    if not value:
        return None
    from briefing.service import parse_now

    try:
        return parse_now(value)
    except InputError:
        raise InputError(f"{option} '{value}' is not an ISO-8601 date: use e.g. 2026-06-01") from None


def _selected(settings: Any, names: list[str]) -> list[str]:
    from briefing.errors import NotConfiguredError

    if not settings.sources:
        where = settings.config_path or "no config file found (./brief.toml or $BRIEF_HOME/brief.toml)"
        raise NotConfiguredError(f"no sources are configured ({where}): add a [sources.NAME] table")
    if not names:
        return [n for n, c in settings.sources.items() if c.enabled]
    chosen: list[str] = []
    for name in names:
        if name in settings.sources:
            chosen.append(name)
            continue
        by_type = [n for n, c in settings.sources.items() if c.type == name]
        if not by_type:
            settings.source(name)  # raises the "unknown source" error naming the config
        chosen.extend(by_type)
    return list(dict.fromkeys(chosen))


def print_skipped(summary: RunSummary) -> None:
    """The first skipped items of each source, on stderr."""
    for run in summary.sources:
        for notice in run.notices:
            err.print("[yellow]note[/] " + escape(notice), highlight=False, soft_wrap=True)
        failures = run.failures
        for failure in failures[:10]:
            err.print(
                f"[yellow]skipped[/] {escape(run.name)}: {escape(failure.key)}: {escape(failure.reason)}",
                highlight=False,
            )
        if len(failures) > 10:
            err.print(f"[yellow]... and {len(failures) - 10} more failures in {escape(run.name)} (see `brief sources`)")


def _count(report: Any, attribute: str) -> str:
    return str(getattr(report, attribute)) if report is not None else "-"


def summary_table(summary: RunSummary) -> Table:
    """One row per source: what was fetched, deleted, chunked and embedded, and how many items failed."""
    table = Table("source", "fetched", "deleted", "documents", "chunks", "embedded", "failures", box=None)
    for run in summary.sources:
        if run.error is not None:
            table.add_row(escape(run.name), "-", "-", "-", "-", "-", "[red]source failed[/]")
            continue
        failures = len(run.failures)
        table.add_row(
            escape(run.name),
            _count(run.collected, "fetched"),
            _count(run.collected, "deleted"),
            _count(run.processed, "documents"),
            _count(run.processed, "chunks"),
            _count(run.processed, "embedded"),
            f"[red]{failures}[/]" if failures else "0",
        )
    return table


def run_ingest(settings: Any, names: list[str], *, collect_first: bool, options: Any, rebuild: bool = False) -> int:
    """Run the pipeline with progress bars, print its results, and return the number of failed items.

    A source that could not be read does not stop the others; its error is raised after the table is printed.
    """
    from briefing import pipeline
    from briefing.cli.progress import ProgressDisplay
    from briefing.ops import disk

    if not options.dry_run:
        disk.check_free(settings.home)
    try:
        with ProgressDisplay() as bars:
            summary = pipeline.run(
                settings, names, collect_first=collect_first, options=options, progress=bars, rebuild=rebuild
            )
    except OSError as exc:
        if disk.is_disk_full(exc):
            raise disk.full_disk(settings.home, exc) from None
        raise
    print_skipped(summary)
    out.print(summary_table(summary))
    if summary.dry_run:
        out.print("dry run: nothing was cached, no cursor moved, nothing was indexed")
    error = summary.error()
    if error is not None:
        raise error
    return summary.failure_count


def cursor_summary(cursor: dict[str, Any] | None, width: int = 48) -> str:
    """A cursor in a few words: scalar values as they are, collections by their size."""
    if not cursor:
        return "-"
    parts = []
    for key, value in cursor.items():
        if isinstance(value, dict | list):
            parts.append(f"{key}: {len(value)}")
        elif value is not None:
            parts.append(f"{key}: {str(value)[:19]}")
    text = ", ".join(parts)
    return text if len(text) <= width else text[: width - 1] + "…"


def complete_source(ctx: typer.Context, incomplete: str) -> list[str]:
    """Shell completion: the configured source names and types (nothing, quietly, when the config is broken)."""
    from briefing.settings import load_settings

    config = (ctx.find_root().params or {}).get("config")
    try:
        settings = load_settings(config)
    except BriefError:
        return []
    candidates = list(settings.sources) + sorted({c.type for c in settings.sources.values()})
    return [c for c in dict.fromkeys(candidates) if c.startswith(incomplete)]


SourcesArg = Annotated[
    list[str] | None,
    typer.Argument(help="Source names or types (default: all).", autocompletion=complete_source),
]


def register(app: typer.Typer) -> None:
    @app.command()
    @cli_errors
    def ingest(
        sources: SourcesArg = None,
        full: Annotated[bool, typer.Option("--full", help="Re-collect from scratch (ignore cursors).")] = False,
        since: Annotated[str | None, typer.Option(help="Only items from this date (ISO-8601).")] = None,
        until: Annotated[str | None, typer.Option(help="Only items before this date (ISO-8601).")] = None,
        dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would be fetched.")] = False,
        allow_deletions: Annotated[
            bool,
            typer.Option(
                "--allow-deletions",
                help="With --full: accept that a source lost most of its items (sync.max_deletion_share).",
            ),
        ] = False,
    ) -> None:
        """Collect new and changed items from configured sources and index them.

        Examples: `brief ingest` (every source); `brief ingest team-slack --since 2026-05-01`;
        `brief ingest slack_export --dry-run`.
        """
        from briefing.registry import FetchOptions

        settings = load()
        names = _selected(settings, sources or [])
        if allow_deletions and not full:
            raise InputError("--allow-deletions needs --full: a mass deletion is accepted only on a full re-collection")
        options = FetchOptions(
            full=full,
            since=_date(since, "--since"),
            until=_date(until, "--until"),
            dry_run=dry_run,
            allow_deletions=allow_deletions,
        )
        failures = run_ingest(settings, names, collect_first=True, options=options)
        if failures:
            err.print(f"{failures} item(s) failed and were skipped; everything else was ingested")

    @app.command()
    @cli_errors
    def reindex(
        sources: SourcesArg = None,
        full: Annotated[
            bool,
            typer.Option(
                "--full",
                help="Rebuild the index from the raw cache (also migrates an index from an older engine); "
                "asks keep using the old index until the new one is complete.",
            ),
        ] = False,
    ) -> None:
        """Re-chunk and re-embed from the raw cache, without contacting any source.

        Examples: `brief reindex` (after a chunking change); `brief reindex --full` (after changing the model).
        """
        from briefing.index import Index
        from briefing.registry import FetchOptions

        settings = load()
        names = _selected(settings, sources or [])
        if full:
            aside = Index.retire_damaged(settings)
            if aside is not None:
                err.print(f"[yellow]note[/] the damaged index was moved to {escape(aside)}; rebuilding it")
            err.print("rebuilding the index from the raw cache (no source is contacted)")
        run_ingest(settings, names, collect_first=False, options=FetchOptions(), rebuild=full)

    @app.command()
    @cli_errors
    def warm() -> None:
        """Embed ahead of time the texts questions read (each message under its chunk's header, answer sentences).

        For workspaces read by one-shot `brief ask`; long-lived readers (mcp, slack-bot, serve) warm by themselves.

        Examples: `brief ingest && brief warm` (from cron, after each ingest); `brief warm` (after a reindex).
        """
        from briefing.warm_reader import warm_now

        done = warm_now(load())
        err.print(f"vector cache warmed: {done.chunks} chunks read, {done.embedded} texts embedded")

    @app.command()
    @cli_errors
    def sources(
        json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False, as_person: AsOpt = None
    ) -> None:
        """What is configured, when it last synced, counts and failures (`--as`: what that person may see)."""
        import json

        from briefing import access
        from briefing.errors import DiskFullError, StateError
        from briefing.store import RawStore, SourceState

        settings = load(as_person)
        principal = access.principal_for(settings)
        visible = None if principal.owner else access.visible_chunks(settings, principal)
        rows = []
        for name, config in settings.sources.items():
            st = SourceState.for_source(settings, name)
            run = st.data.get("last_run", {})
            if visible is not None:
                rows.append(
                    {
                        "name": name,
                        "type": config.type,
                        "enabled": config.enabled,
                        "cached_records": "-",
                        "cursor": "-",
                        "last_run": access.scoped_run(run, visible[name]),
                    }
                )
                continue
            try:
                store = RawStore.for_source(settings, name)
            except StateError as exc:
                cached: int | str = "disk full" if isinstance(exc, DiskFullError) else "damaged"
                err.print(f"[red]{cached}[/] {escape(exc)}", highlight=False, soft_wrap=True)
            else:
                try:
                    cached = len(store)
                finally:
                    store.close()
            rows.append(
                {
                    "name": name,
                    "type": config.type,
                    "enabled": config.enabled,
                    "cached_records": cached,
                    # The whole cursor (every channel's position, every file's hash) only with --verbose.
                    "cursor": st.cursor if state.verbose else cursor_summary(st.cursor),
                    "last_run": run,
                }
            )
        if json_out:
            print(json.dumps({"workspace": settings.workspace.name, "sources": rows}, indent=2, default=str))
            return
        table = Table("source", "type", "last sync", "cached", "chunks", "failures", "cursor", box=None)
        for row in rows:
            run = row["last_run"]
            finished = str(run.get("finished_at", "never"))[:16].replace("T", " ")
            table.add_row(
                escape(row["name"]),
                escape(row["type"]),
                escape(finished),
                escape(row["cached_records"]),
                escape(run.get("chunks", "-")),
                escape(run.get("failures", 0)),
                escape(row["cursor"] if isinstance(row["cursor"], str) else cursor_summary(row["cursor"])),
            )
        where = escape(settings.config_path or "no config file")
        out.print(f"workspace [bold]{escape(settings.workspace.name)}[/] ({where})")
        out.print(table)
        for row in rows:
            for sample in row["last_run"].get("failure_samples", [])[:5]:
                out.print(
                    f"  [yellow]{escape(row['name'])}[/]: {escape(sample['key'])}: {escape(sample['reason'])}",
                    highlight=False,
                )
