"""The ingest pipeline: cursor after records, idempotent re-ingest, deletions reach the index, bad items counted."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest

from briefing.embed import Embedder
from briefing.errors import SourceError
from briefing.model import Batch, Cursor, Document, Failure, Item, Normalised, RawRecord
from briefing.registry import FetchOptions
from briefing.store import SourceState
from tests.harness import Workspace


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


@pytest.fixture(scope="module")
def embedder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Embedder]:
    from briefing.settings import EmbeddingSettings

    emb = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("models"))
    yield emb
    emb.close()


@pytest.fixture
def ws(tmp_path: Path, embedder: Embedder) -> Workspace:
    (tmp_path / "docs").mkdir()
    return Workspace(tmp_path, {"notes": {"type": "files", "path": "docs"}}, embedder=embedder)


PAGES = [["alpha release notes"], ["beta rollout plan", "gamma incident review"], ["delta hiring update"]]
NOTES = {"file:note-0-0.md", "file:note-1-0.md", "file:note-1-1.md", "file:note-2-0.md"}


@pytest.mark.slow
def test_crash_mid_run_resumes_without_gaps_or_duplicates(ws: Workspace) -> None:
    with pytest.raises(RuntimeError):
        ws.ingest("notes", FakeConnector(PAGES, crash_at=2))
    assert SourceState.for_source(ws.settings, "notes").cursor == {"page": 2}  # moved past the stored pages only
    assert set(ws.cached("notes")) == {"note-0-0", "note-1-0", "note-1-1"}

    resumed = FakeConnector(PAGES)
    run = ws.ingest("notes", resumed)
    assert resumed.started_from == 2
    assert run.collected is not None and run.collected.fetched == 1
    assert len(ws.cached("notes")) == 4
    assert ws.indexed_refs() == NOTES  # the resumed run indexes what the crashed one had cached too


def test_failures_are_counted_not_fatal(ws: Workspace) -> None:
    run = ws.ingest("notes", FakeConnector(PAGES))
    assert run.error is None
    assert run.collected is not None and run.collected.fetched == 4
    assert [f.key for f in run.failures] == ["bad-1"]
    assert ws.indexed_refs() == NOTES
    record = ws.last_run("notes")  # what `brief sources` shows
    assert record["failures"] == 1 and record["failure_samples"] == [{"key": "bad-1", "reason": "unparseable"}]


def test_dry_run_caches_nothing_and_keeps_cursor(ws: Workspace) -> None:
    (ws.settings.resolve(Path("docs")) / "a.md").write_text("# A\n\nSeen, but neither cached nor indexed.\n")
    summary = ws.run(options=FetchOptions(dry_run=True))
    assert summary.dry_run and [run.name for run in summary.sources] == ["notes"]
    run = summary.sources[0]
    assert run.collected is not None and run.collected.fetched == 1 and run.processed is None
    assert SourceState.for_source(ws.settings, "notes").cursor is None
    assert ws.cached("notes") == {}
    assert ws.last_run("notes") == {}


def test_reingest_is_idempotent_and_deleted_files_leave_the_index(ws: Workspace) -> None:
    docs = ws.settings.resolve(Path("docs"))
    (docs / "runbook.md").write_text("# Deploy runbook\n\nRoll back with `make rollback` within five minutes.\n")
    (docs / "oncall.md").write_text("# On-call\n\nThe on-call engineer answers pages within fifteen minutes.\n")
    first = ws.ingest("notes").processed
    assert first is not None and first.embedded == first.chunks > 0
    assert ws.indexed_refs() == {"file:runbook.md", "file:oncall.md"}

    second = ws.ingest("notes").processed
    assert second is not None and second.embedded == 0 and second.unchanged == first.chunks

    (docs / "oncall.md").unlink()
    third = ws.ingest("notes").processed
    assert third is not None and third.removed >= 1
    assert ws.indexed_refs() == {"file:runbook.md"}


def test_reindex_works_from_the_cache_alone(ws: Workspace) -> None:
    ws.ingest("notes", FakeConnector(PAGES))
    run = ws.ingest("notes", FakeConnector(PAGES, crash_at=0), collect_first=False)  # the source is never read
    assert run.collected is None and run.processed is not None and run.processed.documents == 4
    assert ws.indexed_refs() == NOTES


@pytest.mark.slow
def test_an_unreadable_source_is_reported_and_the_others_are_ingested(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "runbook.md").write_text("# Runbook\n\nRestart the ledger with `make restart`.\n")
    ws = Workspace(
        tmp_path,
        {"archive": {"type": "slack_export", "path": "missing-export"}, "docs": {"type": "files", "path": "docs"}},
    )
    from briefing import pipeline
    from briefing.ingest.progress import SourceProgress

    progress: list[SourceProgress] = []
    summary = pipeline.run(ws.settings, ["archive", "docs"], progress=progress.append)
    assert [run.name for run in summary.broken] == ["archive"]
    error = summary.error()
    assert isinstance(error, SourceError)
    assert str(error).startswith("1 of 2 sources failed (the others were ingested): archive: ")
    assert "missing-export" in str(error)
    assert ws.indexed_refs() == {"file:runbook.md"}
    seen = [(p.source, p.stage) for p in progress]
    assert seen[0] == ("archive", "collecting") and ("archive", "done") not in seen  # the broken source never ends
    assert seen[-1] == ("docs", "done") and ("docs", "indexing") in seen
    assert (progress[-1].items, progress[-1].embedded) == (1, 1)

    alone = pipeline.run(ws.settings, ["archive"]).error()
    assert isinstance(alone, SourceError) and "sources failed" not in str(alone)  # one source: its own message
