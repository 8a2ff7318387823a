"""Who may see a JIRA issue (briefing.access): its security level's members, else its project's role members.

Read on every sync, so a member removed upstream loses access at the next run:
- project roles: `GET /rest/api/{v}/project/{key}/role` (role name -> absolute URL), then each role's `actors`
  (`atlassian-user-role-actor` entries carry `actorUser.accountId`); the project's readers are every role's users.
  A role is requested by its id under the configured base URL, never by the absolute URL JIRA lists: the SDK
  would prefix its base to it, and a listed URL on another host must not receive the credentials.
- issue security levels: `GET /rest/api/{v}/issuesecurityschemes/level/member?levelId=...` (paged `values`, each
  with a `holder`: `user` holders name an account; `reporter` and `assignee` holders mean the issue's own).

Group holders, "anyone" grants and the permission scheme's other grants are not expanded: an issue whose level
or project gives no readable member list is the workspace owner's only (fail closed).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from briefing.model import JSON, Failure, RawRecord, reader_id

ACCESS_KIND = "jira_access"
Get = Callable[[str, dict[str, Any] | None], Any]
_ROLE_ID = re.compile(r"/project/[^/?#]+/role/(\d+)/?(?:[?#].*)?$")


def role_path(project: str, role_url: Any) -> str:
    """The relative path of a listed role (`project/KEY/role/ID`), from the Server or Cloud URL JIRA gives."""
    match = _ROLE_ID.search(str(role_url))
    if match is None:
        raise ValueError(f"project {project}: unrecognised role URL {str(role_url)[:120]!r}")
    return f"project/{project}/role/{match.group(1)}"


def _account(user: Any) -> str | None:
    if not isinstance(user, dict):
        return None
    ident = user.get("accountId") or user.get("key") or user.get("name")
    return str(ident) if ident else None


def project_record(project: str, get: Get, url: Callable[[str], str]) -> RawRecord:
    roles = get(url(f"project/{project}/role"), None)
    members: dict[str, JSON] = {}
    by_role: dict[str, list[str]] = {}  # role name -> its users (what a comment restricted to the role allows)
    for name, role_url in (roles or {}).items() if isinstance(roles, dict) else []:
        role = get(url(role_path(project, role_url)), None)
        for actor in (role or {}).get("actors") or [] if isinstance(role, dict) else []:
            account = _account(actor.get("actorUser")) if isinstance(actor, dict) else None
            if account:
                members[account] = {"accountId": account, "displayName": actor.get("displayName") or account}
                by_role.setdefault(str(name), []).append(account)
    data = {
        "project": project,
        "members": sorted(members),
        "people": [members[k] for k in sorted(members)],
        "roles": {name: sorted(set(accounts)) for name, accounts in sorted(by_role.items())},
    }
    return RawRecord(f"access/project/{project}", ACCESS_KIND, data)


def level_record(level: str, get: Get, url: Callable[[str], str]) -> RawRecord:
    users: set[str] = set()
    people: list[JSON] = []
    holders: set[str] = set()
    start = 0
    while True:
        page = get(url("issuesecurityschemes/level/member"), {"levelId": level, "startAt": start, "maxResults": 50})
        values = page.get("values") if isinstance(page, dict) else None
        if not isinstance(values, list):
            break
        for value in values:
            holder = value.get("holder") if isinstance(value, dict) else None
            if not isinstance(holder, dict):
                continue
            kind = holder.get("type")
            if kind == "user":
                account = _account(holder.get("user")) or (str(holder["value"]) if holder.get("value") else None)
                if account:
                    users.add(account)
                    if isinstance(holder.get("user"), dict):
                        people.append(holder["user"])
            elif kind in ("reporter", "assignee"):
                holders.add(str(kind))
        start += len(values)
        if not values or page.get("isLast") is True or start >= int(page.get("total") or 0):
            break
    return RawRecord(
        f"access/level/{level}",
        ACCESS_KIND,
        {"level": level, "members": sorted(users), "holders": sorted(holders), "people": people},
    )


def fetch_access(
    projects: Iterable[str], levels: Iterable[str], get: Get, url: Callable[[str], str]
) -> tuple[list[RawRecord], list[Failure]]:
    """The access records of these projects and security levels; one that cannot be read is a failure (its
    issues stay the owner's until it can)."""
    records: list[RawRecord] = []
    failures: list[Failure] = []
    for project in sorted(set(projects)):
        try:
            records.append(project_record(project, get, url))
        except Exception as exc:  # noqa: BLE001 - any error: fail closed for this project only
            failures.append(Failure(f"access/project/{project}", f"project roles could not be read: {exc}"[:300]))
    for level in sorted(set(levels)):
        try:
            records.append(level_record(level, get, url))
        except Exception as exc:  # noqa: BLE001
            failures.append(Failure(f"access/level/{level}", f"security level members could not be read: {exc}"[:300]))
    return records, failures


def security_level(fields: Any) -> str | None:
    security = fields.get("security") if isinstance(fields, dict) else None
    ident = security.get("id") if isinstance(security, dict) else None
    return str(ident) if ident is not None else None


def comment_readers(comment: JSON, data: JSON, projects: dict[str, JSON]) -> list[str] | None:
    """The reader tokens of a comment restricted to a project role or a group (`visibility`); None when it is
    not restricted. A role's members come from the project's access record; a group, which is not expanded, and
    a role not found there allow no one but the workspace owner (fail closed)."""
    visibility = comment.get("visibility")
    if not isinstance(visibility, dict) or not visibility.get("value"):
        return None
    fields = data.get("fields") or {}
    project = (fields.get("project") or {}).get("key") if isinstance(fields.get("project"), dict) else None
    project = project or str(data.get("key", "")).rsplit("-", 1)[0]
    roles = (projects.get(project) or {}).get("roles") or {}
    accounts = roles.get(str(visibility["value"])) if visibility.get("type") == "role" else None
    return [reader_id(f"jira:{a}") for a in accounts or []]


def issue_readers(data: JSON, projects: dict[str, JSON], levels: dict[str, JSON]) -> tuple[str, ...] | None:
    """The reader tokens of one cached issue; None (owner only) when its access data is missing."""
    fields = data.get("fields") or {}
    level = security_level(fields)
    if level is not None:
        record = levels.get(level)
        if record is None:
            return None
        accounts = set(record.get("members") or [])
        for holder in record.get("holders") or []:
            account = _account(fields.get(holder))
            if account:
                accounts.add(account)
        return tuple(reader_id(f"jira:{a}") for a in sorted(accounts))
    project = (fields.get("project") or {}).get("key") if isinstance(fields.get("project"), dict) else None
    project = project or str(data.get("key", "")).rsplit("-", 1)[0]
    found = projects.get(project)
    if found is None:
        return None
    return tuple(reader_id(f"jira:{a}") for a in found.get("members") or [])
