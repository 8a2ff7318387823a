"""Model tokens the embedding rounds pad to, by round size and sort key (deterministic; only the tokenizer runs).

Each ingest round sorts its chunks and the model pads every batch of `[embedding] batch_size` texts to its longest
one; fastembed alone, the ingest ratio's baseline, sorts all texts at once. Over an indexed workspace's chunks, in
ingest order (source, document, time), this prints the real tokens and the padded tokens for rounds of 64 to 512
chunks and for one global sort, sorted by characters (formerly) and by model tokens (now); then the same for
the texts each round warms into the vector cache (`briefing.warm`: unit-list texts and answer sentences, one
model call per round; a text an earlier round cached is not embedded again).

    BRIEF_HOME=<home> python bench/padding_check.py CONFIG
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from briefing.ask.extractive import SENTENCE_MAX_CHARS
from briefing.embed import Embedder
from briefing.index import Filter, Index
from briefing.model import Chunk
from briefing.settings import load_settings
from briefing.warm import sentence_texts, unit_list_texts

SIZES = (64, 128, 256, 512)


def padded(lengths: list[int], batch: int) -> int:
    return sum(max(lengths[i : i + batch]) * len(lengths[i : i + batch]) for i in range(0, len(lengths), batch))


def main() -> None:
    settings = load_settings(Path(sys.argv[1]))
    embedder = Embedder(settings.embedding, settings.home)
    limit, batch = settings.embedding.max_tokens, settings.embedding.batch_size
    with Index.open(settings) as index:
        chunks = sorted(index.chunks(Filter()), key=lambda c: (c.source_name, c.doc_key, c.start))
    tokens: dict[str, int] = {}

    def count(text: str) -> int:
        if text not in tokens:
            tokens[text] = min(limit, embedder.count_tokens(text))
        return tokens[text]

    keys: dict[str, Callable[[str], int]] = {"characters": len, "tokens": count}

    def warm_texts(part: list[Chunk]) -> list[str]:
        units = [t[:2000] for t in unit_list_texts(part)]
        return units + [t[:SENTENCE_MAX_CHARS] for t in sentence_texts(part, embedder)]

    def rounds_of(size: int) -> tuple[list[list[str]], list[list[str]]]:
        chunk_rounds, warm_rounds, seen = [], [], set()
        for i in range(0, len(chunks), size):
            part = chunks[i : i + size]
            chunk_rounds.append([c.text for c in part])
            new = [t for t in dict.fromkeys(warm_texts(part)) if t not in seen]
            seen.update(new)
            warm_rounds.append(new)
        return chunk_rounds, warm_rounds

    whole = rounds_of(len(chunks) or 1)
    for what, n in (("chunk texts", 0), ("warmed texts", 1)):
        every = [t for r in whole[n] for t in r]
        real = sum(count(t) for t in every)
        print(f"{what}: {len(every)} texts, {real} real tokens, batches of {batch}; padded tokens (x real):")
        for size in (*SIZES, None):
            rounds = whole[n] if size is None else rounds_of(size)[n]
            cells = []
            for name, key in keys.items():
                got = padded([count(t) for r in rounds for t in sorted(r, key=key)], batch)
                cells.append(f"by {name} {got} ({got / real:.3f})")
            print(f"  {'all at once' if size is None else f'rounds of {size}'}: " + ", ".join(cells))


if __name__ == "__main__":
    main()
