"""Record real model exchanges for the replay tests: a proxy between brief and an OpenAI-compatible model server.

    python eval/record_llm.py --upstream http://127.0.0.1:8080/v1 --config src/briefing/sample/brief.toml \
        --cases eval/sample_dev.jsonl --ids s001,s014 --out tests/fixtures/llm/sample --model openai/smollm2

With `--log FILE --port N` it only runs the proxy, appending every exchange to FILE as a JSON line (point
`BRIEF_LLM__API_BASE` at it and run `brief eval`); `--split FILE` then writes one fixture per case of `--cases`
whose question the exchanges carry.

Each case is asked through the production path (`Brief.ask`, the case's `now`) with `[llm] model` and `api_base`
pointed at the proxy (by the `BRIEF_LLM__*` variables, so the config file is unchanged); every request body and
the server's response body are written, in order, to `<out>/<id>.json`, with the role that sent it (the router's
ReAct steps or the answer module) and what brief made of the exchange (its answer, router status, validation).
"""

from __future__ import annotations

import argparse
import json
import os
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


def role_of(body: dict[str, Any]) -> str:
    """Which of brief's modules sent a chat request: the router (ReAct fields) or the answer module."""
    text = json.dumps(body.get("messages", []))
    return "answer" if "sufficient" in text else "router"


class Proxy(BaseHTTPRequestHandler):
    server: Any
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002  # the stdlib's name
        pass

    def do_POST(self) -> None:  # noqa: N802  # the stdlib's name
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.loads(raw or b"{}")
        upstream = self.server.upstream.rstrip("/") + self.path.removeprefix("/v1")
        request = urllib.request.Request(  # noqa: S310  # --upstream is checked to be http(s) in main()
            upstream, data=raw, headers={"Content-Type": "application/json"}
        )
        started = time.perf_counter()
        try:
            with urllib.request.urlopen(request, timeout=self.server.timeout_s) as response:  # noqa: S310
                status, data = response.status, response.read()
        except urllib.error.HTTPError as exc:
            status, data = exc.code, exc.read()
        except OSError as exc:  # the upstream timed out or went away: recorded as a 504 the client sees
            status, data = 504, json.dumps({"error": {"message": f"upstream: {exc}"}}).encode()
        ms = round((time.perf_counter() - started) * 1000, 1)
        try:
            response_body: Any = json.loads(data)
        except ValueError:
            response_body = data.decode(errors="replace")
        exchange = {"role": role_of(body), "request": body, "status": status, "response": response_body, "ms": ms}
        with self.server.lock:
            self.server.exchanges.append(exchange)
            if self.server.log is not None:
                with self.server.log.open("a") as log:
                    log.write(json.dumps(exchange, ensure_ascii=False) + "\n")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--upstream", default="", help="the model server's OpenAI base URL, ending in /v1")
    parser.add_argument("--config", type=Path)
    parser.add_argument("--cases", type=Path)
    parser.add_argument("--ids", default="", help="comma-separated case ids")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--log", type=Path, help="proxy only: append every exchange to this JSONL file")
    parser.add_argument("--port", type=int, default=0, help="proxy only: the port to listen on")
    parser.add_argument("--split", type=Path, help="write one fixture per case from this exchange log")
    parser.add_argument("--settings", default="{}", help="with --split: the [llm] settings of the run, JSON")
    parser.add_argument("--model", default="openai/local", help="the LiteLLM id brief is configured with")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds the proxy waits for the upstream")
    args = parser.parse_args()
    if args.split:
        split(args.split, args.cases, args.out, args.model, json.loads(args.settings))
        return
    if not args.upstream.startswith(("http://", "https://")):
        parser.error("--upstream must be an http(s) URL")

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Proxy)
    server.upstream, server.timeout_s = args.upstream, args.timeout  # type: ignore[attr-defined]
    server.exchanges, server.lock, server.log = [], threading.Lock(), args.log  # type: ignore[attr-defined]
    if args.log:
        print(f"proxy on http://127.0.0.1:{server.server_address[1]}/v1", flush=True)
        server.serve_forever()
        return
    threading.Thread(target=server.serve_forever, daemon=True).start()
    os.environ["BRIEF_LLM__MODEL"] = args.model
    os.environ["BRIEF_LLM__API_BASE"] = f"http://127.0.0.1:{server.server_address[1]}/v1"

    from briefing.service import Brief, parse_now
    from briefing.settings import load_settings

    wanted = args.ids.split(",")
    cases = {c["id"]: c for c in map(json.loads, args.cases.read_text().splitlines()) if c["id"] in wanted}
    args.out.mkdir(parents=True, exist_ok=True)
    settings = load_settings(args.config)
    with Brief(settings) as brief:
        for case_id in wanted:
            case = cases[case_id]
            server.exchanges.clear()  # type: ignore[attr-defined]
            started = time.perf_counter()
            result = brief.ask(case["question"], now=parse_now(case["now"]), k=10).to_json(trace=True)
            trace = result.get("trace", {})
            record = {
                "id": case_id,
                "question": case["question"],
                "now": case["now"],
                "model": args.model,
                "llm_settings": settings.llm.model_dump(exclude={"api_base", "api_key_env"}),
                "seconds": round(time.perf_counter() - started, 1),
                "exchanges": list(server.exchanges),  # type: ignore[attr-defined]
                "brief": {
                    "answer": result.get("answer"),
                    "no_answer": result.get("no_answer"),
                    "router": trace.get("router"),
                    "router_steps": trace.get("router_steps"),
                    "answerer": trace.get("answerer"),
                    "validation": trace.get("validation"),
                    "dropped_sentences": trace.get("dropped_sentences"),
                },
            }
            path = args.out / f"{case_id}.json"
            path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
            print(f"{case_id}: {len(record['exchanges'])} exchanges, {record['seconds']} s, {trace.get('router')}")
    server.shutdown()


def split(log: Path, cases_path: Path, out: Path, model: str, settings: dict[str, Any]) -> None:
    """One fixture per case whose question the logged requests carry (as `brief eval` asked them, in order)."""
    exchanges = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    out.mkdir(parents=True, exist_ok=True)
    for case in map(json.loads, cases_path.read_text().splitlines()):
        marker = f"[[ ## question ## ]]\n{case['question']}"
        mine = [e for e in exchanges if any(marker in str(m.get("content")) for m in e["request"]["messages"])]
        if not mine:
            continue
        record = {"id": case["id"], "question": case["question"], "now": case["now"], "model": model}
        record["llm_settings"] = settings
        record["exchanges"] = mine
        (out / f"{case['id']}.json").write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
        print(f"{case['id']}: {len(mine)} exchanges")


if __name__ == "__main__":
    main()
