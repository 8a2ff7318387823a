"""The `ics` source: one `.ics` file or a folder of them, read with icalendar and recurring-ical-events.

Collection caches each event (its UID with every override of it, plus the calendar's time zones) as one raw
record; the cursor remembers each file's (mtime, size, UIDs), so a UID gone from a file leaves the index.
Normalisation expands series `expand_days` back and ahead of the clock: each occurrence becomes one document
(`calendar:<UID>@<recurrence-id>`), a single event one document (`calendar:<UID>`). A cancelled occurrence or
series is kept, marked cancelled, so "was Tuesday's planning cancelled?" has an answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, date, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from briefing.errors import ConfigError, SourceError
from briefing.model import JSON, Batch, Cursor, Document, Failure, Item, Normalised, Person, RawRecord, reader_email
from briefing.registry import SourceContext
from briefing.textrules import PROJECT_KEY
from connectors.calendar import IcsSource
from connectors.calendar.changes import earlier
from connectors.calendar.ics_text import split_events

_URL = re.compile(r"https?://[^\s<>\"')\]]+")
_NATIVE_REF = re.compile(
    rf"\b(?:confluence:\d+|file:[\w./-]+\.\w+|jira:{PROJECT_KEY.pattern}-\d+|github:[\w.-]+/[\w.-]+#\d+)"
)
_PARTSTAT = {
    "ACCEPTED": "accepted",
    "DECLINED": "declined",
    "TENTATIVE": "tentative",
    "NEEDS-ACTION": "no response",
    "DELEGATED": "delegated",
}


class IcsCursor(Cursor):
    """Calendar file (relative path) -> (mtime, size, UIDs it held)."""

    files: dict[str, tuple[float, int, list[str]]] = {}


class IcsConnector:
    """Reads `.ics` files; see the module docstring."""

    def __init__(
        self,
        name: str,
        path: Path,
        *,
        expand_days: int = 120,
        timezone: str | None = None,
        full: bool = False,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.name = name
        self.path = path
        self.expand_days = expand_days
        self.timezone = timezone
        self.full = full
        self.clock = clock

    def initial_cursor(self) -> IcsCursor:
        return IcsCursor()

    def load_cursor(self, data: JSON) -> IcsCursor:
        return IcsCursor.model_validate(data)

    def _files(self) -> list[tuple[str, Path]]:
        if not self.path.exists():
            raise SourceError(
                f"source '{self.name}': {self.path} does not exist (sources.{self.name}.path): "
                "point it at an .ics file or a folder of them"
            )
        if self.path.is_file():
            return [(self.path.name, self.path)]
        return [(p.relative_to(self.path).as_posix(), p) for p in sorted(self.path.rglob("*.ics")) if p.is_file()]

    def fetch(self, cursor: Cursor) -> Iterator[Batch]:
        previous = {} if self.full or not isinstance(cursor, IcsCursor) else dict(cursor.files)
        batch = Batch(complete=not previous)
        state: dict[str, tuple[float, int, list[str]]] = {}
        for rel, path in self._files():
            try:
                stat = path.stat()
                old = previous.get(rel)
                if old is not None and (old[0], old[1]) == (stat.st_mtime, stat.st_size):
                    state[rel] = old
                    continue
                text = path.read_bytes().decode("utf-8-sig", errors="replace")  # a BOM is not content
            except OSError as exc:
                batch.failures.append(Failure(rel, f"cannot be read: {exc.strerror or exc}"))
                if rel in previous:
                    state[rel] = previous[rel]  # unreadable this time is not deleted
                continue
            if "BEGIN:VCALENDAR" not in text:
                batch.failures.append(Failure(rel, "not an iCalendar file (no BEGIN:VCALENDAR)"))
                continue
            try:
                by_uid = split_events(text)
            except ValueError as exc:
                batch.failures.append(Failure(rel, f"not a readable iCalendar file: {exc}"))
                if rel in previous:
                    state[rel] = previous[rel]  # unreadable this time is not deleted
                continue
            for uid, ics in by_uid.items():
                batch.records.append(RawRecord(key=uid, kind="event", data={"path": rel, "uid": uid, "ics": ics}))
            state[rel] = (stat.st_mtime, stat.st_size, sorted(by_uid))
        if previous:
            present = {u for v in state.values() for u in v[2]}
            batch.deleted = sorted({u for v in previous.values() for u in v[2]} - present)
        batch.cursor = IcsCursor(files=state)
        yield batch

    # -- normalisation ---------------------------------------------------------------------------------------
    def normalise(self, records: Sequence[RawRecord]) -> Normalised:
        out = Normalised()
        now = self.clock()
        window = (now - timedelta(days=self.expand_days), now + timedelta(days=self.expand_days))
        people: dict[str, Person] = {}
        for record in records:
            try:
                docs = self._event_documents(record, window)
            except Exception as exc:  # noqa: BLE001 - one broken event must never abort the run
                out.failures.append(Failure(record.key, f"event cannot be read: {type(exc).__name__}: {exc}"))
                continue
            for doc in docs:
                doc.readers = event_readers(doc.metadata)
            out.documents.extend(docs)
            for doc in docs[:1]:
                for name, addr in [doc.metadata.get("organizer") or ["", ""], *doc.metadata.get("attendees", [])][:50]:
                    if addr and addr not in people:
                        people[addr] = Person(id=f"email:{addr}", name=name or addr.split("@")[0], emails=(addr,))
        out.people = list(people.values())
        return out

    def _zone(self, calendar: Any) -> tzinfo:
        name = self.timezone or str(calendar.get("X-WR-TIMEZONE", "") or "") or "UTC"
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            return UTC

    def _event_documents(self, record: RawRecord, window: tuple[datetime, datetime]) -> list[Document]:
        import icalendar
        import recurring_ical_events

        calendar = icalendar.Calendar.from_ical(record.data["ics"])
        zone = self._zone(calendar)
        cal_name = str(calendar.get("X-WR-CALNAME", "") or "") or Path(str(record.data.get("path", ""))).stem
        events = list(calendar.walk("VEVENT"))
        if not events:
            return []
        master = next((e for e in events if e.get("RECURRENCE-ID") is None), events[0])
        uid = str(record.key)
        recurring = master.get("RRULE") is not None or master.get("RDATE") is not None
        unreadable = ""
        if recurring:
            start, end = window
            try:
                occurrences = list(recurring_ical_events.of(calendar).between(start, end))
            except ValueError as exc:  # a malformed RRULE: the event itself is still known, once
                occurrences, unreadable = [master], f"{type(exc).__name__}: {str(exc)[:200]}"
        else:
            occurrences = [master]
        docs = []
        for event in occurrences:
            doc = self._document(event, uid, recurring, zone, cal_name, master)
            if unreadable:
                doc.metadata["note"] = f"recurrence rule unreadable ({unreadable}): only the first occurrence is shown"
            docs.append(doc)
        return docs

    def _document(self, event: Any, uid: str, recurring: bool, zone: tzinfo, cal_name: str, master: Any) -> Document:
        start_value = event.get("DTSTART").dt
        end_prop = event.get("DTEND")
        all_day = isinstance(start_value, date) and not isinstance(start_value, datetime)
        start = _aware(start_value, zone)
        if end_prop is not None:
            end = _aware(end_prop.dt, zone)
        elif event.get("DURATION") is not None:
            end = start + event.get("DURATION").dt
        else:
            end = start + (timedelta(days=1) if all_day else timedelta(0))
        if end < start:  # DTSTART and DTEND swapped by the writer: read as the span they bound
            start, end = end, start
        ref = f"calendar:{uid}"
        if recurring:
            rid_prop = event.get("RECURRENCE-ID")
            rid_value = rid_prop.dt if rid_prop is not None else start_value
            ref = f"{ref}@{_rid(rid_value)}"
        title = " ".join(str(event.get("SUMMARY", "") or "(no title)").split())
        status = str(event.get("STATUS", "") or master.get("STATUS", "") or "").upper()
        cancelled = status == "CANCELLED"
        organizer = _person(event.get("ORGANIZER"))
        attendees_raw = event.get("ATTENDEE") or []
        if not isinstance(attendees_raw, list):
            attendees_raw = [attendees_raw]
        attendees = [_person(a) for a in attendees_raw]
        responses = [_partstat(a) for a in attendees_raw]
        location = " ".join(str(event.get("LOCATION", "") or "").split())
        description = str(event.get("DESCRIPTION", "") or "").replace("\r\n", "\n").strip()
        url = str(event.get("URL", "") or "")
        links = _links(" ".join([description, location, url, *[str(a) for a in _attachments(event)]]))
        written = _written(event, master)
        when = _when_text(start, end, all_day, zone)
        lines = [
            f"{'CANCELLED: ' if cancelled else ''}Meeting: {title} ({cal_name})",
            f"When: {when}",
        ]
        if organizer[0] or organizer[1]:
            lines.append(f"Organiser: {_label(organizer)}")
        if attendees:
            shown = [f"{_label(p)} ({r})" for p, r in zip(attendees, responses, strict=True)]
            lines.append("Attendees: " + ", ".join(shown))
        if location:
            lines.append(f"Where: {location}")
        if url:
            lines.append(f"Link: {url}")
        if links:
            lines.append("Linked: " + ", ".join(links))
        if description:
            lines.append(description)
        text = "\n".join(lines)
        metadata: JSON = {
            "uid": uid,
            "recurring": recurring,
            "all_day": all_day,
            "status": status.lower() or "confirmed",
            "organizer": organizer,
            "attendees": attendees,
            "responses": responses,
            "location": location,
            "links": links,
            "written_at": written.isoformat() if written else None,
            "end": end.isoformat(),
        }
        item = Item(
            ref=ref,
            source_type="calendar",
            kind="event",
            text=text,
            occurred_at=start,
            author=_label(organizer) if (organizer[0] or organizer[1]) else None,
            title=title,
            url=url if url.startswith("http") else "",
            container=cal_name,
            thread=uid,
            metadata=metadata,
        )
        # Changed after it was written: the earlier item is what a reader before the change sees.
        before = earlier(item, written, _modified(event, master), _sequence(event, master))
        if before is not None:
            item.metadata = {**metadata, "written_at": before.metadata["valid_until"]}
        return Document(
            key=ref,
            kind="calendar_event",
            source_type="calendar",
            title=title,
            items=[item] if before is None else [item, before],
            url=item.url,
            container=cal_name,
            metadata=metadata,
        )


def _aware(value: date | datetime, zone: tzinfo) -> datetime:
    if not isinstance(value, datetime):
        return datetime(value.year, value.month, value.day, tzinfo=zone)
    # A floating time ("09:00 wherever you are") is read in the calendar's zone.
    return value.replace(tzinfo=zone) if value.tzinfo is None else value


def _rid(value: date | datetime) -> str:
    if not isinstance(value, datetime):
        return value.strftime("%Y%m%d")
    if value.tzinfo is None:
        return value.strftime("%Y%m%dT%H%M%S")
    return value.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def _when_text(start: datetime, end: datetime, all_day: bool, zone: tzinfo) -> str:
    local = start.astimezone(zone)
    if all_day:
        days = (end.date() - start.date()).days
        last = (end - timedelta(days=1)).date()
        span = f"{local:%a %Y-%m-%d}" + (f" to {last:%a %Y-%m-%d}" if days > 1 else "")
        return f"{span} (all day)"
    local_end = end.astimezone(zone)
    name = getattr(zone, "key", None) or str(zone)
    ends = f"{local_end:%H:%M}" if local_end.date() == local.date() else f"{local_end:%a %Y-%m-%d %H:%M}"
    utc = "" if name == "UTC" else f" ({start.astimezone(UTC):%H:%M} UTC)"
    return f"{local:%a %Y-%m-%d %H:%M}-{ends} {name}{utc}"


def event_readers(metadata: JSON) -> tuple[str, ...] | None:
    """Who may see an event (briefing.access): its organiser and attendees; None (owner only) when it has none."""
    people = [metadata.get("organizer") or ["", ""], *(metadata.get("attendees") or [])]
    found = tuple(dict.fromkeys(reader_email(p[1]) for p in people if len(p) > 1 and p[1]))
    return found or None


def _person(prop: Any) -> list[str]:
    if prop is None:
        return ["", ""]
    addr = str(prop)
    addr = addr[7:] if addr.lower().startswith("mailto:") else addr
    params = getattr(prop, "params", {}) or {}
    return [str(params.get("CN", "") or "").strip('"'), addr.strip().lower()]


def _partstat(prop: Any) -> str:
    params = getattr(prop, "params", {}) or {}
    return _PARTSTAT.get(str(params.get("PARTSTAT", "NEEDS-ACTION")).upper(), "no response")


def _label(person: list[str]) -> str:
    name, addr = person
    return name or addr


def _attachments(event: Any) -> list[Any]:
    value = event.get("ATTACH") or []
    return value if isinstance(value, list) else [value]


def _links(text: str) -> list[str]:
    """Native refs of the pages and tickets an event links to (its notes, its agenda), by ref or by address."""
    refs = list(dict.fromkeys(_NATIVE_REF.findall(text)))
    for url in _URL.findall(text):
        url = url.rstrip(".,;")
        page = re.search(r"/pages/(?:viewpage\.action\?pageId=)?(\d+)", url)
        ticket = re.search(rf"/browse/({PROJECT_KEY.pattern}-\d+)", url)
        pull = re.search(r"github\.com/([\w.-]+/[\w.-]+)/(?:pull|issues)/(\d+)", url)
        if page:
            refs.append(f"confluence:{page.group(1)}")
        elif ticket:
            refs.append(f"jira:{ticket.group(1)}")
        elif pull:
            refs.append(f"github:{pull.group(1)}#{pull.group(2)}")
    return list(dict.fromkeys(refs))


def _written(event: Any, master: Any) -> datetime | None:
    """When the event was written: CREATED, else LAST-MODIFIED (of the override, then the series), else DTSTAMP.

    DTSTAMP is capped at the event's start: exported calendars stamp every event with the export time, which
    would otherwise hide past meetings from questions asked before the export.
    """
    for component in (event, master):
        for name in ("CREATED", "LAST-MODIFIED"):
            prop = component.get(name)
            if prop is not None and isinstance(prop.dt, datetime):
                return _as_utc(prop.dt)
    stamp = event.get("DTSTAMP") or master.get("DTSTAMP")
    if stamp is not None and isinstance(stamp.dt, datetime):
        return min(_as_utc(stamp.dt), _aware(event.get("DTSTART").dt, UTC))
    return None


def _modified(event: Any, master: Any) -> datetime | None:
    """LAST-MODIFIED of the occurrence (an override), else of the series."""
    prop = event.get("LAST-MODIFIED") or master.get("LAST-MODIFIED")
    return _as_utc(prop.dt) if prop is not None and isinstance(prop.dt, datetime) else None


def _sequence(event: Any, master: Any) -> int:
    value = event.get("SEQUENCE", master.get("SEQUENCE", 0))
    return int(value) if str(value).strip().isdigit() else 0


def _as_utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def build(ctx: SourceContext) -> IcsConnector:
    """The registry's factory for `type = "ics"`."""
    config: IcsSource = ctx.config
    if config.timezone:
        try:
            ZoneInfo(config.timezone)
        except (ZoneInfoNotFoundError, ValueError):
            raise ConfigError(
                f"sources.{ctx.name}.timezone: unknown time zone '{config.timezone}': use an IANA name such as "
                "Europe/Berlin"
            ) from None
    fixed = ctx.now

    def clock() -> datetime:
        return fixed if fixed is not None else datetime.now(UTC)

    return IcsConnector(
        ctx.name,
        ctx.resolve(Path(config.path)),
        expand_days=config.expand_days,
        timezone=config.timezone,
        full=ctx.options.full,
        clock=clock,
    )
