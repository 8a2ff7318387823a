"""Replays recorded model exchanges (tests/fixtures/llm/) as a local OpenAI-compatible chat server.

Each recorded exchange is a request body brief sent to a real model server and the body the server answered.
Replies are served per role in the recorded order: a request from the router (DSPy ReAct's fields) gets the
router's next recorded reply, a request from the answer module (its `sufficient` field) the answer's next one,
so a change in how many steps the router takes cannot hand the answer module a router reply. A role whose
recording is used up answers 500, which brief treats like any failing server.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from briefing.devserver._http import running

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "llm"


def role_of(body: dict[str, Any]) -> str:
    """Which of brief's modules sent a chat request: the answer module (its `sufficient` field) or the router."""
    return "answer" if "sufficient" in json.dumps(body.get("messages", [])) else "router"


@dataclass
class Replay:
    queues: dict[str, list[dict[str, Any]]]
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next(self, body: dict[str, Any]) -> tuple[int, Any]:
        with self.lock:
            self.requests.append(body)
            queue = self.queues.get(role_of(body), [])
            if not queue:
                return 500, {"error": {"message": "the recording has no more replies", "type": "server_error"}}
            exchange = queue.pop(0)
            return int(exchange["status"]), exchange["response"]

    def of(self, role: str) -> list[dict[str, Any]]:
        return [body for body in self.requests if role_of(body) == role]


class _Handler(BaseHTTPRequestHandler):
    server: Any
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002  # the stdlib's name
        pass

    def do_POST(self) -> None:  # noqa: N802  # the stdlib's name
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        status, payload = self.server.fake.next(body)
        data = (payload if isinstance(payload, str) else json.dumps(payload)).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def load(path: Path) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(path.read_text())
    return record


@contextmanager
def replaying(record: dict[str, Any], *, roles: tuple[str, ...] = ("router", "answer")) -> Iterator[tuple[str, Replay]]:
    """Serve `record`'s exchanges of `roles` on 127.0.0.1; yields the base URL (`.../v1`) and the replay."""
    queues: dict[str, list[dict[str, Any]]] = {role: [] for role in roles}
    for exchange in record["exchanges"]:
        if exchange["role"] in queues:
            queues[exchange["role"]].append(exchange)
    fake = Replay(queues)
    with running(_Handler, fake) as port:
        yield f"http://127.0.0.1:{port}/v1", fake
