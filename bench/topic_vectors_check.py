"""Topic vectors asked for vs every message embedded: the same chunks? (a script, not a timed test)

    BRIEF_HOME=/tmp/sample-home python bench/topic_vectors_check.py /tmp/sample/brief.toml

Collects each source of the workspace into the raw cache (offline sources only), then chunks its documents twice:
through `briefing.ingest.chunk_documents` (vectors only where a chunker asks for them) and by calling each
chunker with a vector for every item of every splittable document. The vectors come from a hash of each text
(4-d, so that topics shift often), not from a model: the check is about the chunk boundaries, and a hash is fast
and deterministic. Prints per source the chunks, the splittable messages, how many were embedded, and whether the
two chunk lists are identical.
"""

from __future__ import annotations

import hashlib
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from briefing import ingest, registry  # noqa: E402
from briefing.embed import Embedder  # noqa: E402
from briefing.registry import FetchOptions  # noqa: E402
from briefing.settings import load_settings  # noqa: E402
from briefing.store import RawStore  # noqa: E402


def vec(text: str) -> np.ndarray:
    v = np.frombuffer(hashlib.sha256(text.encode()).digest()[:4], dtype=np.uint8).astype(np.float32) - 127.5
    return v / np.linalg.norm(v)


class HashEmbedder(Embedder):
    def __init__(self, settings: Any, home: Path) -> None:
        super().__init__(settings, home)
        self.embedded = 0

    def dense(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        self.embedded += len(texts)
        return np.asarray([vec(t) for t in texts], dtype=np.float32)


def main() -> None:
    settings = load_settings(Path(sys.argv[1]))
    for name in settings.sources:
        ingest.collect(settings, name, FetchOptions())
        store = RawStore.for_source(settings, name)
        try:
            records = list(store.records())
        finally:
            store.close()
        docs = ingest.make_connector(settings, name).normalise(records).documents
        embedder = HashEmbedder(settings.embedding, Path(tempfile.mkdtemp()))
        asked = []
        for first in range(0, len(docs), ingest.DOCUMENT_WINDOW):
            asked += ingest.chunk_documents(settings, docs[first : first + ingest.DOCUMENT_WINDOW], embedder, name)[0]
        every = []
        splittable = 0
        for doc in docs:
            can = ingest._can_split(doc)
            splittable += len(doc.items) if can else 0
            vectors = {i.ref: vec(i.text[:2000]).tolist() for i in doc.items} if can else None
            limits = ingest.kind_limits(settings, registry.kind(doc.kind), embedder.count_tokens)
            every += registry.chunker_for(doc.kind)(doc, limits=limits, vectors=vectors)
        same = [(c.chunk_id, c.text, c.refs) for c in asked] == [(c.chunk_id, c.text, c.refs) for c in every]
        print(
            f"{name}: {len(docs)} documents, {len(asked)} chunks, {splittable} splittable messages, "
            f"{embedder.embedded} embedded, identical chunks: {same}"
        )


if __name__ == "__main__":
    main()
