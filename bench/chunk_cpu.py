"""CPU of chunking alone over a workspace's first source, and a digest of the chunks (a script, not a timed test).

    BRIEF_HOME=<a home that ingested CONFIG> python bench/chunk_cpu.py CONFIG

Normalises the source from the raw cache and chunks it a window at a time, as `ingest.process` does, then
counts every chunk's model tokens, as `take` does. The topic-split vectors come from the home's vector cache
(an ingested home has every one a topic decision asks for), so no model runs: what is timed is the chunkers'
Python and the tokeniser. The digest (sha256 of every chunk's id, text, refs and token count) must not change
between two versions of the code that should give the same chunks.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]


def main() -> None:
    from briefing import ingest
    from briefing.embed import Embedder
    from briefing.settings import load_settings
    from briefing.store import RawStore

    settings = load_settings(Path(sys.argv[1]))
    embedder = Embedder(settings.embedding, settings.home)
    name = next(iter(settings.sources))
    store = RawStore.for_source(settings, name)
    parts = ingest.normalised_parts(ingest.make_connector(settings, name), store)
    documents = [d for part in parts for d in part.documents]
    embedder.count_tokens("load the tokeniser")
    embedder.cached_only(["open the vector cache"])
    wall, cpu = time.perf_counter(), time.process_time()
    chunks = []
    for first in range(0, len(documents), ingest.DOCUMENT_WINDOW):
        window = documents[first : first + ingest.DOCUMENT_WINDOW]
        chunks += list(ingest.iter_chunks(settings, window, embedder, name, []))
    sizes = [embedder.count_tokens(c.text) for c in chunks]
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    rows = [[c.chunk_id, c.text, c.refs, n] for c, n in zip(chunks, sizes, strict=True)]
    digest = hashlib.sha256(json.dumps(rows).encode()).hexdigest()[:16]
    found = {"documents": len(documents), "chunks": len(chunks), "wall_s": round(wall, 3), "cpu_s": round(cpu, 3)}
    print(json.dumps({**found, "digest": digest}))


if __name__ == "__main__":
    main()
