"""The embedding thread: embedding rounds (embed, upsert) queued in order while the caller chunks the next ones."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

# Embedding rounds waiting for the embedding thread: with the round being embedded and the one being filled, at
# most (EMBED_QUEUE_DEPTH + 2) x `[embedding] round_chunks` chunks are held beyond the window's documents.
EMBED_QUEUE_DEPTH = 2


class EmbedQueue:
    """Embedding rounds (embed, upsert) run in one thread while the caller normalises and chunks the next ones.

    onnxruntime releases the GIL while it computes, so the Python work of chunking, hashing and access overlaps
    with the embedding instead of waiting for it. The queue is bounded (`EMBED_QUEUE_DEPTH` rounds), so a fast
    chunker waits instead of piling chunks up. Every index write of the run goes through the thread, in the
    order it was queued, so writes never race each other. An error in the thread stops it (the rounds after it
    are skipped) and is raised in the caller at its next `put` or at `close`.
    """

    def __init__(self, depth: int = EMBED_QUEUE_DEPTH) -> None:
        self._jobs: queue.Queue[Callable[[], None] | None] = queue.Queue(maxsize=depth)
        self._error: BaseException | None = None
        self._cancelled = False
        self._thread = threading.Thread(target=self._work, name="brief-embed", daemon=True)
        self._thread.start()

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            if self._error is None and not self._cancelled:
                try:
                    job()
                except BaseException as exc:  # raised again in the caller's thread
                    self._error = exc

    def _check(self) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            self._cancelled = True
            raise error

    def put(self, job: Callable[[], None]) -> None:
        self._check()
        self._jobs.put(job)

    def close(self, *, cancel: bool = False, quiet: bool = False) -> None:
        """Wait for the queued rounds (with `cancel`, only the one running), then raise the thread's error unless
        `quiet` (the caller is raising its own)."""
        self._cancelled = self._cancelled or cancel
        self._jobs.put(None)
        self._thread.join()
        if not quiet:
            self._check()
