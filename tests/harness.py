"""One harness for tests that ingest: a temporary workspace driven through `briefing.pipeline`, as `brief ingest` is.

`Workspace` writes a config with the given sources into a folder and runs the real pipeline over it (raw cache,
cursor store, index). `SourceRunner` runs one connector's collection through the same pipeline and reads back
what it left in the raw cache and the cursor store, for connector tests. Both live under the test's BRIEF_HOME.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

from briefing import pipeline
from briefing.embed import Embedder
from briefing.index import Index
from briefing.model import Batch, Connector, Cursor, Normalised, RawRecord
from briefing.registry import FetchOptions
from briefing.settings import Settings, WorkspaceSettings, load_settings
from briefing.store import RawStore, SourceState

_workspaces = itertools.count(1)


def _toml(value: Any) -> str:
    return json.dumps(str(value) if isinstance(value, Path) else value)


class Workspace:
    """A config file with `sources` ({name: table}) in `root`, ingested by the real pipeline."""

    def __init__(
        self,
        root: Path,
        sources: dict[str, dict[str, Any]],
        *,
        name: str = "test",
        embedder: Embedder | None = None,
    ) -> None:
        lines = ["[workspace]", f"name = {_toml(name)}"]
        for source, table in sources.items():
            lines.append(f"[sources.{source}]")
            lines += [f"{key} = {_toml(value)}" for key, value in table.items()]
        root.mkdir(parents=True, exist_ok=True)
        self.config = root / "brief.toml"
        self.config.write_text("\n".join(lines) + "\n", encoding="utf-8")
        self.settings = load_settings(self.config)
        self.embedder = embedder or Embedder(self.settings.embedding, self.settings.home)

    def run(self, *names: str, options: FetchOptions | None = None) -> pipeline.RunSummary:
        """`brief ingest NAMES` (every source when none are named), without the CLI."""
        return pipeline.run(self.settings, list(names or self.settings.sources), options=options)

    def ingest(
        self,
        name: str,
        connector: Connector | None = None,
        *,
        options: FetchOptions | None = None,
        collect_first: bool = True,
    ) -> pipeline.SourceRun:
        """One source through the whole pipeline, with `connector` instead of the configured one if given."""
        with Index.open(self.settings) as index:
            return pipeline.run_source(
                self.settings,
                name,
                index,
                self.embedder,
                connector=connector,
                options=options,
                collect_first=collect_first,
            )

    def indexed_refs(self) -> set[str]:
        with Index.open(self.settings) as index:
            return {ref for point in index.scroll(fields=["refs"]) for ref in point.payload["refs"]}

    def cached(self, name: str) -> dict[str, RawRecord]:
        return read_cache(self.settings, name)

    def last_run(self, name: str) -> dict[str, Any]:
        return dict(SourceState.for_source(self.settings, name).data.get("last_run", {}))


def read_cache(settings: Settings, name: str) -> dict[str, RawRecord]:
    store = RawStore.for_source(settings, name)
    try:
        return {record.key: record for record in store.records()}
    finally:
        store.close()


class _Recorded:
    """A connector whose batches are recorded as the pipeline takes them, optionally stopping after `stop_after`."""

    def __init__(self, inner: Connector, batches: list[Batch], stop_after: int | None) -> None:
        self.inner = inner
        self.batches = batches
        self.stop_after = stop_after

    def initial_cursor(self) -> Cursor:
        return self.inner.initial_cursor()

    def load_cursor(self, data: dict[str, Any]) -> Cursor:
        return self.inner.load_cursor(data)

    def fetch(self, cursor: Cursor) -> Iterator[Batch]:
        for n, batch in enumerate(self.inner.fetch(cursor), start=1):
            self.batches.append(batch)
            yield batch
            if self.stop_after is not None and n >= self.stop_after:
                return  # the process stopped here: later batches are never asked for

    def normalise(self, records: Any) -> Normalised:
        return self.inner.normalise(records)


@contextmanager
def _dies_before_cursor(batch: int) -> Iterator[None]:
    """The process dies after batch `batch` (0-based) is in the raw cache and before its cursor is saved."""
    real = SourceState.save_cursor
    saved = itertools.count()

    def save_cursor(state: SourceState, cursor: dict[str, Any], **kwargs: Any) -> None:
        if next(saved) == batch:
            raise KeyboardInterrupt
        real(state, cursor, **kwargs)

    with mock.patch.object(SourceState, "save_cursor", save_cursor):
        yield


class SourceRunner:
    """One connector's collection through the real pipeline, in a workspace of its own under BRIEF_HOME."""

    name = "source"

    connector: Any = None  # the connector `collect` and `normalise` use when given none

    def __init__(self, connector: Any = None, *, home: Path | None = None) -> None:
        """`home` defaults to the test's BRIEF_HOME; fixtures wider than one test must pass one of their own."""
        if connector is not None:
            self.connector = connector
        if home is None and not os.environ.get("BRIEF_HOME"):
            raise RuntimeError("SourceRunner outside a test's BRIEF_HOME: pass home= (a tmp_path_factory folder)")
        workspace = WorkspaceSettings(name=f"runner-{next(_workspaces)}")
        self.settings = Settings(workspace=workspace, home=home) if home else Settings(workspace=workspace)
        self.failures: list[Any] = []

    def collect(
        self,
        connector: Any = None,
        *,
        options: FetchOptions | None = None,
        stop_after: int | None = None,
        crash_after: int | None = None,
    ) -> list[Batch]:
        """The batches this run stored; `stop_after=n` ends after n batches, `crash_after=n` dies before n's cursor."""
        batches: list[Batch] = []
        recorded = _Recorded(connector or self.connector, batches, stop_after)
        embedder = Embedder(self.settings.embedding, self.settings.home)  # loads nothing: no index is written
        try:
            if crash_after is None:
                pipeline.run_source(self.settings, self.name, None, embedder, options=options, connector=recorded)
            else:
                with _dies_before_cursor(crash_after):
                    pipeline.run_source(self.settings, self.name, None, embedder, options=options, connector=recorded)
        finally:
            self.failures.extend(f for batch in batches for f in batch.failures)
        return batches

    @property
    def cache(self) -> dict[str, RawRecord]:
        """The raw cache as the pipeline left it."""
        return read_cache(self.settings, self.name)

    @property
    def saved_cursor(self) -> dict[str, Any] | None:
        """The cursor as the cursor store holds it (JSON)."""
        return SourceState.for_source(self.settings, self.name).cursor

    def save_cursor(self, cursor: dict[str, Any]) -> None:
        SourceState.for_source(self.settings, self.name).save_cursor(cursor)

    def normalise(self, connector: Any = None) -> Normalised:
        """What `process` would normalise: every cached record, in the raw cache's order."""
        return (connector or self.connector).normalise(list(self.cache.values()))


def ingest_docs(root: Path, name: str, files: dict[str, str]) -> tuple[Path, Path]:
    """(config, home) of a `files` source holding `files` (relative path -> text) under `root`, ingested through
    the real pipeline into its own BRIEF_HOME; the caller's BRIEF_HOME is restored afterwards."""
    from briefing.settings import load_settings

    docs = root / "docs"
    for rel, text in files.items():
        (docs / rel).parent.mkdir(parents=True, exist_ok=True)
        (docs / rel).write_text(text, encoding="utf-8")
    config = root / "brief.toml"
    config.write_text(f'[workspace]\nname = "{name}"\n[sources.docs]\ntype = "files"\npath = "{docs}"\n')
    home = root / "home"
    saved = os.environ.get("BRIEF_HOME")
    os.environ["BRIEF_HOME"] = str(home)
    try:
        assert pipeline.run(load_settings(config), ["docs"]).failure_count == 0
    finally:
        if saved is None:
            os.environ.pop("BRIEF_HOME", None)
        else:
            os.environ["BRIEF_HOME"] = saved
    return config, home
