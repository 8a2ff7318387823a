"""Soak `brief serve`: N Slack events, some replayed, the process SIGKILLed and restarted K times; lost and doubled.

    nice -n 10 python bench/serve_soak.py --events 10000 --kills 5 --replays 0.05

Each event is delivered as Slack does (retried until answered 200, so an event in flight when the process dies
is sent again); a share of events is sent twice on purpose (a vendor retry). A killer thread SIGKILLs the server
at random moments and starts it again. At the end the server is stopped with SIGTERM (drain, publish), and the
raw cache and the published index are read back: every message must be cached once and indexed in exactly one
chunk. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / "src"), str(Path(__file__).resolve().parents[1])]

from bench.serve_common import ServeProcess, deliver, message_event, workspace  # noqa: E402
from briefing.index import Filter, Index  # noqa: E402
from briefing.settings import load_settings  # noqa: E402
from briefing.store import RawStore  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--replays", type=float, default=0.05, help="share of events delivered twice")
    parser.add_argument("--delay", type=float, default=10.0, help="[serve] publish_delay_s")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--check", type=Path, help="only check a finished soak's folder")
    args = parser.parse_args()
    if args.check is not None:
        wanted = [message_event(n, "")[0] for n in range(args.events)]
        print(json.dumps(check(args.check / "brief.toml", args.check / "home", wanted), indent=2))
        return 0
    rng = random.Random(args.seed)
    root = Path(tempfile.mkdtemp(prefix="brief-soak-"))
    config, fake, env = workspace(root, delay_s=args.delay)
    server = ServeProcess(config, env).start()
    sent = 0
    kills: list[int] = []
    done = threading.Event()

    def killer() -> None:
        # Kill points spread over the run: after a random share of the events of each slice.
        marks = sorted(rng.randrange(args.events // (args.kills + 1), args.events) for _ in range(args.kills))
        for mark in marks:
            while sent < mark and not done.is_set():
                time.sleep(0.01)
            if done.is_set():
                return
            server.kill()
            kills.append(sent)
            server.start()

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    started = time.perf_counter()
    answers: collections.Counter[str] = collections.Counter()
    expected: list[str] = []
    for n in range(args.events):
        ts, payload = message_event(n, f"Soak message {n}: the worker pool w{n} restarted after a heartbeat miss.")
        expected.append(ts)
        times = 2 if rng.random() < args.replays else 1
        for _ in range(times):
            answer = deliver(server, payload)
            answers["duplicate" if answer.get("duplicate") else "ingested" if answer.get("ingested") else "other"] += 1
        sent = n + 1
    done.set()
    thread.join()
    sending_s = time.perf_counter() - started
    code = server.terminate()
    drained_s = time.perf_counter() - started - sending_s
    fake.stop()
    report = check(config, Path(env["BRIEF_HOME"]), expected)
    report.update(
        deliveries=sum(answers.values()),
        answers=dict(answers),
        kills_after_event=kills,
        exit_code_on_sigterm=code,
        send_seconds=round(sending_s, 1),
        drain_seconds=round(drained_s, 1),
    )
    print(json.dumps(report, indent=2))
    return 0


def check(config: Path, home: Path, expected: list[str]) -> dict[str, object]:
    """Every expected message cached once and indexed in exactly one chunk, and what the run log says."""
    settings = load_settings(config)
    store = RawStore.for_source(settings, "team")
    cached = {key.split("/", 1)[1] for key in store.keys() if key.startswith("C0INC/")}
    store.close()
    with Index.open(settings) as index:
        refs: collections.Counter[str] = collections.Counter()
        for point in index.scroll(Filter(source_names=("team",)), fields=["units"]):
            for unit in point.payload.get("units") or []:
                refs[str(unit["ref"]).rsplit(":", 1)[-1]] += 1
    runs = [json.loads(line) for line in (home / "logs" / "runs.jsonl").read_text().splitlines()]
    serve_runs = [r for r in runs if r["command"] == "serve"]
    return {
        "events": len(expected),
        "lost_from_cache": sum(1 for ts in expected if ts not in cached),
        "lost_from_index": sum(1 for ts in expected if refs[ts] == 0),
        "indexed_more_than_once": sum(1 for ts in expected if refs[ts] > 1),
        "events_published_per_run_log": sum(sum((r.get("paths") or {}).get("events", {}).values()) for r in serve_runs),
        "serve_runs": len(serve_runs),
        "serve_run_seconds": [r["duration_s"] for r in serve_runs],
    }


if __name__ == "__main__":
    raise SystemExit(main())
