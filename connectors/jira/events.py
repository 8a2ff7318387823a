"""JIRA webhooks as the raw issue records the connector caches, after the secret in the URL or a JWT is checked.

JIRA Server and Cloud webhooks registered by a user carry no signature; the secret is part of the URL the
webhook is registered with (`/hooks/<source>/<secret>`), compared in constant time. With `auth = "jwt"` the
webhook must instead carry an Atlassian Connect JWT signed with the secret (`connectors.jira.connect_jwt`). A
retry is recognised by `X-Atlassian-Webhook-Identifier` when JIRA sends it, else by the body's SHA-256.
`jira:issue_created` and `jira:issue_updated` replace the issue's fields (its cached comments kept) and append the
change to its changelog, `jira:issue_deleted` deletes the record, and `comment_created` / `comment_updated` /
`comment_deleted` change one comment of a cached issue. Only projects the source lists (`projects`) are taken;
with a `jql` filter only, only issues the sync already holds are updated (new ones come with the next sync).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from typing import Any

from briefing.model import JSON, CachedRecords, RawRecord, WebhookEvent, WebhookRefused, WebhookRequest
from connectors.jira import connect_jwt

RECORD_KIND = "jira_issue"  # what connectors.jira.connector stores
_ISSUE_ID = re.compile(r"/issue/(\d+)/comment/")


def verify(request: WebhookRequest) -> None:
    """Raise `WebhookRefused` unless the URL carries the shared secret (or, with `auth = "jwt"`, a valid JWT)."""
    if request.auth == "jwt":
        connect_jwt.verify(request)
        return
    if not request.path or not hmac.compare_digest(request.path.encode(), request.secret.encode()):
        raise WebhookRefused("the JIRA webhook URL does not carry the shared secret: nothing was stored")


def _event_id(request: WebhookRequest) -> str:
    given = request.headers.get("x-atlassian-webhook-identifier")
    return f"id:{given}" if given else "sha256:" + hashlib.sha256(request.body).hexdigest()


def _in_scope(config: Any, key: str, cached: bool) -> bool:
    projects = {str(p).upper() for p in getattr(config, "projects", None) or []}
    if projects:
        return key.rsplit("-", 1)[0].upper() in projects
    return cached or not getattr(config, "jql", None)


def _cached_issue(cache: CachedRecords, payload: JSON) -> RawRecord | None:
    """The cached record a comment event belongs to: by the issue's key, or by its id in the comment's URL."""
    issue = payload.get("issue")
    if isinstance(issue, dict) and isinstance(issue.get("key"), str):
        return cache.get(issue["key"])
    comment = payload.get("comment")
    match = _ISSUE_ID.search(str(comment.get("self") or "")) if isinstance(comment, dict) else None
    if match is None:
        return None
    return next((r for r in cache.records() if str(r.data.get("id")) == match.group(1)), None)


def _comments(data: JSON) -> list[JSON]:
    block = (data.get("fields") or {}).get("comment")
    comments = block.get("comments") if isinstance(block, dict) else None
    return [c for c in comments or [] if isinstance(c, dict)]


def _with_comments(data: JSON, comments: list[JSON]) -> JSON:
    fields = dict(data.get("fields") or {})
    fields["comment"] = {"comments": comments}
    return {**data, "fields": fields}


def _upsert(comments: list[JSON], comment: JSON, *, remove: bool) -> list[JSON]:
    kept = [c for c in comments if str(c.get("id")) != str(comment.get("id"))]
    return kept if remove else sorted([*kept, comment], key=lambda c: int(str(c.get("id") or 0) or 0))


def _issue_event(cache: CachedRecords, config: Any, payload: JSON, event_id: str, kind: str) -> WebhookEvent | None:
    issue = payload["issue"]
    key = str(issue["key"])
    old = cache.get(key)
    if not _in_scope(config, key, old is not None):
        return None
    if kind == "jira:issue_deleted":
        return WebhookEvent(event_id, kind, deleted=[key])
    fields = dict(issue["fields"])
    data: JSON = {**(old.data if old is not None else {}), **issue, "fields": fields}
    comments = _comments({"fields": fields}) or (_comments(old.data) if old is not None else [])
    comment = payload.get("comment")
    if isinstance(comment, dict):  # "issue_commented": the comment rides along
        comments = _upsert(comments, comment, remove=False)
    data = _with_comments(data, comments)
    histories = list(((old.data.get("changelog") or {}).get("histories") or []) if old is not None else [])
    change = payload.get("changelog")
    if isinstance(change, dict) and change.get("items"):
        entry = {"id": str(change.get("id") or ""), "author": payload.get("user"), "items": change["items"]}
        entry["created"] = fields.get("updated")
        histories = [h for h in histories if str(h.get("id")) != entry["id"]] + [entry]
    data["changelog"] = {"histories": histories}
    data.setdefault("names", {})
    return WebhookEvent(event_id, kind, put=[RawRecord(key, RECORD_KIND, data)])


def receive(request: WebhookRequest, cache: CachedRecords) -> WebhookEvent | None:
    """The record one webhook changes (None: an event, project or issue this source does not keep)."""
    verify(request)
    payload: Any = json.loads(request.body)
    if not isinstance(payload, dict):
        raise ValueError("the body is not a JSON object")
    kind = str(payload.get("webhookEvent") or "")
    event_id = _event_id(request)
    if kind in ("jira:issue_created", "jira:issue_updated", "jira:issue_deleted"):
        return _issue_event(cache, request.config, payload, event_id, kind)
    if kind not in ("comment_created", "comment_updated", "comment_deleted"):
        return None
    record = _cached_issue(cache, payload)
    comment = payload.get("comment")
    if record is None or not isinstance(comment, dict):
        return None  # an issue the sync has not brought yet: the next sync brings it with its comments
    if not _in_scope(request.config, record.key, True):
        return None
    comments = _upsert(_comments(record.data), comment, remove=kind == "comment_deleted")
    return WebhookEvent(event_id, kind, put=[RawRecord(record.key, RECORD_KIND, _with_comments(record.data, comments))])
