"""Slack Events API requests as the raw records the Web API connector caches, after slack-sdk checks the signature.

A request must carry a v0 `X-Slack-Signature` over `X-Slack-Request-Timestamp` and the body, made with the app's
signing secret, and be at most five minutes old (slack-sdk's `SignatureVerifier`). The `url_verification`
handshake is answered with its challenge. Events become the records `connectors.slack.api` stores: a message
(a new one, a thread reply, a broadcast) as `<channel>/<ts>`, an edit (`message_changed`) merged over the cached
message, a deletion (`message_deleted`) as that key deleted, and a `channel_rename` as the `channel/<id>` record
with its new name. The batch sync later re-reads the same channels and stays the source of truth. `read` is the
same reading for a payload that came over Socket Mode (`connectors.slack.socket`), where no signature is sent.
"""

from __future__ import annotations

import json
from typing import Any

from slack_sdk.signature import Clock, SignatureVerifier

from briefing.model import JSON, CachedRecords, RawRecord, WebhookEvent, WebhookRefused, WebhookRequest
from connectors.slack.checks import channel_problem, message_problem, valid_ts

# Fields the Events API adds to a message that a history listing does not carry.
_EVENT_ONLY = ("channel", "event_ts", "channel_type")
# Message subtypes that change another message rather than adding one.
_EDITS = ("message_changed", "message_replied")


class _At(Clock):  # type: ignore[misc]
    """slack-sdk's clock, reading the time the request arrived (so a test can move it)."""

    def __init__(self, now: float) -> None:
        self._now = now

    def now(self) -> float:
        return self._now


def verify(request: WebhookRequest) -> None:
    """Raise `WebhookRefused` unless the request is signed with the secret and at most five minutes old."""
    verifier = SignatureVerifier(request.secret, clock=_At(request.now))
    stamp = request.headers.get("x-slack-request-timestamp")
    signature = request.headers.get("x-slack-signature")
    try:
        valid = verifier.is_valid(request.body, stamp, signature)
    except ValueError:  # a timestamp that is not a number
        valid = False
    if not valid:
        what = "missing" if not (stamp and signature) else "wrong or older than 5 minutes"
        raise WebhookRefused(f"the Slack signature is {what}: nothing was stored")


def _channel_tag(cache: CachedRecords, cid: str) -> JSON:
    cached = cache.get(f"channel/{cid}")
    name = cached.data.get("name") if cached is not None else None
    return {"id": cid, "name": name if isinstance(name, str) and name else cid}


def _message_record(cache: CachedRecords, cid: str, message: JSON, *, edit: bool) -> RawRecord:
    """An edit merged over the cached message; a new message under a key already cached (a copy that arrives
    after its edit, or after the sync brought it) keeps what is cached, adding only fields it lacks."""
    data = {k: v for k, v in message.items() if k not in _EVENT_ONLY}
    problem = message_problem(data)
    if problem is not None:
        raise ValueError(problem)
    key = f"{cid}/{data['ts']}"
    old = cache.get(key)
    if old is not None:
        data = {**old.data, **data} if edit else {**data, **old.data}
    return RawRecord(key, "message", {**data, "_channel": _channel_tag(cache, cid)})


def collected(cache: CachedRecords, config: Any, cid: str) -> bool:
    """Whether the source collects this channel: one the sync listed, and named in `channels` when that is set."""
    cached = cache.get(f"channel/{cid}")
    if cached is None:
        return False  # the sync decides what is in scope (membership, private channels, DMs)
    wanted = [str(c).lstrip("#") for c in getattr(config, "channels", None) or []]
    return not wanted or cid in wanted or cached.data.get("name") in wanted


def _message_event(cache: CachedRecords, config: Any, event: JSON, event_id: str) -> WebhookEvent | None:
    cid = event.get("channel")
    if not isinstance(cid, str) or not cid:
        raise ValueError("message event without a channel")
    if not collected(cache, config, cid):
        return None
    subtype = event.get("subtype")
    kind = f"message.{subtype}" if subtype else "message"
    if subtype == "message_deleted":
        deleted = event.get("deleted_ts")
        if not valid_ts(deleted):
            raise ValueError("message_deleted without a valid deleted_ts")
        return WebhookEvent(event_id, kind, deleted=[f"{cid}/{deleted}"])
    if subtype in _EDITS:
        message = event.get("message")
        if not isinstance(message, dict):
            raise ValueError(f"{subtype} without a message")
        previous = event.get("previous_message")
        if "ts" not in message and isinstance(previous, dict):  # some payloads name the edited message only there
            message = {**message, "ts": previous.get("ts")}
        return WebhookEvent(event_id, kind, put=[_message_record(cache, cid, message, edit=True)])
    return WebhookEvent(event_id, kind, put=[_message_record(cache, cid, event, edit=False)])


def _rename_event(cache: CachedRecords, event: JSON, event_id: str) -> WebhookEvent | None:
    channel = event.get("channel")
    problem = channel_problem(channel)
    if problem is not None:
        raise ValueError(problem)
    assert isinstance(channel, dict)
    key = f"channel/{channel['id']}"
    old = cache.get(key)
    if old is None:  # a channel the sync has not listed: not collected
        return None
    renamed = {k: v for k, v in channel.items() if k in ("id", "name", "name_normalized", "created")}
    return WebhookEvent(event_id, "channel_rename", put=[RawRecord(key, "channel", {**old.data, **renamed})])


def read(payload: Any, cache: CachedRecords, config: Any) -> WebhookEvent | None:
    """The records one Events API payload changes, however it came (a signed request, a Socket Mode envelope)."""
    if not isinstance(payload, dict):
        raise ValueError("the body is not a JSON object")
    if payload.get("type") == "url_verification":
        return WebhookEvent("", "url_verification", reply={"challenge": str(payload.get("challenge") or "")})
    event = payload.get("event")
    event_id = payload.get("event_id")
    if payload.get("type") != "event_callback" or not isinstance(event, dict) or not isinstance(event_id, str):
        return None
    if event.get("type") == "message":
        return _message_event(cache, config, event, event_id)
    if event.get("type") == "channel_rename":
        return _rename_event(cache, event, event_id)
    return None


def receive(request: WebhookRequest, cache: CachedRecords) -> WebhookEvent | None:
    """The records one signed Events API request changes (None: an event this source does not keep)."""
    verify(request)
    return read(json.loads(request.body), cache, request.config)
