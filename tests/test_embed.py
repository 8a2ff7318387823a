"""Offline embeddings: the bundled model loads without a network; a model that cannot be loaded fails fast."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from briefing.embed import BUNDLED_DIM, Embedder, bundled_model_dir
from briefing.errors import ModelError
from briefing.settings import EmbeddingSettings


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
    import briefing.embed as embed

    fake = tmp_path / "pkg"
    fake.mkdir()
    (fake / "model.onnx").write_bytes(b"not a model")
    monkeypatch.setattr(embed, "_package_file", lambda package, relative: fake / Path(relative).name)
    (fake / "tokenizer.json").write_text("{}")
    with pytest.raises(ModelError, match="sha256"):
        bundled_model_dir(tmp_path / "home")
