"""Google's API error body and its page-token paging, as the fake answers them."""

from __future__ import annotations

from typing import Any

from briefing.devserver.google.state import JSON


def error(code: int, status: str, reason: str, message: str) -> JSON:
    """Google's JSON error body."""
    return {
        "error": {
            "code": code,
            "message": message,
            "errors": [{"message": message, "domain": "global", "reason": reason}],
            "status": status,
        }
    }


def page(items: list[Any], one: dict[str, str], cap: int) -> tuple[list[Any], str | None]:
    """The page `maxResults` and `pageToken` ask for (at most `cap` items), and the next page's token."""
    size = min(int(one.get("maxResults") or cap), cap)
    start = int(one.get("pageToken") or 0)
    chunk = items[start : start + size]
    return chunk, (str(start + size) if start + size < len(items) else None)
