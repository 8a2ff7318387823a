"""Confluence (Cloud and Server/Data Center) pages and blog posts, through atlassian-python-api's REST client.

Only the client's low-level `request` is used: its paging helpers join `_links.next` to the site root and
lose the `/wiki` context path (see LIBRARY-NOTES.md), so this module follows `_links.next` against `base_url`.

Each run: a CQL search for pages and blog posts modified since the cursor (minus an overlap), each with its
comments and the earlier versions not yet cached (`connectors.confluence.versions`: the newest `max_versions`),
then a cheap listing of every current page id of the configured spaces. Ids that vanished
(deleted, archived, moved to another space) go to `Batch.deleted`; pages whose version, space or ancestors
changed without showing up in the search (a move, a renamed parent) are fetched again so their breadcrumb
follows them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from typing import Any

from briefing.errors import ConfigError, SourceError
from briefing.model import JSON, Batch, Cursor, Failure, Normalised, RawRecord
from briefing.registry import FetchOptions, SourceContext
from briefing.sources import secret
from connectors.confluence import ConfluenceSource
from connectors.confluence.access import (
    ACCESS_KIND,
    RESTRICTIONS_EXPAND,
    RESTRICTIONS_KEY,
    page_restriction,
    space_records,
)
from connectors.confluence.documents import normalise, parse_time
from connectors.confluence.versions import VERSION_EXPAND, collect, forget
from connectors.http import HttpLayer

SEARCH = "rest/api/content/search"
PAGE_EXPAND = "body.storage,version,ancestors,metadata.labels,history,space"
LISTING_EXPAND = f"version,ancestors,space,{RESTRICTIONS_EXPAND}"
COMMENT_EXPAND = "body.storage,version,history,ancestors"
PAGE_LIMIT = 25
LISTING_LIMIT = 100
BATCH_SIZE = 50
# CQL dates are read in the calling user's time zone, which the API does not tell us; widening the window by
# the largest UTC offset means a far-from-UTC account never skips an edit (re-reading a few pages is cheap).
TZ_SLACK = timedelta(hours=14)


class ConfluenceCursor(Cursor):
    """Newest `lastmodified` stored, the configured spaces, a fingerprint per page held in the cache, and the
    earlier version numbers held per page (fetched, or not served by the server)."""

    last_modified: datetime | None = None
    spaces: tuple[str, ...] = ()
    pages: dict[str, str] = {}
    versions: dict[str, list[int]] = {}


def fingerprint(page: JSON) -> str:
    """What makes a page worth re-reading: its version, status, space and ancestor chain (with titles)."""
    ancestors = "/".join(f"{a.get('id')}:{a.get('title')}" for a in page.get("ancestors") or [])
    parts = [
        str((page.get("version") or {}).get("number")),
        str(page.get("status", "current")),
        str((page.get("space") or {}).get("key")),
        ancestors,
    ]
    return hashlib.sha1("|".join(parts).encode(), usedforsecurity=False).hexdigest()[:16]


class ConfluenceConnector:
    """Pages, blog posts and page comments of the configured spaces."""

    def __init__(
        self,
        client: Any,
        *,
        base_url: str,
        spaces: Sequence[str],
        name: str = "confluence",
        overlap: timedelta = timedelta(minutes=60),
        options: FetchOptions | None = None,
        http: HttpLayer | None = None,
        max_versions: int = 20,
    ) -> None:
        self.client = client
        self.base_url = base_url.rstrip("/")
        self.spaces = tuple(spaces)
        self.name = name
        self.overlap = overlap
        self.options = options or FetchOptions()
        self.max_versions = max_versions
        # Retries and Retry-After live in the client's session (see `build`); this maps what still fails.
        self.http = http or HttpLayer(source=name, vendor="Confluence", base_url=base_url, credentials="token_env")

    # Cursor ------------------------------------------------------------------------------------------------

    def initial_cursor(self) -> ConfluenceCursor:
        return ConfluenceCursor(spaces=self.spaces)

    def load_cursor(self, data: JSON) -> ConfluenceCursor:
        return ConfluenceCursor.model_validate(data)

    # HTTP --------------------------------------------------------------------------------------------------

    def _get(self, path: str, params: dict[str, Any] | None = None, *, missing_ok: bool = False) -> JSON:
        """One GET of a path under base_url (or a `_links.next` starting with '/'), as a JSON object ({} for a
        404 when `missing_ok`)."""
        url = f"{self.base_url}/{path.lstrip('/')}"
        what = path.split("?")[0]
        response = self.http.call(
            what, self.client.request, "GET", url, params=params, absolute=True, advanced_mode=True
        )
        if missing_ok and response.status_code == 404:
            return {}
        self.http.check(response, what)
        try:
            payload = response.json()
        except ValueError:
            raise SourceError(
                f"source '{self.name}': Confluence returned a response that is not JSON for {what}: "
                "check base_url (Cloud: https://SITE.atlassian.net/wiki)"
            ) from None
        if not isinstance(payload, dict):
            raise SourceError(f"source '{self.name}': Confluence returned an unexpected response shape for {what}")
        return payload

    def _paged(self, path: str, params: dict[str, Any]) -> Iterator[Any]:
        """Every result of a paged listing, following `_links.next` relative to base_url."""
        payload = self._get(path, params)
        while True:
            results = payload.get("results")
            if not isinstance(results, list):
                raise SourceError(f"source '{self.name}': Confluence listing without 'results' for {path}")
            yield from results
            following = (payload.get("_links") or {}).get("next")
            if not following or not results:
                return
            payload = self._get(str(following))

    def _cql(self, since: datetime | None) -> str:
        spaces = ", ".join(json.dumps(key) for key in self.spaces)
        cql = f"space in ({spaces}) AND type in (page, blogpost)"
        if since is not None:
            cql += f' AND lastmodified >= "{since.strftime("%Y-%m-%d %H:%M")}"'
        return cql + " order by lastmodified asc"

    def _comments(self, page_id: str) -> list[Any]:
        params = {"expand": COMMENT_EXPAND, "depth": "all", "limit": 50}
        return list(self._paged(f"rest/api/content/{page_id}/child/comment", params))

    def _version(self, page_id: str, number: int) -> JSON | None:
        """One earlier version of a page, or None when the server keeps no such version."""
        params = {"status": "historical", "version": number, "expand": VERSION_EXPAND}
        payload = self._get(f"rest/api/content/{page_id}", params, missing_ok=True)
        return payload if payload.get("body") and payload.get("version") else None

    def _record(self, page: Any, failures: list[Failure], position: str) -> RawRecord | None:
        if not isinstance(page, dict) or not page.get("id"):
            failures.append(Failure(position, "Confluence result without an id"))
            return None
        page_id = str(page["id"])
        data = dict(page)
        data["comments"] = self._comments(page_id)
        return RawRecord(key=page_id, kind=str(page.get("type") or "page"), data=data)

    # Fetch -------------------------------------------------------------------------------------------------

    def fetch(self, cursor: Cursor) -> Iterator[Batch]:
        if not isinstance(cursor, ConfluenceCursor):
            cursor = self.load_cursor(cursor.model_dump())
        if not self.spaces:
            raise ConfigError(f"source '{self.name}': no spaces configured: set sources.{self.name}.spaces")
        full = self.options.full or cursor.last_modified is None or set(cursor.spaces) != set(self.spaces)
        since: datetime | None = None
        if self.options.since is not None:
            since = self.options.since
        elif not full and cursor.last_modified is not None:
            since = cursor.last_modified - self.overlap - TZ_SLACK
        # Pages held from earlier runs (or from spaces no longer configured) are reconciled on full runs too.
        known = dict(cursor.pages)
        newest = None if full else cursor.last_modified
        held = {} if full else {page_id: list(numbers) for page_id, numbers in cursor.versions.items()}

        batch = Batch()
        params = {"cql": self._cql(since), "expand": PAGE_EXPAND, "limit": PAGE_LIMIT}
        for position, page in enumerate(self._paged(SEARCH, params)):
            record = self._record(page, batch.failures, f"search-result-{position}")
            if record is None:
                continue
            batch.records.append(record)
            collect(page, held, batch, self.max_versions, self._version)
            known[record.key] = fingerprint(page)
            newest = _later(newest, page)
            if len(batch.records) >= BATCH_SIZE:
                batch.cursor = self._cursor(newest, known, held)
                yield batch
                batch = Batch()

        listing: dict[str, str] = {}
        restrictions: dict[str, JSON | None] = {}
        listing_params = {"cql": self._cql(None), "expand": LISTING_EXPAND, "limit": LISTING_LIMIT}
        for page in self._paged(SEARCH, listing_params):
            if isinstance(page, dict) and page.get("id"):
                listing[str(page["id"])] = fingerprint(page)
                restrictions[str(page["id"])] = page_restriction(page)
        # Access (connectors.confluence.access), re-read every run: space permissions and page restrictions.
        access, access_failures = space_records(self.spaces, self._get)
        batch.records += [*access, RawRecord(RESTRICTIONS_KEY, ACCESS_KIND, {"pages": restrictions})]
        batch.failures += access_failures
        gone = sorted(page_id for page_id in known if page_id not in listing)
        batch.deleted += [*gone, *forget(gone, held)]
        for page_id in sorted(known.keys() & listing.keys()):
            if known[page_id] == listing[page_id]:
                continue
            # Moved, or a parent renamed: re-read so that the breadcrumb (and space) follow the page.
            page = self._get(f"rest/api/content/{page_id}", {"expand": PAGE_EXPAND})
            record = self._record(page, batch.failures, page_id)
            if record is not None:
                batch.records.append(record)
                collect(page, held, batch, self.max_versions, self._version)
                newest = _later(newest, page)
        pages = {page_id: listing[page_id] for page_id in known.keys() & listing.keys()}
        batch.cursor = self._cursor(newest, pages, {k: v for k, v in held.items() if k in pages})
        yield batch

    def _cursor(self, newest: datetime | None, pages: dict[str, str], held: dict[str, list[int]]) -> ConfluenceCursor:
        versions = {page_id: list(numbers) for page_id, numbers in held.items()}
        return ConfluenceCursor(last_modified=newest, spaces=self.spaces, pages=dict(pages), versions=versions)

    def normalise(self, records: Sequence[RawRecord]) -> Normalised:
        return normalise(records, self.base_url, self.max_versions)


def _later(current: datetime | None, page: JSON) -> datetime | None:
    try:
        when = parse_time(page["version"]["when"])
    except (KeyError, TypeError, ValueError):
        return current
    return when if current is None or when > current else current


def build(ctx: SourceContext) -> ConfluenceConnector:
    """The connector for one `[sources.NAME]` table of type "confluence"."""
    config: ConfluenceSource = ctx.config
    if not config.base_url:
        raise ConfigError(
            f"source '{ctx.name}': base_url is not set: set sources.{ctx.name}.base_url "
            "(Cloud: https://SITE.atlassian.net/wiki)"
        )
    from atlassian import Confluence

    token = secret(config.token_env, setting=f"sources.{ctx.name}.token_env")
    credentials = f"sources.{ctx.name}.token_env ({config.token_env})"
    kwargs: dict[str, Any] = {"timeout": config.timeout_s, "retry_with_header": False}
    if config.user_env:
        user = secret(config.user_env, setting=f"sources.{ctx.name}.user_env")
        kwargs.update(username=user.get_secret_value(), password=token.get_secret_value())
        credentials = f"sources.{ctx.name}.user_env ({config.user_env}) and {credentials}"
    else:
        kwargs["token"] = token.get_secret_value()
    http = HttpLayer(
        source=ctx.name,
        vendor="Confluence",
        base_url=config.base_url,
        credentials=credentials,
        max_retries=config.max_retries,
        timeout_s=config.timeout_s,
        hint=f"check sources.{ctx.name}.base_url (Cloud: https://SITE.atlassian.net/wiki) and the space keys",
    )
    # cloud=False on purpose: the 5.x Cloud client targets the v2 API; the v1 REST paths here work on both.
    # atlassian-python-api's Confluence.__init__ carries no annotations.
    client = Confluence(  # type: ignore[no-untyped-call]
        url=config.base_url.rstrip("/"), cloud=False, session=http.session(), **kwargs
    )
    return ConfluenceConnector(
        client,
        base_url=config.base_url,
        spaces=config.spaces,
        name=ctx.name,
        overlap=timedelta(minutes=config.overlap_minutes),
        options=ctx.options,
        http=http,
        max_versions=config.max_versions,
    )
