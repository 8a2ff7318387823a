"""Ingested text is data: before it reaches a terminal, a chat message or a mail, escape codes and controls go."""

from __future__ import annotations

import re

# CSI/OSC/other ESC sequences first (so their parameters go with them), then any remaining C0/C1 control
# character except newline and tab, and the bidirectional overrides that can reorder what a reader sees.
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def neutralise(text: str) -> str:
    """`text` without terminal escape sequences, control characters or bidi overrides."""
    return _CONTROLS.sub("", _ESCAPES.sub("", text))


def one_line(text: str, limit: int = 300) -> str:
    """Neutralised, whitespace folded to single spaces, cut at `limit` characters with an ellipsis."""
    flat = " ".join(neutralise(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


# Slack's entity syntax: a user or group mention, a channel link, a broadcast (`<!channel>`, `<!here>`,
# `<!everyone>`, `<!subteam^ID|@team>`), and the same broadcasts typed bare, which a client posting with
# `link_names` would turn into notifications.
_SLACK_USER = re.compile(r"<@([UW][A-Z0-9]+)(?:\|([^<>]*))?>")
_SLACK_CHANNEL = re.compile(r"<#([CG][A-Z0-9]+)(?:\|([^<>]*))?>")
_SLACK_SPECIAL = re.compile(r"<!([a-z]+)(?:\^[^|<>]*)?(?:\|([^<>]*))?>")
_SLACK_LINK = re.compile(r"<((?:https?|mailto):[^|<>\s]+)\|([^<>]*)>")
_BARE_BROADCAST = re.compile(r"@(channel|here|everyone)\b", re.IGNORECASE)
_JOINER = "\u2060"  # WORD JOINER: shows nothing, and keeps "@here" from being read as the broadcast


def quiet(text: str) -> str:
    """Neutralised, and no Slack mention or broadcast can be formed from it when quoted into a message: each
    entity becomes its readable text (`<!channel>` -> `@channel`, `<@U1|ann>` -> `@ann`, `<#C1|ops>` -> `#ops`)
    with a word joiner after the `@`, as has a bare `@channel`, `@here` or `@everyone`; a labelled link shows
    its target (`<https://x|y>` -> `y (https://x)`)."""
    at = "@" + _JOINER
    text = _SLACK_USER.sub(lambda m: at + (m.group(2) or m.group(1)).lstrip("@"), neutralise(text))
    text = _SLACK_CHANNEL.sub(lambda m: "#" + (m.group(2) or m.group(1)).lstrip("#"), text)
    text = _SLACK_SPECIAL.sub(lambda m: at + (m.group(2) or m.group(1)).lstrip("@"), text)
    text = _SLACK_LINK.sub(lambda m: f"{m.group(2)} ({m.group(1)})", text)
    return no_broadcast(text)


def no_broadcast(text: str) -> str:
    """A bare `@channel`, `@here` or `@everyone` with a word joiner after the `@`: shown alike, notifies no one."""
    return _BARE_BROADCAST.sub(lambda m: "@" + _JOINER + m.group(1), text)
