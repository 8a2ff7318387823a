"""Model tokens the embedding rounds pad to, by round size (deterministic; no model run, only its tokenizer).

Each ingest round sorts its chunks by length and the model pads every batch of `[embedding] batch_size` texts to
its longest one; fastembed alone, the ingest ratio's baseline, sorts all texts at once. Over an indexed
workspace's chunks, in ingest order (source, document, time), this prints the real tokens and the padded tokens
for rounds of 64 to 512 chunks and for one global sort.

    BRIEF_HOME=<home> python bench/padding_check.py CONFIG
"""

from __future__ import annotations

import sys
from pathlib import Path

from briefing.embed import Embedder
from briefing.index import Filter, Index
from briefing.settings import load_settings


def padded(lengths: list[int], batch: int) -> int:
    return sum(max(lengths[i : i + batch]) * len(lengths[i : i + batch]) for i in range(0, len(lengths), batch))


def main() -> None:
    settings = load_settings(Path(sys.argv[1]))
    embedder = Embedder(settings.embedding, settings.home)
    limit, batch = settings.embedding.max_tokens, settings.embedding.batch_size
    with Index.open(settings) as index:
        chunks = sorted(index.chunks(Filter()), key=lambda c: (c.source_name, c.doc_key, c.start))
    lengths = [min(limit, embedder.count_tokens(c.text)) for c in chunks]
    best = padded(sorted(lengths), batch)
    print(f"{len(chunks)} chunks, {sum(lengths)} real tokens; all sorted at once: {best} padded")
    for size in (64, 128, 256, 512):
        rounds: list[int] = []
        for i in range(0, len(lengths), size):
            rounds += sorted(lengths[i : i + size])
        print(f"rounds of {size}: {padded(rounds, batch)} padded tokens ({padded(rounds, batch) / best:.3f} x)")


if __name__ == "__main__":
    main()
