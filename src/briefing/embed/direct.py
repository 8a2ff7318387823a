"""The bundled MiniLM and BM25 without importing fastembed: the same vectors, at a fraction of the start-up.

fastembed's package imports its image models and the Hugging Face hub client on its first import (about 0.4 s of
CPU in every new process), and its BM25 model rebuilds a table of Unicode punctuation each time it is made. The
two models brief always uses are small enough to run here with the libraries fastembed runs them with:
`BundledMiniLM` is fastembed's custom-model path for the bundled int8 MiniLM (its tokenizer set-up, the same
onnxruntime session options, mean pooling in float64 and L2 normalisation), and `Bm25` is fastembed's `Qdrant/bm25`
(its tokeniser, stemmer, stop words, term frequencies and token hashes). `tests/test_embed_direct.py` checks both
against fastembed, vector for vector; any other model still goes through fastembed (`briefing.embed.models`).
"""

from __future__ import annotations

import json
import re
import sys
import threading
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

K, B, AVG_LEN, TOKEN_MAX_LENGTH = 1.2, 0.75, 256.0, 40  # fastembed's BM25 defaults
STEMS_KEPT = 200_000  # words a process keeps the stems of (a few MB)

_NON_ALNUM = re.compile(r"[^\w\s]", flags=re.UNICODE)
_NON_WORD = re.compile(r"[^\w]")


def punctuation(folder: Path) -> set[str]:
    """Every character of Unicode category P (what fastembed's BM25 drops), kept in a file under `folder` keyed
    by the Unicode version, since building it tests all 1.1 million code points (0.14 s of CPU)."""
    table = folder / f"punctuation-{unicodedata.unidata_version}-{sys.maxunicode}.json"
    try:
        return set(json.loads(table.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        pass
    chars = {chr(i) for i in range(sys.maxunicode) if unicodedata.category(chr(i)).startswith("P")}
    tmp = table.with_suffix(f".{threading.get_ident()}.tmp")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(sorted(chars)), encoding="utf-8")
        tmp.replace(table)
    except OSError:
        tmp.unlink(missing_ok=True)  # a read-only home only costs the rebuild next time
    return chars


class Sparse:
    """A sparse vector as fastembed returns one (`indices`, `values` numpy arrays)."""

    def __init__(self, indices: np.ndarray, values: np.ndarray) -> None:
        self.indices = indices
        self.values = values


class Bm25:
    """fastembed's `Qdrant/bm25` (English stemmer, the given stop words), without fastembed."""

    def __init__(self, folder: Path, stopwords: set[str]) -> None:
        import mmh3
        from py_rust_stemmers import SnowballStemmer

        self._hash = mmh3.hash
        self.stemmer = SnowballStemmer("english")
        self.stopwords = {word.lower() for word in stopwords}
        self.punctuation = punctuation(folder)
        # Each word's stem ("" for a word left out), kept for the process: most words of a text were met before.
        self._stems: dict[str, str] = {}

    def _stem(self, token: str) -> str:
        lower = token.lower()
        if token in self.punctuation or lower in self.stopwords or len(token) > TOKEN_MAX_LENGTH:
            return ""
        return str(self.stemmer.stem_word(lower) or "")

    def _tokens(self, text: str) -> list[str]:
        # fastembed also collapses runs of spaces first, which `split()` does by itself.
        text = _NON_WORD.sub(" ", _NON_ALNUM.sub(" ", text).lower())
        stems = self._stems
        if len(stems) > STEMS_KEPT:
            stems.clear()
        out = []
        for token in text.split():
            stemmed = stems.get(token)
            if stemmed is None:
                stemmed = stems[token] = self._stem(token)
            if stemmed:
                out.append(stemmed)
        return out

    def token_id(self, token: str) -> int:
        return abs(self._hash(token))

    def weights(self, documents: Iterable[str]) -> Iterator[tuple[list[int], list[float]]]:
        """Each document's term ids and weights as lists (what `embed` puts in numpy arrays)."""
        for document in documents:
            tokens = self._tokens(document)
            # The same operations, in the same order, as fastembed's: the same floats.
            norm = K * (1 - B + B * len(tokens) / AVG_LEN)
            tf: dict[int, float] = {}
            for token, seen in Counter(tokens).items():
                tf[self.token_id(token)] = seen * (K + 1) / (seen + norm)
            yield list(tf), list(tf.values())

    def embed(self, documents: Iterable[str], batch_size: int = 256) -> Iterator[Sparse]:
        for indices, values in self.weights(documents):
            if not indices:
                yield Sparse(np.array([], dtype=np.int64), np.array([]))
                continue
            yield Sparse(np.array(indices), np.array(values))

    def query_embed(self, queries: Iterable[str]) -> Iterator[Sparse]:
        for query in queries:
            ids = np.array(list({self.token_id(t) for t in self._tokens(query)}), dtype=np.int64)
            yield Sparse(ids, np.ones_like(ids))


def _tokenizer(folder: Path) -> Any:
    """The tokenizer as fastembed's `load_tokenizer` sets it up from the model folder's files."""
    from tokenizers import AddedToken, Tokenizer

    config_path = folder / "config.json"
    config = json.loads(config_path.read_text(encoding="utf-8")) if config_path.is_file() else {}
    tokenizer_config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    limits = [
        v
        for v in (tokenizer_config.get("model_max_length"), tokenizer_config.get("max_length"))
        if isinstance(v, int) and not isinstance(v, bool) and 0 < v <= sys.maxsize
    ]
    special_path = folder / "special_tokens_map.json"
    special = json.loads(special_path.read_text(encoding="utf-8")) if special_path.is_file() else {}
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    truncation = tokenizer.truncation or {}
    tokenizer.enable_truncation(
        max_length=min(limits),
        direction=tokenizer_config.get("truncation_side") or truncation.get("direction", "right"),
    )
    for value in special.values():
        for token in value if isinstance(value, list) else [value]:
            if isinstance(token, str):
                tokenizer.add_special_tokens([token])
            elif isinstance(token, dict):
                tokenizer.add_special_tokens([AddedToken(**token)])
    padding = tokenizer.padding or {}
    pad_token = padding.get("pad_token") or tokenizer_config.get("pad_token")
    pad_id = padding.get("pad_id", config.get("pad_token_id"))
    if pad_id is None:
        pad_id = tokenizer.token_to_id(pad_token)
    tokenizer.enable_padding(
        direction=tokenizer_config.get("padding_side") or padding.get("direction", "right"),
        pad_id=pad_id,
        pad_type_id=padding.get("pad_type_id", 0),
        pad_token=pad_token,
        pad_to_multiple_of=padding.get("pad_to_multiple_of"),
        length=None,
    )
    return tokenizer


class BundledMiniLM:
    """The bundled int8 all-MiniLM-L6-v2 as fastembed runs it (mean pooling, normalised), behind its `embed`."""

    def __init__(self, folder: Path, threads: int | None) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if threads is not None:
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = threads
        # onnxruntime's workers otherwise spin after each run, burning CPU a question's next steps pay for (the
        # same kernels and partitions run either way: the vectors do not change).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = ort.InferenceSession(
            str(folder / "model.onnx"), providers=["CPUExecutionProvider"], sess_options=options
        )
        self.inputs = {node.name for node in self.session.get_inputs()}
        self.tokenizer = _tokenizer(folder)

    def embed(self, texts: Sequence[str], batch_size: int = 256) -> Iterator[np.ndarray]:
        for start in range(0, len(texts), batch_size):
            yield from self._batch(list(texts[start : start + batch_size]))

    def _batch(self, texts: list[str]) -> Iterator[np.ndarray]:
        encoded = self.tokenizer.encode_batch(texts)
        input_ids = np.array([e.ids for e in encoded])
        attention_mask = np.array([e.attention_mask for e in encoded])
        feed: dict[str, np.ndarray] = {"input_ids": np.array(input_ids, dtype=np.int64)}
        if "attention_mask" in self.inputs:
            feed["attention_mask"] = np.array(attention_mask, dtype=np.int64)
        if "token_type_ids" in self.inputs:
            feed["token_type_ids"] = np.array([np.zeros(len(e), dtype=np.int64) for e in input_ids], dtype=np.int64)
        output = self.session.run(None, feed)[0]
        mask = feed.get("attention_mask", attention_mask)
        summed = np.sum(output, axis=1, where=mask[:, :, np.newaxis].astype(bool), dtype=np.float64)
        pooled = summed / np.maximum(np.sum(mask, axis=1, keepdims=True), 1e-9)
        norm = np.maximum(np.linalg.norm(pooled, ord=2, axis=1, keepdims=True), 1e-12)
        yield from (pooled / norm).astype(output.dtype, copy=False)
