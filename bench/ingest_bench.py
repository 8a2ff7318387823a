"""Ingest throughput against fastembed alone on the same texts (a script, not a timed test).

    nice -n 10 python bench/ingest_bench.py --messages 2000 --rounds 3 --out bench/results/ingest.json

Writes a deterministic synthetic Slack export (channels x days, threads, English-like sentences), then in fresh
processes: `brief ingest` through the real pipeline (collect, process: normalise, chunk, embed, upsert, publish)
with its items/s, chunks/s and peak RSS; fastembed alone (the same model, batch and threads) on the chunk texts
the pipeline indexed, for the ratio; and a no-op re-ingest, which must embed nothing.

The `summaries` step measures the second level of the index (`briefing.summaries`): a full refresh from an empty
summary index (summarise and embed every conversation), a no-op refresh (every content hash unchanged), and the
bytes the summary index and its cache add beside the main index. `--summaries-of CONFIG --home HOME` runs only
that step over an index ingested earlier (a copy: the step rewrites its summaries):

    nice -n 10 python bench/ingest_bench.py --summaries-of /tmp/olake/brief.toml --home /tmp/olake
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

STARTED = time.perf_counter()  # the process's start, near enough: imports and model loads are counted from here
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

WORDS = (
    "deploy rollback migration database replica latency alert incident customer ledger payment queue retry "
    "timeout release freeze review approve merge branch config flag cache shard index budget roadmap hiring "
    "oncall handover dashboard metric error spike cutover window vendor contract security audit backup restore"
).split()
GLUE = "the a we to is on for with after before and but then so if it this that our".split()


def sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS if rng.random() < 0.45 else GLUE) for _ in range(rng.randint(6, 22))]
    return " ".join(words).capitalize() + rng.choice([".", ".", "?", "!"])


def write_export(root: Path, messages: int, seed: int = 11) -> None:
    rng = random.Random(seed)
    channels = [f"chan-{i:02d}" for i in range(max(2, messages // 2000 + 2))]
    users = [{"id": f"U{i:04d}", "name": f"user{i}", "real_name": f"User {i}", "profile": {}} for i in range(30)]
    root.mkdir(parents=True, exist_ok=True)
    (root / "users.json").write_text(json.dumps(users))
    (root / "channels.json").write_text(
        json.dumps([{"id": f"C{i:05d}", "name": name, "created": 1700000000} for i, name in enumerate(channels)])
    )
    start = datetime(2026, 1, 5, 9, tzinfo=UTC)
    per_day = 40
    by_file: dict[Path, list[dict[str, Any]]] = {}
    for n in range(messages):
        channel = channels[n % len(channels)]
        at = start + timedelta(days=n // (per_day * len(channels)), minutes=(n // len(channels)) % per_day * 7)
        ts = f"{at.timestamp():.0f}.{n:06d}"
        text = " ".join(sentence(rng) for _ in range(rng.randint(1, 4)))
        msg: dict[str, Any] = {"type": "message", "user": rng.choice(users)["id"], "text": text, "ts": ts}
        if n % 5 and n > len(channels) * 3 and rng.random() < 0.3:
            msg["thread_ts"] = by_file.get(root / channel / f"{at:%Y-%m-%d}.json", [{"ts": ts}])[0]["ts"]
        by_file.setdefault(root / channel / f"{at:%Y-%m-%d}.json", []).append(msg)
    for path, items in by_file.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(items))


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_s() -> float:
    """CPU seconds of this process so far, every thread (the model's included), user and system."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class MemorySampler:
    """Peaks of the process's anonymous memory and of its mapped files (`/proc/self/status` RssAnon, RssFile),
    sampled every 0.1 s in a thread: `ru_maxrss` adds the two, and only the first is the process's own."""

    def __init__(self) -> None:
        import threading

        self.peak = {"RssAnon": 0, "RssFile": 0}
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def sample(self) -> None:
        try:
            lines = Path("/proc/self/status").read_text().splitlines()
        except OSError:
            return
        for line in lines:
            key, _, value = line.partition(":")
            if key in self.peak:
                self.peak[key] = max(self.peak[key], int(value.split()[0]))

    def _run(self) -> None:
        while not self.done.wait(0.1):
            self.sample()

    def stop(self) -> dict[str, int]:
        self.done.set()
        self.thread.join()
        self.sample()
        return {"peak_anon_mb": round(self.peak["RssAnon"] / 1024), "peak_file_mb": round(self.peak["RssFile"] / 1024)}


class StageTimer:
    """Exclusive wall time per stage and thread: a stage called inside another is counted under "outer/inner",
    not twice; stages in the embedding thread are named "embed thread: ..." (they overlap the main thread's)."""

    def __init__(self) -> None:
        import threading

        self.seconds: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self.local = threading.local()
        self.main = threading.main_thread()

    def enter(self, label: str) -> None:
        import threading

        stack = self.local.__dict__.setdefault("stack", [])  # [path, started, time spent in nested stages]
        if stack:
            path = f"{stack[-1][0]}/{label}"
        else:
            path = label if threading.current_thread() is self.main else f"embed thread: {label}"
        stack.append([path, time.perf_counter(), 0.0])

    def leave(self) -> None:
        stack = self.local.stack
        path, started, nested = stack.pop()
        spent = time.perf_counter() - started
        self.seconds[path] = self.seconds.get(path, 0.0) + spent - nested
        self.calls[path] = self.calls.get(path, 0) + 1
        if stack:
            stack[-1][2] += spent

    def wrap(self, owner: Any, name: str, label: str) -> None:
        import functools
        import inspect

        fn = getattr(owner, name)
        timer = self
        if inspect.isgeneratorfunction(fn):

            @functools.wraps(fn)
            def gen_wrapper(*args: Any, **kwargs: Any) -> Any:
                it = fn(*args, **kwargs)
                while True:
                    timer.enter(label)
                    try:
                        value = next(it)
                    except StopIteration:
                        return
                    finally:
                        timer.leave()
                    yield value

            setattr(owner, name, gen_wrapper)
            return

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            timer.enter(label)
            try:
                return fn(*args, **kwargs)
            finally:
                timer.leave()

        setattr(owner, name, wrapper)

    def table(self, total: float) -> dict[str, Any]:
        rows = {k: round(v, 2) for k, v in sorted(self.seconds.items(), key=lambda kv: -kv[1])}
        main = sum(v for k, v in self.seconds.items() if not k.startswith("embed thread:"))
        rows["(rest of the main thread, untimed)"] = round(total - main, 2)
        return {"seconds": rows, "calls": dict(self.calls)}


def stage_timer() -> StageTimer:
    """Timers around the pipeline's stages (module attributes, so the pipeline's own calls go through them)."""
    from briefing import access, people, pipeline, summaries
    from briefing.embed import Embedder
    from briefing.index.edge import EdgeIndex
    from briefing.ingest import chunking, processing

    timer = StageTimer()
    timer.wrap(pipeline, "collect", "collect")
    timer.wrap(processing, "normalised_parts", "normalise")  # where `process` looks them up
    timer.wrap(chunking, "_chunk_one", "chunk (topic conversations)")
    timer.wrap(chunking, "item_vectors", "message vectors")
    timer.wrap(processing, "iter_chunks", "chunk")
    timer.wrap(people, "annotate", "people+access")
    timer.wrap(access, "assign", "people+access")
    timer.wrap(Embedder, "_load_dense", "model load")
    timer.wrap(Embedder, "dense", "dense")
    timer.wrap(Embedder, "sparse", "sparse (BM25)")
    timer.wrap(Embedder, "count_tokens", "count tokens")
    timer.wrap(EdgeIndex, "upsert", "upsert")
    timer.wrap(EdgeIndex, "_scroll_raw", "scroll")
    timer.wrap(EdgeIndex, "delete_ids", "delete")
    timer.wrap(EdgeIndex, "commit", "publish")
    timer.wrap(EdgeIndex, "connect", "open index")
    timer.wrap(summaries, "refresh", "summary refresh")
    timer.wrap(summaries.build, "summarise", "summarise")  # called from inside the summaries' refresh
    return timer


def step_ingest(config: Path, stages: bool = False) -> dict[str, Any]:
    from briefing import pipeline
    from briefing.settings import load_settings

    settings = load_settings(config)
    timer = stage_timer() if stages else None
    memory = MemorySampler()
    t, cpu = time.perf_counter(), cpu_s()
    summary = pipeline.run(settings, list(settings.sources))
    run = summary.sources[0]
    assert run.collected is not None and run.processed is not None
    total = time.perf_counter() - t
    cpu = cpu_s() - cpu
    return {
        "seconds": round(total, 1),
        "cpu_s": round(cpu, 1),  # every thread of the run (the model's too), user + system
        "process_seconds": round(time.perf_counter() - STARTED, 1),  # imports included
        "process_cpu_s": round(cpu_s(), 1),
        "collect_s": round(run.collected.seconds, 1),
        "process_s": round(run.processed.seconds, 1),
        "items": run.collected.fetched,
        "chunks": run.processed.chunks,
        "embedded": run.processed.embedded,
        "chunk_s": round(run.processed.chunk_seconds, 1),
        "embed_s": round(run.processed.embed_seconds, 1),
        "warmed": run.processed.warmed,
        "warm_s": round(run.processed.warm_seconds, 1),
        "index_s": round(run.processed.index_seconds, 1),
        "chunks_per_s": round(run.processed.chunks / total, 2),
        "items_per_s": round(run.collected.fetched / total, 1),
        "peak_rss_mb": round(peak_mb()),
        **memory.stop(),
        **({"stages": timer.table(total)} if timer else {}),
    }


def step_fastembed(config: Path) -> dict[str, Any]:
    from briefing.embed import Embedder
    from briefing.index import Index
    from briefing.settings import load_settings

    settings = load_settings(config)
    with Index.open(settings) as index:
        texts = [r.payload["text"] for r in index.scroll(fields=["text"])]
    embedder = Embedder(settings.embedding, settings.home)
    embedder.dense(["warm up"])

    cpu: dict[str, float] = {}

    def alone(group: list[str], *, by_chars: bool = False, label: str = "") -> float:
        """Seconds for fastembed to embed `group` sorted all at once: by model tokens (the order that pads its
        batches least, the strict baseline), or by characters (the older baseline)."""
        limit = settings.embedding.max_tokens
        ordered = sorted(group, key=len if by_chars else lambda t: min(limit, embedder.count_tokens(t)))
        t, used = time.perf_counter(), cpu_s()
        for start in range(0, len(ordered), 64):
            embedder.dense(ordered[start : start + 64])
        cpu[label] = cpu_s() - used
        return time.perf_counter() - t

    dense = alone(texts, label="chunks")
    # BENCH_NO_BY_CHARS=1 leaves out the old baseline (a second pass over the chunk texts), to halve this step
    dense_by_chars = 0.0 if os.environ.get("BENCH_NO_BY_CHARS") else alone(texts, by_chars=True, label="by_chars")
    # The per-message texts the pipeline embedded for topic splits: on a fresh BRIEF_HOME its vector cache holds
    # exactly those (`briefing.ingest.chunk_documents` embeds only the vectors a topic decision asked for).
    from briefing.ingest import _can_split, make_connector
    from briefing.store import RawStore

    similarity = embedder.for_model(settings.chunking.similarity_model)
    items: list[str] = []
    eligible: set[str] = set()
    for name in settings.sources:
        store = RawStore.for_source(settings, name)
        try:
            records = list(store.records())
        finally:
            store.close()
        for doc in make_connector(settings, name).normalise(records).documents:
            if _can_split(doc):
                messages = [i.text[:2000] for i in doc.items]
                eligible.update(messages)
                cached = similarity.cached_only(messages)
                items.extend(t for t, v in zip(messages, cached, strict=True) if v is not None)
    items = sorted(set(items), key=len)
    # What ingest warmed into the vector cache for the first questions (`briefing.warm`): the unit-list texts and
    # answer sentences of every chunk, less the topic-split texts that are the same text (one cache key).
    warm: list[str] = []
    if settings.embedding.warm_cache and settings.embedding.warm_at == "ingest":
        from briefing.ask.extractive import SENTENCE_MAX_CHARS
        from briefing.index import Filter
        from briefing.warm import sentence_texts, unit_list_texts

        with Index.open(settings) as index:
            chunks = index.chunks(Filter())
        wanted = {t[:2000] for t in unit_list_texts(chunks)}
        if settings.embedding.warm_sentences:
            wanted |= {t[:SENTENCE_MAX_CHARS] for t in sentence_texts(chunks, embedder)}
        warm = sorted(wanted - set(items), key=len)
    timed = {"items": alone(items, label="items"), "warm": alone(warm, label="warm")}
    return {
        "texts": len(texts),
        "seconds": round(dense, 1),
        "cpu_s": round(cpu["chunks"], 1),
        "item_cpu_s": round(cpu["items"], 1),
        "warm_cpu_s": round(cpu["warm"], 1),
        "chunks_per_s": round(len(texts) / dense, 2),
        "seconds_sorted_by_chars": round(dense_by_chars, 1),
        "chunks_per_s_sorted_by_chars": round(len(texts) / dense_by_chars, 2) if dense_by_chars else None,
        "item_texts": len(items),
        "item_texts_could_split": len(eligible),
        "item_seconds": round(timed["items"], 1),
        "warm_texts": len(warm),
        "warm_seconds": round(timed["warm"], 1),
    }


def step_summaries(config: Path) -> dict[str, Any]:
    from briefing import summaries
    from briefing.embed import Embedder
    from briefing.index import Index
    from briefing.settings import load_settings

    settings = load_settings(config)
    embedder = Embedder(settings.embedding, settings.home)
    embedder.dense(["warm up"])
    with Index.open(summaries.summary_settings(settings)) as old:
        old.drop()
    summaries.cache_path(settings).unlink(missing_ok=True)
    with Index.open(settings) as index:
        full = summaries.refresh(settings, index, embedder)
        noop = summaries.refresh(settings, index, embedder)
        chunks = index.count()
    main_bytes = summaries.disk_bytes(settings.workspace_home / "index") or summaries.disk_bytes(
        settings.workspace_home
    )
    added = summaries.summary_size(settings)
    return {
        "chunks": chunks,
        "conversations": full.documents,
        "summarised": full.summarised,
        "full_refresh_s": round(full.seconds, 2),
        "noop_refresh_s": round(noop.seconds, 2),
        "noop_summarised": noop.summarised,
        "bytes_added": added,
        "index_bytes": main_bytes,
        "size_added_pct": round(100 * added / main_bytes, 1) if main_bytes else None,
        "peak_rss_mb": round(peak_mb()),
    }


def child(step: str, config: Path, home: Path) -> dict[str, Any]:
    env = {**os.environ, "BRIEF_HOME": str(home), "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
    out = subprocess.run(
        [sys.executable, __file__, "--step", step, str(config)], env=env, check=True, capture_output=True, text=True
    ).stdout
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--export", type=Path, default=None, help="a real Slack export folder instead of synthetic")
    parser.add_argument("--mbox", type=Path, default=None, help="a mailbox (an email source) instead of Slack")
    parser.add_argument("--work", type=Path, default=Path("/tmp/brief-ingest-bench"))
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--rounds", type=int, default=1, help="ingest and fastembed alone, interleaved, N times")
    parser.add_argument("--skip-summaries", action="store_true", help="leave out the summaries step")
    parser.add_argument("--no-warm", action="store_true", help="[embedding] warm_cache = false (the old ingest)")
    parser.add_argument("--no-warm-sentences", action="store_true", help="[embedding] warm_sentences = false")
    parser.add_argument("--warm-at", choices=["reader", "ingest"], default=None, help="[embedding] warm_at")
    parser.add_argument(
        "--round-chunks", type=int, default=None, help="[embedding] round_chunks (default: the settings' default)"
    )
    parser.add_argument(
        "--topic-threshold",
        type=float,
        default=None,
        help="[chunking] slack_topic_threshold (-1: topic splits off, no message vectors)",
    )
    parser.add_argument("--step", nargs=2, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--summaries-of", type=Path, default=None, help="only the summaries step, over CONFIG")
    parser.add_argument("--home", type=Path, default=None, help="BRIEF_HOME of --summaries-of")
    ns = parser.parse_args()
    if ns.step:
        fn = {
            "ingest": step_ingest,
            "stages": lambda config: step_ingest(config, stages=True),
            "fastembed": step_fastembed,
            "summaries": step_summaries,
        }[ns.step[0]]
        print(json.dumps(fn(Path(ns.step[1]))))
        return
    if ns.summaries_of:
        found = {"load_before": os.getloadavg(), "summaries": child("summaries", ns.summaries_of, ns.home)}
        found["load_after"] = os.getloadavg()
        print(json.dumps(found, indent=2))
        return
    shutil.rmtree(ns.work, ignore_errors=True)
    ns.work.mkdir(parents=True)
    export = ns.export.resolve() if ns.export else ns.work / "export"
    if ns.export is None and ns.mbox is None:
        write_export(export, ns.messages)
    config = ns.work / "brief.toml"
    source = (
        f'[sources.mail]\ntype = "email"\npath = "{ns.mbox.resolve()}"\n'
        if ns.mbox
        else f'[sources.slack]\ntype = "slack_export"\npath = "{export}"\n'
    )
    config.write_text(
        f'[workspace]\nname = "bench"\n\n{source}'
        f"\n[embedding]\nwarm_cache = {'false' if ns.no_warm else 'true'}\n"
        + ("warm_sentences = false\n" if ns.no_warm_sentences else "")
        + (f'warm_at = "{ns.warm_at}"\n' if ns.warm_at else "")
        + (f"round_chunks = {ns.round_chunks}\n" if ns.round_chunks else "")
        + (f"\n[chunking]\nslack_topic_threshold = {ns.topic_threshold}\n" if ns.topic_threshold is not None else "")
    )
    home = ns.work / "home"
    # A fresh BRIEF_HOME each round: the per-item vector cache is empty, so the ingest pays for every embedding.
    # Rounds interleave the pipeline and fastembed alone, so both see the same load.
    result: dict[str, Any] = {
        "messages": None if ns.export or ns.mbox else ns.messages,
        "export": str(ns.mbox or export),
        "rounds": [],
    }
    result["load_before"] = os.getloadavg()
    for _ in range(ns.rounds):
        shutil.rmtree(home, ignore_errors=True)
        load_ingest = os.getloadavg()[0]
        ingest = child("ingest", config, home)
        load_alone = os.getloadavg()[0]
        alone = child("fastembed", config, home)
        result["rounds"].append(
            {
                "ingest": ingest,
                "fastembed_alone": alone,
                "ratio_to_fastembed": round(ingest["chunks_per_s"] / alone["chunks_per_s"], 2),
                # against fastembed alone on the chunk texts sorted by characters (the older baseline)
                "ratio_to_fastembed_by_chars": round(ingest["chunks_per_s"] / alone["chunks_per_s_sorted_by_chars"], 2)
                if alone["chunks_per_s_sorted_by_chars"]
                else None,
                # fastembed alone on everything the pipeline embeds (chunks, the topic-split messages and the
                # texts warmed into the vector cache for the first questions)
                "ratio_to_fastembed_all_texts": round(
                    (alone["seconds"] + alone["item_seconds"] + alone["warm_seconds"]) / ingest["seconds"], 2
                ),
                # the same two ratios in CPU seconds (every thread, user + system): less moved by other processes
                "cpu_ratio_to_fastembed": round(alone["cpu_s"] / ingest["cpu_s"], 2),
                "cpu_ratio_to_fastembed_all_texts": round(
                    (alone["cpu_s"] + alone["item_cpu_s"] + alone["warm_cpu_s"]) / ingest["cpu_s"], 2
                ),
                "load": os.getloadavg()[0],
                "load_before_ingest": load_ingest,
                "load_before_fastembed": load_alone,
            }
        )
    last = result["rounds"][-1]
    result["ingest"], result["fastembed_alone"] = last["ingest"], last["fastembed_alone"]
    for key in (
        "ratio_to_fastembed",
        "ratio_to_fastembed_all_texts",
        "cpu_ratio_to_fastembed",
        "cpu_ratio_to_fastembed_all_texts",
    ):
        result[key] = statistics.median(r[key] for r in result["rounds"])
    result["noop_reingest"] = child("ingest", config, home)
    if not ns.skip_summaries:
        result["summaries"] = child("summaries", config, home)
    result["load_after"] = os.getloadavg()
    print(json.dumps(result, indent=2))
    if ns.out:
        ns.out.parent.mkdir(parents=True, exist_ok=True)
        ns.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
