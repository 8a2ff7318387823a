"""A page's earlier versions: which to keep (the newest `max_versions`), which to fetch, and their cache keys.

A Confluence version never changes once a newer one exists, so each is fetched once, when it first falls inside the
kept window, and cached as its own record (`<page id>@v<n>`, kind `page_version`); versions that fall out of the
window leave the cache. The cursor remembers, per page, which earlier versions are held (or were not served).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from briefing.model import JSON, Batch, RawRecord

VERSION_KIND = "page_version"
# What a historical version is read with (`rest/api/content/{id}?status=historical&version=N`).
VERSION_EXPAND = "body.storage,version"


def version_key(page_id: str, number: int) -> str:
    """The raw-cache key of one earlier version of a page."""
    return f"{page_id}@v{number}"


def page_of(key: str) -> tuple[str, int] | None:
    """(page id, version number) of a version record's key, or None for any other key."""
    page_id, sep, number = key.rpartition("@v")
    return (page_id, int(number)) if sep and page_id and number.isdigit() else None


def kept(current: int, max_versions: int) -> list[int]:
    """The earlier version numbers kept for a page at version `current`: the newest `max_versions - 1` of them."""
    return list(range(max(1, current - max_versions + 1), current))


def current_number(page: JSON) -> int | None:
    """The page's version number, or None when the payload has none."""
    number = (page.get("version") or {}).get("number")
    return number if isinstance(number, int) and not isinstance(number, bool) else None


def collect(
    page: JSON,
    held: dict[str, list[int]],
    batch: Batch,
    max_versions: int,
    fetch: Callable[[str, int], JSON | None],
) -> None:
    """Add the page's kept earlier versions not yet held to `batch`, drop those out of the window, update `held`."""
    page_id = str(page["id"])
    number = current_number(page)
    if number is None:
        return
    wanted = kept(number, max_versions)
    have = set(held.get(page_id, ()))
    for n in wanted:
        if n in have:
            continue
        payload = fetch(page_id, n)
        if payload is not None:  # None: the server keeps no such version (history purged): nothing to show
            batch.records.append(RawRecord(version_key(page_id, n), VERSION_KIND, payload))
    batch.deleted += [version_key(page_id, n) for n in sorted(have - set(wanted))]
    held[page_id] = wanted


def forget(page_ids: Iterable[str], held: dict[str, list[int]]) -> list[str]:
    """The version keys of pages gone from the source, removed from `held`."""
    gone: list[str] = []
    for page_id in page_ids:
        gone += [version_key(page_id, n) for n in held.pop(page_id, [])]
    return gone


def by_page(records: Iterable[Any]) -> dict[str, list[JSON]]:
    """Version payloads per page id, oldest first (records of other kinds are skipped)."""
    out: dict[str, list[JSON]] = {}
    for record in records:
        where = page_of(record.key) if record.kind == VERSION_KIND else None
        if where is not None and isinstance(record.data, dict):
            out.setdefault(where[0], []).append(record.data)
    for versions in out.values():
        versions.sort(key=lambda v: current_number(v) or 0)
    return out
