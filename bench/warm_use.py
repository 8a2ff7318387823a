"""Which of the texts ingest warms into the vector cache the questions then read (a script, not a timed test).

`briefing.warm` embeds, for every changed chunk, the retriever's unit-list texts and the extractive answerer's
sentences. Over an ingested workspace this computes that set for every indexed chunk, asks the cases' questions
(`Brief.ask`, each at its case's `now`) with every vector-cache lookup recorded, and prints, per kind, how many
warmed texts and model tokens there are and what share of them the questions looked up; and the warmed texts
that cost nothing to drop because they are not new work: a unit text that is also a sentence (one cache key, so
already embedded once) or a chunk's own text (the index holds its vector already).

Asking writes the home's vector cache: run it on a copy.

    cp -a /tmp/s23/base/olake /tmp/wu-olake
    BRIEF_HOME=/tmp/wu-olake python bench/warm_use.py /work/homes/olake/brief.toml eval/olake_dev.jsonl
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from briefing.ask.extractive import SENTENCE_MAX_CHARS
from briefing.embed import CACHE_MAX_CHARS, Embedder, cache_key
from briefing.evaluation.cases import load_cases
from briefing.evaluation.runner import run_cases
from briefing.index import Filter, Index
from briefing.service import Brief
from briefing.settings import load_settings
from briefing.warm import sentence_texts, unit_list_texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", type=Path)
    parser.add_argument("cases", type=Path, nargs="+")
    parser.add_argument("--out", type=Path, default=None)
    ns = parser.parse_args()
    settings = load_settings(ns.config)
    embedder = Embedder(settings.embedding, settings.home)
    with Index.open(settings) as index:
        chunks = index.chunks(Filter())
    units = {cache_key(t, CACHE_MAX_CHARS): t for t in unit_list_texts(chunks)}
    scorer = embedder.for_model(settings.answer.sentence_model)
    sentences = {cache_key(t, SENTENCE_MAX_CHARS): t for t in sentence_texts(chunks, scorer)}
    chunk_keys = {cache_key(c.text, CACHE_MAX_CHARS) for c in chunks}

    looked_up: set[str] = set()
    lookup = Embedder._lookup

    def recording(self: Embedder, keys: Any) -> Any:
        looked_up.update(keys)
        return lookup(self, keys)

    Embedder._lookup = recording  # type: ignore[method-assign]
    cases = [case for path in ns.cases for case in load_cases(path)]
    with Brief(settings) as brief:
        run_cases(brief, cases, warmup=False)
    Embedder._lookup = lookup  # type: ignore[method-assign]

    def tokens(texts: Any) -> int:
        return sum(min(settings.embedding.max_tokens, embedder.count_tokens(t)) for t in texts)

    found: dict[str, Any] = {"chunks": len(chunks), "questions": len(cases)}
    for kind, texts in (("unit_texts", units), ("sentences", sentences)):
        read = [t for key, t in texts.items() if key in looked_up]
        found[kind] = {
            "texts": len(texts),
            "tokens": tokens(texts.values()),
            "read_by_questions": len(read),
            "read_share": round(len(read) / max(1, len(texts)), 3),
            "read_tokens": tokens(read),
        }
    found["unit_texts_also_sentences"] = len(units.keys() & sentences.keys())
    found["unit_texts_that_are_a_chunk_text"] = len(units.keys() & chunk_keys)
    found["sentences_that_are_a_chunk_text"] = len(sentences.keys() & chunk_keys)
    print(json.dumps(found, indent=2))
    if ns.out:
        ns.out.write_text(json.dumps(found, indent=2) + "\n")


if __name__ == "__main__":
    main()
