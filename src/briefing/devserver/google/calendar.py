"""The fake's Calendar v3 events listing: unexpanded, with sync tokens, tombstones and expired tokens (410)."""

from __future__ import annotations

from briefing.devserver.google.shapes import error, page
from briefing.devserver.google.state import JSON, GoogleFake


def events(fake: GoogleFake, calendar_id: str, one: dict[str, str]) -> tuple[int, JSON]:
    """The status and body of one page of a calendar's events, a full listing or the changes since a sync token."""
    calendar = fake.calendars.get(calendar_id)
    if calendar is None:
        return 404, error(404, "NOT_FOUND", "notFound", "Not Found")
    if one.get("singleEvents") == "true":
        return 400, error(400, "INVALID_ARGUMENT", "invalid", "this fake serves unexpanded listings only")
    sync = one.get("syncToken")
    events = calendar["events"]
    if sync:
        if any(k in one for k in ("timeMin", "timeMax", "q", "orderBy", "updatedMin")):
            return 400, error(400, "INVALID_ARGUMENT", "invalid", "syncToken cannot be combined with those")
        since = int(sync.removeprefix("sync-"))
        if since < fake.token_floor:
            return 410, error(
                410, "GONE", "fullSyncRequired", "Sync token is no longer valid, a full sync is required."
            )
        chosen = [e for eid, e in events.items() if fake.changes[(calendar_id, eid)] > since]
    else:
        shown = one.get("showDeleted") == "true"
        chosen = [e for e in events.values() if shown or not e.get("_deleted")]
    chosen.sort(key=lambda e: fake.changes[(calendar_id, e["id"])])
    chunk, token = page(chosen, one, fake.page_size)
    body: JSON = {
        "kind": "calendar#events",
        "summary": calendar["summary"],
        "timeZone": calendar["timeZone"],
        "updated": fake.now.isoformat().replace("+00:00", "Z"),
        "accessRole": "reader",
        "items": [{k: v for k, v in e.items() if not k.startswith("_")} for e in chunk],
    }
    if token:
        body["nextPageToken"] = token
    else:
        body["nextSyncToken"] = f"sync-{fake.change}"
    return 200, body
