"""External suite families about time: question time expressions and iCalendar occurrence windows."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from briefing.model import Document, RawRecord
from briefing.question.parse import parse
from connectors.calendar.ics import IcsConnector

_MINUTE = "%Y-%m-%dT%H:%M"


def timeexpr(case: dict[str, Any], suite: Path) -> list[str]:
    """The question parsed as `brief ask` parses it; its time window (UTC, to the minute) against `expected`."""
    now = datetime.fromisoformat(case["now"])
    question = parse(case["question"], now=now, timezone=case["timezone"], week_start=case["week_start"])
    window = question.constraints.time
    expected = case.get("expected")
    if expected is None:
        return [] if window is None else [f"read a window {window.label!r} where there is none"]
    if window is None:
        return ["no time window read"]
    got = (window.start.astimezone(UTC).strftime(_MINUTE), window.end.astimezone(UTC).strftime(_MINUTE))
    want = (expected["start"][:16], expected["end"][:16])
    return [] if got == want else [f"window {got[0]}..{got[1]} ({window.label!r}) != {want[0]}..{want[1]}"]


# -- iCalendar ---------------------------------------------------------------------------------------------------


def _instant(value: str, zone: tzinfo) -> datetime:
    moment = datetime.fromisoformat(value)
    return moment.replace(tzinfo=zone) if moment.tzinfo is None else moment


def _zone_of(doc: Document, zone: tzinfo | None) -> tzinfo:
    """The zone a naive window is read in: the case's, else the occurrence's own (as recurring-ical-events)."""
    return zone or doc.items[0].occurred_at.tzinfo or UTC


def _documents(path: Path, timezone: str | None, first: datetime, last: datetime) -> list[Document]:
    """What the `ics` source indexes for `path` when its expansion window covers [first, last]."""
    middle = first + (last - first) / 2
    days = (last - first).days // 2 + 2
    connector = IcsConnector("extsuite", path, expand_days=days, timezone=timezone, clock=lambda: middle)
    records: list[RawRecord] = []
    for batch in connector.fetch(connector.initial_cursor()):
        if batch.failures:
            raise ValueError("; ".join(f.reason for f in batch.failures))
        records.extend(batch.records)
    out = connector.normalise(records)
    if out.failures:
        raise ValueError("; ".join(f.reason for f in out.failures))
    documents: list[Document] = out.documents
    return documents


def _span(doc: Document) -> tuple[datetime, datetime]:
    start = doc.items[0].occurred_at
    return start, datetime.fromisoformat(str(doc.metadata["end"]))


def _in_window(doc: Document, window: dict[str, Any], zone: tzinfo | None) -> bool:
    here = _zone_of(doc, zone)
    start, end = _instant(window["start"], here), _instant(window["end"], here)
    first, last = _span(doc)
    if first == last:  # an instant (no DTEND, no DURATION) lies in the window or not
        return start <= first < end
    return first < end and last > start


def _shown(moment: datetime, zone: tzinfo, like: str) -> str:
    return moment.astimezone(zone).strftime("%Y-%m-%dT%H:%M")[: len(like)]


def _window_checks(window: dict[str, Any], docs: list[Document], zone: tzinfo | None) -> list[str]:
    found = sorted((d for d in docs if _in_window(d, window, zone)), key=lambda d: _span(d)[0])
    where = f"[{window['start']}, {window['end']})"
    failed: list[str] = []
    if "count" in window and len(found) != window["count"]:
        failed.append(f"{where}: {len(found)} occurrences != {window['count']}")
    if "min_count" in window and len(found) < window["min_count"]:
        failed.append(f"{where}: {len(found)} occurrences < {window['min_count']}")
    starts, ends = window.get("starts") or [], window.get("ends") or []
    lists = {
        "titles": [d.title for d in found],
        "statuses": [str(d.metadata.get("status")) for d in found],
        "starts": [_shown(_span(d)[0], _zone_of(d, zone), w) for d, w in zip(found, starts, strict=False)],
        "ends": [_shown(_span(d)[1], _zone_of(d, zone), w) for d, w in zip(found, ends, strict=False)],
        "abs_starts": [_span(d)[0].astimezone(UTC).isoformat() for d in found],
        "abs_ends": [_span(d)[1].astimezone(UTC).isoformat() for d in found],
    }
    for key, got in lists.items():
        if key in window and sorted(got) != sorted(window[key]):
            failed.append(f"{where}: {key} {got} != {window[key]}")
    for want in window.get("starts_include") or []:
        if not any(_shown(_span(d)[0], _zone_of(d, zone), want) == want for d in found):
            failed.append(f"{where}: no occurrence starting {want}")
    for uid in window.get("uids_include") or []:
        if not any(d.metadata.get("uid") == uid for d in found):
            failed.append(f"{where}: no occurrence of UID {uid}")
    for suffix in window.get("ref_suffixes_include") or []:
        if not any(d.key.endswith(suffix) for d in found):
            failed.append(f"{where}: no occurrence cited as ...{suffix}")
    if "all_day" in window and any(bool(d.metadata.get("all_day")) != window["all_day"] for d in found):
        failed.append(f"{where}: all_day is not {window['all_day']}")
    if "duration_hours" in window:
        hours = [(_span(d)[1] - _span(d)[0]) / timedelta(hours=1) for d in found]
        if any(h != window["duration_hours"] for h in hours):
            failed.append(f"{where}: durations {hours} h != {window['duration_hours']} h")
    return failed


def calendar_ics(case: dict[str, Any], suite: Path) -> list[str]:
    """The calendar file through the `ics` source (the case's `options.timezone` as its setting); each window
    holds the occurrences that overlap it, read in the case's `zone` (else the setting's, else each
    occurrence's own zone, as recurring-ical-events reads a naive window)."""
    options = case.get("options") or {}
    name = case.get("zone") or options.get("timezone")
    zone = ZoneInfo(name) if name else None
    starts = [_instant(w["start"], zone or UTC) for w in case["windows"]]
    ends = [_instant(w["end"], zone or UTC) for w in case["windows"]]
    docs = _documents(suite / case["calendar"], options.get("timezone"), min(starts), max(ends))
    failed: list[str] = []
    for window in case["windows"]:
        failed.extend(_window_checks(window, docs, zone))
    return failed


RUNNERS = {"timeexpr": timeexpr, "calendar_ics": calendar_ics}
