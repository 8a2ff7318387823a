"""Whether a cached Slack message, user or channel record has the shape the normaliser reads (one line why not)."""

from __future__ import annotations

import re
from typing import Any

# Slack timestamps are "<unix seconds>.<microseconds>"; anything else (1e300, inf, -1, a list) is hostile or broken.
_TS = re.compile(r"\d{1,11}(?:\.\d{1,9})?")
_MAX_TS = 4_102_444_800.0  # 2100-01-01: later stamps are corrupt, and would overflow date arithmetic downstream
_OPTIONAL_TYPES: dict[str, tuple[type, ...]] = {
    "text": (str,),
    "user": (str,),
    "username": (str,),
    "subtype": (str,),
    "bot_id": (str,),
    "permalink": (str,),
    "latest_reply": (str,),
    "blocks": (list,),
    "attachments": (list,),
    "files": (list,),
    "edited": (dict,),
    "bot_profile": (dict,),
    "user_profile": (dict,),
}


def valid_ts(value: Any) -> bool:
    """Whether `value` is a Slack timestamp string within the range real messages have."""
    return isinstance(value, str) and _TS.fullmatch(value) is not None and float(value) < _MAX_TS


def _kind_of(value: Any) -> str:
    return type(value).__name__


def message_problem(message: Any) -> str | None:
    """Why a raw message cannot be used (one line), or None; checked before it is cached and again on reading."""
    if not isinstance(message, dict):
        return f"message is a JSON {_kind_of(message)}, not an object"
    ts = message.get("ts")
    if not valid_ts(ts):
        return f"message has an invalid ts ({str(ts)[:40]!r}): expected seconds.micros"
    thread_ts = message.get("thread_ts")
    if thread_ts is not None and not valid_ts(thread_ts):
        return f"message {ts} has an invalid thread_ts ({str(thread_ts)[:40]!r})"
    count = message.get("reply_count")
    if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count < 0):
        return f"message {ts} has an invalid reply_count ({str(count)[:40]!r}): expected a whole number"
    for key, types in _OPTIONAL_TYPES.items():
        value = message.get(key)
        if value is not None and not isinstance(value, types):
            return f"message {ts} has {key} of type {_kind_of(value)}, expected {types[0].__name__}"
    return None


def user_problem(user: Any) -> str | None:
    """Why a users.list / users.json member cannot be used, or None."""
    if not isinstance(user, dict):
        return f"user is a JSON {_kind_of(user)}, not an object"
    if not isinstance(user.get("id"), str) or not user["id"]:
        return "user without a string id"
    profile = user.get("profile")
    if profile is not None and not isinstance(profile, dict):
        return f"user {user['id']} has a profile of type {_kind_of(profile)}, expected an object"
    for key in ("name", "real_name"):
        if user.get(key) is not None and not isinstance(user[key], str):
            return f"user {user['id']} has {key} of type {_kind_of(user[key])}"
    for key in ("real_name", "display_name", "email"):
        if isinstance(profile, dict) and profile.get(key) is not None and not isinstance(profile[key], str):
            return f"user {user['id']} has profile.{key} of type {_kind_of(profile[key])}"
    return None


def channel_problem(channel: Any) -> str | None:
    """Why a conversations.list / channels.json entry cannot be used, or None."""
    if not isinstance(channel, dict):
        return f"channel is a JSON {_kind_of(channel)}, not an object"
    if not isinstance(channel.get("id"), str) or not channel["id"]:
        return "channel without a string id"
    if channel.get("name") is not None and not isinstance(channel["name"], str):
        return f"channel {channel['id']} has a name of type {_kind_of(channel['name'])}"
    members = channel.get("members")
    if members is not None and not (isinstance(members, list) and all(isinstance(m, str) for m in members)):
        return f"channel {channel['id']} has members that are not a list of ids"
    return None
