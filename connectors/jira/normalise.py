"""Cached JIRA issue records -> one Document per issue: the body, each comment, each changelog entry."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from briefing.model import JSON, Document, Failure, Item, Normalised, Person, RawRecord
from connectors.jira.access import ACCESS_KIND, comment_readers, issue_readers
from connectors.jira.adf import adf_to_text
from connectors.jira.wiki import wiki_to_text

SOURCE_TYPE = "jira"
DOCUMENT_KIND = "jira_issue"
# Field changes whose old/new values are whole texts: the history says that they changed, not how.
_TEXT_FIELDS = {"description", "environment", "comment", "Acceptance Criteria"}
# Bookkeeping of JIRA itself (a move between projects renames the key and swaps the workflow): kept in the raw
# cache and on the change's metadata, never in the history text that is ranked as discussion.
BOOKKEEPING_FIELDS = {"project", "key", "workflow"}
_MAX_VALUE_CHARS = 120
_SERVER_SPRINT_NAME = re.compile(r"name=([^,\]]+)")


def parse_jira_time(value: Any) -> datetime:
    """JIRA's `2026-05-06T10:15:30.000+0000` (or any ISO 8601 with an offset) as an aware UTC datetime."""
    if not isinstance(value, str) or not value:
        raise ValueError(f"not a JIRA timestamp: {value!r}")
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        parsed = datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%f%z")
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def normalise_issues(records: Sequence[RawRecord], *, base_url: str, render_wiki: bool = False) -> Normalised:
    """Every cached issue as a Document; an unreadable record becomes a Failure and the rest go on."""
    out = Normalised()
    people: dict[str, Person] = {}
    access = [r.data for r in records if r.kind == ACCESS_KIND]
    projects = {str(a["project"]): a for a in access if "project" in a}
    levels = {str(a["level"]): a for a in access if "level" in a}
    for listed in access:  # people who may read issues they never wrote in are people of the directory too
        for user in listed.get("people") or []:
            _person(user, people)
    for record in records:
        if record.kind != DOCUMENT_KIND:
            continue
        try:
            document = issue_document(record.data, base_url=base_url, people=people, render_wiki=render_wiki)
            document.readers = issue_readers(record.data, projects, levels)
            _restrict_comments(document, record.data, projects)
            out.documents.append(document)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            out.failures.append(Failure(key=record.key, reason=f"unreadable JIRA issue: {exc}"))
    out.people = sorted(people.values(), key=lambda p: p.id)
    return out


def _restrict_comments(document: Document, data: JSON, projects: dict[str, JSON]) -> None:
    """Comments restricted to a role or group (`visibility`) carry their own readers (`briefing.access`)."""
    comments = (data.get("fields") or {}).get("comment") or {}
    restricted = {
        str(c["id"]): c for c in comments.get("comments") or [] if isinstance(c, dict) and c.get("visibility")
    }
    for item in document.items:
        comment = restricted.get(str(item.metadata.get("comment_id"))) if item.kind == "comment" else None
        readers = comment_readers(comment, data, projects) if comment is not None else None
        if comment is not None and readers is not None:
            item.metadata["readers"] = readers
            item.metadata["visibility"] = f"{comment['visibility'].get('type')}:{comment['visibility']['value']}"


def issue_document(
    data: JSON, *, base_url: str, people: dict[str, Person] | None = None, render_wiki: bool = False
) -> Document:
    """One issue's Document: items are the body (ref `jira:KEY`), comments and changelog entries."""
    people = people if people is not None else {}

    def text(body: Any) -> str:
        """ADF (Cloud) as text; Server's wiki markup rendered to the same text when the source asks for it."""
        if render_wiki and isinstance(body, str):
            return wiki_to_text(body, _handles(people))
        return adf_to_text(body)

    key: str = data["key"]
    fields: JSON = data["fields"]
    ref = f"jira:{key}"
    url = f"{base_url.rstrip('/')}/browse/{key}"
    project = _get(fields, "project", "key") or key.rsplit("-", 1)[0]
    summary = str(fields.get("summary") or "").strip()
    title = f"{key}: {summary}" if summary else key
    created = parse_jira_time(fields["created"])
    reporter = _person(fields.get("reporter") or fields.get("creator"), people)
    attributes = _attributes(key, fields, data.get("names") or {}, people)
    histories = [h for h in (data.get("changelog") or {}).get("histories") or [] if isinstance(h, dict)]
    attributes["initial_status"] = _initial_status(histories, attributes["status"])
    attributes["history_from"] = _history_from(data.get("changelog"), histories, attributes)

    common = {"source_type": SOURCE_TYPE, "title": title, "url": url, "container": project}
    items = [
        Item(
            ref=ref,
            kind="issue",
            text=text(fields.get("description")),
            occurred_at=created,
            author=reporter,
            metadata=dict(attributes),
            **common,
        )
    ]
    comments = [c for c in (fields.get("comment") or {}).get("comments") or [] if isinstance(c, dict)]
    for comment in sorted(comments, key=lambda c: (parse_jira_time(c["created"]), str(c["id"]))):
        comment_created = parse_jira_time(comment["created"])
        edited = comment.get("updated") and comment.get("updated") != comment.get("created")
        items.append(
            Item(
                ref=f"{ref}#comment-{comment['id']}",
                kind="comment",
                text=text(comment.get("body")),
                occurred_at=comment_created,
                author=_person(comment.get("author"), people),
                thread=ref,
                metadata={"comment_id": str(comment["id"]), "edited": bool(edited), "updated": comment.get("updated")},
                **common,
            )
        )
    for history in histories:
        changes = [_change(entry) for entry in history.get("items") or [] if isinstance(entry, dict)]
        if not changes:
            continue
        told = [change for change in changes if change["field"].lower() not in BOOKKEEPING_FIELDS]
        items.append(
            Item(
                ref=f"{ref}#change-{history['id']}",
                kind="change",
                text="; ".join(_describe(change) for change in told),
                occurred_at=parse_jira_time(history["created"]),
                author=_person(history.get("author"), people) or "JIRA",
                thread=ref,
                metadata={"change_id": str(history["id"]), "changes": changes},
                **common,
            )
        )
    return Document(
        key=ref,
        kind=DOCUMENT_KIND,
        source_type=SOURCE_TYPE,
        title=title,
        items=items,
        url=url,
        container=project,
        metadata=attributes,
    )


def _attributes(key: str, fields: JSON, names: JSON, people: dict[str, Person]) -> JSON:
    """The issue's main attributes, flattened to JSON-friendly values."""
    by_name = {str(v): k for k, v in names.items()} if isinstance(names, dict) else {}
    sprint_field = by_name.get("Sprint")
    epic_field = by_name.get("Epic Link")
    parent = fields.get("parent") if isinstance(fields.get("parent"), dict) else None
    parent_info = None
    if parent and parent.get("key"):
        parent_info = {
            "key": parent["key"],
            "summary": _get(parent, "fields", "summary"),
            "type": _get(parent, "fields", "issuetype", "name"),
        }
    epic = fields.get(epic_field) if epic_field else None
    if not epic and parent_info and (parent_info["type"] or "").lower() == "epic":
        epic = parent_info["key"]
    return {
        "key": key,
        "summary": fields.get("summary"),
        "status": _get(fields, "status", "name"),
        "status_category": _get(fields, "status", "statusCategory", "name"),
        "type": _get(fields, "issuetype", "name"),
        "priority": _get(fields, "priority", "name"),
        "assignee": _person(fields.get("assignee"), people),
        "reporter": _person(fields.get("reporter"), people),
        "labels": [str(label) for label in fields.get("labels") or []],
        "components": [str(c.get("name")) for c in fields.get("components") or [] if isinstance(c, dict)],
        "fix_versions": [str(v.get("name")) for v in fields.get("fixVersions") or [] if isinstance(v, dict)],
        "affects_versions": [str(v.get("name")) for v in fields.get("versions") or [] if isinstance(v, dict)],
        "sprint": _sprints(fields.get(sprint_field)) if sprint_field else [],
        "epic": epic if isinstance(epic, str) else None,
        "parent": parent_info,
        "resolution": _get(fields, "resolution", "name"),
        "created": _iso(fields.get("created")),
        "updated": _iso(fields.get("updated")),
        "resolved": _iso(fields.get("resolutiondate")),
        "due": fields.get("duedate"),
        "links": _links(fields),
    }


def _links(fields: JSON) -> list[JSON]:
    """Issue links and subtasks as `{relation, key, summary, status}`, in the direction JIRA words them."""
    out: list[JSON] = []
    for link in fields.get("issuelinks") or []:
        if not isinstance(link, dict):
            continue
        kind = link.get("type") or {}
        for side, wording in (("outwardIssue", "outward"), ("inwardIssue", "inward")):
            other = link.get(side)
            if isinstance(other, dict) and other.get("key"):
                out.append(
                    {
                        "relation": str(kind.get(wording) or kind.get("name") or "relates to"),
                        "key": other["key"],
                        "summary": _get(other, "fields", "summary"),
                        "status": _get(other, "fields", "status", "name"),
                    }
                )
    for sub in fields.get("subtasks") or []:
        if isinstance(sub, dict) and sub.get("key"):
            out.append(
                {
                    "relation": "has subtask",
                    "key": sub["key"],
                    "summary": _get(sub, "fields", "summary"),
                    "status": _get(sub, "fields", "status", "name"),
                }
            )
    return out


def _sprints(value: Any) -> list[str]:
    """Sprint names from Cloud's objects or Server's `...Sprint@1f[id=1,...,name=Sprint 4,...]` strings."""
    names: list[str] = []
    for sprint in value if isinstance(value, list) else [value] if value else []:
        if isinstance(sprint, dict) and sprint.get("name"):
            names.append(str(sprint["name"]))
        elif isinstance(sprint, str):
            match = _SERVER_SPRINT_NAME.search(sprint)
            names.append(match.group(1) if match else sprint)
    return names


def _initial_status(histories: list[JSON], current: str | None) -> str | None:
    """The status before the first recorded status change (the current one if it never changed)."""
    for history in histories:
        for entry in history.get("items") or []:
            if isinstance(entry, dict) and entry.get("field") == "status":
                return entry.get("fromString")
    return current


def _unexplained_resolution(histories: list[JSON], attributes: JSON) -> bool:
    """Whether the issue was resolved after its creation with no changelog entry setting the resolution (a changelog
    that an export or a proxy left empty, or one cut by the server)."""
    resolved, created = attributes.get("resolved"), attributes.get("created")
    if not resolved or not created:
        return False
    if (datetime.fromisoformat(resolved) - datetime.fromisoformat(created)).total_seconds() < 60:
        return False  # created resolved (an import, a bulk create): nothing to record
    return not any(
        str(entry.get("field") or entry.get("fieldId") or "").lower() == "resolution"
        for history in histories
        for entry in history.get("items") or []
        if isinstance(entry, dict)
    )


def _history_from(changelog: Any, histories: list[JSON], attributes: JSON) -> str | None:
    """From when the changelog accounts for every change of state: the creation when it is whole, else the last
    update (the state as fetched held since then at least)."""
    whole = isinstance(changelog, dict) and not (
        isinstance(changelog.get("total"), int) and changelog["total"] > len(histories)
    )
    if whole and _unexplained_resolution(histories, attributes):
        whole = False  # the fields say it was resolved after it was created, yet no entry records that
    moment = attributes["created"] if whole else attributes["updated"] or attributes["created"]
    return str(moment) if moment else None


def _change(entry: JSON) -> JSON:
    return {
        "field": str(entry.get("field") or entry.get("fieldId") or "field"),
        "from": _value(entry.get("fromString") if entry.get("fromString") is not None else entry.get("from")),
        "to": _value(entry.get("toString") if entry.get("toString") is not None else entry.get("to")),
    }


def _describe(change: JSON) -> str:
    field = change["field"]
    if field in _TEXT_FIELDS:
        return f"changed {field}"
    old, new = change["from"] or "(none)", change["to"] or "(none)"
    if len(old) > _MAX_VALUE_CHARS or len(new) > _MAX_VALUE_CHARS:
        return f"changed {field}"
    return f"changed {field}: {old} -> {new}"


def _value(value: Any) -> str | None:
    if value is None:
        return None
    text = " ".join(str(value).split())
    return text or None


def _person(user: Any, people: dict[str, Person]) -> str | None:
    """The display name of a JIRA user, recording them as a Person (Cloud accountId or Server key/name)."""
    if not isinstance(user, dict):
        return None
    name = user.get("displayName") or user.get("name") or user.get("accountId")
    ident = user.get("accountId") or user.get("key") or user.get("name") or user.get("emailAddress") or name
    if not name or not ident:
        return None
    handles = tuple(str(h) for h in (user.get("name"), user.get("key")) if h and h != ident)
    email = user.get("emailAddress")
    person_id = f"jira:{ident}"
    known = people.get(person_id)
    if known is None or (email and not known.emails):
        people[person_id] = Person(
            id=person_id, name=str(name), handles=tuple(dict.fromkeys(handles)), emails=(str(email),) if email else ()
        )
    return str(name)


def _handles(people: dict[str, Person]) -> dict[str, str]:
    """User names and keys -> display names, for `[~name]` mentions in wiki markup."""
    out: dict[str, str] = {}
    for person in people.values():
        for handle in (person.id.removeprefix("jira:"), *person.handles):
            out.setdefault(handle, person.name)
    return out


def _get(data: Any, *path: str) -> Any:
    for part in path:
        if not isinstance(data, dict):
            return None
        data = data.get(part)
    return data


def _iso(value: Any) -> str | None:
    try:
        return parse_jira_time(value).isoformat()
    except (TypeError, ValueError):
        return None
