"""GitHub (github.com or Enterprise) issues, pull requests and releases, through PyGithub.

Per repository: the repository itself, asked with `If-None-Match` (an unchanged repository answers 304, which
GitHub does not count against the rate limit); issues and pull requests updated since the cursor
(`get_issues(since=...)` returns both), each stored as one raw record with its comments and issue events, and for
pull requests the PR itself, its reviews and its review comments merged in; on a later sync also the items whose
comments or review comments changed since the cursor (the repository's comment listings with `since`: an edited
comment need not move its issue's `updated_at`); then every release (a short list), whose vanished tags become
deletions; then, when `code_paths` is set, the code files of the default branch (`connectors.github.code_sync`).
The whole issue listing, which finds deleted issues and comments, is walked at most every `reconcile_hours`.

PyGithub exposes conditional requests only on single objects (`CompletableGithubObject.update()` sends
`If-None-Match` and says whether the object changed), not on paginated listings, so the repository and the
branch ref are conditional and the issue and release listings are not.

PyGithub's `raw_data` on a listed object re-fetches that object; the listing's own JSON (`_rawData`) is kept
instead, which is exactly what the API returned.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

import requests

from briefing.errors import ConfigError, SourceError
from briefing.model import JSON, Batch, Cursor, Failure, Normalised, Person, RawRecord
from briefing.registry import FetchOptions, SourceContext
from briefing.sources import secret
from connectors.github import GithubSource
from connectors.github.access import ACCESS_KIND, repo_access
from connectors.github.access import readers as repo_readers
from connectors.github.client import make_client, raw_json
from connectors.github.code import RECORD_KIND, code_document
from connectors.github.code_sync import fetch_code
from connectors.github.commits import commit_documents
from connectors.github.cursor import BATCH_SIZE, GithubCursor, RepoState, Run
from connectors.github.documents import issue_document, parse_time, release_document, split_key
from connectors.github.export import build_export
from connectors.github.export_records import COMMIT_KIND
from connectors.http import HttpLayer, is_fatal

log = logging.getLogger(__name__)

# `since` is inclusive, but an update written while we page may carry an earlier timestamp than the newest seen.
OVERLAP = timedelta(minutes=2)


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
        reconcile_hours: float = 24.0,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.client = client
        self.reconcile_every = timedelta(hours=reconcile_hours)
        self.clock = clock or (lambda: datetime.now(UTC))
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

        run = Run(cursor)
        for full_name in self.repos:
            try:
                repo = self._repository(full_name, run)
                access, failure = repo_access(repo, full_name)
                yield Batch(records=[access] if access else [], failures=[failure] if failure else [])
                yield from self._issues(repo, full_name, run)
                yield self._releases(repo, full_name, run)
                if self.code_paths or full_name in run.code:
                    yield from fetch_code(
                        repo,
                        full_name,
                        run,
                        code_paths=self.code_paths,
                        full=self.options.full,
                        name=self.name,
                        translate=self._translate,
                    )
            except (GithubException, requests.RequestException) as exc:
                raise self._translate(exc, f"repository {full_name}") from None

    def _repository(self, full_name: str, run: Run) -> Any:
        """The repository (lazy: listings hang off it), read again only when its ETag changed."""
        repo = self.client.get_repo(full_name)
        known = run.meta.get(full_name)
        etag = known.etag if known and known.default_branch and not self.options.full else ""
        if repo.update(additional_headers={"If-None-Match": etag} if etag else None):
            run.meta[full_name] = RepoState(
                etag=repo.etag or "", default_branch=repo.default_branch or "", html_url=repo.html_url or ""
            )
        return repo

    def _issues(self, repo: Any, full_name: str, run: Run) -> Iterator[Batch]:
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
            raw = raw_json(issue)
            key = f"{full_name}#{raw.get('number')}"
            at = parse_time(raw.get("updated_at")) if isinstance(raw.get("updated_at"), str) else None
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
        now = self.clock()
        if known_before and not windowed and not self.options.full and since is not None:
            self._commented(repo, full_name, run, since, seen, batch)
            reconciled = run.reconciled.get(full_name)
            if reconciled is None or now - reconciled >= self.reconcile_every:
                self._reconcile(repo, full_name, run, seen, batch)
                run.reconciled[full_name] = now
        elif not windowed:
            run.reconciled[full_name] = now  # every item was just listed
        if batch.records or batch.failures or batch.deleted:
            batch.cursor = run.cursor()
            yield batch

    def _commented(self, repo: Any, full_name: str, run: Run, since: datetime, seen: set[int], batch: Batch) -> None:
        """Items whose issue comments or review comments were written or edited since the cursor, read again.

        The repository's comment listings with `since` (oldest first, 100 a page) cost one call per 100 changed
        comments; an item the `since` listing of issues already returned is not read twice."""

        numbers: set[int] = set()
        for listing, link in (
            (repo.get_issues_comments(sort="updated", direction="asc", since=since), "issue_url"),
            (repo.get_pulls_comments(sort="updated", direction="asc", since=since), "pull_request_url"),
        ):
            for comment in listing:
                url = str(raw_json(comment).get(link) or "")
                tail = url.rstrip("/").rsplit("/", 1)[-1]
                if tail.isdigit():
                    numbers.add(int(tail))
        for number in sorted(numbers - seen):
            if self._store(repo, full_name, number, partial(_read_issue, repo, number), run, batch):
                seen.add(number)

    def _reconcile(self, repo: Any, full_name: str, run: Run, seen: set[int], batch: Batch) -> None:
        """Deleted issues, PRs and comments, found (every `reconcile_hours`) by listings that cost no per-item calls.

        GitHub's REST API has no id-only listing; the issues listing at 100 per page is the cheapest one (one call
        per 100 items). A remembered number it no longer holds is deleted (or moved). An issue whose listed
        `comments` count differs from what its stored record holds lost (or gained) a comment without changing
        `updated_at`, so it is read again; so is a PR that stored a review comment id the repository's review
        comment listing (`pulls/comments`, 100 a page, only when some stored PR has review comments) no longer
        holds. A listing cut short by an error changes nothing.
        """

        listed: dict[int, Any] = {}
        counts: dict[int, int] = {}
        for issue in repo.get_issues(state="all", sort="created", direction="asc"):
            raw = raw_json(issue)
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
                cid = raw_json(comment).get("id")
                if isinstance(cid, int):
                    alive.add(cid)
            stale |= {n for n, ids in stored_reviews.items() if n in listed and not set(ids) <= alive}
        for number in sorted(stale - seen):
            self._store(repo, full_name, number, partial(listed.__getitem__, number), run, batch)

    def _store(self, repo: Any, full_name: str, number: int, fetch: Callable[[], Any], run: Run, batch: Batch) -> bool:
        """Read one issue or pull request with its discussion into the batch; a failure is the batch's, not fatal."""
        from github import GithubException

        key = f"{full_name}#{number}"
        try:
            issue = fetch()
            record = self._issue_record(repo, issue, raw_json(issue), key)
        except (GithubException, requests.RequestException) as exc:
            error = self._translate(exc, key)
            if is_fatal(error):
                raise error from None
            batch.failures.append(Failure(key, str(error)))
            return False
        batch.records.append(record)
        run.stored(full_name, number, record.data)
        return True

    def _issue_record(self, repo: Any, issue: Any, raw: JSON, key: str) -> RawRecord:
        data: JSON = {"issue": raw, "comments": []}
        if raw.get("comments"):
            data["comments"] = [raw_json(c) for c in issue.get_comments()]
        # Its issue events (closed, reopened, merged, labeled, review requested, ...): its state over time.
        data["events"] = [raw_json(e) for e in issue.get_events()]
        if not raw.get("pull_request"):
            return RawRecord(key=key, kind="issue", data=data)
        pull = repo.get_pull(raw["number"]).complete()  # the client is lazy: read the PR now
        data["pull"] = raw_json(pull)
        data["reviews"] = [raw_json(r) for r in pull.get_reviews()]
        data["review_comments"] = (
            [raw_json(c) for c in pull.get_review_comments()] if data["pull"].get("review_comments", 1) else []
        )
        return RawRecord(key=key, kind="pull_request", data=data)

    def _releases(self, repo: Any, full_name: str, run: Run) -> Batch:
        releases = run.releases
        batch = Batch()
        tags = []
        for release in repo.get_releases():
            raw = raw_json(release)
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

    # Normalise ---------------------------------------------------------------------------------------------

    def normalise(self, records: Sequence[RawRecord]) -> Normalised:
        out = Normalised()
        people: dict[str, Person] = {}
        access = {str(r.data.get("repo")): r.data for r in records if r.kind == ACCESS_KIND}
        for login in sorted({str(m) for a in access.values() for m in a.get("members") or []}):
            # Collaborators are people too (the directory joins a login to a person by alias, name or e-mail).
            people.setdefault(login, Person(id=f"github:{login}", name=login, handles=(login,)))
        commits = [r for r in records if r.kind == COMMIT_KIND]  # pushed through the webhook
        for record in records:
            if record.kind in (ACCESS_KIND, COMMIT_KIND):
                continue
            try:
                repo = str(record.data.get("repo") or "") if record.kind == RECORD_KIND else split_key(record.key)[0]
                if record.kind == "release":
                    out.documents.append(release_document(record, people))
                elif record.kind == RECORD_KIND:
                    out.documents.append(code_document(record))
                else:
                    out.documents.append(issue_document(record, people, out.failures))
                out.documents[-1].readers = repo_readers(access.get(repo))
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                out.failures.append(Failure(record.key, f"malformed GitHub record: {type(exc).__name__} {exc}"))
        for document in commit_documents(commits, people, out.failures):
            document.readers = repo_readers(access.get(str(document.container)))
            out.documents.append(document)
        out.people = list(people.values())
        return out


def build(ctx: SourceContext) -> Any:
    """The connector for one `[sources.NAME]` table of type "github": the API, or an export folder (`path`)."""
    config: GithubSource = ctx.config
    if config.path is not None:
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
        reconcile_hours=config.reconcile_hours,
    )


def _read_issue(repo: Any, number: int) -> Any:
    """One issue or pull request, read now (the client is lazy)."""
    return repo.get_issue(number).complete()
