"""Cached Confluence pages as Documents: the page, its earlier versions and its comments as items, its breadcrumb,
history and people."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

from briefing.model import JSON, Document, Failure, Item, Normalised, Person, RawRecord
from connectors.confluence.access import ACCESS_KIND, access_people, page_readers
from connectors.confluence.storage import storage_to_markdown
from connectors.confluence.versions import VERSION_KIND, by_page, current_number, kept


def parse_time(value: str) -> datetime:
    """Confluence timestamps (`2026-06-08T10:15:00.000Z`, `...+02:00`) as aware UTC datetimes."""
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def _user_id(user: JSON) -> str:
    return str(user.get("accountId") or user.get("userKey") or user.get("username") or "")


def _user_name(user: JSON) -> str:
    return str(user.get("displayName") or user.get("publicName") or user.get("username") or "unknown user")


def normalise(records: Sequence[RawRecord], base_url: str, max_versions: int = 20) -> Normalised:
    """Cached pages (with their earlier versions and comments) as Documents, their people, and who may read each
    (briefing.access)."""
    out = Normalised()
    people: dict[str, Person] = {}
    access = [r.data for r in records if r.kind == ACCESS_KIND]
    versions = by_page(records)
    records = [r for r in records if r.kind != ACCESS_KIND]
    spaces = {str(a["space"]): a for a in access if "space" in a}
    restrictions: dict[str, Any] = next((a["pages"] for a in access if isinstance(a.get("pages"), dict)), {})
    listed = [RawRecord("access", ACCESS_KIND, {"version": {"by": u}}) for a in access for u in access_people(a)]
    for record in [*records, *listed]:
        for user in _users(record.data):
            ident = _user_id(user)
            if ident and ident not in people:
                handle = str(user.get("username") or user.get("publicName") or "")
                email = str(user.get("email") or "")
                people[ident] = Person(
                    id=ident,
                    name=_user_name(user),
                    handles=(handle,) if handle else (),
                    emails=(email,) if email else (),
                )
    names = {ident: person.name for ident, person in people.items()}
    for person in list(people.values()):
        for handle in person.handles:
            names.setdefault(handle, person.name)
    for record in records:
        if record.kind == VERSION_KIND:
            continue
        try:
            earlier = versions.get(record.key, [])
            document = _document(record.data, names, out.failures, base_url, earlier, max_versions)
            document.readers = page_readers(record.data, spaces, restrictions)
            out.documents.append(document)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            reason = f"malformed Confluence page: {type(exc).__name__} {exc}"
            out.failures.append(Failure(record.key, reason))
    out.people = list(people.values())
    return out


def _url(data: JSON, base_url: str) -> str:
    webui = (data.get("_links") or {}).get("webui") or ""
    return f"{base_url}/{webui.lstrip('/')}" if webui else ""


def _document(
    data: JSON,
    names: dict[str, str],
    failures: list[Failure],
    base_url: str,
    versions: Sequence[JSON] = (),
    max_versions: int = 20,
) -> Document:
    page_id = str(data["id"])
    title = str(data["title"])
    space = data["space"]
    space_key = str(space["key"])
    ancestors = [str(a["title"]) for a in data.get("ancestors") or []]
    breadcrumb = " > ".join([str(space.get("name") or space_key), *ancestors, title])
    version = data["version"]
    modified = parse_time(version["when"])
    editor = _user_name(version.get("by") or {})
    history = data.get("history") or {}
    creator = _user_name(history.get("createdBy") or {}) if history.get("createdBy") else editor
    label_list = ((data.get("metadata") or {}).get("labels") or {}).get("results") or []
    labels = [str(label["name"]) for label in label_list]
    ref = f"confluence:{page_id}"
    url = _url(data, base_url)
    text = storage_to_markdown(str(data["body"]["storage"]["value"]), names)
    meta = {
        "breadcrumb": breadcrumb,
        "labels": labels,
        "version": version.get("number"),
        "creator": creator,
        "created_at": parse_time(history["createdDate"]).isoformat() if history.get("createdDate") else None,
        "content_type": data.get("type", "page"),
        "space_name": space.get("name") or space_key,
        "ancestors": ancestors,
    }
    number = current_number(data) or 0
    wanted = set(kept(number, max_versions))
    earlier = [v for v in versions if current_number(v) in wanted and parse_time(v["version"]["when"]) < modified]
    # The page's history as its versions state it: created (version 1's date and author), each version held, then
    # this one.
    events: list[JSON] = []
    if history.get("createdDate"):
        events.append({"event": "created", "at": meta["created_at"], "by": creator, "ref": ref})
    for held in [*earlier, data]:
        n = current_number(held)
        if n != 1 or not history.get("createdDate"):
            by = _user_name(held["version"].get("by") or {})
            at = parse_time(held["version"]["when"]).isoformat()
            events.append({"event": "updated", "at": at, "by": by, "ref": ref, "version": n})
    meta["events"] = events
    page_url = f"{base_url}/pages/viewpage.action?pageId={page_id}"
    place = [str(space.get("name") or space_key), *ancestors]
    items = [
        *_earlier(earlier, modified, ref, place, meta, page_url, names, space_key),
        Item(
            ref=ref,
            source_type="confluence",
            kind="confluence_page",
            text=text,
            occurred_at=modified,
            author=editor,
            title=title,
            url=url,
            container=space_key,
            metadata=meta,
        ),
    ]
    for comment in data.get("comments") or []:
        try:
            items.append(_comment(comment, ref, title, url, space_key, names, base_url))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            failures.append(Failure(f"{page_id}/comment", f"malformed Confluence comment: {exc}"))
    # chunkers.documents puts Document.title at the head of every section path: the breadcrumb goes there.
    return Document(
        key=ref,
        kind="confluence_page",
        source_type="confluence",
        title=breadcrumb,
        items=items,
        url=url,
        container=space_key,
        metadata=meta,
    )


def _earlier(
    versions: Sequence[JSON],
    current: datetime,
    ref: str,
    place: list[str],
    meta: JSON,
    page_url: str,
    names: dict[str, str],
    container: str,
) -> list[Item]:
    """The page's earlier versions, each an item valid from its own edit until the next one (chunkers.versions).

    Each keeps the title and the history it had then, and links to that version of the page."""
    items: list[Item] = []
    ends = [*(parse_time(v["version"]["when"]) for v in versions[1:]), current][: len(versions)]
    for held, until in zip(versions, ends, strict=True):
        version = held["version"]
        when = parse_time(version["when"])
        if when >= until:
            continue
        n = current_number(held)
        title = str(held.get("title") or place[-1])
        events = [e for e in meta["events"] if e["event"] == "created" or (e.get("version") or 0) <= (n or 0)]
        items.append(
            Item(
                ref=ref,
                source_type="confluence",
                kind="confluence_page",
                text=storage_to_markdown(str(held["body"]["storage"]["value"]), names),
                occurred_at=when,
                author=_user_name(version.get("by") or {}),
                title=title,
                url=f"{page_url}&pageVersion={n}",
                container=container,
                metadata={
                    **meta,
                    "version": n,
                    "events": events,
                    "valid_until": until.isoformat(),
                    "document_title": " > ".join([*place, title]),
                    "breadcrumb": " > ".join([*place, title]),
                },
            )
        )
    return items


def _comment(comment: JSON, ref: str, title: str, url: str, space: str, names: dict[str, str], base_url: str) -> Item:
    history = comment.get("history") or {}
    author = _user_name(history.get("createdBy") or (comment.get("version") or {}).get("by") or {})
    at = parse_time(history.get("createdDate") or comment["version"]["when"])
    parents = [str(a["id"]) for a in comment.get("ancestors") or [] if a.get("type") == "comment"]
    link = (comment.get("_links") or {}).get("webui")
    return Item(
        ref=f"{ref}#comment-{comment['id']}",
        source_type="confluence",
        kind="confluence_comment",
        text=f"Comment by {author} on {at:%Y-%m-%d %H:%M} UTC:\n\n"
        + storage_to_markdown(str(comment["body"]["storage"]["value"]), names),
        occurred_at=at,
        author=author,
        title=title,
        url=f"{base_url}/{link.lstrip('/')}" if link else url,
        container=space,
        thread=ref,
        metadata={"comment_id": str(comment["id"]), "in_reply_to": parents[-1] if parents else None},
    )


def _users(data: JSON) -> Iterator[JSON]:
    if not isinstance(data, dict):
        return
    for holder in (data.get("history") or {}, data.get("version") or {}):
        for key in ("createdBy", "by"):
            user = holder.get(key) if isinstance(holder, dict) else None
            if isinstance(user, dict):
                yield user
    for comment in data.get("comments") or []:
        if isinstance(comment, dict):
            yield from _users({k: v for k, v in comment.items() if k != "comments"})
