"""The bundled MiniLM and BM25 run without fastembed give fastembed's own vectors, value for value."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from briefing.embed import BUNDLED_DIM, Embedder, bundled_model_dir
from briefing.embed.direct import Bm25, BundledMiniLM
from briefing.settings import EmbeddingSettings
from briefing.textrules import STOPWORDS
from tests.probe import run_probe

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "src" / "briefing" / "sample"
ODD = [
    "",
    "   ",
    "Déploiement — v0.9 « fini » ! the_rollback (PLAT-142) failed; retry at 09:00?",
    "¿qué pasó? 「完了」 naïve café 東京 👍👍 ____ __init__ foo_bar",
    "word " * 400,  # longer than the model reads: truncated at 256 tokens
    "ALL CAPS AND Mixed Case, running runners ran; 3.14159 1,000,000 $5 50%",
]


def _texts() -> list[str]:
    texts = list(ODD)
    for path in sorted(SAMPLE.rglob("*")):
        if path.is_file() and path.suffix in {".md", ".json", ".txt", ".ics", ".eml"}:
            body = path.read_text(encoding="utf-8", errors="replace")
            texts += [body[i : i + 600] for i in range(0, min(len(body), 6000), 600)]
    return texts[:300]


def _fastembed_minilm(folder: Path) -> object:
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    name = "test/bundled-minilm"
    try:
        TextEmbedding.add_custom_model(
            model=name,
            pooling=PoolingType.MEAN,
            normalization=True,
            sources=ModelSource(hf="test/none"),
            dim=BUNDLED_DIM,
            model_file="model.onnx",
        )
    except ValueError:
        pass
    return TextEmbedding(name, specific_model_path=str(folder))


@pytest.mark.parametrize(
    ("batch_size", "count"),
    # The odd texts and the first of the sample's (several batches, padded to different lengths) in the fast
    # subset; all 300, which cost a minute of CPU, with the slow tests.
    [(8, 24), (32, 40), pytest.param(8, 300, marks=pytest.mark.slow), pytest.param(32, 300, marks=pytest.mark.slow)],
)
def test_the_bundled_model_gives_fastembeds_vectors(tmp_path: Path, batch_size: int, count: int) -> None:
    folder = bundled_model_dir(tmp_path)
    texts = _texts()[:count]
    theirs = np.asarray(list(_fastembed_minilm(folder).embed(texts, batch_size=batch_size)))  # type: ignore[attr-defined]
    ours = np.asarray(list(BundledMiniLM(folder, None).embed(texts, batch_size=batch_size)))
    assert ours.dtype == theirs.dtype == np.float32 and ours.shape == (len(texts), BUNDLED_DIM)
    assert np.array_equal(ours, theirs)


def test_bm25_gives_fastembeds_vectors(tmp_path: Path) -> None:
    from fastembed import SparseTextEmbedding

    texts = _texts()
    theirs = SparseTextEmbedding("Qdrant/bm25", specific_model_path=str(tmp_path / "fe"), stopwords=set(STOPWORDS))
    ours = Bm25(tmp_path / "bm25", set(STOPWORDS))
    for mine, want in zip(ours.embed(texts), theirs.embed(texts), strict=True):
        assert mine.indices.tolist() == want.indices.tolist() and mine.values.tolist() == want.values.tolist()
        assert mine.indices.dtype == want.indices.dtype and mine.values.dtype == want.values.dtype
    for mine, want in zip(ours.query_embed(texts), theirs.query_embed(texts), strict=True):
        assert mine.indices.tolist() == want.indices.tolist() and mine.values.tolist() == want.values.tolist()
    # the punctuation table is kept beside the model and read back the same
    again = Bm25(tmp_path / "bm25", set(STOPWORDS))
    assert list((tmp_path / "bm25").glob("punctuation-*.json")) and again.punctuation == ours.punctuation


def test_asking_the_bundled_models_imports_no_fastembed(tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "from pathlib import Path\n"
        "from briefing.embed import Embedder\n"
        "from briefing.settings import EmbeddingSettings\n"
        f"e = Embedder(EmbeddingSettings(), Path({str(tmp_path)!r}))\n"
        "e.dense(['the rollback failed'], query=True); e.sparse(['the rollback failed'], query=True)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('fastembed', 'huggingface_hub')))\n"
    )
    assert run_probe(probe).strip() == "[]"


def test_the_embedder_uses_them(tmp_path: Path) -> None:
    embedder = Embedder(EmbeddingSettings(), tmp_path)
    assert embedder.dense(["the database failover took ninety seconds"]).shape == (1, BUNDLED_DIM)
    assert embedder.sparse(["the rollback of the deploy"])[0].indices
