"""GitHub webhooks as the raw records the API connector caches, after the HMAC-SHA256 signature is checked.

A delivery must carry `X-Hub-Signature-256: sha256=<hex>`, the HMAC-SHA256 of the body under the webhook's
secret (compared in constant time); its `X-GitHub-Delivery` id deduplicates retries. The record of an issue or
pull request (`owner/repo#n`: the issue, its comments and, for a pull request, the PR, its reviews and review
comments) is updated in place: `issues` replaces the issue, `issue_comment` adds, edits or removes one comment,
`pull_request` replaces the PR (a review requested or its request removed is also recorded as the issue event
the batch sync reads), `pull_request_review` adds or edits one review; a deleted or transferred issue deletes the
record. `push` records each pushed commit (`owner/repo@sha`, as an export's commits), which become the weekly
commit history documents. Only repositories the source lists (`repos`) are taken.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

from briefing.model import JSON, CachedRecords, RawRecord, WebhookEvent, WebhookRefused, WebhookRequest
from connectors.github.commits import pushed_commit

_EVENTS = ("issues", "issue_comment", "pull_request", "pull_request_review", "push")
# Pull request actions recorded as the issue event the batch sync reads (`issues/{n}/events`): a review's wait.
_REQUESTS = ("review_requested", "review_request_removed")
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
    if name == "push":
        return _push(delivery, full_name, payload)
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
        if action in _REQUESTS and isinstance(payload.get("requested_reviewer"), dict):
            data["events"] = _request_event(data.get("events"), action, pull, payload)
    else:
        data["reviews"] = _upsert(data.get("reviews"), payload["review"])
    data.setdefault("reviews", [])
    data.setdefault("review_comments", [])
    return WebhookEvent(delivery, kind, put=[RawRecord(key, "pull_request", data)])


def _request_event(events: Any, action: str, pull: JSON, payload: JSON) -> list[JSON]:
    """The record's issue events with this review request (or its removal) added once, dated when the PR changed."""
    event = {
        "event": action,
        "created_at": pull.get("updated_at"),
        "actor": payload.get("sender"),
        "requested_reviewer": payload["requested_reviewer"],
    }
    kept = [e for e in events or [] if isinstance(e, dict)]
    same = [
        e
        for e in kept
        if {k: e.get(k) for k in ("event", "created_at")} == {k: event[k] for k in ("event", "created_at")}
    ]
    if any(
        (e.get("requested_reviewer") or {}).get("login") == payload["requested_reviewer"].get("login") for e in same
    ):
        return kept
    return [*kept, event]


def _push(delivery: str, full_name: str, payload: JSON) -> WebhookEvent | None:
    """A push's commits, one record each under `owner/repo@sha` (None: a push without commits, e.g. a tag deleted)."""
    commits = [c for c in payload.get("commits") or [] if isinstance(c, dict)]
    if not commits:
        return None
    records = [pushed_commit(full_name, c) for c in commits]
    return WebhookEvent(delivery, f"push.{payload.get('ref')}", put=list({r.key: r for r in records}.values()))
