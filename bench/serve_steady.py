"""Steady state of `brief serve`: one new message into a long channel, one batch, whole re-chunk vs resumed.

    BRIEF_HOME=H nice -n 10 python bench/serve_steady.py --config CFG --source team --rounds 3

Works on a copy of BRIEF_HOME (the workspace given is not written). Each round writes one new message into the
source's longest channel in the raw cache, as an event does, and processes the source as a batch does: once
re-chunking every document whole (the batch before resuming existed), once with the writer's chunk memory
(`briefing.ingest.resume`), alternating so both see the same machine load. Prints one JSON object (seconds).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / "src"), str(Path(__file__).resolve().parents[1])]

from briefing.embed import Embedder  # noqa: E402
from briefing.index import Index  # noqa: E402
from briefing.ingest import make_connector  # noqa: E402
from briefing.ingest.processing import process  # noqa: E402
from briefing.ingest.resume import ChunkMemo  # noqa: E402
from briefing.model import RawRecord  # noqa: E402
from briefing.settings import load_settings  # noqa: E402
from briefing.sources import without_contact  # noqa: E402
from briefing.store import RawStore  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, required=True)
    parser.add_argument("--source", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    copy = Path(tempfile.mkdtemp(prefix="brief-steady-")) / "home"
    shutil.copytree(os.environ["BRIEF_HOME"], copy, symlinks=True)
    for holder in copy.glob("workspaces/*/run.lock.holder"):
        holder.unlink()
    os.environ["BRIEF_HOME"] = str(copy)
    settings = load_settings(args.config)
    index, embedder = Index.open(settings), Embedder(settings.embedding, settings.home)
    with without_contact():
        connector = make_connector(settings, args.source)
    store = RawStore.for_source(settings, args.source)
    messages = [k for k in store.keys() if "/" in k and k.partition("/")[0] not in ("user", "channel")]
    channel = Counter(k.partition("/")[0] for k in messages).most_common(1)[0][0]
    last = max((k for k in messages if k.startswith(channel + "/")), key=lambda k: float(k.partition("/")[2]))
    template = store.get(last)
    assert template is not None
    memo = ChunkMemo()
    process(settings, args.source, index, embedder, connector=connector, memo=memo)  # the memory a batch leaves
    index.commit()
    stamp = float(last.partition("/")[2])
    timings: dict[str, list[float]] = {"whole": [], "resumed": []}
    chunking: dict[str, list[float]] = {"whole": [], "resumed": []}
    report = None
    for n in range(args.rounds * 2):
        way = "whole" if n % 2 == 0 else "resumed"
        ts = f"{stamp + 60 * (n + 1):.6f}"
        text = f"Steady state note {n}: the nightly export job finished late again."
        store.put_many([RawRecord(f"{channel}/{ts}", "message", {**template.data, "ts": ts, "text": text})])
        started = time.perf_counter()
        report = process(
            settings, args.source, index, embedder, connector=connector, memo=memo if way == "resumed" else None
        )
        index.commit()
        timings[way].append(round(time.perf_counter() - started, 2))
        chunking[way].append(round(report.chunk_seconds, 2))
    store.close()
    index.close()
    assert report is not None
    result = {
        "channel_messages": len([k for k in messages if k.startswith(channel + "/")]),
        "chunks": report.chunks,
        "embedded_last": report.embedded,
        "process_s": timings,
        "chunk_s": chunking,
        "median_s": {way: statistics.median(t) for way, t in timings.items()},
    }
    print(json.dumps(result))
    shutil.rmtree(copy.parent, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
