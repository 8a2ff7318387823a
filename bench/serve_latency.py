"""Latency from "message posted in Slack" to "cited by `brief ask`" through a real `brief serve` process.

    nice -n 10 python bench/serve_latency.py --messages 20 --delay 10

Each message is posted to the local Slack server and its Events API delivery signed and sent to `brief serve`,
as Slack would; a separate long-lived reader (the `Brief` service, as `brief mcp` or the Slack bot hold one)
asks about it every `--poll` seconds until the answer cites it. Messages are spaced by `--gap` seconds, so some
land early in a publish batch and some late. Prints one JSON object (seconds: p50, p95, max, each sample).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / "src"), str(Path(__file__).resolve().parents[1])]

from bench.serve_common import CHANNEL, ServeProcess, deliver, message_event, workspace  # noqa: E402
from briefing.service import Brief  # noqa: E402
from briefing.settings import load_settings  # noqa: E402

SERVICES = ["ledger", "billing", "search", "mailer", "gateway", "scheduler", "exporter", "importer", "auth", "cache"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=20)
    parser.add_argument("--delay", type=float, default=10.0, help="[serve] publish_delay_s")
    parser.add_argument("--poll", type=float, default=0.5)
    parser.add_argument("--gap", type=float, default=3.7)
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="brief-latency-"))
    config, fake, env = workspace(root, delay_s=args.delay)
    server = ServeProcess(config, env).start()
    reader = Brief(load_settings(config))
    samples: list[float] = []
    asks: list[float] = []
    try:
        for n in range(args.messages):
            service = f"{SERVICES[n % len(SERVICES)]}{n}"
            text = f"The {service} service is down since its last deploy; rolling it back now."
            ts, payload = message_event(n, text)
            posted = time.perf_counter()
            fake.post(CHANNEL, {"type": "message", "user": "U0OPS", "text": text, "ts": ts})
            deliver(server, payload)
            ref = f"slack:{CHANNEL}:{ts}"
            while True:
                asked = time.perf_counter()
                result = reader.ask(f"Which service is down since its last deploy, {service}?", now=datetime.now(UTC))
                asks.append(time.perf_counter() - asked)
                if any(ref in c.refs for c in result.citations):
                    samples.append(time.perf_counter() - posted)
                    break
                if time.perf_counter() - posted > args.timeout:
                    samples.append(float("inf"))
                    break
                time.sleep(args.poll)
            time.sleep(max(args.gap - (time.perf_counter() - posted), 0.0))
    finally:
        reader.close()
        code = server.terminate()
        fake.stop()
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    print(
        json.dumps(
            {
                "messages": args.messages,
                "publish_delay_s": args.delay,
                "p50_s": round(statistics.median(ordered), 2),
                "p95_s": round(p95, 2),
                "max_s": round(ordered[-1], 2),
                "never_seen": sum(1 for s in samples if s == float("inf")),
                "ask_median_s": round(statistics.median(asks), 2),
                "samples_s": [round(s, 2) for s in samples],
                "exit_code_on_sigterm": code,
            },
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
