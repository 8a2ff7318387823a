"""A re-ingest chunks only the documents that changed, and leaves the index exactly as a full re-chunk would."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from briefing import pipeline
from briefing.embed import Embedder
from briefing.index import Index
from briefing.ingest import records
from tests.harness import Workspace

FILES = {
    "runbook.md": "# Deploy runbook\n\nRoll back with `make rollback` within five minutes.\n",
    "oncall.md": "# On-call\n\nThe on-call engineer answers pages within fifteen minutes.\n",
    "hiring.md": "# Hiring\n\nTwo backend engineers join in March; onboarding takes a week.\n",
}


@pytest.fixture(scope="module")
def embedder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Embedder]:
    from briefing.settings import EmbeddingSettings

    emb = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("models"))
    yield emb
    emb.close()


@pytest.fixture
def ws(tmp_path: Path, embedder: Embedder) -> Workspace:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in FILES.items():
        (docs / name).write_text(text, encoding="utf-8")
    return Workspace(tmp_path, {"notes": {"type": "files", "path": "docs"}}, embedder=embedder)


def snapshot(ws: Workspace) -> dict[str, dict[str, Any]]:
    """Every stored chunk's whole payload, by chunk id."""
    with Index.open(ws.settings) as index:
        return {p.payload["chunk_id"]: p.payload for p in index.scroll()}


def processed(ws: Workspace, **kwargs: Any) -> Any:
    report = ws.ingest("notes", **kwargs).processed
    assert report is not None and not report.failures
    return report


@pytest.mark.slow
def test_a_reingest_with_nothing_changed_chunks_nothing_and_keeps_the_index(ws: Workspace) -> None:
    first = processed(ws)
    assert first.rechunked == 3 and first.embedded == first.chunks > 0
    before = snapshot(ws)

    second = processed(ws)
    assert second.rechunked == 0 and second.embedded == 0 and second.removed == 0
    assert (second.documents, second.chunks, second.unchanged) == (3, first.chunks, first.chunks)
    assert snapshot(ws) == before
    assert ws.last_run("notes")["chunks"] == first.chunks  # what `brief sources` shows is unchanged


def test_one_changed_document_is_chunked_alone_and_a_deleted_one_leaves(ws: Workspace) -> None:
    processed(ws)
    docs = ws.settings.resolve(Path("docs"))
    (docs / "oncall.md").write_text("# On-call\n\nPages are answered within ten minutes, day and night.\n")
    changed = processed(ws)
    assert changed.rechunked == 1 and changed.embedded >= 1
    texts = " ".join(p["text"] for p in snapshot(ws).values())
    assert "ten minutes" in texts and "fifteen minutes" not in texts

    (docs / "hiring.md").unlink()
    gone = processed(ws)
    assert gone.rechunked == 0 and gone.removed >= 1
    assert ws.indexed_refs() == {"file:runbook.md", "file:oncall.md"}


def test_changed_chunking_settings_or_chunker_code_rechunk_every_document(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    processed(ws)
    ws.settings = ws.settings.model_copy(
        update={"chunking": ws.settings.chunking.model_copy(update={"doc_max_chars": 400})}
    )
    assert processed(ws).rechunked == 3
    assert processed(ws).rechunked == 0

    monkeypatch.setattr(records, "_code_digest", lambda: "another chunker")
    assert processed(ws).rechunked == 3


@pytest.mark.slow
def test_reindex_rechunks_everything_and_ends_with_the_same_index(ws: Workspace) -> None:
    processed(ws)
    before = snapshot(ws)
    summary = pipeline.run(ws.settings, ["notes"], collect_first=False, rebuild=True)
    run = summary.sources[0].processed
    assert run is not None and run.rechunked == 3 and run.embedded == run.chunks
    assert snapshot(ws) == before


def test_a_document_whose_chunks_left_the_index_is_chunked_again(ws: Workspace) -> None:
    """The record is written before the index publishes: chunks lost in between are found missing, not trusted."""
    first = processed(ws)
    with Index.open(ws.settings) as index:
        lost = [p.payload["chunk_id"] for p in index.scroll() if p.payload["doc_key"] == "file:hiring.md"]
        index.delete_ids(lost)
    again = processed(ws)
    assert again.rechunked == 1 and again.embedded == len(lost) and again.chunks == first.chunks
    assert "file:hiring.md" in ws.indexed_refs()


def test_a_damaged_record_costs_a_rechunk_not_the_run(ws: Workspace) -> None:
    processed(ws)
    path = ws.settings.workspace_home / "state" / "notes.chunked.json"
    path.write_text("{not json", encoding="utf-8")
    assert processed(ws).rechunked == 3
    assert processed(ws).rechunked == 0


def test_a_new_audience_reaches_unchanged_documents_without_embedding_them(ws: Workspace) -> None:
    processed(ws)
    assert {tuple(p["readers"] or ()) for p in snapshot(ws).values()} == {()}  # the owner's only
    ws.settings = ws.settings.model_copy(
        update={
            "sources": {
                "notes": ws.settings.sources["notes"].model_copy(update={"audience": ["everyone"]}),
            }
        }
    )
    opened = processed(ws)
    assert opened.rechunked == 3 and opened.embedded == 0
    assert all(p["readers"] for p in snapshot(ws).values())
