"""The served workspace's life: lock it, open the index once, serve HTTP, publish in the background, drain on stop.

While `Server` runs it holds the workspace lock, so it is the only writer (a cron `brief ingest` exits 13 and
says who holds it); `brief ask` and the other readers keep answering from the published generations, and see
each batch once it is published. `stop` (SIGTERM or Ctrl-C through `run_until_signalled`) stops accepting,
publishes what was accepted, and releases everything; a process killed outright loses nothing either: the
journal names the sources with unpublished events and the next start publishes them first.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from datetime import UTC, datetime
from types import FrameType

from briefing.embed import Embedder
from briefing.index import Index
from briefing.model import Connector
from briefing.ops.lock import workspace_lock
from briefing.serve import companions
from briefing.serve.http import make_server, serve_in_thread
from briefing.serve.ingestor import Clock, Ingestor
from briefing.serve.inlets import Streams, open_streams
from briefing.serve.journal import Journal
from briefing.settings import Settings

log = logging.getLogger(__name__)


class Server:
    """`brief serve` for one workspace; `start`, then `stop` (or use it as a context manager)."""

    def __init__(
        self,
        settings: Settings,
        *,
        host: str | None = None,
        port: int | None = None,
        clock: Clock = time.monotonic,
        wall: Clock = time.time,
        background: bool = True,
        connectors: Mapping[str, Connector] | None = None,
    ) -> None:
        self.settings = settings
        self.host = host if host is not None else settings.serve.host
        self.port = port if port is not None else settings.serve.port
        self.clock = clock
        self.wall = wall
        self.background = background  # False: nothing flushes or syncs unless the caller says so (tests)
        self.connectors = connectors
        self._stack = ExitStack()
        self._stopping = threading.Event()
        self._worker: threading.Thread | None = None
        self._stop_http: Callable[[], None] | None = None
        self.streams = Streams()
        self.ingestor: Ingestor | None = None
        self.companions = companions.Companions()
        self._watched_at: float | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> Server:
        """Take the lock, open the index, listen; what a previous process left unpublished goes with the first batch."""
        stack = self._stack
        try:
            stack.enter_context(workspace_lock(self.settings, "serve"))
            journal = Journal.for_settings(self.settings)
            stack.callback(journal.close)
            embedder = Embedder(self.settings.embedding, self.settings.home)
            stack.callback(embedder.close)
            index = Index.open(self.settings)
            stack.callback(index.close)  # closing a writer publishes what it wrote
            self.ingestor = Ingestor(
                self.settings,
                index,
                embedder,
                journal,
                clock=self.clock,
                wall=self.wall,
                connectors=self.connectors,
            )
            stack.callback(self.ingestor.close)
            if self.ingestor.pending:  # published with the first batch, while the server already listens
                log.info("%d events a previous process accepted are waiting to be published", self.ingestor.waiting())
            journal.prune()
            self.streams = open_streams(self.settings, self.ingestor.accept_stream)
            server = make_server(self.ingestor, self.host, self.port, started=self.wall(), streams=self.streams)
            self.port = int(server.server_address[1])
            self._stop_http = serve_in_thread(server)
            self.companions = companions.start(self.settings, self.host)
            stack.callback(self.companions.stop)  # before the index closes: they read it
            if self.background:
                self._worker = threading.Thread(target=self._work, name="brief-serve-writer", daemon=True)
                self._worker.start()
        except BaseException:
            self._stop_accepting()
            stack.close()
            raise
        return self

    def _work(self) -> None:
        ingestor = self.ingestor
        assert ingestor is not None
        while not self._stopping.is_set():
            wait = ingestor.due_in()
            ingestor.wake.wait(timeout=1.0 if wait is None else min(wait, 1.0))
            ingestor.wake.clear()
            if self._stopping.is_set():
                return
            try:
                ingestor.tick()
            except Exception as exc:  # a failed batch stays pending; the server keeps accepting events
                log.error("publishing failed: %s: %s", type(exc).__name__, exc)
                self._stopping.wait(timeout=5.0)
            self.watch_tick()

    def watch_tick(self) -> dict[str, int] | None:
        """Evaluate the watches on time passing when `watch_every_s` has passed (None: not due, or none)."""
        every = self.settings.serve.watch_every_s
        now = self.clock()
        if not every or (self._watched_at is not None and now < self._watched_at + every):
            return None
        self._watched_at = now
        from briefing.ops import watch

        try:
            if not any(w.get("reviewer") for w in watch.WatchStore.for_settings(self.settings).watches()):
                return None
            stamp = datetime.fromtimestamp(self.wall(), UTC)
            return watch.run_watches(self.settings, run_id=f"serve-watch-{stamp:%Y%m%dT%H%M%S}", now=stamp)
        except Exception as exc:  # a broken watch or target must not stop the server
            log.warning("watches were not evaluated: %s: %s", type(exc).__name__, exc)
            return None

    def stop(self) -> None:
        """Stop accepting, publish everything accepted (drain), release the index and the lock."""
        self._stopping.set()
        try:
            self._stop_accepting()
            if self.ingestor is not None:
                self.ingestor.wake.set()
                if self._worker is not None:
                    self._worker.join()
                self.ingestor.flush()
        finally:
            self._stack.close()

    def _stop_accepting(self) -> None:
        """Close the webhook endpoint and the event streams (an envelope not acknowledged is sent again later)."""
        if self._stop_http is not None:
            self._stop_http()
            self._stop_http = None
        self.streams.close()

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def run_until_signalled(server: Server, ready: Callable[[Server], None] | None = None) -> int:
    """Start, wait for SIGTERM or SIGINT, then stop gracefully; returns the exit code (0)."""
    stopping = threading.Event()

    def handle(signum: int, frame: FrameType | None) -> None:
        stopping.set()

    previous = {sig: signal.signal(sig, handle) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        server.start()
        if ready is not None:
            ready(server)
        while not stopping.wait(timeout=1.0):
            pass
        server.stop()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0
