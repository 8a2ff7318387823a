"""`brief ingest`, `brief reindex`, `brief sources`."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from briefing.cli.common import cli_errors, err, load, out
from briefing.errors import BriefError, InputError


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


def _progress() -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
    )


def run_ingest(settings: Any, names: list[str], *, collect_first: bool, options: Any, quiet: bool = False) -> int:
    """Collect (optionally) and index each named source; returns the number of failed items.

    A source that cannot be read at all (missing folder, rejected credentials, rate limited) does not stop the
    others: they are ingested, and the error is raised at the end with the first failure's exit code.
    """
    from briefing.embed import Embedder
    from briefing.errors import IndexError_, ModelError
    from briefing.index import Index

    embedder = Embedder(settings.embedding, settings.home)
    total_failures = 0
    broken: list[tuple[str, BriefError]] = []
    table = Table("source", "fetched", "deleted", "documents", "chunks", "embedded", "failures", box=None)
    index = None if options.dry_run else Index.open(settings)
    try:
        for name in names:
            try:
                row, failures = _ingest_one(
                    settings, name, index, embedder, collect_first=collect_first, options=options
                )
            except (ModelError, IndexError_):
                raise  # not about this source: every other source would fail the same way
            except BriefError as exc:
                broken.append((name, exc))
                table.add_row(name, "-", "-", "-", "-", "-", "[red]source failed[/]")
                continue
            total_failures += len(failures)
            table.add_row(*row)
            for failure in failures[:10]:
                err.print(f"[yellow]skipped[/] {name}: {failure.key}: {failure.reason}", highlight=False)
            if len(failures) > 10:
                err.print(f"[yellow]... and {len(failures) - 10} more failures in {name} (see `brief sources`)")
    finally:
        if index is not None:
            index.close()
        embedder.close()
    if not quiet:
        out.print(table)
        if options.dry_run:
            out.print("dry run: nothing was cached, no cursor moved, nothing was indexed")
    if broken:
        first = broken[0][1]
        if len(names) == 1:
            raise first
        detail = "; ".join(f"{name}: {exc}" for name, exc in broken)
        error = type(first)(f"{len(broken)} of {len(names)} sources failed (the others were ingested): {detail}")
        raise error
    return total_failures


def _ingest_one(
    settings: Any, name: str, index: Any, embedder: Any, *, collect_first: bool, options: Any
) -> tuple[list[str], list[Any]]:
    from briefing.ingest import collect, make_connector, process, run_report
    from briefing.store import SourceState

    connector = make_connector(settings, name, options)
    collected = collect(settings, name, options, connector) if collect_first else None
    processed = None
    if not options.dry_run and index is not None:
        with _progress() as bar:
            task = bar.add_task(f"indexing {name}", total=None)

            def tick(_: str, done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            processed = process(settings, name, index, embedder, connector=connector, progress=tick)
        SourceState.for_source(settings, name).save_run(run_report(collected, processed))
    failures = (collected.failures if collected else []) + (processed.failures if processed else [])
    row = [
        name,
        str(collected.fetched if collected else "-"),
        str(collected.deleted if collected else "-"),
        str(processed.documents if processed else "-"),
        str(processed.chunks if processed else "-"),
        str(processed.embedded if processed else "-"),
        f"[red]{len(failures)}[/]" if failures else "0",
    ]
    return row, failures


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


def register(app: typer.Typer) -> None:
    @app.command()
    @cli_errors
    def ingest(
        sources: Annotated[list[str] | None, typer.Argument(help="Source names or types (default: all).")] = None,
        full: Annotated[bool, typer.Option("--full", help="Re-collect from scratch (ignore cursors).")] = False,
        since: Annotated[str | None, typer.Option(help="Only items from this date (ISO-8601).")] = None,
        until: Annotated[str | None, typer.Option(help="Only items before this date (ISO-8601).")] = None,
        dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would be fetched.")] = False,
    ) -> None:
        """Collect new and changed items from configured sources and index them."""
        from briefing.registry import FetchOptions

        settings = load()
        names = _selected(settings, sources or [])
        options = FetchOptions(full=full, since=_date(since, "--since"), until=_date(until, "--until"), dry_run=dry_run)
        failures = run_ingest(settings, names, collect_first=True, options=options)
        if failures:
            err.print(f"{failures} item(s) failed and were skipped; everything else was ingested")

    @app.command()
    @cli_errors
    def reindex(
        sources: Annotated[list[str] | None, typer.Argument(help="Source names or types (default: all).")] = None,
        full: Annotated[bool, typer.Option("--full", help="Drop the index and rebuild it from the cache.")] = False,
    ) -> None:
        """Re-chunk and re-embed from the raw cache, without contacting any source."""
        from briefing.index import Index
        from briefing.registry import FetchOptions

        settings = load()
        names = _selected(settings, sources or [])
        if full:
            with Index.open(settings) as index:
                index.drop()
        run_ingest(settings, names, collect_first=False, options=FetchOptions())

    @app.command()
    @cli_errors
    def sources(json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
        """What is configured, when it last synced, counts and failures."""
        import json

        from briefing.store import RawStore, SourceState

        settings = load()
        rows = []
        for name, config in settings.sources.items():
            st = SourceState.for_source(settings, name)
            run = st.data.get("last_run", {})
            store = RawStore.for_source(settings, name)
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
                    "cursor": st.cursor,
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
                row["name"],
                row["type"],
                finished,
                str(row["cached_records"]),
                str(run.get("chunks", "-")),
                str(run.get("failures", 0)),
                cursor_summary(row["cursor"]),
            )
        out.print(f"workspace [bold]{settings.workspace.name}[/] ({settings.config_path or 'no config file'})")
        out.print(table)
        for row in rows:
            for sample in row["last_run"].get("failure_samples", [])[:5]:
                out.print(f"  [yellow]{row['name']}[/]: {sample['key']}: {sample['reason']}", highlight=False)
