"""The ingest's memory as a function of its input's size, without the model's time (a script, not a timed test).

    nice -n 10 python bench/ingest_memory.py --messages 4000 --messages 16000 --messages 32000 \\
        --out bench/results/ingest-memory-s24.json

For each size, in a fresh process and a fresh BRIEF_HOME: the deterministic synthetic Slack export of
`bench/ingest_bench.py` (`write_export`), then a first ingest through the real pipeline (collect, normalise,
chunk, BM25, upsert, publish, summaries) with the dense model replaced by a hash of each text (a unit vector per
text, the same every run: chunking, topic splits, rounds and index writes do what they do with the model, at a
fraction of the time), `[embedding] warm_cache = false`. A thread samples `/proc/self/status` every 0.1 s: peak
anonymous memory (the process's own) and mapped files (the index's segment files; page cache the kernel can
drop), and the anonymous memory each time another 1,000 points are written. The engine holds the GIL while its
optimizer runs, so that thread misses the optimizer's memory: this process also samples the ingest's
`/proc/PID/status` from outside (`peak_anon_mb_outside`, `peak_file_mb_outside`). What the model adds on top is a
constant (`bench/ingest_bench.py` measures it with the model: peak RSS of a real ingest).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import zlib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]


def hashed_dense(self: Any, texts: Any, *, query: bool = False) -> Any:
    import numpy as np

    out = np.empty((len(texts), 384), dtype=np.float32)
    for n, text in enumerate(texts):
        row = np.random.default_rng(zlib.crc32(text.encode())).standard_normal(384).astype(np.float32)
        out[n] = row / np.linalg.norm(row)
    return out


def step(config: Path, extra: dict[str, Any]) -> dict[str, Any]:
    from bench.ingest_bench import MemorySampler, cpu_s
    from briefing import pipeline
    from briefing.embed import Embedder
    from briefing.index.edge import EdgeIndex
    from briefing.settings import load_settings

    Embedder.dense = hashed_dense  # type: ignore[method-assign]
    if extra.get("tracemalloc"):
        import tracemalloc

        tracemalloc.start()
    sampler = MemorySampler()
    written = [0]
    curve: list[tuple[int, ...]] = []
    upsert = EdgeIndex.upsert

    def counted(self: Any, chunks: Any, *args: Any, **kwargs: Any) -> Any:
        result = upsert(self, chunks, *args, **kwargs)
        before = written[0] // 1000
        written[0] += len(chunks)
        if written[0] // 1000 > before:
            sampler.sample()
            anon = int(Path("/proc/self/status").read_text().split("RssAnon:")[1].split()[0]) // 1024
            if extra.get("tracemalloc"):
                import tracemalloc

                curve.append((written[0], anon, tracemalloc.get_traced_memory()[0] // 2**20))  # + Python's own
            else:
                curve.append((written[0], anon))
        return result

    EdgeIndex.upsert = counted  # type: ignore[method-assign]
    settings = load_settings(config)
    t, cpu = time.perf_counter(), cpu_s()
    summary = pipeline.run(settings, list(settings.sources))
    run = summary.sources[0]
    assert run.collected is not None and run.processed is not None
    return {
        **extra,
        "seconds": round(time.perf_counter() - t, 1),
        "cpu_s": round(cpu_s() - cpu, 1),
        "items": run.collected.fetched,
        "documents": run.processed.documents,
        "chunks": run.processed.chunks,
        **sampler.stop(),
        "anon_mb_by_points_written": curve,
    }


class OutsideSampler:
    """The child's peaks sampled from this process every 0.05 s (`/proc/PID/status`): the engine holds the GIL while
    its optimizer runs, so a sampling thread inside the ingest cannot see the optimizer's own memory."""

    def __init__(self, pid: int) -> None:
        import threading

        self.status = Path(f"/proc/{pid}/status")
        self.peak = {"RssAnon": 0, "RssFile": 0}
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.done.wait(0.05):
            try:
                lines = self.status.read_text().splitlines()
            except OSError:
                continue
            for line in lines:
                key, _, value = line.partition(":")
                if key in self.peak:
                    self.peak[key] = max(self.peak[key], int(value.split()[0]))

    def stop(self) -> dict[str, int]:
        self.done.set()
        self.thread.join()
        return {
            "peak_anon_mb_outside": round(self.peak["RssAnon"] / 1024),
            "peak_file_mb_outside": round(self.peak["RssFile"] / 1024),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, action="append", default=None)
    parser.add_argument("--round-chunks", type=int, default=None)
    parser.add_argument("--tracemalloc", action="store_true", help="also Python's own allocations (slower)")
    parser.add_argument("--qdrant", action="append", default=[], help="a [qdrant] key = value line, e.g. on_disk=true")
    parser.add_argument("--work", type=Path, default=Path("/tmp/brief-ingest-memory"))
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--step", nargs=2, default=None, help=argparse.SUPPRESS)
    ns = parser.parse_args()
    if ns.step:
        print(json.dumps(step(Path(ns.step[0]), json.loads(ns.step[1]))))
        return
    from bench.ingest_bench import write_export

    results: dict[str, Any] = {"load_before": os.getloadavg(), "runs": []}
    for messages in ns.messages or [4000, 16000]:
        work = ns.work / str(messages)
        shutil.rmtree(work, ignore_errors=True)
        write_export(work / "export", messages)
        config = work / "brief.toml"
        config.write_text(
            f'[workspace]\nname = "bench"\n\n[sources.slack]\ntype = "slack_export"\npath = "{work / "export"}"\n'
            "\n[embedding]\nwarm_cache = false\n"
            + (f"round_chunks = {ns.round_chunks}\n" if ns.round_chunks else "")
            + ("\n[qdrant]\n" + "".join(f"{line.replace('=', ' = ', 1)}\n" for line in ns.qdrant) if ns.qdrant else "")
        )
        env = {**os.environ, "BRIEF_HOME": str(work / "home"), "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
        extra = {"messages": messages, "qdrant": ns.qdrant, "tracemalloc": ns.tracemalloc, "load": os.getloadavg()[0]}
        with subprocess.Popen(
            [sys.executable, __file__, "--step", str(config), json.dumps(extra)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        ) as child:
            outside = OutsideSampler(child.pid)
            out, err = child.communicate()
            peaks = outside.stop()
        if child.returncode:
            raise SystemExit(f"the ingest failed ({child.returncode}): {err[-2000:]}")
        results["runs"].append({**json.loads(out.strip().splitlines()[-1]), **peaks})
        print(json.dumps(results["runs"][-1]), flush=True)
    results["load_after"] = os.getloadavg()
    if ns.out:
        ns.out.parent.mkdir(parents=True, exist_ok=True)
        ns.out.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
