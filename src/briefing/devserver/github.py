"""A local GitHub REST server for tests and `brief demo`, mounted at `/api/v3` like GitHub Enterprise.

Serves the endpoints the GitHub connector uses with GitHub's documented shapes: repository, issues (pull
requests included, `since` on `updated_at`), issue comments, pull requests, reviews, review comments and
releases. Lists are paged with `per_page`/`page` and a `Link` header whose absolute URLs point at this server.
API `url` fields are filled in at serve time so that PyGithub's follow-up calls come back here too.
"""

from __future__ import annotations

import copy
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

PREFIX = "/api/v3"


def load(folder: Path) -> dict[str, dict[str, Any]]:
    """Repositories from a fixture folder: one `<owner>__<repo>.json` per repository."""
    repos = {}
    for path in sorted(folder.glob("*__*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        repos[data["repo"]["full_name"]] = data
    return repos


def _at(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


class FakeGitHub:
    """State and knobs; tests edit `repos` between syncs and read `requests`."""

    def __init__(self, repos: dict[str, dict[str, Any]], *, token: str = "ghp_test_token") -> None:
        self.repos = repos
        self.token = token
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.primary_limited = 0  # the next N requests: 403, X-RateLimit-Remaining 0, reset now
        self.secondary_limited = 0  # the next N requests: 403 with Retry-After
        self.too_many = 0  # the next N requests: 429 with Retry-After
        self.per_page = 2  # small, so that paging is exercised with tiny fixtures
        self.api = ""

    def repo_url(self, full_name: str) -> str:
        return f"{self.api}/repos/{full_name}"


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        raw = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(raw)))
        self.send_header("X-RateLimit-Limit", "5000")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(raw)

    def _limited(self) -> bool:
        fake = self.server.fake
        if fake.primary_limited > 0:
            fake.primary_limited -= 1
            reset = str(int(time.time()) - 1)
            body = {
                "message": "API rate limit exceeded for user ID 1.",
                "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api",
            }
            self._send(403, body, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset})
            return True
        if fake.secondary_limited > 0:
            fake.secondary_limited -= 1
            body = {
                "message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
            }
            self._send(403, body, {"Retry-After": "0"})
            return True
        if fake.too_many > 0:
            fake.too_many -= 1
            self._send(429, {"message": "Too Many Requests"}, {"Retry-After": "0"})
            return True
        return False

    def do_GET(self) -> None:  # noqa: N802
        fake = self.server.fake
        parts = urlsplit(self.path)
        params = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        fake.requests.append((parts.path, params))
        if self._limited():
            return
        if self.headers.get("Authorization") not in (f"token {fake.token}", f"Bearer {fake.token}"):
            self._send(401, {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"})
            return
        route = parts.path.removeprefix(PREFIX).strip("/").split("/")
        if len(route) < 3 or route[0] != "repos":
            self._send(404, {"message": "Not Found"})
            return
        full_name = f"{route[1]}/{route[2]}"
        repo = fake.repos.get(full_name)
        if repo is None:
            self._send(404, {"message": "Not Found"})
            return
        rest = route[3:]
        base = fake.repo_url(full_name)
        if not rest:
            self._send(200, dict(repo["repo"], url=base))
        elif rest == ["issues"]:
            since = _at(params["since"]) if "since" in params else None
            issues = [
                dict(copy.deepcopy(i), url=f"{base}/issues/{i['number']}")
                for i in repo.get("issues", [])
                if since is None or not isinstance(i.get("updated_at"), str) or _at(i["updated_at"]) >= since
            ]
            reverse = params.get("direction", "desc") == "desc"
            issues.sort(key=lambda i: str(i.get("updated_at")), reverse=reverse)
            self._paged(parts.path, params, issues)
        elif len(rest) == 3 and rest[0] == "issues" and rest[2] == "comments":
            self._paged(parts.path, params, repo.get("comments", {}).get(rest[1], []))
        elif len(rest) == 2 and rest[0] == "pulls" and rest[1] in repo.get("pulls", {}):
            self._send(200, dict(repo["pulls"][rest[1]], url=f"{base}/pulls/{rest[1]}"))
        elif len(rest) == 3 and rest[0] == "pulls" and rest[2] == "reviews":
            self._paged(parts.path, params, repo.get("reviews", {}).get(rest[1], []))
        elif len(rest) == 3 and rest[0] == "pulls" and rest[2] == "comments":
            self._paged(parts.path, params, repo.get("review_comments", {}).get(rest[1], []))
        elif rest == ["releases"]:
            self._paged(parts.path, params, repo.get("releases", []))
        else:
            self._send(404, {"message": "Not Found"})

    def _paged(self, path: str, params: dict[str, str], items: list[Any]) -> None:
        fake = self.server.fake
        per_page = min(int(params.get("per_page", fake.per_page)), fake.per_page)
        page = int(params.get("page", 1))
        last = max(1, -(-len(items) // per_page))
        window = items[(page - 1) * per_page : page * per_page]
        host = fake.api.removesuffix(PREFIX)

        def link(number: int) -> str:
            return f"{host}{path}?{urlencode(dict(params, per_page=str(per_page), page=str(number)))}"

        links = []
        if page < last:
            links += [f'<{link(page + 1)}>; rel="next"', f'<{link(last)}>; rel="last"']
        if page > 1:
            links += [f'<{link(1)}>; rel="first"', f'<{link(page - 1)}>; rel="prev"']
        self._send(200, copy.deepcopy(window), {"Link": ", ".join(links)} if links else None)


class _Server(ThreadingHTTPServer):
    fake: FakeGitHub


@contextmanager
def serve(fake: FakeGitHub) -> Iterator[FakeGitHub]:
    """Run the fake on 127.0.0.1 in a thread; `fake.api` is its base URL (`.../api/v3`) while the block runs."""
    server = _Server(("127.0.0.1", 0), _Handler)
    server.fake = fake
    fake.api = f"http://127.0.0.1:{server.server_address[1]}{PREFIX}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
