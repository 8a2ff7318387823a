"""Memory bounded by streaming inside one item (issue 16): a large document is chunked section by section and its
chunks are embedded and upserted while it is still being chunked; the order of the steps shows it."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from briefing.ingest import EMBED_QUEUE_DEPTH
from briefing.model import ChunkLimits, Document, Item
from chunkers.documents import chunk_document, stream_document
from tests.test_crash_safety import brief_ingest


def _long_text(paragraphs: int) -> str:
    return "\n\n".join(
        f"Step {n}: drain the queue on shard {n}, then check the replica lag again." for n in range(paragraphs)
    )


@pytest.mark.slow
def test_one_large_document_is_embedded_while_it_is_still_being_chunked(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "runbook.txt").write_text(_long_text(1200), encoding="utf-8")
    (tmp_path / "brief.toml").write_text(
        '[workspace]\nname = "stream"\n[sources.docs]\ntype = "files"\npath = "docs"\n'
        "[chunking.kinds.document]\nmax_chars = 300\n[embedding]\nround_chunks = 64\n",
        encoding="utf-8",
    )
    traced = brief_ingest(tmp_path, tmp_path / "home", kill="trace")
    assert traced.returncode == 0, traced.stderr[-2000:]
    steps = [line.rsplit(" ", 1)[-1] for line in traced.stderr.splitlines() if line.startswith("kill point reached")]
    # One document of many embedding rounds of chunks (64 each): "chunk" is reached once, when it is done. The
    # rounds go to the embedding thread through a queue of EMBED_QUEUE_DEPTH, so with more full rounds than the
    # queue and the thread hold, the chunker has to wait for the first round to be embedded and upserted.
    assert steps.count("chunk") == 1 and steps.count("embed") >= EMBED_QUEUE_DEPTH + 3
    assert steps.index("embed") < steps.index("chunk")
    assert steps.index("index.upsert") < steps.index("chunk")


def test_a_document_streams_the_same_chunks_it_chunks() -> None:
    text = "# Runbook\n\n" + "\n\n".join(f"## Part {p}\n\n{_long_text(30)}" for p in range(5))
    item = Item(
        ref="file:runbook.md",
        source_type="files",
        kind="file",
        text=text,
        occurred_at=datetime(2026, 5, 1, tzinfo=UTC),
        metadata={"format": "markdown"},
    )
    doc = Document(key="file:runbook.md", kind="document", source_type="files", title="Runbook", items=[item])
    limits = ChunkLimits(max_chars=400)
    stream = stream_document(doc, limits=limits)
    first = next(stream)  # made before the rest of the document is cut
    whole = chunk_document(doc, limits=limits)
    assert len(whole) > 10
    assert [c.text for c in [first, *stream]] == [c.text for c in whole]
    assert [c.chunk_id for c in whole] == [f"file:runbook.md::{n}" for n in range(len(whole))]
