"""Start-up: `brief --help` and the first `brief ask` of a fresh process (a script, not a timed test).

    nice -n 10 python bench/startup_bench.py --config /path/brief.toml --runs 5 --out bench/results/startup.json

`--help` needs no workspace. The ask runs against a copy of the given workspace's BRIEF_HOME (so the original is
only read), as a new process each time: what a person typing `brief ask` waits for, model load included.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def timed(cmd: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr.strip()[-400:]}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", type=Path, default=None, help="a workspace's brief.toml (for the ask)")
    parser.add_argument("--home", type=Path, default=None, help="its BRIEF_HOME (copied, never written)")
    parser.add_argument("--question", default="what was decided about the release?")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, default=None)
    ns = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("BRIEF_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT)])
    brief = [sys.executable, "-m", "briefing"]
    result: dict[str, Any] = {"load_before": os.getloadavg()}
    helps = [timed([*brief, "--help"], env) for _ in range(ns.runs)]
    result["help_s"] = {"median": round(statistics.median(helps), 2), "runs": [round(x, 2) for x in helps]}
    if ns.config and ns.home:
        with tempfile.TemporaryDirectory() as tmp:
            home = Path(tmp) / "home"
            shutil.copytree(ns.home, home, symlinks=True)
            env["BRIEF_HOME"] = str(home)
            ask = [*brief, "--config", str(ns.config), "ask", ns.question, "--json"]
            asks = [timed(ask, env) for _ in range(ns.runs)]
        result["first_ask_s"] = {"median": round(statistics.median(asks), 2), "runs": [round(x, 2) for x in asks]}
    result["load_after"] = os.getloadavg()
    print(json.dumps(result, indent=2))
    if ns.out:
        ns.out.parent.mkdir(parents=True, exist_ok=True)
        ns.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
