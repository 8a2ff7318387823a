"""An ingest's progress per source: a Rich bar on a terminal, plain lines on a pipe, a log or cron."""

from __future__ import annotations

import threading
import time

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from briefing.cli.common import err, escape
from briefing.ingest.progress import SourceProgress, duration

# Off a terminal, a source's line is repeated at most this often (its stage changing and its end always print).
PLAIN_EVERY_S = 15.0


class ProgressDisplay:
    """Fed by the pipeline's progress callback (from the ingest and the embedding thread alike)."""

    def __init__(self, console: Console = err) -> None:
        self.console = console
        self.bar: Progress | None = None
        if console.is_terminal:
            self.bar = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                TextColumn("{task.fields[counts]}"),
                TimeElapsedColumn(),
                console=console,
                transient=True,
            )
        self.tasks: dict[str, TaskID] = {}
        self.printed: dict[str, tuple[str, float]] = {}  # per source: the stage and when its last line went out
        self.lock = threading.Lock()

    def __call__(self, event: SourceProgress) -> None:
        with self.lock:
            if self.bar is None:
                self._line(event)
            else:
                self._bar(self.bar, event)

    def _line(self, event: SourceProgress) -> None:
        now = time.monotonic()
        stage, at = self.printed.get(event.source, ("", 0.0))
        if stage == event.stage and event.stage != "done" and now - at < PLAIN_EVERY_S:
            return
        self.printed[event.source] = (event.stage, now)
        self.console.print(event.line(), markup=False, highlight=False, soft_wrap=True)

    def _bar(self, bar: Progress, event: SourceProgress) -> None:
        task = self.tasks.get(event.source)
        if event.stage == "done":
            if task is not None:
                bar.remove_task(task)
                del self.tasks[event.source]
            self.console.print(event.line(), markup=False, highlight=False, soft_wrap=True)
            return
        if task is None:
            task = bar.add_task(escape(event.source), total=None, counts="")
            self.tasks[event.source] = task
        if event.stage == "collecting":
            bar.update(task, total=None, counts=f"{event.items:,} items fetched")
            return
        expected = event.expected_to_embed()
        left = event.seconds_left()
        counts = (
            f"{event.items:,}/{event.items_total:,} items · {event.chunks:,} chunks · {event.embedded:,}/"
            f"{'~' if expected != event.to_embed else ''}{expected:,} embedded"
            + (f" · about {duration(left)} left" if left is not None else "")
        )
        bar.update(task, total=expected or None, completed=event.embedded, counts=escape(counts))

    def __enter__(self) -> ProgressDisplay:
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *_: object) -> None:
        if self.bar is not None:
            self.bar.stop()
