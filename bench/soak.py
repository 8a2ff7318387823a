"""Soak: asks every second while an ingest loops, counting failed asks (a script, not a test).

    nice -n 10 python bench/soak.py --seconds 600 --out bench/results/soak.json

A small files workspace; one process re-ingests in a loop (each round edits a document, so every ingest writes
and publishes a generation); this process asks every second through one long-lived reader (as the MCP server
does), and every `--fresh-every`-th ask through a new one (as a new `brief ask` command does: open the index,
load the models, ask, close), and records every failure with its message.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

LOOP = """
import sys, time
from pathlib import Path
from briefing import pipeline
from briefing.settings import load_settings
config, doc, until = Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3])
n = 0
failed = 0
while time.time() < until:
    n += 1
    doc.write_text(f"# Status {n}\\n\\nThe migration status update number {n}: cutover rehearsal went fine.\\n")
    try:
        summary = pipeline.run(load_settings(config), ["handbook"])
        failed += bool(summary.broken)
        if summary.broken:
            print("ingest broken:", [str(r.error) for r in summary.broken], file=sys.stderr, flush=True)
    except Exception as exc:
        failed += 1
        print("ingest failed:", exc, file=sys.stderr, flush=True)
print(n, failed, flush=True)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--work", type=Path, default=Path("/tmp/brief-soak"))
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--fresh-every", type=int, default=20, help="every Nth ask opens a new reader")
    ns = parser.parse_args()
    import shutil

    shutil.rmtree(ns.work, ignore_errors=True)
    docs = ns.work / "docs"
    docs.mkdir(parents=True)
    (docs / "runbook.md").write_text(
        "# Failover runbook\n\nTo fail over the database, promote the replica with pg_ctl promote, then repoint "
        "PgBouncer to the new primary.\n"
    )
    config = ns.work / "brief.toml"
    config.write_text('[workspace]\nname = "soak"\n\n[sources.handbook]\ntype = "files"\npath = "docs"\n')
    os.environ["BRIEF_HOME"] = str(ns.work / "home")
    from briefing import pipeline
    from briefing.service import Brief
    from briefing.settings import load_settings

    settings = load_settings(config)
    pipeline.run(settings, ["handbook"])
    until = time.time() + ns.seconds
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
    writer = subprocess.Popen(
        [sys.executable, "-c", LOOP, str(config), str(docs / "status.md"), str(until)],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    asks = 0
    fresh = 0
    no_answer = 0
    failures: list[str] = []
    latencies: list[float] = []
    load = os.getloadavg()[0]
    # A long-lived reader (the MCP server, a chat bot) asks every second and moves to each generation the writer
    # publishes; every `fresh_every`-th ask is a new reader, the way a new `brief ask` command opens the index.
    server = Brief(load_settings(config))
    while time.time() < until:
        started = time.perf_counter()
        asks += 1
        try:
            if asks % ns.fresh_every == 0:
                fresh += 1
                with Brief(load_settings(config)) as brief:
                    result = brief.ask("how do we fail over the database?", now=_now(), k=3)
            else:
                result = server.ask("how do we fail over the database?", now=_now(), k=3)
            if not result.hits:
                failures.append("no hits")
            no_answer += bool(result.no_answer)
        except Exception as exc:
            failures.append(f"{type(exc).__name__}: {exc}")
        took = time.perf_counter() - started
        latencies.append(took)
        time.sleep(max(0.0, 1.0 - took))
    server.close()
    out, _ = writer.communicate(timeout=600)
    ingests, ingest_failures = (int(x) for x in out.split())
    latencies.sort()
    result_json: dict[str, Any] = {
        "seconds": ns.seconds,
        "asks": asks,
        "fresh_reader_asks": fresh,
        "no_answer": no_answer,
        "failed_asks": len(failures),
        "failures": failures[:20],
        "ingests": ingests,
        "failed_ingests": ingest_failures,
        "ask_p50_s": round(latencies[len(latencies) // 2], 2),
        "ask_p95_s": round(latencies[int(len(latencies) * 0.95)], 2),
        "load_start": load,
        "load_end": os.getloadavg()[0],
    }
    print(json.dumps(result_json, indent=2))
    if ns.out:
        ns.out.parent.mkdir(parents=True, exist_ok=True)
        ns.out.write_text(json.dumps(result_json, indent=2) + "\n")


def _now() -> Any:
    from datetime import UTC, datetime

    return datetime.now(UTC)


if __name__ == "__main__":
    main()
