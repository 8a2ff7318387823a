"""A local OpenAI-compatible chat server with scripted replies, for driving `dspy.LM` and LiteLLM over real HTTP.

It speaks the wire format of `POST /v1/chat/completions`: a JSON `chat.completion` object, or, when the request
asks for `"stream": true`, server-sent `chat.completion.chunk` events ending in `data: [DONE]`. Replies come from
a script, one per request, in order: plain content, native `tool_calls`, an HTTP error status, or a reply held
until the test releases it (for timeouts, without the test sleeping). Every request is recorded.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from briefing.devserver._http import running


@dataclass
class Reply:
    content: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    status: int = 200
    hold: threading.Event | None = None  # answer only once this is set (the client times out first)
    stream_pieces: int = 4  # how many chunks a streamed content reply is cut into
    location: str | None = None  # a redirect (with a 3xx `status`) to this URL or path


@dataclass
class ScriptedLLM:
    script: list[Reply] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next_reply(self, body: dict[str, Any], headers: dict[str, str]) -> Reply:
        with self.lock:
            self.requests.append(body)
            self.headers.append(headers)
            if not self.script:
                return Reply(status=500, content="the script has no more replies")
            return self.script.pop(0)


def _message(reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = reply.tool_calls
    return message


class _Handler(BaseHTTPRequestHandler):
    server: Any
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002  # the stdlib's name
        pass

    def do_POST(self) -> None:  # noqa: N802  # the stdlib's name
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        fake: ScriptedLLM = self.server.fake
        reply = fake.next_reply(body, {k.lower(): v for k, v in self.headers.items()})
        self._respond(body, reply, len(fake.requests))

    def _respond(self, body: dict[str, Any], reply: Reply, number: int) -> None:
        if reply.hold is not None:
            reply.hold.wait(30)  # released by the test; bounded so a broken test cannot hang the suite
        if not self.path.rstrip("/").endswith("/chat/completions"):
            reply = Reply(status=404, content=f"no route {self.path}")
        if reply.location is not None:
            self.send_response(reply.status)
            self.send_header("Location", reply.location)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if reply.status != 200:
            self._json(reply.status, {"error": {"message": reply.content or "error", "type": "server_error"}})
            return
        model = body.get("model", "scripted")
        created = int(time.time())
        if body.get("stream"):
            self._stream(reply, model, created)
            return
        finish = "tool_calls" if reply.tool_calls else "stop"
        self._json(
            200,
            {
                "id": f"chatcmpl-{number}",
                "object": "chat.completion",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "message": _message(reply), "finish_reason": finish}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            },
        )

    def _json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, reply: Reply, model: str, created: int) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        text = reply.content or ""
        size = max(1, -(-len(text) // reply.stream_pieces))
        pieces = [text[i : i + size] for i in range(0, len(text), size)]
        base = {"id": "chatcmpl-stream", "object": "chat.completion.chunk", "created": created, "model": model}
        events = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}]
        events += [{**base, "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]} for p in pieces]
        events.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        for event in events:
            self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
            self.wfile.flush()
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True


@contextmanager
def scripted_llm(*replies: Reply) -> Iterator[tuple[str, ScriptedLLM]]:
    """Serve the replies on 127.0.0.1; yields the OpenAI base URL (`http://127.0.0.1:PORT/v1`) and the fake."""
    fake = ScriptedLLM(list(replies))
    with running(_Handler, fake) as port:
        yield f"http://127.0.0.1:{port}/v1", fake


@contextmanager
def dropping_server() -> Iterator[tuple[str, list[int]]]:
    """A TCP port that accepts each connection and closes it at once; yields its base URL and a connection count."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.05)
    count = [0]
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            count[0] += 1
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1", count
    finally:
        stop.set()
        thread.join()
        listener.close()


@dataclass
class OneSlot:
    """A model server with one slot, like llama.cpp's: the first request is held until its client closes it."""

    reply: Reply
    received: threading.Event = field(default_factory=threading.Event)  # the held request is on the server
    closed: threading.Event = field(default_factory=threading.Event)  # its client closed the connection
    release: threading.Event = field(default_factory=threading.Event)  # the test ends the hold
    slot: threading.Lock = field(default_factory=threading.Lock)
    requests: list[dict[str, Any]] = field(default_factory=list)


class _OneSlotHandler(_Handler):
    def do_POST(self) -> None:  # noqa: N802  # the stdlib's name
        fake: OneSlot = self.server.fake
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        with fake.slot:  # one request at a time: a later one waits while the first is worked on
            fake.requests.append(body)
            if len(fake.requests) == 1:
                fake.received.set()
                while not fake.release.is_set():  # "working" until the client goes away
                    readable, _, _ = select.select([self.connection], [], [], 0.05)
                    if readable and not self.connection.recv(1, socket.MSG_PEEK):
                        fake.closed.set()
                        self.close_connection = True
                        return
        self._respond(body, fake.reply, len(fake.requests))  # every later request gets the reply


@contextmanager
def one_slot_llm(reply: Reply) -> Iterator[tuple[str, OneSlot]]:
    """A one-slot server on 127.0.0.1 whose first request is held until the client closes it; yields its URL."""
    fake = OneSlot(reply)
    try:
        with running(_OneSlotHandler, fake) as port:
            yield f"http://127.0.0.1:{port}/v1", fake
    finally:
        fake.release.set()


def refused_url() -> str:
    """A base URL on 127.0.0.1 whose port has just been closed: connecting to it is refused."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def chat_fields(**fields: Any) -> str:
    """An assistant message in DSPy's ChatAdapter format: `[[ ## name ## ]]` sections, then `completed`."""
    parts = [
        f"[[ ## {name} ## ]]\n{value if isinstance(value, str) else json.dumps(value)}"
        for name, value in fields.items()
    ]
    return "\n\n".join([*parts, "[[ ## completed ## ]]"])
