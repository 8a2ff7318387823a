"""Sentence splits kept on disk beside the vector cache, so a question reads its units' sentences, not pysbd.

Splitting a unit into sentences (`briefing.ask.segment`) is the answer stage's largest cost on a text read for the
first time (about 0.6 ms a unit, and pysbd's patterns compiled once per process). A split depends on the text and
the segmenter alone, so it is kept in the on-disk vector cache under a key made of the segmenter's fingerprint (the
segmenter's own source and pysbd's version: another segmenter never reads these splits) and the text's sha256.
The warm step (`briefing.warm`: in every ingest round with `warm_at = "ingest"`, in a long-lived reader's
background pass, in `brief warm`) keeps the splits of every unit it reads; an answer reads them and keeps what it
had to split itself (units the warm step has not read yet, the quoted messages an answer puts together).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from briefing.embed import Embedder

log = logging.getLogger(__name__)


@lru_cache(maxsize=1)
def fingerprint() -> str | None:
    """The segmenter's identity: its module's source and pysbd's version file; None when either cannot be read
    (then nothing is stored or read)."""
    from briefing.ask import segment

    try:
        parts = [Path(segment.__file__).read_bytes()]
        spec = importlib.util.find_spec("pysbd")
        if spec is None or spec.origin is None:
            return None
        parts.append((Path(spec.origin).parent / "about.py").read_bytes())
    except (OSError, ImportError, ValueError):
        return None
    return hashlib.sha256(b"\0".join(parts)).hexdigest()[:16]


# Per cache folder, the keys this process read from it or wrote to it (at most this many): put again, they are
# not written again.
KNOWN_KEPT = 200_000
_KNOWN: dict[str, set[str]] = {}


class StoredSplits:
    """The splits in one disk cache (a `diskcache.Cache`); what is put is written by `flush`, in one transaction,
    unless this process read or wrote it there before."""

    def __init__(self, cache: Any, mark: str) -> None:
        self.cache = cache
        self.prefix = f"split/{mark}/"
        self.pending: dict[str, str] = {}
        self.known = _KNOWN.setdefault(str(getattr(cache, "directory", id(cache))), set())
        if len(self.known) >= KNOWN_KEPT:
            self.known.clear()

    def key(self, text: str) -> str:
        return self.prefix + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def get(self, text: str) -> tuple[str, ...] | None:
        try:
            raw = self.cache.get(self.key(text))
        except Exception:  # noqa: BLE001 - an unreadable cache only means splitting again
            return None
        if not isinstance(raw, str):
            return None
        try:
            pieces = json.loads(raw)
        except ValueError:
            return None
        if not isinstance(pieces, list) or not all(isinstance(p, str) for p in pieces):
            return None
        self.known.add(self.key(text))
        return tuple(pieces)

    def put(self, text: str, pieces: tuple[str, ...]) -> None:
        key = self.key(text)
        if key not in self.known:
            self.pending[key] = json.dumps(list(pieces))  # ASCII: lone surrogates survive as escapes

    def flush(self) -> None:
        if not self.pending:
            return
        try:
            with self.cache.transact():
                for key, value in self.pending.items():
                    self.cache.set(key, value)
            self.known.update(self.pending)
        except Exception as exc:  # noqa: BLE001 - a split not kept costs the next reader a split, never an answer
            log.debug("sentence splits not kept: %s", exc)
        self.pending.clear()


def stored_splits(embedder: Embedder) -> StoredSplits | None:
    """The splits kept in `embedder`'s vector cache, or None when the segmenter has no fingerprint."""
    mark = fingerprint()
    return StoredSplits(embedder.disk_cache(), mark) if mark is not None else None
