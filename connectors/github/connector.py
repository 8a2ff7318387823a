"""GitHub (github.com or Enterprise) issues, pull requests and releases, through PyGithub.

Per repository: the repository itself, asked with `If-None-Match` (an unchanged repository answers 304, which
GitHub does not count against the rate limit); issues and pull requests updated since the cursor
(`get_issues(since=...)` returns both), each stored as one raw record with its comments, and for pull requests
the PR itself, its reviews and its review comments merged in; then every release (a short list), whose vanished
tags become deletions; then, when `code_paths` is set, the code files of the default branch (see `_code`).

PyGithub exposes conditional requests only on single objects (`CompletableGithubObject.update()` sends
`If-None-Match` and says whether the object changed), not on paginated listings, so the repository and the
branch ref are conditional and the issue and release listings are not.

PyGithub's `raw_data` on a listed object re-fetches that object; the listing's own JSON (`_rawData`) is kept
instead, which is exactly what the API returned.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import requests
from pydantic import BaseModel, ConfigDict, Field

from briefing.errors import ConfigError, SourceError
from briefing.model import JSON, Batch, Cursor, Document, Failure, Item, Normalised, Person, RawRecord
from briefing.registry import FetchOptions, SourceContext
from briefing.sources import secret
from connectors.github import GithubSource
from connectors.github.access import ACCESS_KIND, repo_access
from connectors.github.access import readers as repo_readers
from connectors.github.code import (
    MAX_FILE_BYTES,
    RECORD_KIND,
    CodeState,
    code_document,
    decode_blob,
    file_key,
    is_binary,
    wanted,
)
from connectors.http import HttpLayer, is_fatal

log = logging.getLogger(__name__)

BATCH_SIZE = 25
# `since` is inclusive, but an update written while we page may carry an earlier timestamp than the newest seen.
OVERLAP = timedelta(minutes=2)
_LINKING = re.compile(r"\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+((?:[\w.-]+/[\w.-]+)?#\d+)", re.IGNORECASE)
_MENTIONED = re.compile(r"(?<![\w/])((?:[\w.-]+/[\w.-]+)?#\d+)\b")


class RepoState(BaseModel):
    """What a 304 on the repository leaves unsaid: its ETag, default branch and web address."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    etag: str = ""
    default_branch: str = ""
    html_url: str = ""


class GithubCursor(Cursor):
    """Per repository: newest `updated_at` stored, release tags held, repository state, code file state."""

    repos: dict[str, datetime] = {}
    releases: dict[str, list[str]] = {}
    meta: dict[str, RepoState] = Field(default_factory=dict)
    code: dict[str, CodeState] = Field(default_factory=dict)
    # Issue and pull request numbers stored per repository, for deletion reconciliation on every sync.
    numbers: dict[str, list[int]] = Field(default_factory=dict)
    # Per repository and number: how many issue comments, and which review comment ids, the stored record holds
    # (a deleted comment changes neither the issue's `updated_at` nor the `since` listing).
    comment_counts: dict[str, dict[int, int]] = Field(default_factory=dict)
    review_comment_ids: dict[str, dict[int, list[int]]] = Field(default_factory=dict)


class _Run:
    """The cursor's parts while a fetch moves them forward."""

    def __init__(self, cursor: GithubCursor) -> None:
        self.updated = dict(cursor.repos)
        self.releases = {repo: list(tags) for repo, tags in cursor.releases.items()}
        self.meta = dict(cursor.meta)
        self.code = dict(cursor.code)
        self.numbers = {repo: set(numbers) for repo, numbers in cursor.numbers.items()}
        self.comment_counts = {repo: dict(counts) for repo, counts in cursor.comment_counts.items()}
        self.review_ids = {repo: dict(ids) for repo, ids in cursor.review_comment_ids.items()}

    def stored(self, full_name: str, number: int, data: JSON) -> None:
        """Remember what the stored record of one issue or PR holds, for the comment reconciliation."""
        self.numbers.setdefault(full_name, set()).add(number)
        self.comment_counts.setdefault(full_name, {})[number] = len(data.get("comments") or [])
        ids = sorted(c["id"] for c in data.get("review_comments") or [] if isinstance(c.get("id"), int))
        reviews = self.review_ids.setdefault(full_name, {})
        if ids:
            reviews[number] = ids
        else:
            reviews.pop(number, None)

    def forget(self, full_name: str, numbers: set[int]) -> None:
        self.numbers[full_name] = self.numbers.get(full_name, set()) - numbers
        for table in (self.comment_counts, self.review_ids):
            for number in numbers:
                table.get(full_name, {}).pop(number, None)

    def cursor(self) -> GithubCursor:
        return GithubCursor(
            repos=dict(self.updated),
            releases={k: list(v) for k, v in self.releases.items()},
            meta=dict(self.meta),
            code=dict(self.code),
            numbers={k: sorted(v) for k, v in self.numbers.items()},
            comment_counts={k: dict(sorted(v.items())) for k, v in self.comment_counts.items() if v},
            review_comment_ids={k: dict(sorted(v.items())) for k, v in self.review_ids.items() if v},
        )


def _raw(obj: Any) -> JSON:
    data = getattr(obj, "_rawData", None)
    return dict(data) if isinstance(data, dict) else dict(obj.raw_data)


def _at(value: str | None) -> datetime | None:
    if not value:
        return None
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)


def linked_issues(text: str, repo: str) -> list[str]:
    """Issues a body closes ("Closes #12", "fixes acme/web#3"), as `owner/repo#n`."""
    found = []
    for target in _LINKING.findall(text or ""):
        full = target if "/" in target.split("#")[0] else f"{repo}{target}"
        if full not in found:
            found.append(full)
    return found


def mentioned_issues(text: str, repo: str) -> list[str]:
    """Every `#n` / `owner/repo#n` reference in a text, as `owner/repo#n`."""
    found = []
    for target in _MENTIONED.findall(text or ""):
        full = target if "/" in target.split("#")[0] else f"{repo}{target}"
        if full not in found:
            found.append(full)
    return found


class GithubConnector:
    """Issues, pull requests (with comments and reviews) and releases of the configured repositories."""

    def __init__(
        self,
        client: Any,
        *,
        repos: Sequence[str],
        name: str = "github",
        options: FetchOptions | None = None,
        token_setting: str = "token_env",  # noqa: S107 - the name of a setting, not a secret
        code_paths: Sequence[str] = (),
        http: HttpLayer | None = None,
    ) -> None:
        self.client = client
        self.repos = list(repos)
        self.code_paths = [p.strip("/") for p in code_paths if p.strip("/")]
        self.name = name
        self.options = options or FetchOptions()
        self.token_setting = token_setting
        # Retries and Retry-After live in the client's transport (see `make_client`); this maps what still fails.
        self.http = http or HttpLayer(
            source=name, vendor="GitHub", base_url="https://api.github.com", credentials=token_setting
        )

    def initial_cursor(self) -> GithubCursor:
        return GithubCursor()

    def load_cursor(self, data: JSON) -> GithubCursor:
        return GithubCursor.model_validate(data)

    # Errors ------------------------------------------------------------------------------------------------

    def _translate(self, exc: Exception, what: str) -> Exception:
        """A PyGithub/requests exception as the user-facing error for `what` (a repository, usually)."""
        if getattr(exc, "status", None) == 404 and type(exc).__module__.startswith("github"):
            return SourceError(
                f"source '{self.name}': {what} was not found or is not visible to the token from "
                f"{self.token_setting}: check sources.{self.name}.repos"
            )
        return self.http.error(exc, what) or exc

    # Fetch -------------------------------------------------------------------------------------------------

    def fetch(self, cursor: Cursor) -> Iterator[Batch]:
        if not isinstance(cursor, GithubCursor):
            cursor = self.load_cursor(cursor.model_dump())
        if not self.repos:
            raise ConfigError(f"source '{self.name}': no repositories configured: set sources.{self.name}.repos")
        from github import GithubException

        run = _Run(cursor)
        for full_name in self.repos:
            try:
                repo = self._repository(full_name, run)
                access, failure = repo_access(repo, full_name)
                yield Batch(records=[access] if access else [], failures=[failure] if failure else [])
                yield from self._issues(repo, full_name, run)
                yield self._releases(repo, full_name, run)
                if self.code_paths or full_name in run.code:
                    yield from self._code(repo, full_name, run)
            except (GithubException, requests.RequestException) as exc:
                raise self._translate(exc, f"repository {full_name}") from None

    def _repository(self, full_name: str, run: _Run) -> Any:
        """The repository (lazy: listings hang off it), read again only when its ETag changed."""
        repo = self.client.get_repo(full_name)
        known = run.meta.get(full_name)
        etag = known.etag if known and known.default_branch and not self.options.full else ""
        if repo.update(additional_headers={"If-None-Match": etag} if etag else None):
            run.meta[full_name] = RepoState(
                etag=repo.etag or "", default_branch=repo.default_branch or "", html_url=repo.html_url or ""
            )
        return repo

    def _issues(self, repo: Any, full_name: str, run: _Run) -> Iterator[Batch]:
        from github import GithubException

        updated = run.updated

        since = self.options.since
        if since is None and not self.options.full and full_name in updated:
            since = updated[full_name] - OVERLAP
        kwargs: dict[str, Any] = {"state": "all", "sort": "updated", "direction": "asc"}
        if since is not None:
            kwargs["since"] = since
        newest = updated.get(full_name)
        known_before = full_name in run.numbers
        run.numbers.setdefault(full_name, set())
        seen: set[int] = set()
        # A failed item holds the repository's cursor just before it, so the next run retries it.
        hold: datetime | None = None
        batch = Batch()
        for issue in repo.get_issues(**kwargs):
            raw = _raw(issue)
            key = f"{full_name}#{raw.get('number')}"
            at = _at(raw.get("updated_at")) if isinstance(raw.get("updated_at"), str) else None
            try:
                if not isinstance(raw.get("number"), int) or at is None:
                    raise ValueError("issue without a number or updated_at")
                record = self._issue_record(repo, issue, raw, key)
                batch.records.append(record)
                run.stored(full_name, raw["number"], record.data)
                seen.add(raw["number"])
            except (GithubException, requests.RequestException) as exc:
                error = self._translate(exc, key)
                if is_fatal(error):
                    raise error from None
                batch.failures.append(Failure(key, str(error)))
                hold = min(hold, at) if hold and at else hold or at
            except (ValueError, TypeError, KeyError, AttributeError) as exc:
                batch.failures.append(Failure(key, f"malformed GitHub issue: {exc}"))
            if at is not None and (newest is None or at > newest):
                newest = at
            if newest is not None:
                updated[full_name] = min(newest, hold - timedelta(seconds=1)) if hold else newest
            if len(batch.records) >= BATCH_SIZE:
                batch.cursor = run.cursor()
                yield batch
                batch = Batch()
        windowed = self.options.since is not None or self.options.until is not None
        if known_before and not windowed and not self.options.full:
            self._reconcile(repo, full_name, run, seen, batch)
        if batch.records or batch.failures or batch.deleted:
            batch.cursor = run.cursor()
            yield batch

    def _reconcile(self, repo: Any, full_name: str, run: _Run, seen: set[int], batch: Batch) -> None:
        """Deleted issues, PRs and comments, found on every sync by listings that cost no per-item calls.

        GitHub's REST API has no id-only listing; the issues listing at 100 per page is the cheapest one (one call
        per 100 items). A remembered number it no longer holds is deleted (or moved). An issue whose listed
        `comments` count differs from what its stored record holds lost (or gained) a comment without changing
        `updated_at`, so it is read again; so is a PR that stored a review comment id the repository's review
        comment listing (`pulls/comments`, 100 a page, only when some stored PR has review comments) no longer
        holds. A listing cut short by an error changes nothing.
        """
        from github import GithubException

        listed: dict[int, Any] = {}
        counts: dict[int, int] = {}
        for issue in repo.get_issues(state="all", sort="created", direction="asc"):
            raw = _raw(issue)
            number = raw.get("number")
            if isinstance(number, int):
                listed[number] = issue
                if isinstance(raw.get("comments"), int):
                    counts[number] = raw["comments"]
        known = run.numbers.get(full_name, set())
        gone = known - set(listed)
        run.forget(full_name, gone)
        batch.deleted += [f"{full_name}#{n}" for n in sorted(gone)]

        stored_counts = run.comment_counts.get(full_name, {})
        stale = {n for n, count in counts.items() if n in stored_counts and stored_counts[n] != count}
        stored_reviews = run.review_ids.get(full_name, {})
        if stored_reviews:
            alive: set[int] = set()
            for comment in repo.get_pulls_comments():
                cid = _raw(comment).get("id")
                if isinstance(cid, int):
                    alive.add(cid)
            stale |= {n for n, ids in stored_reviews.items() if n in listed and not set(ids) <= alive}
        for number in sorted(stale - seen):
            key = f"{full_name}#{number}"
            issue = listed[number]
            try:
                record = self._issue_record(repo, issue, _raw(issue), key)
            except (GithubException, requests.RequestException) as exc:
                error = self._translate(exc, key)
                if is_fatal(error):
                    raise error from None
                batch.failures.append(Failure(key, str(error)))
                continue
            batch.records.append(record)
            run.stored(full_name, number, record.data)

    def _issue_record(self, repo: Any, issue: Any, raw: JSON, key: str) -> RawRecord:
        data: JSON = {"issue": raw, "comments": []}
        if raw.get("comments"):
            data["comments"] = [_raw(c) for c in issue.get_comments()]
        if not raw.get("pull_request"):
            return RawRecord(key=key, kind="issue", data=data)
        pull = repo.get_pull(raw["number"]).complete()  # the client is lazy: read the PR now
        data["pull"] = _raw(pull)
        data["reviews"] = [_raw(r) for r in pull.get_reviews()]
        data["review_comments"] = (
            [_raw(c) for c in pull.get_review_comments()] if data["pull"].get("review_comments", 1) else []
        )
        return RawRecord(key=key, kind="pull_request", data=data)

    def _releases(self, repo: Any, full_name: str, run: _Run) -> Batch:
        releases = run.releases
        batch = Batch()
        tags = []
        for release in repo.get_releases():
            raw = _raw(release)
            tag = raw.get("tag_name")
            if not isinstance(tag, str) or not tag:
                batch.failures.append(Failure(f"{full_name}@release:?", "release without a tag_name"))
                continue
            tags.append(tag)
            batch.records.append(RawRecord(key=f"{full_name}@release:{tag}", kind="release", data=raw))
        batch.deleted = [f"{full_name}@release:{tag}" for tag in releases.get(full_name, []) if tag not in tags]
        releases[full_name] = tags
        batch.cursor = run.cursor()
        return batch

    def _code(self, repo: Any, full_name: str, run: _Run) -> Iterator[Batch]:
        """Code files of the default branch: nothing but a 304 when the branch ref is unchanged.

        Blobs are downloaded only for paths whose blob sha changed; files gone from the branch (or from the
        configured paths) are deleted; binaries and files over MAX_FILE_BYTES are skipped, remembered by sha.
        """
        from github import GithubException

        old = run.code.get(full_name, CodeState())
        if not self.code_paths:  # code_paths were removed from the configuration: drop what was stored
            run.code.pop(full_name, None)
            yield Batch(deleted=[file_key(full_name, p) for p in old.files], cursor=run.cursor())
            return
        same_paths = old.paths == self.code_paths and not self.options.full
        meta = run.meta.get(full_name, RepoState())
        branch = meta.default_branch or "main"
        ref = repo.get_git_ref(f"heads/{branch}")
        etag = old.ref_etag if same_paths else ""
        try:
            if not ref.update(additional_headers={"If-None-Match": etag} if etag else None):
                return  # 304: the branch still points at the commit read last time
        except GithubException as exc:
            if exc.status not in (404, 409):  # 409: an empty repository
                raise
            failure = Failure(f"{full_name}:", f"no branch {branch} to read code from")
            yield Batch(failures=[failure], cursor=run.cursor())
            return
        head = ref.object.sha
        if same_paths and head == old.head:
            run.code[full_name] = old.model_copy(update={"ref_etag": ref.etag or ""})
            yield Batch(cursor=run.cursor())
            return
        committed_at = _raw(repo.get_git_commit(head))["committer"]["date"]
        tree = _raw(repo.get_git_tree(head, recursive=True))
        listed = {
            str(e["path"]): e
            for e in tree.get("tree") or []
            if e.get("type") == "blob" and e.get("mode") != "120000" and wanted(str(e["path"]), self.code_paths)
        }
        files = {p: sha for p, sha in old.files.items() if p in listed}
        batch = Batch()
        downloaded: dict[str, bytes] = {}
        for path, entry in sorted(listed.items()):
            sha, key = str(entry["sha"]), file_key(full_name, path)
            if files.get(path) == sha:
                continue
            try:
                if int(entry.get("size") or 0) > MAX_FILE_BYTES:
                    log.info("%s: skipped %s (%s bytes)", self.name, key, entry.get("size"))
                    content = None
                else:
                    if sha not in downloaded:
                        downloaded[sha] = decode_blob(_raw(repo.get_git_blob(sha)))
                    content = None if is_binary(downloaded[sha]) else downloaded[sha]
            except (GithubException, requests.RequestException) as exc:
                error = self._translate(exc, key)
                if is_fatal(error):
                    raise error from None
                batch.failures.append(Failure(key, str(error)))
                continue
            except ValueError as exc:  # bad base64
                batch.failures.append(Failure(key, f"malformed GitHub blob: {exc}"))
                continue
            files[path] = sha
            if content is None:
                batch.deleted.append(key)  # an earlier text version may be cached
                continue
            data: JSON = {
                "repo": full_name,
                "path": path,
                "blob": sha,
                "branch": branch,
                "commit": head,
                "committed_at": committed_at,
                "html_url": meta.html_url,
                "text": content.decode("utf-8", "replace"),
            }
            batch.records.append(RawRecord(key=key, kind=RECORD_KIND, data=data))
            if len(batch.records) >= BATCH_SIZE:
                # Not yet listed in full: no head or ETag, so an interrupted run lists the tree again.
                run.code[full_name] = CodeState(paths=self.code_paths, files=dict(files))
                batch.cursor = run.cursor()
                yield batch
                batch = Batch()
        if tree.get("truncated"):
            # GitHub cut the listing short: files not listed may still exist, so nothing is deleted.
            files = {**old.files, **files}
            batch.failures.append(Failure(f"{full_name}:", "tree too large for one listing; some files not read"))
        else:
            batch.deleted.extend(file_key(full_name, p) for p in old.files if p not in listed)
        complete = not batch.failures
        run.code[full_name] = CodeState(
            paths=self.code_paths,
            head=head if complete else "",
            ref_etag=(ref.etag or "") if complete else "",
            files=files,
        )
        batch.cursor = run.cursor()
        yield batch

    # Normalise ---------------------------------------------------------------------------------------------

    def normalise(self, records: Sequence[RawRecord]) -> Normalised:
        out = Normalised()
        people: dict[str, Person] = {}
        access = {str(r.data.get("repo")): r.data for r in records if r.kind == ACCESS_KIND}
        for login in sorted({str(m) for a in access.values() for m in a.get("members") or []}):
            # Collaborators are people too (the directory joins a login to a person by alias, name or e-mail).
            people.setdefault(login, Person(id=f"github:{login}", name=login, handles=(login,)))
        for record in records:
            if record.kind == ACCESS_KIND:
                continue
            try:
                repo = str(record.data.get("repo") or "") if record.kind == RECORD_KIND else _split_key(record.key)[0]
                if record.kind == "release":
                    out.documents.append(_release_document(record, people))
                elif record.kind == RECORD_KIND:
                    out.documents.append(code_document(record))
                else:
                    out.documents.append(_issue_document(record, people, out.failures))
                out.documents[-1].readers = repo_readers(access.get(repo))
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                out.failures.append(Failure(record.key, f"malformed GitHub record: {type(exc).__name__} {exc}"))
        out.people = list(people.values())
        return out


def _login(user: Any, people: dict[str, Person]) -> str | None:
    if not isinstance(user, dict) or not user.get("login"):
        return None
    login = str(user["login"])
    if login not in people:
        people[login] = Person(id=f"github:{login}", name=str(user.get("name") or login), handles=(login,))
    return login


def _split_key(key: str) -> tuple[str, str]:
    repo, _, rest = key.partition("#") if "#" in key else key.partition("@release:")
    return repo, rest


def _issue_document(record: RawRecord, people: dict[str, Person], failures: list[Failure]) -> Document:
    data = record.data
    issue = data["issue"]
    repo, _ = _split_key(record.key)
    number = int(issue["number"])
    ref = f"github:{repo}#{number}"
    pull = data.get("pull") or {}
    is_pr = bool(issue.get("pull_request")) or bool(pull)
    title = str(issue["title"])
    url = str(issue.get("html_url") or pull.get("html_url") or "")
    body = str(issue.get("body") or "")
    author = _login(issue.get("user"), people)
    created = _at(issue["created_at"])
    assert created is not None
    merged_at = pull.get("merged_at") or (issue.get("pull_request") or {}).get("merged_at")
    state = "merged" if merged_at else str(issue.get("state") or "open")
    milestone = issue.get("milestone") or {}
    meta: JSON = {
        "repo": repo,
        "number": number,
        "is_pull_request": is_pr,
        "state": state,
        "state_reason": issue.get("state_reason"),
        "author": author,
        "labels": [str(label["name"]) for label in issue.get("labels") or [] if isinstance(label, dict)],
        "assignees": [a for a in (_login(u, people) for u in issue.get("assignees") or []) if a],
        "milestone": milestone.get("title") if isinstance(milestone, dict) else None,
        "created_at": created.isoformat(),
        "updated_at": issue.get("updated_at"),
        "closed_at": issue.get("closed_at"),
        "closed_by": _login(issue.get("closed_by"), people),
        "merged_at": merged_at,
        "merged_by": _login(pull.get("merged_by"), people),
        "draft": pull.get("draft", issue.get("draft")),
        "base": (pull.get("base") or {}).get("ref"),
        "head": (pull.get("head") or {}).get("ref"),
        "linked_issues": linked_issues(body, repo),
        "events": _state_events(issue, pull, created, merged_at, author),
    }
    common = {"source_type": "github", "title": title, "container": repo}
    items = [
        Item(
            ref=ref,
            kind="pull_request" if is_pr else "issue",
            text=body,
            occurred_at=created,
            author=author,
            url=url,
            metadata={"number": number},
            **common,
        )
    ]
    for comment in data.get("comments") or []:
        try:
            items.append(
                Item(
                    ref=f"{ref}/comment-{comment['id']}",
                    kind="comment",
                    text=str(comment.get("body") or ""),
                    occurred_at=_required_at(comment["created_at"]),
                    author=_login(comment.get("user"), people),
                    url=str(comment.get("html_url") or url),
                    thread=ref,
                    metadata={"comment_id": comment["id"]},
                    **common,
                )
            )
        except (KeyError, TypeError, ValueError) as exc:
            failures.append(Failure(f"{record.key}/comment", f"malformed comment: {exc}"))
    for review in data.get("reviews") or []:
        try:
            review_state = str(review.get("state") or "COMMENTED")
            if review_state == "PENDING":
                continue
            items.append(
                Item(
                    ref=f"{ref}/comment-{review['id']}",
                    kind="review",
                    text=str(review.get("body") or ""),
                    occurred_at=_required_at(review["submitted_at"]),
                    author=_login(review.get("user"), people),
                    url=str(review.get("html_url") or url),
                    thread=ref,
                    metadata={"review_id": review["id"], "state": review_state},
                    **common,
                )
            )
        except (KeyError, TypeError, ValueError) as exc:
            failures.append(Failure(f"{record.key}/review", f"malformed review: {exc}"))
    for comment in data.get("review_comments") or []:
        try:
            items.append(
                Item(
                    ref=f"{ref}/comment-{comment['id']}",
                    kind="review_comment",
                    text=str(comment.get("body") or ""),
                    occurred_at=_required_at(comment["created_at"]),
                    author=_login(comment.get("user"), people),
                    url=str(comment.get("html_url") or url),
                    thread=ref,
                    metadata={
                        "comment_id": comment["id"],
                        "path": comment.get("path"),
                        "line": comment.get("line") or comment.get("original_line"),
                        "in_reply_to": comment.get("in_reply_to_id"),
                        "review_id": comment.get("pull_request_review_id"),
                    },
                    **common,
                )
            )
        except (KeyError, TypeError, ValueError) as exc:
            failures.append(Failure(f"{record.key}/review_comment", f"malformed review comment: {exc}"))
    return Document(
        key=ref,
        kind="github_issue",
        source_type="github",
        title=f"{repo}#{number}: {title}",
        items=items,
        url=url,
        container=repo,
        metadata=meta,
    )


def _required_at(value: Any) -> datetime:
    at = _at(value) if isinstance(value, str) else None
    if at is None:
        raise ValueError(f"missing or bad timestamp {value!r}")
    return at


def _state_events(
    issue: JSON, pull: JSON, created: datetime, merged_at: str | None, author: str | None = None
) -> list[JSON]:
    """Opened, then merged or closed, with who did it (GitHub's own fields; a reopening is not among them)."""
    events: list[JSON] = [{"event": "opened", "at": created.isoformat(), "by": author}]
    if merged_at:
        by = _login(pull.get("merged_by"), {})
        events.append({"event": "merged", "at": _required_at(merged_at).isoformat(), "by": by})
    elif issue.get("closed_at"):
        by = _login(issue.get("closed_by"), {})
        events.append({"event": "closed", "at": _required_at(issue["closed_at"]).isoformat(), "by": by})
    return events


def _release_document(record: RawRecord, people: dict[str, Person]) -> Document:
    release = record.data
    repo, tag = _split_key(record.key)
    ref = f"github:{repo}@release:{tag}"
    when = _required_at(release.get("published_at") or release["created_at"])
    name = str(release.get("name") or tag)
    url = str(release.get("html_url") or "")
    author = _login(release.get("author"), people)
    meta = {
        "repo": repo,
        "tag": tag,
        "release": True,
        "draft": bool(release.get("draft")),
        "prerelease": bool(release.get("prerelease")),
        "published_at": when.isoformat(),
        "author": author,
        "state": "published",
        "labels": [],
        "assignees": [],
        "milestone": None,
        "linked_issues": [],
        "events": [{"event": "published", "at": when.isoformat()}],
    }
    item = Item(
        ref=ref,
        source_type="github",
        kind="release",
        text=str(release.get("body") or ""),
        occurred_at=when,
        author=author,
        title=name,
        url=url,
        container=repo,
        metadata={"tag": tag},
    )
    return Document(
        key=ref,
        kind="github_issue",
        source_type="github",
        title=f"{repo} release {tag}: {name}" if name != tag else f"{repo} release {tag}",
        items=[item],
        url=url,
        container=repo,
        metadata=meta,
    )


def make_client(base_url: str, token: str, *, http: HttpLayer, seconds_between_requests: float = 0.25) -> Any:
    """A PyGithub client whose transport retries through `http` (rate limits, 5xx, timeouts).

    Lazy: `get_repo` and `get_git_ref` cost nothing until asked, so that their first request can be conditional.
    """
    from github import Auth, Github

    return Github(
        base_url=base_url.rstrip("/"),
        auth=Auth.Token(token),
        timeout=max(1, int(http.timeout_s)),
        per_page=100,
        seconds_between_requests=seconds_between_requests,
        lazy=True,
        retry=http.retry(),
    )


def build(ctx: SourceContext) -> Any:
    """The connector for one `[sources.NAME]` table of type "github": the API, or an export folder (`path`)."""
    config: GithubSource = ctx.config
    if config.path is not None:
        from connectors.github.export import build_export

        if config.code_paths:
            raise ConfigError(
                f"source '{ctx.name}': code_paths needs the GitHub API; an export folder (sources.{ctx.name}.path) "
                "has no code: remove one of them"
            )
        options = ctx.options
        return build_export(ctx.name, ctx.resolve(config.path), config.repos, full=options.full, since=options.since)
    setting = f"sources.{ctx.name}.token_env"
    token = secret(config.token_env, setting=setting)
    base_url = config.base_url or "https://api.github.com"
    http = HttpLayer(
        source=ctx.name,
        vendor="GitHub",
        base_url=base_url,
        credentials=f"{setting} ({config.token_env})",
        max_retries=config.max_retries,
        timeout_s=config.timeout_s,
    )
    return GithubConnector(
        make_client(base_url, token.get_secret_value(), http=http),
        repos=config.repos,
        name=ctx.name,
        options=ctx.options,
        token_setting=f"{setting} ({config.token_env})",
        code_paths=config.code_paths,
        http=http,
    )
