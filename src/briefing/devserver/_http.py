"""The thread-and-port plumbing shared by the fake vendor servers: always 127.0.0.1, an ephemeral port."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Generic, TypeVar

T = TypeVar("T")


class FakeServer(ThreadingHTTPServer, Generic[T]):
    """A threading HTTP server whose handlers reach their fake's state as `self.server.fake`."""

    fake: T


@contextmanager
def running(handler: type[BaseHTTPRequestHandler], fake: T) -> Iterator[int]:
    """Serve `fake` through `handler` in a thread for the duration of the block; yields the port."""
    server: FakeServer[T] = FakeServer(("127.0.0.1", 0), handler)
    server.fake = fake
    # A short poll interval: shutting down waits for one poll (0.5 s by default, on every test that serves).
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
