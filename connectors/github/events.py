"""GitHub webhooks as the raw records the API connector caches, after the HMAC-SHA256 signature is checked.

A delivery must carry `X-Hub-Signature-256: sha256=<hex>`, the HMAC-SHA256 of the body under the webhook's
secret (compared in constant time); its `X-GitHub-Delivery` id deduplicates retries. The record of an issue or
pull request (`owner/repo#n`: the issue, its comments and, for a pull request, the PR, its reviews and review
comments) is updated in place: `issues` replaces the issue, `issue_comment` adds, edits or removes one comment,
`pull_request` replaces the PR, `pull_request_review` adds or edits one review; a deleted or transferred issue
deletes the record. Only repositories the source lists (`repos`) are taken.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

from briefing.model import JSON, CachedRecords, RawRecord, WebhookEvent, WebhookRefused, WebhookRequest

_EVENTS = ("issues", "issue_comment", "pull_request", "pull_request_review")
# What a pull request webhook carries that the issue listing shows for the same number.
_SHARED = (
    "number", "title", "body", "user", "state", "labels", "assignees", "milestone", "created_at", "updated_at",
    "closed_at", "html_url", "locked",
)  # fmt: skip


def verify(request: WebhookRequest) -> None:
    """Raise `WebhookRefused` unless `X-Hub-Signature-256` is the body's HMAC-SHA256 under the secret."""
    given = request.headers.get("x-hub-signature-256", "")
    expected = "sha256=" + hmac.new(request.secret.encode(), request.body, hashlib.sha256).hexdigest()
    if not given or not hmac.compare_digest(given.encode(), expected.encode()):
        what = "missing" if not given else "wrong"
        raise WebhookRefused(f"the GitHub signature (X-Hub-Signature-256) is {what}: nothing was stored")


def _upsert(entries: Any, entry: JSON, *, remove: bool = False) -> list[JSON]:
    """`entries` with the one of `entry`'s id replaced (or removed), else `entry` added."""
    kept = [e for e in entries or [] if isinstance(e, dict) and e.get("id") != entry.get("id")]
    return kept if remove else [*kept, entry]


def _issue_of_pull(pull: JSON) -> JSON:
    """The issue-listing view of a pull request, for a PR first seen through a webhook."""
    issue = {k: pull.get(k) for k in _SHARED}
    issue["pull_request"] = {
        "url": pull.get("url"),
        "html_url": pull.get("html_url"),
        "merged_at": pull.get("merged_at"),
    }
    return issue


def _record(cache: CachedRecords, key: str, issue: JSON) -> JSON:
    old = cache.get(key)
    data: JSON = dict(old.data) if old is not None else {"issue": issue, "comments": []}
    data["issue"] = issue
    return data


def _in_scope(config: Any, full_name: str) -> bool:
    repos = {str(r).lower() for r in getattr(config, "repos", None) or []}
    return not repos or full_name.lower() in repos


def receive(request: WebhookRequest, cache: CachedRecords) -> WebhookEvent | None:
    """The record one signed delivery changes (None: an event or repository this source does not keep)."""
    verify(request)
    name = request.headers.get("x-github-event", "")
    delivery = request.headers.get("x-github-delivery", "")
    if name not in _EVENTS:
        return None
    if not delivery:
        raise ValueError("a delivery without X-GitHub-Delivery")
    payload: Any = json.loads(request.body)
    if not isinstance(payload, dict) or not isinstance(payload.get("repository"), dict):
        raise ValueError("the body is not a repository event")
    full_name = str(payload["repository"]["full_name"])
    if not _in_scope(request.config, full_name):
        return None
    action = str(payload.get("action") or "")
    kind = f"{name}.{action}"
    if name in ("issues", "issue_comment"):
        issue = payload["issue"]
        key = f"{full_name}#{int(issue['number'])}"
        if name == "issues" and action in ("deleted", "transferred"):
            return WebhookEvent(delivery, kind, deleted=[key])
        data = _record(cache, key, issue)
        if name == "issue_comment":
            data["comments"] = _upsert(data.get("comments"), payload["comment"], remove=action == "deleted")
        record_kind = "pull_request" if issue.get("pull_request") or data.get("pull") else "issue"
        return WebhookEvent(delivery, kind, put=[RawRecord(key, record_kind, data)])
    pull = payload["pull_request"]
    key = f"{full_name}#{int(pull['number'])}"
    old = cache.get(key)
    data = dict(old.data) if old is not None else {"issue": _issue_of_pull(pull), "comments": []}
    data["pull"] = pull
    if name == "pull_request":
        data["issue"] = {**data["issue"], **{k: pull.get(k) for k in _SHARED}}
        data["issue"]["pull_request"] = _issue_of_pull(pull)["pull_request"]
    else:
        data["reviews"] = _upsert(data.get("reviews"), payload["review"])
    data.setdefault("reviews", [])
    data.setdefault("review_comments", [])
    return WebhookEvent(delivery, kind, put=[RawRecord(key, "pull_request", data)])
