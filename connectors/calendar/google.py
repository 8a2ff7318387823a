"""Google Calendar (`type = "calendar"`) through google-api-python-client, incremental by sync token.

- `events.list` per configured calendar, unexpanded (`singleEvents=false`): a series comes as one event with its
  `recurrence` lines (RRULE, RDATE, EXDATE), its moved or cancelled instances as events of their own with
  `recurringEventId` and `originalStartTime`. Each event is cached as Google sent it (one raw record per event
  id), and the listing's `nextSyncToken` is kept per calendar.
- Later syncs pass that `syncToken` and get only what changed, deleted events included: a deleted (cancelled)
  event or series leaves the index, with the instances of that series; a cancelled instance of a series stays,
  as a cancelled occurrence.
  When Google answers 410 Gone (the token expired), the calendar is listed again in full and what is no longer
  there is deleted.
- Normalisation turns the events of one iCalUID into VEVENTs (the API's fields map one to one onto iCalendar's)
  and hands them to the `.ics` source's code, so both sources expand series `expand_days` back and ahead of now
  with recurring-ical-events and give the same occurrence chunks and refs (`calendar:<iCalUID>` and
  `calendar:<iCalUID>@<recurrence-id>`). An event in two configured calendars is indexed once, from the first.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from briefing.errors import ConfigError
from briefing.model import JSON, Batch, Cursor, Failure, Normalised, RawRecord
from briefing.registry import SourceContext
from connectors.calendar import CalendarSource
from connectors.calendar.ics import IcsConnector
from connectors.google_api import CALENDAR_SCOPE, Caller, build_service, check_url, credentials_path, load_credentials
from connectors.google_api import layer_for as _layer_for

_INHERITED = ("organizer", "attendees", "location", "description", "hangoutLink", "conferenceData", "attachments")
_RESPONSE = {"accepted": "ACCEPTED", "declined": "DECLINED", "tentative": "TENTATIVE", "needsAction": "NEEDS-ACTION"}


class CalendarState(Cursor):
    sync_token: str | None = None
    # Event id -> its iCalUID, for every event cached from this calendar.
    ids: dict[str, str] = {}


class GoogleCalendarCursor(Cursor):
    calendars: dict[str, CalendarState] = {}


class _Gone(Exception):
    """events.list answered 410: the sync token is no longer valid."""


def _key(calendar: str, event_id: str) -> str:
    return f"{calendar}/{event_id}"


class GoogleCalendarConnector:
    """The configured calendars of one Google account; see the module docstring."""

    def __init__(
        self,
        name: str,
        service: Any,
        call: Caller,
        calendars: Sequence[str],
        *,
        expand_days: int = 120,
        timezone: str | None = None,
        page_size: int = 250,
        full: bool = False,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.name = name
        self.service = service
        self.call = call
        self.calendars = list(calendars)
        self.page_size = max(1, min(page_size, 2500))
        self.full = full
        self.ics = IcsConnector(name, Path("."), expand_days=expand_days, timezone=timezone, clock=clock)

    def initial_cursor(self) -> GoogleCalendarCursor:
        return GoogleCalendarCursor()

    def load_cursor(self, data: JSON) -> GoogleCalendarCursor:
        return GoogleCalendarCursor.model_validate(data)

    def check(self) -> None:
        """One authenticated call per configured calendar (`brief doctor`): the first event of each."""
        for calendar in self.calendars:
            self.call(
                f"the events of calendar '{calendar}'", self.service.events().list(calendarId=calendar, maxResults=1)
            )

    # -- collection ------------------------------------------------------------------------------------------
    def fetch(self, cursor: Cursor) -> Iterator[Batch]:
        previous = {} if self.full or not isinstance(cursor, GoogleCalendarCursor) else dict(cursor.calendars)
        state = {k: v for k, v in previous.items() if k in self.calendars}
        for calendar in self.calendars:
            old = previous.get(calendar)
            if old is not None and old.sync_token:
                try:
                    yield from self._sync(calendar, old, state, incremental=True)
                    continue
                except _Gone:
                    pass  # the token expired: list the calendar again, deleting what is gone
            yield from self._sync(calendar, old, state, incremental=False)
        dropped = [_key(c, e) for c, s in previous.items() if c not in self.calendars for e in s.ids]
        yield Batch(deleted=sorted(dropped), cursor=GoogleCalendarCursor(calendars=dict(state)))

    def _sync(
        self, calendar: str, old: CalendarState | None, state: dict[str, CalendarState], *, incremental: bool
    ) -> Iterator[Batch]:
        known = dict(old.ids) if old is not None else {}
        ids: dict[str, str] = dict(known) if incremental else {}
        token: str | None = None
        deleted: set[str] = set()
        pending: list[Batch] = []
        while True:
            params: dict[str, Any] = {"calendarId": calendar, "maxResults": self.page_size, "singleEvents": False}
            if incremental:
                params["syncToken"] = old.sync_token if old else None
                params["showDeleted"] = True
            if token:
                params["pageToken"] = token
            page = self._page(calendar, params)
            batch = Batch()
            meta = {"calendar": calendar, "name": str(page.get("summary") or calendar), "zone": page.get("timeZone")}
            for event in page.get("items", []) or []:
                self._take(calendar, event, meta, ids, deleted, batch)
            token = page.get("nextPageToken")
            if token:
                # Not the cursor's yet: an interrupted listing starts over (a sync token comes with the last page).
                batch.cursor = GoogleCalendarCursor(calendars={**state, calendar: CalendarState(ids={**known, **ids})})
                pending.append(batch)
                yield batch
                continue
            if not incremental:
                deleted |= {_key(calendar, e) for e in known if e not in ids}
            state[calendar] = CalendarState(sync_token=page.get("nextSyncToken"), ids=ids)
            batch.deleted = sorted(deleted)
            batch.cursor = GoogleCalendarCursor(calendars=dict(state))
            yield batch
            return

    def _page(self, calendar: str, params: dict[str, Any]) -> Any:
        from googleapiclient.errors import HttpError

        request = self.service.events().list(**params)

        def run() -> Any:
            try:
                return request.execute()
            except HttpError as exc:
                if int(exc.resp.status) == 410 and params.get("syncToken"):
                    raise _Gone from None
                raise

        return self.call.run(f"the events of calendar '{calendar}'", run)

    def _take(
        self, calendar: str, event: JSON, meta: JSON, ids: dict[str, str], deleted: set[str], batch: Batch
    ) -> None:
        event_id = str(event.get("id") or "")
        if not event_id:
            batch.failures.append(Failure(f"{calendar}/?", "an event without an id was skipped"))
            return
        key = _key(calendar, event_id)
        uid = str(event.get("iCalUID") or f"{event_id}@google.com")
        if event.get("status") == "cancelled" and not event.get("recurringEventId"):
            # A deleted event or series: it leaves, with every instance of that series.
            series = {e for e, u in ids.items() if u == ids.get(event_id, uid)} | {event_id}
            for e in series:
                ids.pop(e, None)
                deleted.add(_key(calendar, e))
            return
        ids[event_id] = uid
        deleted.discard(key)
        batch.records.append(RawRecord(key=key, kind="event", data={**meta, "event": event}))

    # -- normalisation ---------------------------------------------------------------------------------------
    def normalise(self, records: Sequence[RawRecord]) -> Normalised:
        order = {c: n for n, c in enumerate(self.calendars)}
        groups: dict[str, dict[str, list[RawRecord]]] = defaultdict(lambda: defaultdict(list))
        for record in records:
            event = record.data.get("event") or {}
            uid = str(event.get("iCalUID") or f"{event.get('id')}@google.com")
            groups[uid][str(record.data.get("calendar", ""))].append(record)
        synthetic: list[RawRecord] = []
        failures: list[Failure] = []
        for uid, by_calendar in groups.items():
            calendar = min(by_calendar, key=lambda c: order.get(c, len(order)))
            members = by_calendar[calendar]
            try:
                text = calendar_ics([r.data["event"] for r in members], members[0].data)
            except Exception as exc:  # noqa: BLE001 - one odd event never aborts the run
                failures.append(Failure(members[0].key, f"event cannot be read: {type(exc).__name__}: {exc}"))
                continue
            if text:
                synthetic.append(RawRecord(key=uid, kind="event", data={"path": calendar, "uid": uid, "ics": text}))
        out = self.ics.normalise(synthetic)
        out.failures = failures + out.failures
        return out


# -- the API's event JSON as iCalendar -------------------------------------------------------------------------
def _when(value: JSON | None, zone_name: str | None) -> date | datetime | None:
    if not value:
        return None
    if value.get("date"):
        return date.fromisoformat(str(value["date"]))
    stamp = value.get("dateTime")
    if not stamp:
        return None
    moment = datetime.fromisoformat(str(stamp).replace("Z", "+00:00"))
    name = value.get("timeZone") or zone_name
    if name:
        try:
            return moment.astimezone(ZoneInfo(str(name))) if moment.tzinfo else moment.replace(tzinfo=ZoneInfo(name))
        except (ZoneInfoNotFoundError, ValueError):
            pass
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _stamp(value: Any) -> datetime | None:
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _address(person: JSON, role: str) -> Any:
    from icalendar import vCalAddress

    address = vCalAddress(f"mailto:{person.get('email', '')}")
    if person.get("displayName"):
        address.params["CN"] = str(person["displayName"])
    if role == "attendee":
        address.params["PARTSTAT"] = _RESPONSE.get(str(person.get("responseStatus", "")), "NEEDS-ACTION")
        if person.get("optional"):
            address.params["ROLE"] = "OPT-PARTICIPANT"
    return address


_ANCHOR = re.compile(r"<a\s[^>]*?href=[\"']([^\"']+)[\"'][^>]*>(.*?)</a>", re.IGNORECASE | re.DOTALL)


def _description(value: Any) -> str:
    """Google stores descriptions as HTML when written in its editor: as text, each link's address kept."""
    text = str(value or "")
    if "<" in text and ">" in text:
        from connectors.email.mime import html_to_text

        text = _ANCHOR.sub(
            lambda m: m.group(2) if m.group(2).strip() == m.group(1) else f"{m.group(2)} ({m.group(1)})", text
        )
        text = html_to_text(text)
    return text.strip()


def _meeting_link(event: JSON) -> str:
    if event.get("hangoutLink"):
        return str(event["hangoutLink"])
    for point in (event.get("conferenceData") or {}).get("entryPoints", []) or []:
        if point.get("entryPointType") == "video" and point.get("uri"):
            return str(point["uri"])
    return str(event.get("htmlLink") or "")


def event_vevent(event: JSON, zone_name: str | None, *, master: JSON | None = None) -> str:
    """One API event as a VEVENT block (`master`: the series an instance belongs to, for its missing fields)."""
    from icalendar import Event

    if master is not None and event.get("start"):
        # A moved instance repeats the series' fields on Google; fill any it lacks from the series.
        event = {**{k: master[k] for k in _INHERITED if k in master}, **event}
    vevent = Event()
    vevent.add("uid", str(event.get("iCalUID") or f"{event.get('id')}@google.com"))
    summary = event.get("summary") or (master or {}).get("summary")
    if summary:
        vevent.add("summary", str(summary))
    start = _when(event.get("start"), zone_name) or _when(event.get("originalStartTime"), zone_name)
    if start is None:
        raise ValueError("the event has no start time")
    vevent.add("dtstart", start)
    end = _when(event.get("end"), zone_name)
    if end is None and master is not None and event.get("start") is None:
        # A cancelled instance carries only its original start: it lasts as long as the series' events.
        master_start, master_end = _when(master.get("start"), zone_name), _when(master.get("end"), zone_name)
        if master_start is not None and master_end is not None:
            end = start + (master_end - master_start)  # type: ignore[operator]
    if end is not None:
        vevent.add("dtend", end)
    original = _when(event.get("originalStartTime"), zone_name)
    if original is not None and event.get("recurringEventId"):
        vevent.add("recurrence-id", original)
    status = str(event.get("status") or "confirmed").upper()
    vevent.add("status", status)
    if event.get("organizer", {}).get("email"):
        vevent.add("organizer", _address(event["organizer"], "organizer"))
    rooms: list[str] = []
    for person in event.get("attendees", []) or []:
        if person.get("resource"):
            rooms.append(str(person.get("displayName") or person.get("email", "")))
        elif person.get("email"):
            vevent.add("attendee", _address(person, "attendee"))
    location = str(event.get("location") or "") or ", ".join(r for r in rooms if r)
    if location:
        vevent.add("location", location)
    description = _description(event.get("description"))
    if description:
        vevent.add("description", description)
    link = _meeting_link(event)
    if link:
        vevent.add("url", link)
    for attachment in event.get("attachments", []) or []:
        if attachment.get("fileUrl"):
            vevent.add("attach", str(attachment["fileUrl"]))
    for field, name in (("created", "created"), ("updated", "last-modified")):
        moment = _stamp(event.get(field))
        if moment is not None:
            vevent.add(name, moment)
    if isinstance(event.get("sequence"), int):
        vevent.add("sequence", event["sequence"])
    text = str(vevent.to_ical().decode("utf-8"))
    lines = [str(line).strip() for line in event.get("recurrence", []) or [] if str(line).strip()]
    if lines and not event.get("recurringEventId"):
        text = text.replace("END:VEVENT", "\r\n".join([*lines, "END:VEVENT"]), 1)
    return text.strip()


def calendar_ics(events: Sequence[JSON], meta: JSON) -> str:
    """The events of one iCalUID (a series with its instances, or one event) as a VCALENDAR; '' for none."""
    zone = str(meta.get("zone") or "") or None
    master = next((e for e in events if not e.get("recurringEventId")), None)
    if master is None:
        # Instances of a series the account cannot see whole (invited to one of them): each stands alone.
        kept = [e for e in events if e.get("status") != "cancelled" and e.get("start")]
        if not kept:
            return ""
        event = dict(kept[0])
        event.pop("recurringEventId", None)
        blocks = [event_vevent(event, zone)]
    else:
        blocks = [event_vevent(master, zone)]
        if master.get("recurrence"):
            blocks += [event_vevent(e, zone, master=master) for e in events if e is not master]
    props = [f"X-WR-CALNAME:{meta.get('name') or meta.get('calendar') or ''}"]
    if zone:
        props.append(f"X-WR-TIMEZONE:{zone}")
    return (
        "\r\n".join(
            ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//brief//google-calendar//EN", *props, *blocks, "END:VCALENDAR"]
        )
        + "\r\n"
    )


def build(ctx: SourceContext) -> GoogleCalendarConnector:
    """The registry's factory for `type = "calendar"`."""
    config: CalendarSource = ctx.config
    setting = f"sources.{ctx.name}.credentials_file"
    if config.base_url:
        check_url(config.base_url, f"sources.{ctx.name}.base_url")
    if config.timezone:
        try:
            ZoneInfo(config.timezone)
        except (ZoneInfoNotFoundError, ValueError):
            raise ConfigError(
                f"sources.{ctx.name}.timezone: unknown time zone '{config.timezone}': use an IANA name such as "
                "Europe/Berlin"
            ) from None
    path = credentials_path(ctx, config.credentials_file)
    credentials = load_credentials(path, setting=setting, scopes=[CALENDAR_SCOPE], delegated_user=config.delegated_user)
    layer = _layer_for(
        ctx.name, "Google Calendar", config.base_url, setting, config, f"check sources.{ctx.name}.calendars"
    )
    service = build_service(
        "calendar", "v3", credentials=credentials, layer=layer, base_url=config.base_url, timeout_s=config.timeout_s
    )
    fixed = ctx.now

    def clock() -> datetime:
        return fixed if fixed is not None else datetime.now(UTC)

    return GoogleCalendarConnector(
        ctx.name,
        service,
        Caller(layer, setting),
        config.calendars,
        expand_days=config.expand_days,
        timezone=config.timezone,
        page_size=config.page_size,
        full=ctx.options.full,
        clock=clock,
    )
