"""JIRA (Cloud and Server/Data Center) through atlassian-python-api: issues by JQL, incremental on `updated`.

One raw record per issue: the issue JSON as the search returns it, with every comment and the full changelog
merged in (the search embeds only the first comments and, on Cloud, only the newest changelog entries).

Incremental runs ask for `updated >= cursor - overlap` in the JQL user's own time zone (JQL dates are read in
the profile time zone of the account, which `/myself` reports), ordered by `updated` ascending, so the cursor
after each page is the newest `updated` stored so far and a run stopped halfway resumes without gaps.

Deletions: JQL cannot report issues that vanished (deleted or moved out of the configured projects). The cursor
remembers the keys it has stored. A `--full` run lists every issue again and puts the remembered keys it did not
see into the last batch's `deleted`; an incremental run ends with a cheap id-only listing of the configured scope
(`fields=key`, no changelog) and deletes the remembered keys it no longer lists. A windowed run (`--since`,
`--until`) deletes nothing, and a listing that fails deletes nothing either (it is retried next run).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

import requests
from atlassian import Jira

from briefing.errors import ConfigError, SourceError
from briefing.model import JSON, Batch, Cursor, Failure, Normalised, RawRecord
from briefing.registry import FetchOptions, SourceContext
from connectors.http import HttpLayer
from connectors.jira import JiraSource
from connectors.jira.access import fetch_access, security_level
from connectors.jira.client import credentials, make_client
from connectors.jira.jql import account_zone, jql_time, scope
from connectors.jira.normalise import normalise_issues, parse_jira_time

RECORD_KIND = "jira_issue"
PAGE_SIZE = 50
SUB_PAGE_SIZE = 100

# Custom fields found by their schema type, since their ids differ between sites.
SPRINT_SCHEMA = "com.pyxis.greenhopper.jira:gh-sprint"
EPIC_LINK_SCHEMA = "com.pyxis.greenhopper.jira:gh-epic-link"
STANDARD_FIELDS = (
    "summary",
    "description",
    "status",
    "issuetype",
    "project",
    "assignee",
    "reporter",
    "creator",
    "priority",
    "labels",
    "components",
    "fixVersions",
    "resolution",
    "resolutiondate",
    "created",
    "updated",
    "duedate",
    "parent",
    "subtasks",
    "issuelinks",
    "comment",
    "security",
)

T = TypeVar("T")


class JiraCursor(Cursor):
    """The newest `updated` stored, and the keys stored so far (for `--full` deletion reconciliation)."""

    updated: datetime | None = None
    keys: tuple[str, ...] = ()
    # Issue security levels seen so far: their members are re-read every run (connectors.jira.access).
    levels: tuple[str, ...] = ()


class JiraConnector:
    """Fetches issues page by page; takes a ready `atlassian.Jira` client so tests can point it anywhere."""

    def __init__(
        self,
        client: Jira,
        config: JiraSource,
        *,
        name: str = "jira",
        options: FetchOptions | None = None,
        http: HttpLayer | None = None,
    ) -> None:
        self.client = client
        self.config = config
        self.name = name
        self.options = options or FetchOptions()
        self.cloud = bool(getattr(client, "cloud", False))
        self.levels: tuple[str, ...] = ()
        # Cloud's enhanced search is v3 only (ADF bodies); comments and changelog pages must match it.
        self.api_version = 3 if self.cloud else 2
        self.base_url = (config.base_url or str(client.url)).rstrip("/")
        # Retries and Retry-After live in the client's session (`make_client`); this maps what still fails.
        self.http = http or HttpLayer(
            source=name, vendor="JIRA", base_url=self.base_url, credentials=credentials(name, config)
        )

    # --- Connector protocol -------------------------------------------------------------------------------

    def initial_cursor(self) -> JiraCursor:
        return JiraCursor()

    def load_cursor(self, data: JSON) -> JiraCursor:
        return JiraCursor.model_validate(data)

    def fetch(self, cursor: Cursor) -> Iterator[Batch]:
        assert isinstance(cursor, JiraCursor)
        myself = self._call("read the current user", self.client.myself) or {}
        zone = account_zone(myself.get("timeZone"))
        custom = self._custom_fields()
        jql = self._jql(cursor, zone)
        fields = [*STANDARD_FIELDS, *custom]
        full = self.options.full
        known = set(cursor.keys)
        seen: set[str] = set()
        newest = cursor.updated
        self.levels = cursor.levels
        for page in self._search(jql, fields):
            batch = Batch()
            for issue in page:
                key = issue.get("key") if isinstance(issue, dict) else None
                try:
                    record, updated = self._complete(issue, custom)
                except _IssueError as exc:
                    batch.failures.append(Failure(key=str(key or "?"), reason=str(exc)))
                    if isinstance(key, str):
                        seen.add(key)
                    continue
                batch.records.append(record)
                seen.add(record.key)
                level = security_level(record.data.get("fields"))
                if level is not None and level not in self.levels:
                    self.levels = tuple(sorted({*self.levels, level}))
                if newest is None or updated > newest:
                    newest = updated
            batch.cursor = JiraCursor(levels=self.levels, updated=newest, keys=tuple(sorted(known | seen)))
            yield batch
        yield self._access(known | seen, newest)
        if full:
            gone = sorted(known - seen)
            yield Batch(deleted=gone, cursor=JiraCursor(levels=self.levels, updated=newest, keys=tuple(sorted(seen))))
        elif self.options.since is None and self.options.until is None and known:
            yield self._reconcile(known | seen, newest)

    def _access(self, keys: set[str], newest: datetime | None) -> Batch:
        """Every run: the role members of each project and the members of each security level seen."""
        projects = set(self.config.projects) | {k.rsplit("-", 1)[0] for k in keys}

        def get(path: str, params: dict[str, Any] | None) -> Any:
            return self._call(f"read {path}", self.client.get, path, params=params)

        def url(path: str) -> str:
            return str(self.client.resource_url(path, api_version=self.api_version))

        records, failures = fetch_access(projects, self.levels, get, url)
        cursor = JiraCursor(levels=self.levels, updated=newest, keys=tuple(sorted(keys)))
        return Batch(records=records, failures=failures, cursor=cursor)

    def _reconcile(self, known: set[str], newest: datetime | None) -> Batch:
        """The id-only listing of the configured scope: remembered keys it no longer lists are deleted."""
        listed: set[str] = set()
        try:
            for page in self._search(scope(self.name, self.config) + " ORDER BY key ASC", ["key"], expand=None):
                listed.update(i["key"] for i in page if isinstance(i, dict) and isinstance(i.get("key"), str))
        except SourceError as exc:
            failure = Failure("deletions", f"the id-only listing failed, nothing was deleted this run: {exc}")
            return Batch(
                failures=[failure], cursor=JiraCursor(levels=self.levels, updated=newest, keys=tuple(sorted(known)))
            )
        # Offset paging can skip an issue when another is deleted mid-listing: confirm each absence (a 404).
        gone = sorted(key for key in known - listed if self._missing(key))
        alive = (known - set(gone)) | listed
        return Batch(deleted=gone, cursor=JiraCursor(levels=self.levels, updated=newest, keys=tuple(sorted(alive))))

    def _missing(self, key: str) -> bool:
        """Whether the issue is gone at the source (HTTP 404); any other answer keeps it."""
        path = f"rest/api/{self.api_version}/issue/{key}"
        try:
            response = self.client.get(path, params={"fields": "key"}, advanced_mode=True)
        except Exception:  # noqa: BLE001 - unreachable now: keep the issue, the next run asks again
            return False
        return getattr(response, "status_code", None) == 404

    def normalise(self, records: Sequence[RawRecord]) -> Normalised:
        return normalise_issues(records, base_url=self.base_url, render_wiki=self.config.render_wiki)

    # --- Search ---------------------------------------------------------------------------------------------

    def _jql(self, cursor: JiraCursor, zone: ZoneInfo) -> str:
        clauses = [scope(self.name, self.config)]
        since = self.options.since
        if since is None and not self.options.full and cursor.updated is not None:
            since = cursor.updated - timedelta(minutes=self.config.overlap_minutes)
        if since is not None:
            clauses.append(f'updated >= "{jql_time(since, zone, ceil=False)}"')
        if self.options.until is not None:
            clauses.append(f'updated <= "{jql_time(self.options.until, zone, ceil=True)}"')
        return " AND ".join(clauses) + " ORDER BY updated ASC"

    def _search(self, jql: str, fields: list[str], expand: str | None = "changelog") -> Iterator[list[JSON]]:
        """Pages of issues: nextPageToken on Cloud (enhanced search), startAt elsewhere."""
        if self.cloud:
            token: str | None = None
            while True:
                page = self._call(
                    "search issues",
                    self.client.enhanced_jql,
                    jql,
                    fields=fields,
                    nextPageToken=token,
                    limit=PAGE_SIZE,
                    expand=expand,
                    jql_error=True,
                )
                issues = _issue_list(page)
                yield issues
                token = page.get("nextPageToken") if isinstance(page, dict) else None
                if not token or page.get("isLast") is True or not issues:
                    return
        start = 0
        while True:
            page = self._call(
                "search issues",
                self.client.jql,
                jql,
                fields=fields,
                start=start,
                limit=PAGE_SIZE,
                expand=expand,
                jql_error=True,
            )
            issues = _issue_list(page)
            yield issues
            start += len(issues)
            total = page.get("total") if isinstance(page, dict) else None
            if not issues or not isinstance(total, int) or start >= total:
                return

    def _custom_fields(self) -> dict[str, str]:
        """Ids of the sprint and epic-link custom fields on this site -> their display names."""
        try:
            listed = self._call("list fields", self.client.get, self.client.resource_url("field"))
        except SourceError:
            return {}
        found: dict[str, str] = {}
        fields: list[Any] = listed if isinstance(listed, list) else []
        for field in fields:
            schema = field.get("schema") if isinstance(field, dict) else None
            custom = schema.get("custom") if isinstance(schema, dict) else None
            if custom in (SPRINT_SCHEMA, EPIC_LINK_SCHEMA) and isinstance(field.get("id"), str):
                found[field["id"]] = "Sprint" if custom == SPRINT_SCHEMA else "Epic Link"
        return found

    # --- One issue ------------------------------------------------------------------------------------------

    def _complete(self, issue: Any, custom: dict[str, str]) -> tuple[RawRecord, datetime]:
        """The issue with all its comments and its full changelog; raises _IssueError when unusable."""
        if not isinstance(issue, dict) or not isinstance(issue.get("key"), str):
            raise _IssueError("issue without a key in the search results")
        key = issue["key"]
        fields = issue.get("fields")
        if not isinstance(fields, dict):
            raise _IssueError(f"{key}: issue has no fields object")
        try:
            updated = parse_jira_time(fields.get("updated"))
        except (TypeError, ValueError):
            raise _IssueError(f"{key}: unreadable 'updated' value {fields.get('updated')!r}") from None
        data = dict(issue)
        data["fields"] = dict(fields)
        data["fields"]["comment"] = {"comments": self._comments(key, fields.get("comment"))}
        data["changelog"] = {"histories": self._changelog(key, issue.get("changelog"))}
        data["names"] = dict(custom)
        return RawRecord(key=key, kind=RECORD_KIND, data=data), updated

    def _comments(self, key: str, embedded: Any) -> list[JSON]:
        comments = list(embedded.get("comments") or []) if isinstance(embedded, dict) else []
        total = embedded.get("total") if isinstance(embedded, dict) else None
        if not isinstance(total, int) or total <= len(comments):
            return comments
        path = self.client.resource_url(f"issue/{key}/comment", api_version=self.api_version)
        return self._pages(key, path, "comments")

    def _changelog(self, key: str, embedded: Any) -> list[JSON]:
        histories = list(embedded.get("histories") or []) if isinstance(embedded, dict) else []
        total = embedded.get("total") if isinstance(embedded, dict) else None
        if isinstance(total, int) and total > len(histories):
            path = self.client.resource_url(f"issue/{key}/changelog", api_version=self.api_version)
            histories = self._pages(key, path, "values", "histories")
        # Cloud embeds newest first; keep one chronological order whatever the server sent.
        unique = {str(h.get("id")): h for h in histories if isinstance(h, dict)}
        return sorted(unique.values(), key=_history_order)

    def _pages(self, key: str, path: str, *list_keys: str) -> list[JSON]:
        """Every element of a startAt/maxResults/total paged sub-resource of one issue."""
        out: list[JSON] = []
        start = 0
        while True:
            try:
                page = self._call(
                    f"read {path}", self.client.get, path, params={"startAt": start, "maxResults": SUB_PAGE_SIZE}
                )
            except SourceError as exc:
                raise _IssueError(f"{key}: {exc}") from None
            if not isinstance(page, dict):
                raise _IssueError(f"{key}: unexpected response from {path}")
            values = next((page[k] for k in list_keys if isinstance(page.get(k), list)), [])
            out.extend(v for v in values if isinstance(v, dict))
            start += len(values)
            total = page.get("total")
            if not values or page.get("isLast") is True or (isinstance(total, int) and start >= total):
                return out
            if not isinstance(total, int) and page.get("isLast") is not False:
                return out

    # --- Calls, errors and retries --------------------------------------------------------------------------

    def _call(self, what: str, fn: Callable[..., T], *args: Any, jql_error: bool = False, **kwargs: Any) -> T:
        """Call the SDK (its session retries); map what still fails onto the error family."""
        try:
            return fn(*args, **kwargs)
        except requests.HTTPError as exc:
            status = exc.response.status_code if exc.response is not None else None
            if status == 400 and jql_error:
                raise ConfigError(
                    f"source '{self.name}': JIRA rejected the query ({_first_line(exc)}): "
                    f"check sources.{self.name}.projects and sources.{self.name}.jql"
                ) from None
            raise self.http.error(exc, what) or exc from None
        except requests.RequestException as exc:
            raise self.http.error(exc, what) or exc from None


class _IssueError(Exception):
    """One issue could not be read; it becomes a Failure."""


def _issue_list(page: Any) -> list[JSON]:
    if not isinstance(page, dict) or not isinstance(page.get("issues"), list):
        raise SourceError("JIRA search returned an unexpected response (no 'issues' list)")
    issues: list[JSON] = page["issues"]
    return issues


def _history_order(history: JSON) -> tuple[datetime, int]:
    try:
        created = parse_jira_time(history.get("created"))
    except (TypeError, ValueError):
        created = datetime.min.replace(tzinfo=UTC)
    raw_id = str(history.get("id") or "")
    return created, int(raw_id) if raw_id.isdigit() else 0


def _first_line(exc: Exception) -> str:
    return (str(exc).splitlines() or ["bad request"])[0][:200]


def build(ctx: SourceContext) -> JiraConnector:
    """A connector for one configured `type = "jira"` source."""
    client, http = make_client(ctx.name, ctx.config)
    return JiraConnector(client, ctx.config, name=ctx.name, options=ctx.options, http=http)
