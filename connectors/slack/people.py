"""Slack users as people: the name a user is known by, their Person, and a message's resolved author."""

from __future__ import annotations

from collections.abc import Mapping

from briefing.model import JSON, Person
from briefing.textrules import visible
from connectors.slack.mrkdwn import field_text


def user_name(user: JSON) -> str:
    """The name people know a user by: real name, else display name, else handle; without the characters that
    draw nothing (Slack puts a zero-width space into a real name that looks like a handle)."""
    profile = user.get("profile") or {}
    return visible(
        str(
            user.get("real_name")
            or profile.get("real_name")
            or profile.get("display_name")
            or user.get("name")
            or user.get("id", "")
        )
    )


def user_to_person(user: JSON) -> Person:
    profile = user.get("profile") or {}
    handles = tuple(dict.fromkeys(visible(h) for h in (user.get("name"), profile.get("display_name")) if h))
    emails = tuple(e for e in (profile.get("email"),) if e)
    return Person(id=f"slack:{user['id']}", name=user_name(user), handles=handles, emails=emails)


def message_author(message: JSON, users: Mapping[str, str]) -> str | None:
    """The resolved author: a known user, else the message's own profile, else the bot's name, else the id.

    Bots post with a `bot_id` (and often a bot user's id that users.list does not resolve); their name is in
    `username` or `bot_profile.name`. A legacy `file_comment` names its author in `comment.user`.
    """
    comment = message.get("comment")
    uid = field_text(message.get("user")) or (field_text(comment.get("user")) if isinstance(comment, dict) else "")
    bot = message.get("bot_profile")
    bot_name = field_text(bot.get("name")) if isinstance(bot, dict) else ""
    username, bot_id = field_text(message.get("username")), field_text(message.get("bot_id"))
    if message.get("subtype") == "bot_message" or (bot_id and not uid):
        found = username or bot_name or bot_id
    elif uid:
        profile = message.get("user_profile")
        profile = profile if isinstance(profile, dict) else {}
        found = (
            users.get(uid)
            or field_text(profile.get("real_name"))
            or field_text(profile.get("display_name"))
            or bot_name
            or (username if bot_id else "")
            or uid
        )
    else:
        found = username
    return visible(found) or None
