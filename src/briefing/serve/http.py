"""The server's HTTP side (standard library): `/healthz`, `/metrics` (Prometheus) and `POST /hooks/<source>[/...]`."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from briefing.ops import metrics
from briefing.serve.ingestor import Ingestor, Reply
from briefing.serve.inlets import Streams

log = logging.getLogger(__name__)
HOOKS = "/hooks/"


def health(ingestor: Ingestor, started: float, streams: Streams | None = None) -> dict[str, Any]:
    """What `/healthz` answers: up, what waits to be published, when the last batch was, the streams' states."""
    return {
        "streams": streams.states() if streams is not None else {},
        "status": "ok",
        "workspace": ingestor.settings.workspace.name,
        "pending_events": ingestor.waiting(),
        "accepted_events": ingestor.accepted,
        "last_publish": ingestor.published_at,
        "uptime_s": round(ingestor.wall() - started, 3),
    }


def metrics_text(ingestor: Ingestor) -> bytes:
    """The workspace's totals with this process's changes added, in the Prometheus text format."""
    from prometheus_client import CollectorRegistry, generate_latest

    settings = ingestor.settings
    metrics.set_gauge("brief_events_pending", float(ingestor.waiting()))
    try:
        metrics.flush(settings.home, settings.workspace.name)
    except OSError as exc:  # a scrape still answers with the totals saved so far
        log.warning("metrics could not be written under %s: %s", metrics.metrics_dir(settings.home), exc)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(
        metrics.StateCollector([metrics.metrics_dir(settings.home) / f".state-{settings.workspace.name}.json"])
    )
    return bytes(generate_latest(registry))


def make_server(
    ingestor: Ingestor, host: str, port: int, *, started: float, streams: Streams | None = None
) -> ThreadingHTTPServer:
    """A threading HTTP server bound to host:port (0: any free port), not yet serving."""
    limit = ingestor.settings.serve.max_body_bytes

    class Handler(BaseHTTPRequestHandler):
        server_version = "brief-serve"
        sys_version = ""

        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            path = self.path.split("?", 1)[0]
            if path == "/healthz":
                self._json(Reply(200, health(ingestor, started, streams)))
            elif path == "/metrics":
                self._send(200, metrics_text(ingestor), "text/plain; version=0.0.4; charset=utf-8")
            else:
                self._json(Reply(404, {"error": "not found: /healthz, /metrics, POST /hooks/<source>"}))

        def do_POST(self) -> None:  # noqa: N802
            path = self.path.split("?", 1)[0]
            if not path.startswith(HOOKS):
                self._json(Reply(404, {"error": "not found: webhooks are POSTed to /hooks/<source>"}))
                return
            source, _, rest = path[len(HOOKS) :].partition("/")
            try:
                length = int(self.headers.get("Content-Length") or "")
            except ValueError:
                self._json(Reply(411, {"error": "a Content-Length is required"}))
                return
            if length < 0 or length > limit:
                self._json(Reply(413, {"error": f"body over serve.max_body_bytes ({limit})"}))
                return
            body = self.rfile.read(length)
            headers = dict(self.headers.items())
            self._json(ingestor.accept(source, headers, body, rest, target=self.path))

        def _json(self, reply: Reply) -> None:
            self._send(reply.status, json.dumps(dict(reply.body)).encode(), "application/json")

        def _send(self, status: int, data: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # request lines would carry a JIRA secret
            pass

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    return server


def serve_in_thread(server: ThreadingHTTPServer) -> Callable[[], None]:
    """Serve in a background thread; the returned function stops serving and closes the socket."""
    thread = threading.Thread(target=server.serve_forever, name="brief-serve-http", daemon=True)
    thread.start()

    def stop() -> None:
        server.shutdown()
        server.server_close()
        thread.join()

    return stop
