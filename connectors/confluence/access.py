"""Who may see a Confluence page (briefing.access): the space's readers, narrowed by every read restriction on
the page and on its ancestors (Confluence restrictions inherit downwards).

Read on every sync, so a change upstream takes effect at the next run:
- space permissions: `GET rest/api/space/{key}?expand=permissions` (each permission's `operation` and its user
  `subjects`); the space's readers are the users granted `read` on the space;
- page restrictions: the run's id-only listing already visits every page, with
  `restrictions.read.restrictions.user` / `.group` expanded.

Group subjects and anonymous access are not expanded: a space or restriction that names only groups gives no
readers, so its pages stay the workspace owner's (fail closed), as does a page whose space or ancestor is unknown.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from briefing.model import JSON, Failure, RawRecord, reader_id

ACCESS_KIND = "confluence_access"
RESTRICTIONS_EXPAND = "restrictions.read.restrictions.user,restrictions.read.restrictions.group"
RESTRICTIONS_KEY = "access/restrictions"


def _user_objects(subjects: Any) -> list[JSON]:
    """The user subjects of a permission or restriction (account objects with accountId, displayName, email)."""
    block = subjects.get("user") if isinstance(subjects, dict) else None
    results = block.get("results") if isinstance(block, dict) else None
    return [u for u in results if isinstance(u, dict)] if isinstance(results, list) else []


def access_people(data: JSON) -> list[JSON]:
    """The accounts an access record names, so that the people directory knows them (they may never write)."""
    people = [u for u in data.get("people") or [] if isinstance(u, dict)]
    for restriction in (data.get("pages") or {}).values():
        if isinstance(restriction, dict):
            people += [u for u in restriction.get("people") or [] if isinstance(u, dict)]
    return people


def _users(subjects: Any) -> list[str]:
    """Account ids of user subjects (a subjects object, or a list of account objects)."""
    out = []
    for user in subjects if isinstance(subjects, list) else _user_objects(subjects):
        ident = user.get("accountId") or user.get("userKey") or user.get("username") if isinstance(user, dict) else None
        if ident:
            out.append(str(ident))
    return out


def _groups(subjects: Any) -> list[str]:
    block = subjects.get("group") if isinstance(subjects, dict) else None
    results = block.get("results") if isinstance(block, dict) else None
    return [str(g.get("name")) for g in results or [] if isinstance(g, dict) and g.get("name")]


def page_restriction(page: JSON) -> JSON | None:
    """A listed page's read restriction: {"users": [...], "groups": [...]} (both empty: unrestricted), or None
    when the listing did not carry restrictions."""
    restrictions = page.get("restrictions")
    if not isinstance(restrictions, dict):
        return None
    read = restrictions.get("read")
    subjects = read.get("restrictions") if isinstance(read, dict) else None
    if not isinstance(subjects, dict):
        return None
    return {
        "users": sorted(set(_users(subjects))),
        "groups": sorted(set(_groups(subjects))),
        "people": _user_objects(subjects),
    }


def space_records(
    spaces: Iterable[str], get: Callable[[str, dict[str, Any]], JSON]
) -> tuple[list[RawRecord], list[Failure]]:
    records: list[RawRecord] = []
    failures: list[Failure] = []
    for key in sorted(set(spaces)):
        try:
            space = get(f"rest/api/space/{key}", {"expand": "permissions"})
        except Exception as exc:  # noqa: BLE001 - fail closed for this space only
            failures.append(Failure(f"access/space/{key}", f"space permissions could not be read: {exc}"[:300]))
            continue
        readers: set[str] = set()
        people: dict[str, JSON] = {}
        for permission in space.get("permissions") or []:
            operation = permission.get("operation") if isinstance(permission, dict) else None
            if isinstance(operation, dict) and operation.get("operation") == "read":
                readers.update(_users(permission.get("subjects")))
                people.update((_users([u])[0], u) for u in _user_objects(permission.get("subjects")) if _users([u]))
        data = {"space": key, "readers": sorted(readers), "people": [people[k] for k in sorted(people)]}
        records.append(RawRecord(f"access/space/{key}", ACCESS_KIND, data))
    return records, failures


def page_readers(data: JSON, spaces: dict[str, JSON], restrictions: dict[str, Any]) -> tuple[str, ...] | None:
    """Reader tokens of one cached page; None (owner only) when its space or an ancestor's access is unknown."""
    space = spaces.get(str((data.get("space") or {}).get("key")))
    if space is None:
        return None
    readers = set(space.get("readers") or [])
    chain = [str(a.get("id")) for a in data.get("ancestors") or [] if isinstance(a, dict)] + [str(data.get("id"))]
    for page_id in chain:
        restriction = restrictions.get(page_id)
        if not isinstance(restriction, dict):
            return None
        if restriction.get("users") or restriction.get("groups"):
            readers &= set(restriction.get("users") or [])
    return tuple(reader_id(r) for r in sorted(readers))
