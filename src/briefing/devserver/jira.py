"""A local JIRA REST server for tests and `brief demo`: the endpoints the connector calls, with JIRA's shapes.

It serves issues stored in full (every comment, every changelog entry) and cuts them the way JIRA does:
search results embed only the first comments and, on the Cloud (v3) search, only the newest changelog entries;
the rest is paged from `/issue/{key}/comment` and `/issue/{key}/changelog`. Cloud search pages with
`nextPageToken`, Server/Data Center search (`/rest/api/2/search`) with `startAt`/`total`.

Switches for failure tests: `status_override` (e.g. 401 for every call), `rate_limit` (how many calls answer 429
with `Retry-After` before the server recovers; -1 for ever), `malformed` (keys served without their fields),
`credentials` (the only Authorization header accepted). Every request lands in `log`.
"""

from __future__ import annotations

import base64
import copy
import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse
from zoneinfo import ZoneInfo

JSON = dict[str, Any]
_SEARCH_CLOUD = re.compile(r"^/rest/api/3/search/jql$")
_SEARCH_SERVER = re.compile(r"^/rest/api/(?:2|latest)/search$")
_MYSELF = re.compile(r"^/rest/api/(?:2|3|latest)/myself$")
_FIELDS = re.compile(r"^/rest/api/(?:2|3|latest)/field$")
_ROLES = re.compile(r"^/rest/api/(2|3|latest)/project/([A-Z][A-Z0-9_]*)/role(?:/(\d+))?$")
_LEVEL_MEMBERS = re.compile(r"^/rest/api/(?:2|3|latest)/issuesecurityschemes/level/member$")
_ISSUE = re.compile(r"^/rest/api/(2|3|latest)/issue/([A-Z][A-Z0-9_]*-\d+)(/changelog|/comment)?$")


@dataclass
class Request:
    """One request as the server saw it."""

    method: str
    path: str
    params: dict[str, str]
    authorization: str

    @property
    def jql(self) -> str:
        return self.params.get("jql", "")


@dataclass
class JiraFake:
    """State and behaviour of the fake; `start()` serves it on 127.0.0.1 and returns the base URL."""

    issues: dict[str, JSON]
    myself: JSON = field(
        default_factory=lambda: {"accountId": "5b10ac8d82e05b22cc7d4ef5", "displayName": "Brief Bot", "timeZone": "UTC"}
    )
    fields: list[JSON] = field(default_factory=list)
    search_page_cap: int = 50
    sub_page_cap: int = 100
    embedded_comments: int = 20
    embedded_changelog: int = 20
    credentials: str | None = None
    status_override: int | None = None
    rate_limit: int = 0
    retry_after: str = "2"
    malformed: set[str] = field(default_factory=set)
    # Access (briefing.access): project key -> role name -> the role's users (JIRA user objects with accountId);
    # security level id -> its holders as JIRA lists them ({"type": "user", "user": {...}} or {"type": "reporter"}).
    roles: dict[str, dict[str, list[JSON]]] = field(default_factory=dict)
    security_levels: dict[str, list[JSON]] = field(default_factory=dict)
    # The origin (and context path) the role list's absolute URLs name; None: this server's own address.
    role_origin: str | None = None
    log: list[Request] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def from_dir(cls, folder: Path, **kwargs: Any) -> JiraFake:
        """Load `issues.json` (a list of full issues) and optional `myself.json`, `fields.json`."""
        issues = json.loads((folder / "issues.json").read_text(encoding="utf-8"))
        extra: dict[str, Any] = {}
        for name in ("myself", "fields"):
            path = folder / f"{name}.json"
            if path.is_file():
                extra[name] = json.loads(path.read_text(encoding="utf-8"))
        return cls(issues={i["key"]: i for i in issues}, **extra, **kwargs)

    # --- lifecycle ------------------------------------------------------------------------------------------

    def start(self) -> str:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                status, body, headers = fake.handle("GET", self.path, self.headers.get("Authorization", ""))
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json;charset=UTF-8")
                self.send_header("Content-Length", str(len(payload)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()
        return self.url

    @property
    def url(self) -> str:
        assert self._server is not None, "start() the fake first"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    # --- test helpers ---------------------------------------------------------------------------------------

    def requests_to(self, fragment: str) -> list[Request]:
        return [r for r in self.log if fragment in r.path]

    def touch(self, key: str, when: str, **fields: Any) -> None:
        """Mark an issue updated at `when` (JIRA timestamp), optionally changing fields."""
        issue = self.issues[key]
        issue["fields"].update(fields)
        issue["fields"]["updated"] = when

    def add_comment(self, key: str, comment: JSON) -> None:
        self.issues[key]["fields"]["comment"]["comments"].append(comment)
        self.touch(key, comment["created"])

    @staticmethod
    def basic(user: str, token: str) -> str:
        return "Basic " + base64.b64encode(f"{user}:{token}".encode()).decode()

    # --- request handling -----------------------------------------------------------------------------------

    def handle(self, method: str, raw_path: str, authorization: str) -> tuple[int, Any, dict[str, str]]:
        parsed = urlparse(raw_path)
        params = {k: v[-1] for k, v in parse_qs(parsed.query, keep_blank_values=True).items()}
        with self._lock:
            self.log.append(Request(method, parsed.path, params, authorization))
            if self.credentials is not None and authorization != self.credentials:
                return 401, {"errorMessages": ["You are not authenticated."], "errors": {}}, {}
            if self.status_override is not None:
                return self.status_override, {"errorMessages": [f"HTTP {self.status_override}"], "errors": {}}, {}
            if self.rate_limit != 0:
                self.rate_limit -= 1 if self.rate_limit > 0 else 0
                return 429, {"errorMessages": ["Rate limit exceeded."]}, {"Retry-After": self.retry_after}
            try:
                return self._route(parsed.path, params)
            except _JqlError as exc:
                return 400, {"errorMessages": [str(exc)], "errors": {}}, {}

    def _route(self, path: str, params: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        if _MYSELF.match(path):
            return 200, self.myself, {}
        if _FIELDS.match(path):
            return 200, self.fields, {}
        if _SEARCH_CLOUD.match(path):
            return 200, self._search_cloud(params), {}
        if _SEARCH_SERVER.match(path):
            return 200, self._search_server(params), {}
        match = _ROLES.match(path)
        if match:
            return self._roles(*match.groups())
        if _LEVEL_MEMBERS.match(path):
            return self._level_members(params)
        match = _ISSUE.match(path)
        if match:
            version, key, sub = match.groups()
            if key not in self.issues:
                return 404, {"errorMessages": ["Issue does not exist or you do not have permission to see it."]}, {}
            if sub == "/changelog":
                return 200, self._changelog_page(key, params), {}
            if sub == "/comment":
                return 200, self._comment_page(key, params), {}
            return 200, self._render(self.issues[key], params, cloud=version == "3", search=False), {}
        return 404, {"errorMessages": [f"no such endpoint: {path}"]}, {}

    def _roles(self, version: str, project: str, role_id: str | None) -> tuple[int, Any, dict[str, str]]:
        """Server lists `.../rest/api/2/project/K/role/ID`, Cloud `.../rest/api/3/...`: absolute URLs both."""
        roles = self.roles.get(project, {})
        ids = {name: str(10000 + n) for n, name in enumerate(sorted(roles))}
        base = f"{self.role_origin or self.url}/rest/api/{version}/project/{project}/role"
        if role_id is None:
            return 200, {name: f"{base}/{ids[name]}" for name in sorted(roles)}, {}
        name = next((n for n, i in ids.items() if i == role_id), None)
        if name is None:
            return 404, {"errorMessages": ["Can not retrieve a role actor for a null project role."]}, {}
        actors = [
            {
                "id": n + 1,
                "displayName": user.get("displayName", ""),
                "type": "atlassian-user-role-actor",
                "actorUser": {"accountId": user["accountId"]},
            }
            for n, user in enumerate(roles[name])
        ]
        return 200, {"self": f"{base}/{role_id}", "name": name, "id": int(role_id), "actors": actors}, {}

    def _level_members(self, params: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        level = params.get("levelId", "")
        holders = self.security_levels.get(level, [])
        start = int(params.get("startAt") or 0)
        size = min(int(params.get("maxResults") or 50), self.sub_page_cap)
        page = [
            {"id": str(start + n + 1), "issueSecurityLevelId": level, "holder": holder}
            for n, holder in enumerate(holders[start : start + size])
        ]
        body = {
            "maxResults": size,
            "startAt": start,
            "total": len(holders),
            "isLast": start + size >= len(holders),
            "values": page,
        }
        return 200, body, {}

    def _matching(self, jql: str) -> list[JSON]:
        where = _parse_jql(jql, ZoneInfo(self.myself.get("timeZone") or "UTC"))
        found = [issue for issue in self.issues.values() if where(issue)]
        return sorted(found, key=lambda i: (_ts(i["fields"]["updated"]), i["key"]))

    def _search_cloud(self, params: dict[str, str]) -> JSON:
        found = self._matching(params.get("jql", ""))
        start = int(base64.b64decode(params["nextPageToken"]).decode()) if params.get("nextPageToken") else 0
        size = min(int(params.get("maxResults") or 50), self.search_page_cap)
        page = found[start : start + size]
        out: JSON = {"issues": [self._render(i, params, cloud=True, search=True) for i in page]}
        if start + size < len(found):
            out["nextPageToken"] = base64.b64encode(str(start + size).encode()).decode()
            out["isLast"] = False
        else:
            out["isLast"] = True
        return out

    def _search_server(self, params: dict[str, str]) -> JSON:
        found = self._matching(params.get("jql", ""))
        start = int(params.get("startAt") or 0)
        size = min(int(params.get("maxResults") or 50), self.search_page_cap)
        page = found[start : start + size]
        return {
            "expand": "schema,names",
            "startAt": start,
            "maxResults": size,
            "total": len(found),
            "issues": [self._render(i, params, cloud=False, search=True) for i in page],
        }

    def _render(self, issue: JSON, params: dict[str, str], *, cloud: bool, search: bool) -> JSON:
        key = issue["key"]
        if key in self.malformed:
            return {"id": issue["id"], "key": key, "self": f"{self.url}/rest/api/2/issue/{issue['id']}", "fields": None}
        wanted = params.get("fields", "*all")
        fields = copy.deepcopy(issue["fields"])
        if wanted not in ("*all", "*navigable"):
            names = set(wanted.split(","))
            fields = {k: v for k, v in fields.items() if k in names}
        comments = issue["fields"]["comment"]["comments"]
        if "comment" in fields:
            shown = comments[: self.embedded_comments] if search else comments
            fields["comment"] = {
                "comments": copy.deepcopy(shown),
                "maxResults": len(shown),
                "total": len(comments),
                "startAt": 0,
            }
        out: JSON = {
            "expand": "renderedFields,names,schema,operations,editmeta,changelog,versionedRepresentations",
            "id": issue["id"],
            "self": f"{self.url}/rest/api/{3 if cloud else 2}/issue/{issue['id']}",
            "key": key,
            "fields": fields,
        }
        if "changelog" in params.get("expand", ""):
            histories = issue.get("changelog", {}).get("histories", [])
            # Cloud embeds the newest entries, newest first; Server embeds the whole history.
            shown = list(reversed(histories))[: self.embedded_changelog] if cloud else histories
            out["changelog"] = {
                "startAt": 0,
                "maxResults": len(shown),
                "total": len(histories),
                "histories": copy.deepcopy(shown),
            }
        return out

    def _changelog_page(self, key: str, params: dict[str, str]) -> JSON:
        histories = self.issues[key].get("changelog", {}).get("histories", [])
        start = int(params.get("startAt") or 0)
        size = min(int(params.get("maxResults") or 100), self.sub_page_cap)
        values = histories[start : start + size]
        return {
            "self": f"{self.url}/rest/api/3/issue/{key}/changelog?maxResults={size}&startAt={start}",
            "maxResults": size,
            "startAt": start,
            "total": len(histories),
            "isLast": start + size >= len(histories),
            "values": copy.deepcopy(values),
        }

    def _comment_page(self, key: str, params: dict[str, str]) -> JSON:
        comments = self.issues[key]["fields"]["comment"]["comments"]
        start = int(params.get("startAt") or 0)
        size = min(int(params.get("maxResults") or 50), self.sub_page_cap)
        return {
            "startAt": start,
            "maxResults": size,
            "total": len(comments),
            "comments": copy.deepcopy(comments[start : start + size]),
        }


class _JqlError(Exception):
    pass


_CLAUSE_PROJECT_IN = re.compile(r"^project\s+in\s*\(([^)]*)\)$", re.I)
_CLAUSE_PROJECT_EQ = re.compile(r'^project\s*=\s*"?([A-Z0-9_]+)"?$', re.I)
_CLAUSE_UPDATED = re.compile(r'^updated\s*(>=|<=|>|<)\s*"(\d{4}[-/]\d{2}[-/]\d{2} \d{2}:\d{2})"$', re.I)
_CLAUSE_LABEL = re.compile(r'^\(?labels\s*=\s*"?([^")]+)"?\)?$', re.I)


def _parse_jql(jql: str, zone: ZoneInfo) -> Callable[[JSON], bool]:
    """The subset of JQL the connector writes: project, updated bounds, labels, ORDER BY updated."""
    body = re.split(r"\s+ORDER\s+BY\s+", jql, flags=re.I)[0].strip()
    tests = [_clause(c.strip(), zone) for c in re.split(r"\s+AND\s+", body, flags=re.I) if c.strip()]
    return lambda issue: all(test(issue) for test in tests)


def _clause(clause: str, zone: ZoneInfo) -> Callable[[JSON], bool]:
    if m := _CLAUSE_PROJECT_IN.match(clause):
        keys = {k.strip().strip('"') for k in m.group(1).split(",")}
        return lambda i: i["fields"]["project"]["key"] in keys
    if m := _CLAUSE_PROJECT_EQ.match(clause):
        key = m.group(1)
        return lambda i: bool(i["fields"]["project"]["key"] == key)
    if m := _CLAUSE_UPDATED.match(clause):
        op, text = m.groups()
        bound = datetime.strptime(text.replace("/", "-"), "%Y-%m-%d %H:%M").replace(tzinfo=zone)
        compare = {">=": bound.__le__, ">": bound.__lt__, "<=": bound.__ge__, "<": bound.__gt__}[op]
        return lambda i: compare(_ts(i["fields"]["updated"]))
    if m := _CLAUSE_LABEL.match(clause):
        label = m.group(1)
        return lambda i: label in i["fields"].get("labels", [])
    raise _JqlError(f"Error in the JQL Query: cannot parse '{clause}'.")


def _ts(value: str) -> datetime:
    return datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%f%z").astimezone(UTC)
