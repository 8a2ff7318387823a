"""Start-up: `brief --help`, `ask --help`, `--version` and the first `brief ask` of a fresh process (a script).

    nice -n 10 python bench/startup_bench.py --config /path/brief.toml --home HOME --runs 5 [--ingest] \
        [--baseline OTHER_CHECKOUT] --out bench/results/startup.json

`--baseline DIR` times the same commands from another checkout in the same loop (side by side), each on its own
copy of the home; `--ingest` adds a re-ingest with nothing changed (for workspaces of local sources).

`--help` needs no workspace (its first run renders the help and keeps it; the later runs print the kept copy);
each run also reports the CPU seconds the process used (user + system), which a loaded machine inflates much
less than wall time. The ask runs against a copy of the given workspace's BRIEF_HOME (so the original is only
read), as a new process each time: what a person typing `brief ask` waits for, model load included.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one new process running `cmd`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    took = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr.strip()[-400:]}")
    return took, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def summary(runs: list[tuple[float, float]]) -> dict[str, Any]:
    walls, cpus = [w for w, _ in runs], [c for _, c in runs]
    return {
        "median": round(statistics.median(walls), 3),
        "best": round(min(walls), 3),
        "cpu_median": round(statistics.median(cpus), 3),
        "runs": [round(x, 3) for x in walls],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", type=Path, default=None, help="a workspace's brief.toml (for the ask)")
    parser.add_argument("--home", type=Path, default=None, help="its BRIEF_HOME (copied, never written)")
    parser.add_argument("--question", default="what was decided about the release?")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--baseline", type=Path, default=None, help="another checkout, timed in the same loop")
    parser.add_argument("--ingest", action="store_true", help="also a re-ingest with nothing changed (local sources)")
    ns = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("BRIEF_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT)])
    brief = [sys.executable, "-m", "briefing"]
    result: dict[str, Any] = {"load_before": os.getloadavg()}
    # Interleaved, so that a change in the machine's load hits every command alike.
    runs: dict[str, list[tuple[float, float]]] = {"python": [], "help": [], "ask_help": [], "version": []}
    base_env = dict(env)
    if ns.baseline:
        base_env["PYTHONPATH"] = os.pathsep.join([str(ns.baseline / "src"), str(ns.baseline)])
        runs.update({"base_help": [], "base_ask_help": [], "base_version": []})
    # `brief --help` renders through typer once per terminal and code, then prints the kept copy
    # (briefing.cli.entry): the first run in an empty cache directory is timed apart from the rest.
    cache = tempfile.mkdtemp(prefix="brief-help-")
    env["XDG_CACHE_HOME"] = cache
    result["help_first_s"] = summary([timed([*brief, "--help"], env)])
    timed([*brief, "ask", "--help"], env)  # its kept copy, as for the root help
    base_env["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="brief-help-base-")
    if ns.baseline:
        timed([*brief, "--help"], base_env)
        timed([*brief, "ask", "--help"], base_env)
    for _ in range(ns.runs):
        runs["python"].append(timed([sys.executable, "-c", "pass"], env))
        runs["help"].append(timed([*brief, "--help"], env))
        runs["ask_help"].append(timed([*brief, "ask", "--help"], env))
        runs["version"].append(timed([*brief, "--version"], env))
        if ns.baseline:
            runs["base_help"].append(timed([*brief, "--help"], base_env))
            runs["base_ask_help"].append(timed([*brief, "ask", "--help"], base_env))
            runs["base_version"].append(timed([*brief, "--version"], base_env))
    result["bare_python_s"] = summary(runs.pop("python"))
    for name, values in runs.items():
        result[f"{name}_s"] = summary(values)
    if ns.config and ns.home:
        with tempfile.TemporaryDirectory() as tmp:
            for name, each in (("home", env), ("base_home", base_env)):
                shutil.copytree(ns.home, Path(tmp) / name, symlinks=True)
                each["BRIEF_HOME"] = str(Path(tmp) / name)
            ask = [*brief, "--config", str(ns.config), "ask", ns.question, "--json"]
            ingest = [*brief, "--config", str(ns.config), "ingest"]
            both = [("", env), ("base_", base_env)] if ns.baseline else [("", env)]
            asked: dict[str, list[tuple[float, float]]] = {prefix: [] for prefix, _ in both}
            for _ in range(ns.runs):
                for prefix, each in both:
                    asked[prefix].append(timed(ask, each))
            for prefix, values in asked.items():
                result[f"{prefix}first_ask_s"] = summary(values)
            if ns.ingest:
                # A re-ingest with nothing changed at the source (local sources only: nothing is fetched).
                for _, each in both:
                    timed(ingest, each)
                again: dict[str, list[tuple[float, float]]] = {prefix: [] for prefix, _ in both}
                for _ in range(ns.runs):
                    for prefix, each in both:
                        again[prefix].append(timed(ingest, each))
                for prefix, values in again.items():
                    result[f"{prefix}noop_ingest_s"] = summary(values)
    shutil.rmtree(cache, ignore_errors=True)
    shutil.rmtree(base_env["XDG_CACHE_HOME"], ignore_errors=True)
    result["load_after"] = os.getloadavg()
    print(json.dumps(result, indent=2))
    if ns.out:
        ns.out.parent.mkdir(parents=True, exist_ok=True)
        ns.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
