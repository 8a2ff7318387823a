"""Model tokens the embedding rounds pad to, by round size (deterministic; no model run, only its tokenizer).

Each ingest round sorts its chunks by length and the model pads every batch of `[embedding] batch_size` texts to
its longest one; fastembed alone, the ingest ratio's baseline, sorts all texts at once. Over an indexed
workspace's chunks, in ingest order (source, document, time), this prints the real tokens and the padded tokens
for rounds of 64 to 512 chunks and for one global sort; then the same for the texts the rounds warm into the
vector cache (`briefing.warm`).

    BRIEF_HOME=<home> python bench/padding_check.py CONFIG
"""

from __future__ import annotations

import sys
from pathlib import Path

from briefing.embed import Embedder
from briefing.index import Filter, Index
from briefing.model import Chunk
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
    # The texts `briefing.warm` embeds after each round (unit-list texts and answer sentences, one model call per
    # round sorted by characters; a text cached by an earlier round is not embedded again), against one global
    # sort by characters (what fastembed alone does in bench/ingest_bench.py).
    from briefing.ask.extractive import SENTENCE_MAX_CHARS
    from briefing.warm import sentence_texts, unit_list_texts

    def warm_texts(part: list[Chunk]) -> list[str]:
        units = [t[:2000] for t in unit_list_texts(part)]
        return units + [t[:SENTENCE_MAX_CHARS] for t in sentence_texts(part, embedder)]

    tokens: dict[str, int] = {}
    every = list(dict.fromkeys(warm_texts(chunks)))
    for text in every:
        tokens[text] = min(limit, embedder.count_tokens(text))
    best_warm = padded([tokens[t] for t in sorted(every, key=len)], batch)  # as fastembed alone in ingest_bench
    print(f"{len(every)} warmed texts, {sum(tokens.values())} real tokens; all sorted at once: {best_warm} padded")
    for size in (64, 128, 256, 512):
        seen: set[str] = set()
        order: list[int] = []
        for i in range(0, len(chunks), size):
            new = [t for t in dict.fromkeys(warm_texts(chunks[i : i + size])) if t not in seen]
            seen.update(new)
            order += [tokens[t] for t in sorted(new, key=len)]  # `warm` sorts by characters
        print(f"warm, rounds of {size}: {padded(order, batch)} padded ({padded(order, batch) / best_warm:.3f} x)")


if __name__ == "__main__":
    main()
