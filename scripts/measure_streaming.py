"""Time and peak memory of one big item through the real pipeline: a 10,000-message Slack day file, a 50 MB text file.

Run: `nice -n 10 python scripts/measure_streaming.py slack|text [--embed | --whole] [--mb 50] [--messages 10000]`
(writes only to a temporary folder). Each case runs in this process, phase by phase, and prints wall time and the
process's CPU time (all its threads) and peak RSS after each phase. Peak RSS only grows, so a phase's figure is
the peak so far; on a loaded machine CPU time says more than wall time.

- collect: connector -> raw cache (a Slack day file is read with ijson and cached 2,000 messages at a time).
- stream (default): what `ingest.process` does before embedding: the cache normalised in parts
  (`ingest.normalised_parts`: a Slack export one channel at a time), 64 documents at a time chunked through
  `ingest.iter_chunks` (with the per-item vectors topic splits need), each chunk dropped once counted.
- `--whole`: the old way, for comparison: every record read, normalised at once, every chunk kept in a list.
- `--embed`: the whole `process` step (embedding and upserting every chunk into the embedded index).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import tempfile
import time
from pathlib import Path

WORDS = (
    "deploy rollback queue worker payout ledger retry backoff schema migration index shard replica latency "
    "error budget alert pager oncall incident review customer invoice billing search ranking cache"
).split()


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def make_slack(root: Path, messages: int) -> None:
    rng = random.Random(16)  # noqa: S311 - synthetic text, not a secret
    export = root / "export"
    (export / "ops").mkdir(parents=True)
    (export / "channels.json").write_text(json.dumps([{"id": "C1", "name": "ops"}]))
    (export / "users.json").write_text(json.dumps([{"id": f"U{n}", "name": f"u{n}"} for n in range(20)]))
    base = 1_777_000_000
    day = []
    for n in range(messages):
        ts = f"{base + n * 8}.{n:06d}"
        message = {"type": "message", "user": f"U{n % 20}", "ts": ts, "text": sentence(rng, 12 + n % 20)}
        if n % 10 == 1:
            message.update(thread_ts=ts, reply_count=3)
        elif n % 10 in (2, 3, 4) and n > 1:
            parent = n - n % 10 + 1
            message.update(thread_ts=f"{base + parent * 8}.{parent:06d}", parent_user_id="U1")
        day.append(message)
    (export / "ops" / "2026-04-01.json").write_text(json.dumps(day))
    config = '[workspace]\nname = "m"\n[sources.chat]\ntype = "slack_export"\npath = "export"\n'
    (root / "brief.toml").write_text(config)


def make_text(root: Path, mb: int) -> None:
    rng = random.Random(16)  # noqa: S311 - synthetic text, not a secret
    docs = root / "docs"
    docs.mkdir(parents=True)
    target = mb * 1_000_000
    with (docs / "big.txt").open("w", encoding="utf-8") as handle:
        written = 0
        while written < target:
            paragraph = " ".join(sentence(rng, 8 + rng.randrange(12)) for _ in range(4)) + "\n\n"
            handle.write(paragraph)
            written += len(paragraph)
    (root / "brief.toml").write_text(
        f'[workspace]\nname = "m"\n[sources.chat]\ntype = "files"\npath = "docs"\nmax_file_bytes = {target * 2}\n'
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("case", choices=["slack", "text"])
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--embed", action="store_true", help="the whole index step: embed and index every chunk (slow)")
    how.add_argument("--whole", action="store_true", help="the old way: read, normalise and chunk all at once")
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--messages", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ["BRIEF_HOME"] = str(root / "home")
        (make_slack(root, args.messages) if args.case == "slack" else make_text(root, args.mb))
        from briefing.embed import Embedder
        from briefing.index import Index
        from briefing.ingest import (
            DOCUMENT_WINDOW,
            chunk_documents,
            collect,
            iter_chunks,
            make_connector,
            normalised_parts,
            process,
        )
        from briefing.model import Failure
        from briefing.registry import FetchOptions
        from briefing.settings import load_settings
        from briefing.store import RawStore

        settings = load_settings(root / "brief.toml")
        print(f"{args.case}: start, peak RSS {peak_mb():.0f} MB")

        cpu = [time.process_time()]

        def phase(name: str, started: float) -> None:
            used, cpu[0] = time.process_time() - cpu[0], time.process_time()
            print(
                f"  {name:10s} {time.perf_counter() - started:8.1f} s wall {used:8.1f} s CPU   "
                f"peak RSS {peak_mb():7.0f} MB"
            )

        started = time.perf_counter()
        report = collect(settings, "chat", FetchOptions())
        phase("collect", started)
        print(f"  records {report.fetched}, failures {len(report.failures)}")
        embedder = Embedder(settings.embedding, settings.home)
        if args.embed:
            started = time.perf_counter()
            with Index.open(settings) as index:
                done = process(settings, "chat", index, embedder)
                index.commit()
            phase("process", started)
            print(f"  documents {done.documents}, chunks {done.chunks}, embedded {done.embedded}")
            return
        if args.whole:
            started = time.perf_counter()
            store = RawStore.for_source(settings, "chat")
            records = list(store.records())
            store.close()
            phase("read", started)
            started = time.perf_counter()
            normalised = make_connector(settings, "chat").normalise(records)
            phase("normalise", started)
            started = time.perf_counter()
            chunks, failures = chunk_documents(settings, normalised.documents, embedder, "chat")
            phase("chunk", started)
            print(f"  documents {len(normalised.documents)}, chunks {len(chunks)}, failures {len(failures)}")
            return
        started = time.perf_counter()
        store = RawStore.for_source(settings, "chat")
        documents = chunked = 0
        failed: list[Failure] = []
        try:
            for part in normalised_parts(make_connector(settings, "chat"), store):
                documents += len(part.documents)
                failed += part.failures
                for first in range(0, len(part.documents), DOCUMENT_WINDOW):
                    window = part.documents[first : first + DOCUMENT_WINDOW]
                    for _chunk in iter_chunks(settings, window, embedder, "chat", failed):
                        chunked += 1
                del part
        finally:
            store.close()
        phase("stream", started)
        print(f"  documents {documents}, chunks {chunked}, failures {len(failed)}")


if __name__ == "__main__":
    main()
