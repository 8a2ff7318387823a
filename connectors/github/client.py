"""The PyGithub client: how it is built over the shared HTTP layer, and the JSON of the objects it lists."""

from __future__ import annotations

from typing import Any

from briefing.model import JSON
from connectors.http import HttpLayer


def raw_json(obj: Any) -> JSON:
    """A listed object's JSON as the API returned it (`raw_data` would fetch the object again)."""
    data = getattr(obj, "_rawData", None)
    return dict(data) if isinstance(data, dict) else dict(obj.raw_data)


def make_client(base_url: str, token: str, *, http: HttpLayer, seconds_between_requests: float = 0.25) -> Any:
    """A PyGithub client whose transport retries through `http` (rate limits, 5xx, timeouts).

    Lazy: `get_repo` and `get_git_ref` cost nothing until asked, so that their first request can be conditional.
    """
    from github import Auth, Github

    return Github(
        base_url=base_url.rstrip("/"),
        # No token: a client built for `reindex`, which sends no request (PyGithub refuses an empty token).
        auth=Auth.Token(token) if token else None,
        timeout=max(1, int(http.timeout_s)),
        per_page=100,
        seconds_between_requests=seconds_between_requests,
        lazy=True,
        retry=http.retry(),
    )
