"""A local Confluence REST (v1) server for tests and `brief demo`: content search by CQL, content by id (a historical
version with `status=historical&version=N`), page comments.

Shapes follow Atlassian's documented responses, served under a `/wiki` context path like Confluence Cloud:
`_links.next` is relative to that context (`/rest/api/content/search?...`), `_links.base` carries it.
"""

from __future__ import annotations

import base64
import copy
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from briefing.devserver._http import FakeServer, running

CONTEXT = "/wiki"
_SPACES = re.compile(r"space in \(([^)]*)\)")
_TYPES = re.compile(r"type in \(([^)]*)\)")
_SINCE = re.compile(r'lastmodified >= "([^"]+)"')
_ALWAYS = ("id", "type", "status", "title", "_links")
_EXPANDABLE = ("space", "history", "version", "ancestors", "metadata", "body", "restrictions")


def load(folder: Path) -> tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """Pages (`pages.json`, full objects) and comments per page id (`comments.json`) from a fixture folder."""
    pages = json.loads((folder / "pages.json").read_text(encoding="utf-8"))
    comments_file = folder / "comments.json"
    comments = json.loads(comments_file.read_text(encoding="utf-8")) if comments_file.exists() else {}
    return pages, comments


def _modified(page: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(page["version"]["when"].replace("Z", "+00:00")).astimezone(UTC)


class FakeConfluence:
    """State and behaviour knobs shared with the request handler; tests mutate `pages` between syncs."""

    def __init__(
        self,
        pages: list[dict[str, Any]],
        comments: dict[str, list[dict[str, Any]]] | None = None,
        *,
        user: str = "bot@example.com",
        token: str = "secret-token",
    ) -> None:
        self.pages = {str(p["id"]): p for p in pages}
        self.comments = comments or {}
        self.auth = "Basic " + base64.b64encode(f"{user}:{token}".encode()).decode()
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.rate_limited = 0  # the next N requests answer 429
        self.broken_paths: set[str] = set()  # paths that answer with a body that is not JSON
        self.max_limit = 25  # Cloud caps `limit` (lower when bodies are expanded); tests lower it to force paging
        self.base_url = ""
        # Access (briefing.access): space key -> its permissions as `space?expand=permissions` lists them
        # ({"operation": {"operation": "read", "targetType": "space"}, "subjects": {"user": {"results": [...]}}}).
        # A page's read restriction is its own `restrictions` field, served when the request expands it.
        self.space_permissions: dict[str, list[dict[str, Any]]] = {}
        # Earlier versions: page id -> version number -> the content as `content/{id}?status=historical&version=N`
        # returns it. A version not listed answers 404, as Confluence does once a version's history is purged.
        self.versions: dict[str, dict[int, dict[str, Any]]] = {}

    # Helpers used by the handler ---------------------------------------------------------------------------

    def shape(self, page: dict[str, Any], expand: set[str]) -> dict[str, Any]:
        wanted = {e.split(".")[0] for e in expand}
        out = {k: copy.deepcopy(v) for k, v in page.items() if k in _ALWAYS or k not in _EXPANDABLE}
        for key in _EXPANDABLE:
            if key in page and key in wanted:
                out[key] = copy.deepcopy(page[key])
        if "restrictions" in wanted and "restrictions" not in page:
            # An unrestricted page, as Confluence answers an expanded restriction: empty subject lists.
            empty = {"results": [], "size": 0}
            out["restrictions"] = {
                "read": {"operation": "read", "restrictions": {"user": dict(empty), "group": dict(empty)}}
            }
        out["_expandable"] = {k: "" for k in _EXPANDABLE if k not in wanted}
        return out

    def search(self, cql: str) -> list[dict[str, Any]]:
        spaces_match = _SPACES.search(cql)
        spaces = {s.strip().strip('"') for s in spaces_match.group(1).split(",")} if spaces_match else None
        types_match = _TYPES.search(cql)
        types = {t.strip() for t in types_match.group(1).split(",")} if types_match else {"page", "blogpost"}
        since_match = _SINCE.search(cql)
        since = datetime.strptime(since_match.group(1), "%Y-%m-%d %H:%M").replace(tzinfo=UTC) if since_match else None
        found = []
        for page in self.pages.values():
            if not isinstance(page.get("space"), dict) or not isinstance(page.get("version"), dict):
                found.append(page)  # malformed fixtures still come back, like a half-broken server would
                continue
            if spaces is not None and page["space"]["key"] not in spaces:
                continue
            if page.get("type", "page") not in types or page.get("status", "current") != "current":
                continue
            if since is not None and _modified(page) < since:
                continue
            found.append(page)
        return sorted(found, key=lambda p: p.get("version", {}).get("when", ""))


class _Handler(BaseHTTPRequestHandler):
    server: FakeServer[FakeConfluence]

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json;charset=UTF-8")
        self.send_header("Content-Length", str(len(raw)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self) -> None:  # noqa: N802
        fake = self.server.fake
        parts = urlsplit(self.path)
        params = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        fake.requests.append((parts.path, params))
        if fake.rate_limited > 0:
            fake.rate_limited -= 1
            self._send(429, {"statusCode": 429, "message": "Rate limit exceeded"}, {"Retry-After": "0"})
            return
        if self.headers.get("Authorization") != fake.auth:
            self._send(401, {"statusCode": 401, "message": "Client must be authenticated to access this resource."})
            return
        if not parts.path.startswith(CONTEXT + "/rest/api/"):
            self._send(404, {"statusCode": 404, "message": "No content found"})
            return
        if parts.path in fake.broken_paths:
            self._send(200, b"<html>Service unavailable</html>")
            return
        route = parts.path[len(CONTEXT + "/rest/api/") :].strip("/").split("/")
        expand = set(filter(None, params.get("expand", "").split(",")))
        start = int(params.get("start", 0))
        limit = min(int(params.get("limit", 25)), fake.max_limit)
        if route == ["content", "search"]:
            found = [fake.shape(p, expand) for p in fake.search(params.get("cql", ""))]
            self._page(parts.path, params, found, start, limit)
        elif len(route) == 2 and route[0] == "content":
            page = fake.pages.get(route[1])
            number = params.get("version")
            if page is not None and number and int(number) != page.get("version", {}).get("number"):
                page = fake.versions.get(route[1], {}).get(int(number))
            if page is None:
                self._send(404, {"statusCode": 404, "message": f"No content found with id: {route[1]}"})
            else:
                self._send(200, fake.shape(page, expand))
        elif len(route) == 2 and route[0] == "space":
            known = {str((p.get("space") or {}).get("key")) for p in fake.pages.values()} | set(fake.space_permissions)
            if route[1] not in known:
                self._send(404, {"statusCode": 404, "message": f"No space with key : {route[1]}"})
                return
            space: dict[str, Any] = {"key": route[1], "name": route[1], "type": "global"}
            if "permissions" in expand:
                space["permissions"] = copy.deepcopy(fake.space_permissions.get(route[1], []))
            self._send(200, space)
        elif len(route) == 4 and route[0] == "content" and route[2:] == ["child", "comment"]:
            comments = [fake.shape(c, expand) for c in fake.comments.get(route[1], [])]
            self._page(parts.path, params, comments, start, limit)
        else:
            self._send(404, {"statusCode": 404, "message": "No content found"})

    def _page(self, path: str, params: dict[str, str], found: list[Any], start: int, limit: int) -> None:
        fake = self.server.fake
        window = found[start : start + limit]
        links = {
            "base": fake.base_url,
            "context": CONTEXT,
            "self": fake.base_url + path[len(CONTEXT) :] + "?" + urlencode(params),
        }
        if start + limit < len(found):
            following = dict(params, start=str(start + limit), limit=str(limit))
            links["next"] = path[len(CONTEXT) :] + "?" + urlencode(following)
        self._send(200, {"results": window, "start": start, "limit": limit, "size": len(window), "_links": links})


@contextmanager
def serve(fake: FakeConfluence) -> Iterator[FakeConfluence]:
    """Run the fake on 127.0.0.1 in a thread; `fake.base_url` is its `/wiki` URL while the block runs."""
    with running(_Handler, fake) as port:
        fake.base_url = f"http://127.0.0.1:{port}{CONTEXT}"
        yield fake
