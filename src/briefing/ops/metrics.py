"""Prometheus metrics for unattended runs: what each source fetched and failed, API calls and rate-limit waits,
embedding and index time, run durations and last successes, questions, refusals, removed citations, latency per
stage.

`brief` mostly runs as short processes (cron), so in-process counters alone would reset every run. Each process
records deltas here (`inc`, `set_gauge`, `observe`); `flush` adds them, under a small lock, to the workspace's
totals in `BRIEF_HOME/metrics/.state-<workspace>.json` and rewrites the node_exporter textfile
`BRIEF_HOME/metrics/brief-<workspace>.prom` atomically (write a temporary file, then rename). Counters therefore
only ever grow, across runs, as Prometheus expects. `brief metrics serve` exposes the same totals over HTTP,
re-read on every scrape.
"""

from __future__ import annotations

import contextvars
import http.client
import json
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from filelock import FileLock

# name (without _total) -> (help, label names); every metric also carries `workspace`.
COUNTERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "brief_items_fetched": ("Raw items fetched from a source into the cache.", ("source",)),
    "brief_items_failed": ("Items skipped because they could not be fetched, normalised or chunked.", ("source",)),
    "brief_items_deleted": ("Cached items removed because the source no longer has them.", ("source",)),
    "brief_api_calls": ("HTTP requests made to a source's API.", ("source",)),
    "brief_rate_limit_waits": ("Responses that asked to wait (HTTP 429, or Retry-After) from a source.", ("source",)),
    "brief_rate_limit_wait_seconds": ("Seconds a source asked us to wait (Retry-After).", ("source",)),
    "brief_chunks_embedded": ("Chunks embedded and written to the index.", ("source",)),
    "brief_embed_seconds": ("Seconds spent computing embeddings.", ("source",)),
    "brief_index_seconds": ("Seconds spent reading and writing the index during ingestion.", ("source",)),
    "brief_source_errors": ("Runs in which a source could not be read at all.", ("source",)),
    "brief_runs": ("Runs by command and outcome (ok, partial, failed, locked).", ("command", "status")),
    "brief_questions": ("Questions answered or searched.", ("command",)),
    "brief_refusals": ("Answers that said the sources do not cover the question.", ("command",)),
    "brief_citations_removed": ("Citation markers removed by the citation check.", ("command",)),
    "brief_notifications": ("Watch notifications by delivery target and outcome.", ("target", "status")),
    "brief_events": (
        "Webhook events by source and outcome (accepted, duplicate, refused, ignored).",
        ("source", "status"),
    ),
}
GAUGES: dict[str, tuple[str, tuple[str, ...]]] = {
    "brief_source_run_duration_seconds": ("Duration of the source's last run.", ("source",)),
    "brief_source_last_run_timestamp_seconds": ("When the source's last run ended (Unix time).", ("source",)),
    "brief_source_last_success_timestamp_seconds": (
        "When the source last ran without errors (Unix time).",
        ("source",),
    ),
    "brief_source_up": ("1 when the source's last run could read it, else 0.", ("source",)),
    "brief_run_duration_seconds": ("Duration of the command's last run.", ("command",)),
    "brief_last_run_timestamp_seconds": ("When the command last ended (Unix time).", ("command",)),
    "brief_last_success_timestamp_seconds": ("When the command last ended without errors (Unix time).", ("command",)),
    "brief_index_points": ("Points in the workspace's index after the last ingest.", ()),
    "brief_events_pending": ("Accepted webhook events not yet published to the index (brief serve).", ()),
}
HISTOGRAMS: dict[str, tuple[str, tuple[str, ...]]] = {
    "brief_stage_seconds": (
        "Latency of one stage of a question (extract, retrieve, rerank, answer, total).",
        ("stage",),
    ),
}
BUCKETS: tuple[float, ...] = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
LABEL_ORDER = ("workspace", "source", "command", "status", "stage", "target")

Labels = tuple[tuple[str, str], ...]


def _labels(values: dict[str, str]) -> Labels:
    return tuple(sorted(values.items()))


@dataclass
class Recorder:
    """This process's changes since the last flush."""

    counters: dict[tuple[str, Labels], float] = field(default_factory=dict)
    gauges: dict[tuple[str, Labels], float] = field(default_factory=dict)
    observations: dict[tuple[str, Labels], list[float]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def empty(self) -> bool:
        return not (self.counters or self.gauges or self.observations)


_RECORDER = Recorder()


def _check(name: str, table: dict[str, tuple[str, tuple[str, ...]]], labels: dict[str, str]) -> None:
    if name not in table:
        raise KeyError(f"unknown metric {name}")
    expected = set(table[name][1])
    if set(labels) != expected:
        raise ValueError(f"{name} takes labels {sorted(expected)}, got {sorted(labels)}")


def inc(name: str, amount: float = 1.0, **labels: str) -> None:
    """Add `amount` to a counter (declared in COUNTERS, without its `_total` suffix)."""
    _check(name, COUNTERS, labels)
    if amount < 0:
        return  # counters never go down; 0 still creates the series, so "none yet" reads as 0, not as absent
    key = (name, _labels(labels))
    with _RECORDER.lock:
        _RECORDER.counters[key] = _RECORDER.counters.get(key, 0.0) + amount


def set_gauge(name: str, value: float, **labels: str) -> None:
    _check(name, GAUGES, labels)
    with _RECORDER.lock:
        _RECORDER.gauges[(name, _labels(labels))] = float(value)


def observe(name: str, seconds: float, **labels: str) -> None:
    _check(name, HISTOGRAMS, labels)
    with _RECORDER.lock:
        _RECORDER.observations.setdefault((name, _labels(labels)), []).append(max(float(seconds), 0.0))


def discard() -> None:
    """Forget this process's unflushed changes (tests, or a run that must not count)."""
    with _RECORDER.lock:
        _RECORDER.counters.clear()
        _RECORDER.gauges.clear()
        _RECORDER.observations.clear()


# ------------------------------------------------------------------------------------------ API call counting

_SOURCE: contextvars.ContextVar[str | None] = contextvars.ContextVar("brief_metrics_source", default=None)
_INSTALLED = False
_RATE_LIMITED = {429}


def _install() -> None:
    """Count every HTTP response a source's SDK receives, at http.client, the layer every SDK here ends in.

    The connectors use three SDKs (requests/urllib3 and urllib underneath); observing `getresponse` counts their
    calls and retries the same way without the connectors knowing about metrics.
    """
    global _INSTALLED
    if _INSTALLED:
        return
    original = http.client.HTTPConnection.getresponse

    def getresponse(self: http.client.HTTPConnection) -> http.client.HTTPResponse:
        response = original(self)
        source = _SOURCE.get()
        if source is not None:
            inc("brief_api_calls", source=source)
            retry_after = response.getheader("Retry-After")
            if response.status in _RATE_LIMITED or (retry_after is not None and response.status in (403, 503)):
                inc("brief_rate_limit_waits", source=source)
                try:
                    inc("brief_rate_limit_wait_seconds", float(retry_after or 0), source=source)
                except ValueError:
                    pass  # an HTTP date: counted as a wait, its length unknown here
        return response

    http.client.HTTPConnection.getresponse = getresponse  # type: ignore[method-assign]
    _INSTALLED = True


@contextmanager
def counting_calls(source: str) -> Iterator[None]:
    """Attribute the HTTP calls made inside this block to `source`."""
    _install()
    token = _SOURCE.set(source)
    try:
        yield
    finally:
        _SOURCE.reset(token)


# ------------------------------------------------------------------------------------------ persistence


def metrics_dir(home: Path) -> Path:
    return home / "metrics"


def textfile_path(home: Path, workspace: str) -> Path:
    return metrics_dir(home) / f"brief-{workspace}.prom"


def _state_path(home: Path, workspace: str) -> Path:
    return metrics_dir(home) / f".state-{workspace}.json"


def _key(labels: Labels) -> str:
    return json.dumps([list(pair) for pair in labels])


def _unkey(key: str) -> Labels:
    return tuple((str(k), str(v)) for k, v in json.loads(key))


def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    if not isinstance(data, dict):
        data = {}
    for section in ("counters", "gauges", "histograms"):
        data.setdefault(section, {})
    return data


def _merge(data: dict[str, Any], recorder: Recorder, workspace: str) -> None:
    ws = (("workspace", workspace),)
    for (name, labels), value in recorder.counters.items():
        series = data["counters"].setdefault(name, {})
        key = _key(tuple(sorted(ws + labels)))
        series[key] = series.get(key, 0.0) + value
    for (name, labels), value in recorder.gauges.items():
        data["gauges"].setdefault(name, {})[_key(tuple(sorted(ws + labels)))] = value
    for (name, labels), values in recorder.observations.items():
        series = data["histograms"].setdefault(name, {})
        key = _key(tuple(sorted(ws + labels)))
        entry = series.setdefault(key, {"buckets": [0] * (len(BUCKETS) + 1), "sum": 0.0})
        for value in values:
            for i, bound in enumerate(BUCKETS):
                if value <= bound:
                    entry["buckets"][i] += 1
            entry["buckets"][-1] += 1
            entry["sum"] += value


def flush(home: Path, workspace: str, *, write_textfile: bool = True) -> Path:
    """Add this process's changes to the workspace's totals and rewrite its textfile; returns the textfile."""
    import os
    import tempfile

    _PENDING.pop((home, workspace), None)
    folder = metrics_dir(home)
    folder.mkdir(parents=True, exist_ok=True)
    target = textfile_path(home, workspace)
    with FileLock(folder / ".lock", timeout=30, thread_local=False):
        state_path = _state_path(home, workspace)
        data = _load(state_path)
        with _RECORDER.lock:
            _merge(data, _RECORDER, workspace)
            _RECORDER.counters.clear()
            _RECORDER.gauges.clear()
            _RECORDER.observations.clear()
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".state.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, sort_keys=True)
        os.replace(tmp, state_path)
        if write_textfile:
            from prometheus_client import CollectorRegistry, write_to_textfile

            registry = CollectorRegistry(auto_describe=False)
            registry.register(StateCollector([state_path]))
            write_to_textfile(str(target), registry)
    return target


# Questions are counted in memory and written at most this often by a long-lived process (and on exit), not once
# per question: rewriting the state file and the textfile cost about a tenth of a warm search.
QUESTION_FLUSH_S = 60.0
_PENDING: dict[tuple[Path, str], float] = {}
_AT_EXIT: list[bool] = []


def flush_later(home: Path, workspace: str) -> None:
    """Note that this workspace has unwritten question counts: written once QUESTION_FLUSH_S has passed, or on exit."""
    import atexit
    import time

    now = time.monotonic()
    key = (home, workspace)
    if not _AT_EXIT:
        atexit.register(flush_pending)
        _AT_EXIT.append(True)
    last = _PENDING.setdefault(key, now)
    if now - last >= QUESTION_FLUSH_S:
        flush(home, workspace)
        _PENDING[key] = now


def flush_pending() -> None:
    """Write every workspace's unwritten question counts (a closing service, or the process's exit)."""
    import logging

    for home, workspace in list(_PENDING):
        try:
            flush(home, workspace)
        except Exception as exc:  # metrics must never fail a run
            logging.getLogger(__name__).warning("metrics could not be written under %s: %s", metrics_dir(home), exc)
    _PENDING.clear()


def _ordered(labels: Labels) -> tuple[list[str], list[str]]:
    pairs = sorted(labels, key=lambda p: LABEL_ORDER.index(p[0]) if p[0] in LABEL_ORDER else len(LABEL_ORDER))
    return [k for k, _ in pairs], [v for _, v in pairs]


class StateCollector:
    """A prometheus_client collector over saved totals, re-read at every `collect` (every scrape)."""

    def __init__(self, paths: Iterable[Path] | None = None, home: Path | None = None) -> None:
        self.paths = list(paths or [])
        self.home = home

    def _states(self) -> list[dict[str, Any]]:
        paths = self.paths or sorted(metrics_dir(self.home).glob(".state-*.json")) if self.home else self.paths
        return [_load(p) for p in paths]

    def describe(self) -> list[Any]:
        return []

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily

        states = self._states()
        for name, (doc, _) in COUNTERS.items():
            family: Any = None
            for state in states:
                for key, value in state["counters"].get(name, {}).items():
                    names, values = _ordered(_unkey(key))
                    family = family or CounterMetricFamily(name, doc, labels=names)
                    family.add_metric(values, value)
            if family is not None:
                yield family
        for name, (doc, _) in GAUGES.items():
            family = None
            for state in states:
                for key, value in state["gauges"].get(name, {}).items():
                    names, values = _ordered(_unkey(key))
                    family = family or GaugeMetricFamily(name, doc, labels=names)
                    family.add_metric(values, value)
            if family is not None:
                yield family
        for name, (doc, _) in HISTOGRAMS.items():
            family = None
            for state in states:
                for key, entry in state["histograms"].get(name, {}).items():
                    names, values = _ordered(_unkey(key))
                    family = family or HistogramMetricFamily(name, doc, labels=names)
                    bounds = [str(b) for b in BUCKETS] + ["+Inf"]
                    family.add_metric(values, list(zip(bounds, entry["buckets"], strict=True)), entry["sum"])
            if family is not None:
                yield family


def serve(home: Path, port: int, addr: str = "127.0.0.1") -> Any:
    """Start an HTTP exporter of every workspace's totals under `home`; returns (server, thread)."""
    import threading
    from wsgiref.simple_server import WSGIRequestHandler, make_server

    from prometheus_client import CollectorRegistry, make_wsgi_app
    from prometheus_client.exposition import ThreadingWSGIServer

    registry = CollectorRegistry(auto_describe=False)
    registry.register(StateCollector(home=home))
    exporter = make_wsgi_app(registry)

    def app(environ: dict[str, Any], start_response: Any) -> Any:
        # Only /metrics (and / for a browser) is the exporter; anything else is a 404, as a scraper expects.
        if environ.get("PATH_INFO", "/") in ("/metrics", "/"):
            return exporter(environ, start_response)
        start_response("404 Not Found", [("Content-Type", "text/plain; charset=utf-8")])
        return [b"not found: the metrics are at /metrics\n"]

    class _Quiet(WSGIRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = make_server(addr, port, app, ThreadingWSGIServer, handler_class=_Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server, thread
