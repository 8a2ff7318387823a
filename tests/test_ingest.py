"""The ingest runner: cursor after records, idempotent re-ingest, deletions reach the index, bad items counted."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest

from briefing.embed import Embedder
from briefing.index import Index
from briefing.ingest import collect, process
from briefing.model import Batch, Cursor, Document, Failure, Item, Normalised, RawRecord
from briefing.registry import FetchOptions
from briefing.settings import Settings, load_settings
from briefing.store import RawStore, SourceState


class PageCursor(Cursor):
    page: int = 0


class FakeConnector:
    """Three pages of notes; optionally crashes before page `crash_at`."""

    def __init__(self, pages: list[list[str]], crash_at: int | None = None) -> None:
        self.pages = pages
        self.crash_at = crash_at
        self.started_from: int | None = None

    def initial_cursor(self) -> PageCursor:
        return PageCursor()

    def load_cursor(self, data: dict[str, object]) -> PageCursor:
        return PageCursor.model_validate(data)

    def fetch(self, cursor: Cursor) -> Iterator[Batch]:
        assert isinstance(cursor, PageCursor)
        self.started_from = cursor.page
        for page in range(cursor.page, len(self.pages)):
            if page == self.crash_at:
                raise RuntimeError("network went away")
            records = [
                RawRecord(key=f"note-{page}-{i}", kind="note", data={"text": t}) for i, t in enumerate(self.pages[page])
            ]
            failures = [Failure(key=f"bad-{page}", reason="unparseable")] if page == 1 else []
            yield Batch(records=records, cursor=PageCursor(page=page + 1), failures=failures)

    def normalise(self, records: Sequence[RawRecord]) -> Normalised:
        docs = [
            Document(
                key=f"file:{r.key}.md",
                kind="document",
                source_type="files",
                title=r.key,
                items=[
                    Item(
                        ref=f"file:{r.key}.md",
                        source_type="files",
                        kind="file",
                        text=r.data["text"],
                        occurred_at=datetime(2026, 6, 1, tzinfo=UTC),
                    )
                ],
            )
            for r in records
        ]
        return Normalised(documents=docs)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    config = tmp_path / "brief.toml"
    (tmp_path / "docs").mkdir()
    config.write_text('[workspace]\nname = "t"\n[sources.notes]\ntype = "files"\npath = "docs"\n')
    return load_settings(config)


@pytest.fixture(scope="module")
def embedder(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    from briefing.settings import EmbeddingSettings

    return Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("models"))


PAGES = [["alpha release notes"], ["beta rollout plan", "gamma incident review"], ["delta hiring update"]]


def test_crash_mid_run_resumes_without_gaps_or_duplicates(settings: Settings) -> None:
    with pytest.raises(RuntimeError):
        collect(settings, "notes", FetchOptions(), FakeConnector(PAGES, crash_at=2))
    state = SourceState.for_source(settings, "notes")
    assert state.cursor == {"page": 2}  # moved past the two stored pages only
    store = RawStore.for_source(settings, "notes")
    assert store.keys() == {"note-0-0", "note-1-0", "note-1-1"}
    store.close()

    resumed = FakeConnector(PAGES)
    report = collect(settings, "notes", FetchOptions(), resumed)
    assert resumed.started_from == 2
    assert report.fetched == 1
    store = RawStore.for_source(settings, "notes")
    assert len(store) == 4
    store.close()


def test_failures_are_counted_not_fatal(settings: Settings) -> None:
    report = collect(settings, "notes", FetchOptions(), FakeConnector(PAGES))
    assert report.fetched == 4
    assert [f.key for f in report.failures] == ["bad-1"]


def test_dry_run_caches_nothing_and_keeps_cursor(settings: Settings) -> None:
    report = collect(settings, "notes", FetchOptions(dry_run=True), FakeConnector(PAGES))
    assert report.fetched == 4
    assert SourceState.for_source(settings, "notes").cursor is None
    store = RawStore.for_source(settings, "notes")
    assert len(store) == 0
    store.close()


def test_reingest_is_idempotent_and_deleted_files_leave_the_index(settings: Settings, embedder: Embedder) -> None:
    docs = settings.resolve(Path("docs"))
    (docs / "runbook.md").write_text("# Deploy runbook\n\nRoll back with `make rollback` within five minutes.\n")
    (docs / "oncall.md").write_text("# On-call\n\nThe on-call engineer answers pages within fifteen minutes.\n")
    with Index.open(settings) as index:
        collect(settings, "notes", FetchOptions())
        first = process(settings, "notes", index, embedder)
        assert first.embedded == first.chunks > 0
        count = index.count()

        collect(settings, "notes", FetchOptions())
        second = process(settings, "notes", index, embedder)
        assert second.embedded == 0 and second.unchanged == first.chunks
        assert index.count() == count

        (docs / "oncall.md").unlink()
        collect(settings, "notes", FetchOptions())
        third = process(settings, "notes", index, embedder)
        assert third.removed >= 1
        refs = {ref for p in index.scroll() for ref in p.payload["refs"]}
        assert refs == {"file:runbook.md"}
