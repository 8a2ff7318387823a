"""A local GitHub REST server for tests and `brief demo`, mounted at `/api/v3` like GitHub Enterprise.

Serves the endpoints the GitHub connector uses with GitHub's documented shapes: repository, issues (pull
requests included, `since` on `updated_at`), one issue, its comments and issue events, the repository's issue
comments and review comments (`since`), pull requests, reviews, review comments and releases, and for code the
branch ref, commit, recursive tree and blobs of the default branch. Lists are paged with `per_page`/`page` and
a `Link` header whose absolute URLs point at this server. API `url` fields are filled in at serve time so that
PyGithub's follow-up calls come back here too. The repository and ref answers carry an `ETag` and answer
`If-None-Match` with 304, as GitHub does.

A repository's code is `{"code": {"committed_at": ..., "files": {path: text | bytes | {"base64": ...}}}}`; blob,
tree and commit shas are computed from the files (blob shas exactly as git computes them).
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from briefing.devserver._http import FakeServer, running

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


def _content(value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, dict):
        return base64.b64decode(value["base64"])
    return str(value).encode()


def blob_sha(content: bytes) -> str:
    """The sha git gives a blob with this content."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()  # noqa: S324 (git's object id)


def _since(items: list[dict[str, Any]], params: dict[str, str]) -> list[dict[str, Any]]:
    """A repository-wide comment listing: `since` on `updated_at`, sorted by `sort` (created) and `direction`."""
    since = _at(params["since"]) if "since" in params else None
    kept = [c for c in items if since is None or _at(str(c.get("updated_at") or c.get("created_at"))) >= since]
    key = "updated_at" if params.get("sort") == "updated" else "created_at"
    reverse = params.get("direction", "asc" if "sort" not in params else "desc") == "desc"
    return sorted(kept, key=lambda c: str(c.get(key) or c.get("created_at")), reverse=reverse)


class _Code:
    """The default branch of a repository's `code` fixture: blobs by sha, the tree listing and the head commit."""

    def __init__(self, code: dict[str, Any]) -> None:
        self.blobs: dict[str, bytes] = {}
        self.entries: list[dict[str, Any]] = []
        folders: set[str] = set()
        for path, value in sorted(code.get("files", {}).items()):
            content = _content(value)
            sha = blob_sha(content)
            self.blobs[sha] = content
            parts = path.split("/")
            folders.update("/".join(parts[:n]) for n in range(1, len(parts)))
            self.entries.append({"path": path, "mode": "100644", "type": "blob", "sha": sha, "size": len(content)})
        for folder in folders:
            digest = hashlib.sha1(folder.encode()).hexdigest()  # noqa: S324
            self.entries.append({"path": folder, "mode": "040000", "type": "tree", "sha": digest})
        self.entries.sort(key=lambda e: e["path"])
        self.committed_at = str(code.get("committed_at", "2026-06-01T00:00:00Z"))
        listing = json.dumps([(e["path"], e["sha"]) for e in self.entries]) + self.committed_at
        self.tree = hashlib.sha1(b"tree" + listing.encode()).hexdigest()  # noqa: S324
        self.head = hashlib.sha1(b"commit" + listing.encode()).hexdigest()  # noqa: S324


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
        self.not_modified: list[str] = []  # paths answered 304 Not Modified

    def repo_url(self, full_name: str) -> str:
        return f"{self.api}/repos/{full_name}"


class _Handler(BaseHTTPRequestHandler):
    server: FakeServer[FakeGitHub]

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return

    def _send_conditional(self, path: str, body: Any) -> None:
        """200 with a weak ETag of the body, or 304 when the client already holds that ETag."""
        digest = hashlib.sha1(json.dumps(body, sort_keys=True).encode()).hexdigest()  # noqa: S324
        etag = f'W/"{digest}"'
        if self.headers.get("If-None-Match") == etag:
            self.server.fake.not_modified.append(path)
            self.send_response(304)
            self.send_header("ETag", etag)
            self.send_header("X-RateLimit-Limit", "5000")
            self.end_headers()
            return
        self._send(200, body, {"ETag": etag})

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
            self._send_conditional(parts.path, dict(repo["repo"], url=base))
        elif rest[0] == "git":
            self._git(parts.path, repo, rest[1:], base)
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
        elif len(rest) == 2 and rest[0] == "issues" and rest[1].isdigit():
            found = [i for i in repo.get("issues", []) if str(i.get("number")) == rest[1]]
            if found:
                self._send(200, dict(copy.deepcopy(found[0]), url=f"{base}/issues/{rest[1]}"))
            else:
                self._send(404, {"message": "Not Found"})
        elif len(rest) == 3 and rest[0] == "issues" and rest[2] == "comments":
            self._paged(parts.path, params, repo.get("comments", {}).get(rest[1], []))
        elif len(rest) == 3 and rest[0] == "issues" and rest[2] == "events":
            self._paged(parts.path, params, repo.get("events", {}).get(rest[1], []))
        elif rest == ["issues", "comments"]:  # every issue comment of the repository, `since` on `updated_at`
            every = [
                dict(c, issue_url=f"{base}/issues/{number}")
                for number, comments in repo.get("comments", {}).items()
                for c in comments
            ]
            self._paged(parts.path, params, _since(every, params))
        elif rest == ["pulls", "comments"]:  # every review comment of the repository, oldest first
            every = [
                dict(c, pull_request_url=f"{base}/pulls/{number}")
                for number, comments in repo.get("review_comments", {}).items()
                for c in comments
            ]
            self._paged(parts.path, params, _since(every, params))
        elif len(rest) == 2 and rest[0] == "pulls" and rest[1] in repo.get("pulls", {}):
            self._send(200, dict(repo["pulls"][rest[1]], url=f"{base}/pulls/{rest[1]}"))
        elif len(rest) == 3 and rest[0] == "pulls" and rest[2] == "reviews":
            self._paged(parts.path, params, repo.get("reviews", {}).get(rest[1], []))
        elif len(rest) == 3 and rest[0] == "pulls" and rest[2] == "comments":
            self._paged(parts.path, params, repo.get("review_comments", {}).get(rest[1], []))
        elif rest == ["releases"]:
            self._paged(parts.path, params, repo.get("releases", []))
        elif rest == ["collaborators"]:
            # briefing.access: a fixture's `collaborators` (user objects with `login`); edit it to remove someone.
            self._paged(parts.path, params, repo.get("collaborators", []))
        else:
            self._send(404, {"message": "Not Found"})

    def _git(self, path: str, repo: dict[str, Any], rest: list[str], base: str) -> None:
        """`git/ref/heads/<default branch>`, `git/commits/<head>`, `git/trees/<head or tree>`, `git/blobs/<sha>`."""
        if "code" not in repo:
            self._send(409, {"message": "Git Repository is empty."})
            return
        code = _Code(repo["code"])
        branch = repo["repo"].get("default_branch", "main")
        sha = rest[1] if len(rest) == 2 else ""
        if rest[:1] == ["ref"] and "/".join(rest[1:]) == f"heads/{branch}":
            target = {"sha": code.head, "type": "commit", "url": f"{base}/git/commits/{code.head}"}
            url = f"{base}/git/ref/heads/{branch}"
            self._send_conditional(path, {"ref": f"refs/heads/{branch}", "url": url, "object": target})
        elif rest[0] == "commits" and sha == code.head:
            person = {"name": "Fixture Bot", "email": "bot@example.com", "date": code.committed_at}
            tree = {"sha": code.tree, "url": f"{base}/git/trees/{code.tree}"}
            body: dict[str, Any] = {"sha": sha, "url": f"{base}/git/commits/{sha}", "author": person}
            body["committer"] = person
            self._send(200, dict(body, message="fixture head", tree=tree, parents=[]))
        elif rest[0] == "trees" and sha in (code.head, code.tree):
            entries = [dict(e, url=f"{base}/git/{e['type']}s/{e['sha']}") for e in code.entries]
            body = {"sha": code.tree, "url": f"{base}/git/trees/{code.tree}", "tree": entries}
            self._send(200, dict(body, truncated=False))
        elif rest[0] == "blobs" and sha in code.blobs:
            content = code.blobs[sha]
            encoded = base64.encodebytes(content).decode()  # GitHub wraps base64 at 60 columns
            body = {"sha": sha, "node_id": f"B_{sha[:8]}", "size": len(content), "url": f"{base}/git/blobs/{sha}"}
            self._send(200, dict(body, content=encoded, encoding="base64"))
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


@contextmanager
def serve(fake: FakeGitHub) -> Iterator[FakeGitHub]:
    """Run the fake on 127.0.0.1 in a thread; `fake.api` is its base URL (`.../api/v3`) while the block runs."""
    with running(_Handler, fake) as port:
        fake.api = f"http://127.0.0.1:{port}{PREFIX}"
        yield fake
