"""What a question would derive from the index, kept instead of derived again: sentence splits and the unit list's
BM25 vectors beside the vector cache, the vocabulary's documents by point id, the as-of condition left out after
the last write. Each gives the same answers, citations and hits as deriving it, and the derivation is skipped."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from briefing.ask import segment
from briefing.embed import Embedder
from briefing.evaluation.cases import load_cases
from briefing.index import Filter
from briefing.service import Brief
from briefing.settings import load_settings
from briefing.warm import sentence_texts, unit_list_texts
from tests.conftest import SampleIndex

pytestmark = pytest.mark.slow
CASES = load_cases(Path(__file__).resolve().parents[2] / "eval" / "sample_dev.jsonl")[:12]


@pytest.fixture
def home(use_sample: SampleIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of the sample workspace's home, to write into."""
    copy = tmp_path / "home"
    shutil.copytree(use_sample.home, copy)
    monkeypatch.setenv("BRIEF_HOME", str(copy))
    yield copy


@pytest.fixture
def segmented(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The blocks the sentence segmenter is asked to split from now on (this process's memos emptied first)."""
    asked: list[str] = []
    real = segment._segmenter()

    class Counting:
        def segment(self, text: str) -> Any:
            asked.append(text)
            return real.segment(text)  # type: ignore[attr-defined]

    segment.forget()
    monkeypatch.setattr(segment, "_segmenter", Counting)
    yield asked
    segment.forget()


def _answers(config: Path) -> list[Any]:
    out = []
    with Brief(load_settings(config)) as brief:
        for case in CASES:
            result = brief.ask(case.question, now=case.now_dt).to_json()
            hits = [(h["chunk_id"], h["score"]) for h in result["hits"]]
            out.append((result["answer"], result["citations"], result["no_answer"], hits))
    return out


def test_after_the_warm_step_answers_split_almost_nothing_and_say_the_same(
    use_sample: SampleIndex, home: Path, tmp_path: Path, segmented: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    computed = _answers(use_sample.config)  # nothing kept: the answers split every unit they read
    splits_then = len(segmented)
    assert splits_then > 0

    warmed = tmp_path / "warmed"
    shutil.copytree(use_sample.home, warmed)
    monkeypatch.setenv("BRIEF_HOME", str(warmed))
    with Brief(load_settings(use_sample.config)) as brief:
        # What the warm step (`brief warm`, a reader's background pass) does for the splits, without embedding.
        sentence_texts(brief.index.chunks(Filter()), brief.embedder, keep=brief.embedder)
    segment.forget()
    segmented.clear()
    assert _answers(use_sample.config) == computed
    # What the answers split themselves now is only what they put together (a quoted message's whole text).
    assert len(segmented) * 5 <= splits_then


def test_splits_an_answer_made_are_read_by_the_next_process(
    use_sample: SampleIndex, home: Path, segmented: list[str]
) -> None:
    first = _answers(use_sample.config)
    assert segmented
    segment.forget()  # as a new process
    segmented.clear()
    assert _answers(use_sample.config) == first
    assert segmented == []


def test_bm25_vectors_kept_by_the_warm_step_are_the_computed_ones(use_sample: SampleIndex, home: Path) -> None:
    settings = load_settings(use_sample.config)
    with Brief(settings) as brief:
        texts = unit_list_texts(brief.index.chunks(Filter()))
        computed = brief.embedder.sparse(texts)
        brief.embedder.sparse_stored(texts, keep=True)
    reader = Embedder(settings.embedding, home)  # a new process: nothing in memory
    try:
        reader._sparse_memo.clear()
        calls: list[int] = []
        reader.sparse(["warm up"])
        real = reader._sparse.weights
        reader._sparse.weights = lambda docs: calls.append(1) or real(docs)
        stored = reader.sparse_stored(texts)
    finally:
        reader.close()
    assert calls == []  # none encoded again
    assert [(v.indices, v.values) for v in stored] == [(v.indices, v.values) for v in computed]


def test_vocabulary_lookups_read_the_documents_a_search_finds(use_sample: SampleIndex) -> None:
    words = ["pgbouncer", "cutover", "aurora", "pager", "ledger", "knit", "the", "rds", "proxy", "incident"]
    with Brief(load_settings(use_sample.config)) as brief:
        vectors = brief.embedder.sparse(words, query=True)
        held = (rec.payload.get("readers") or [] for rec in brief.index.scroll(fields=["readers"]))
        readers = sorted({r for ids in held for r in ids})
        for case in CASES:
            for scope in (None, ("nobody",), *((r,) for r in readers[:2])):
                view = brief.index.view(case.now_dt, scope)
                found = view.sparse_docs(vectors, limit=8)
                searched = [[h.chunk.doc_key for h in view.search_sparse(v, limit=8)] for v in vectors]
                assert found == searched


def _read(view: Any, dense: Any, sparse: Any) -> Any:
    return (
        [(h.chunk, h.score) for h in view.search_dense(dense, limit=30)],
        [(h.chunk, h.score) for h in view.search_sparse(sparse, limit=30)],
        view.chunks(),
    )


def test_reads_after_the_last_write_are_the_same_without_the_written_condition(use_sample: SampleIndex) -> None:
    with Brief(load_settings(use_sample.config)) as brief:
        index = brief.index
        index.count()
        after = 0
        for case in CASES:
            view = index.view(case.now_dt)
            dense = brief.embedder.query_dense(case.question)
            sparse = brief.embedder.sparse([case.question], query=True)[0]

            left_out = _read(view, dense, sparse)
            assert index._last_written is not None
            gen, last = index._last_written
            after += last is not None and last <= case.now_dt.timestamp()
            index._last_written = (gen, None)  # the condition always sent
            assert _read(view, dense, sparse) == left_out
            index._last_written = (gen, last)
        assert after > 0  # the condition was left out for some of them
