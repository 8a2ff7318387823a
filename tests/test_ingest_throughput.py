"""Ingest spends model time only on what changed: a no-op re-ingest embeds nothing, the conversation summaries
reuse their chunks' vectors, and the embedding thread (`briefing.ingest.EmbedQueue`) loses no error."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from briefing import summaries
from briefing.embed import Embedder
from briefing.errors import ModelError
from briefing.index import Filter, Index
from briefing.settings import load_settings
from tests.harness import Workspace

SLACK = Path(__file__).parent / "fixtures" / "slack_export" / "acme"


@pytest.fixture
def model_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, list[str]]]]:
    """Every text handed to the dense or the sparse model, through the real models."""
    calls: list[tuple[str, list[str]]] = []
    dense, sparse = Embedder.dense, Embedder.sparse

    def counted_dense(self: Embedder, texts: Any, **kw: Any) -> Any:
        calls.append(("query" if kw.get("query") else "dense", list(texts)))
        return dense(self, texts, **kw)

    def counted_sparse(self: Embedder, texts: Any, **kw: Any) -> Any:
        calls.append(("sparse", list(texts)))
        return sparse(self, texts, **kw)

    monkeypatch.setattr(Embedder, "dense", counted_dense)
    monkeypatch.setattr(Embedder, "sparse", counted_sparse)
    yield calls


def workspace(tmp_path: Path, extra: str = "") -> Workspace:
    docs = tmp_path / "docs"
    docs.mkdir(parents=True)
    (docs / "pool.md").write_text(
        "# Connection pool\n\nThe PgBouncer pool of 20 was exhausted by retries during the outage.\n\n"
        "We raised default_pool_size to 60 and added jitter to the payout-worker retries.\n",
        encoding="utf-8",
    )
    (docs / "oncall.md").write_text(
        "# On call\n\nThe on-call engineer acknowledges a page within 15 minutes and opens an incident channel.\n",
        encoding="utf-8",
    )
    ws = Workspace(
        tmp_path / "ws",
        {"chat": {"type": "slack_export", "path": str(SLACK)}, "handbook": {"type": "files", "path": str(docs)}},
    )
    if extra:
        ws.config.write_text(ws.config.read_text(encoding="utf-8") + extra, encoding="utf-8")
        ws.settings = load_settings(ws.config)
        ws.settings.home = tmp_path / "home"  # its own vector cache
        ws.embedder = Embedder(ws.settings.embedding, ws.settings.home)
    return ws


QUESTIONS = [
    ("search", "who reviews the cutover steps for PLAT-42?"),
    ("ask", "when did the cutover finish?"),
    ("ask", "what happened to the PgBouncer pool during the outage?"),
    ("search", "is the replica lag alert back to normal?"),
]


def _first_questions(ws: Workspace, calls: list[tuple[str, list[str]]]) -> list[str]:
    """The passage texts (not questions) the dense model embeds for the first searches and asks after an ingest."""
    from briefing.service import Brief, parse_now

    calls.clear()
    with Brief(ws.settings) as brief:
        for kind, question in QUESTIONS:
            if kind == "search":
                assert brief.search(question, now=parse_now(None)).hits
            else:
                assert brief.ask(question, now=parse_now(None)).citations
    return [text for kind, texts in calls if kind == "dense" for text in texts]


@pytest.mark.slow
def test_after_an_ingest_the_first_searches_and_asks_embed_only_their_questions(
    tmp_path: Path, model_calls: list[tuple[str, list[str]]]
) -> None:
    from briefing.warm import sentence_texts, unit_list_texts

    cold = workspace(tmp_path / "cold", "[embedding]\nwarm_cache = false\n")
    assert not cold.run().broken
    with Index.open(cold.settings) as index:
        chunks = index.chunks(Filter())
    assert chunks
    embedded_cold = _first_questions(cold, model_calls)
    # Without warming, the questions embed the candidates' units and sentences (what made them slow).
    assert set(embedded_cold) & set(unit_list_texts(chunks))
    assert set(embedded_cold) & {t[:300] for t in sentence_texts(chunks, cold.embedder)}

    ws = workspace(tmp_path / "warm", '[embedding]\nwarm_at = "ingest"\n')
    model_calls.clear()
    first = ws.run()
    assert not first.broken
    assert sum(run.processed.warmed for run in first.sources if run.processed) > 0
    ingest_texts = {text for kind, texts in model_calls if kind == "dense" for text in texts}
    assert ingest_texts >= set(unit_list_texts(chunks))  # warmed at ingest, in the embedding rounds
    assert _first_questions(ws, model_calls) == []

    model_calls.clear()  # a no-op re-ingest warms nothing and embeds nothing
    second = ws.run()
    assert not second.broken
    assert [texts for _, texts in model_calls if texts] == []
    assert all(run.processed is not None and run.processed.warmed == 0 for run in second.sources)


@pytest.mark.slow
def test_without_warm_sentences_ingest_warms_units_and_each_answer_sentence_is_embedded_once(
    tmp_path: Path, model_calls: list[tuple[str, list[str]]]
) -> None:
    from briefing.warm import sentence_texts, unit_list_texts

    ws = workspace(tmp_path, '[embedding]\nwarm_sentences = false\nwarm_at = "ingest"\n')
    assert not ws.run().broken
    with Index.open(ws.settings) as index:
        chunks = index.chunks(Filter())
    ingest_texts = {text for kind, texts in model_calls if kind == "dense" for text in texts}
    units = set(unit_list_texts(chunks))
    sentences = {t[:300] for t in sentence_texts(chunks, ws.embedder)}
    assert ingest_texts >= units  # the searches' units are warmed
    assert sentences - ingest_texts  # the answers' sentences are not (a message's own text may be: topic splits)
    first = _first_questions(ws, model_calls)
    assert first and set(first) <= sentences  # the first asks embed their sentences, nothing else
    assert _first_questions(ws, model_calls) == []  # once: asked again, every vector comes from the cache


@pytest.mark.slow
def test_a_noop_reingest_hands_no_text_to_any_model(tmp_path: Path, model_calls: list[tuple[str, list[str]]]) -> None:
    ws = workspace(tmp_path)
    first = ws.run()
    assert not first.broken
    assert all(run.processed is not None and run.processed.embedded > 0 for run in first.sources)
    assert summaries.available(ws.settings)
    model_calls.clear()

    second = ws.run()
    assert not second.broken
    assert [texts for _, texts in model_calls if texts] == []  # chunks, topic vectors, summaries: nothing
    for run in second.sources:
        assert run.processed is not None and run.processed.embedded == 0
        assert run.processed.unchanged == run.processed.chunks > 0


@pytest.mark.slow
def test_summaries_take_their_conversations_chunk_vectors_and_embed_no_summary_text(
    tmp_path: Path, model_calls: list[tuple[str, list[str]]]
) -> None:
    # Warming off: a one-message conversation's summary text can be the same text as that message read under its
    # header, which the warming embeds for the retriever's unit list, not for the summary.
    ws = workspace(tmp_path, "[embedding]\nwarm_cache = false\n")
    assert not ws.run().broken
    with Index.open(summaries.summary_settings(ws.settings)) as made:
        summary_chunks = made.chunks(Filter())
        summary_vectors = made.dense_vectors([c.chunk_id for c in summary_chunks])
    assert len(summary_chunks) >= 2
    dense_texts = {text for kind, texts in model_calls if kind == "dense" for text in texts}
    assert not dense_texts & {c.text for c in summary_chunks}  # the model never saw a summary
    sparse_texts = {text for kind, texts in model_calls if kind == "sparse" for text in texts}
    assert {c.text for c in summary_chunks} <= sparse_texts  # BM25 still reads the summary's own words
    with Index.open(ws.settings) as index:
        for summary in summary_chunks:
            own = index.chunks(Filter(doc_keys=(summary.doc_key,)))
            vectors = list(index.dense_vectors([c.chunk_id for c in own]).values())
            assert len(vectors) == len(own) > 0
            centroid = np.mean(vectors, axis=0)
            centroid /= np.linalg.norm(centroid)
            assert np.allclose(summary_vectors[summary.chunk_id], centroid, atol=1e-5)


@pytest.mark.slow
def test_an_error_in_the_embedding_thread_fails_the_run_and_keeps_the_rounds_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for n in range(70):  # two embedding rounds (64 + 6 chunks)
        (docs / f"note-{n:02d}.md").write_text(f"# Note {n}\n\nRelease train {n} leaves on day {n % 7}.\n")
    ws = Workspace(tmp_path / "ws", {"notes": {"type": "files", "path": str(docs)}})
    ws.config.write_text(ws.config.read_text(encoding="utf-8") + "[embedding]\nround_chunks = 64\n", encoding="utf-8")
    ws.settings = load_settings(ws.config)
    dense = Embedder.dense
    rounds: list[int] = []

    def second_round_fails(self: Embedder, texts: Any, **kw: Any) -> Any:
        if all(text.startswith("Note ") for text in texts):  # a round of chunks, not the cache warming after it
            rounds.append(len(texts))
            tokens = [self.count_tokens(text) for text in texts]
            assert tokens == sorted(tokens)  # a round reaches the model sorted by tokens: its batches pad least
            if len(rounds) == 2:
                raise ModelError("the model failed on the second round")
        return dense(self, texts, **kw)

    monkeypatch.setattr(Embedder, "dense", second_round_fails)
    with pytest.raises(ModelError, match="second round"):
        ws.run()
    assert rounds == [64, 6]
    assert len(ws.indexed_refs()) == 64  # the round embedded before the error is kept, as it always was

    monkeypatch.setattr(Embedder, "dense", dense)
    from briefing import pipeline
    from briefing.ingest.progress import SourceProgress

    progress: list[SourceProgress] = []
    run = pipeline.run(ws.settings, ["notes"], progress=progress.append)
    assert not run.broken
    processed = run.sources[0].processed
    assert processed is not None and (processed.embedded, processed.unchanged) == (6, 64)
    assert len(ws.indexed_refs()) == 70
    assert progress[0].stage == "collecting"
    assert [(p.stage, p.embedded, p.to_embed) for p in progress if p.embedded] == [
        ("indexing", 6, 6),  # only the round that was lost is embedded again
        ("done", 6, 6),
    ]
    assert (progress[-1].items, progress[-1].chunks) == (70, 70)


@pytest.mark.parametrize("engine", ["edge", "local"])
@pytest.mark.slow
def test_both_engines_give_back_the_stored_dense_vectors(tmp_path: Path, engine: str) -> None:
    from tests.test_index_engines import CHUNKS, _dense, _settings, _write

    with Index.open(_settings(tmp_path, engine)) as index:
        _write(index, CHUNKS)
        index.commit()
        got = index.dense_vectors([c.chunk_id for c in CHUNKS] + ["slack:general:not-stored"])
    assert set(got) == {c.chunk_id for c in CHUNKS}
    for chunk in CHUNKS:
        assert np.allclose(got[chunk.chunk_id], _dense(int(chunk.chunk_id.rsplit(":", 1)[1])), atol=1e-6)
