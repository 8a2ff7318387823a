"""A Slack message's readable text: mrkdwn, rich-text blocks and legacy attachments rendered as plain text.

Mentions become names, links keep label and address, entities are unescaped; emphasis markers go from prose only.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from typing import Any

from briefing.model import JSON

# What Slack puts in `text` when a message is made of blocks only.
_PLACEHOLDER_TEXTS = frozenset({"This content can't be displayed.", "This message contains interactive elements."})

_ANGLE = re.compile(r"<([^<>\n]+)>")
# *bold*, _italic_ and ~strike~ around a phrase, as Slack reads them: the same marker on both sides, the opening
# one followed and the closing one preceded by a non-space ("foo * bar * baz" is plain text), neither glued to
# a word (snake_case and 2*3*4 are not emphasis) nor facing the outside of a bracket (")*x*(" is plain text).
# Markers may nest ("*bold _and italic_*").
_EMPHASIS = re.compile(r"(?<![\w*_~)\]}])([*_~])(?![\s*_~])((?:(?!\1)[^\n])*?[^\s*_~])\1(?![\w(\[{])")
# What emphasis never touches: ```preformatted``` blocks, `code` spans and <...> entities (links, mentions),
# whose labels are cleaned on their own and whose addresses may hold underscores.
_PROTECTED = re.compile(r"```.*?```|`[^`\n]+`|<[^<>\n]+>", re.DOTALL)
_SLOT = re.compile("\ue000(\\d+)\ue001")


def render_mrkdwn(text: str, users: Mapping[str, str] | None = None, channels: Mapping[str, str] | None = None) -> str:
    """Slack mrkdwn as readable text: `<@U1>` -> `@Name`, `<#C1|x>` -> `#x`, `<url|label>` -> `label (url)`.

    Emphasis markers are removed from prose and link labels only; code spans and blocks keep every character.
    """
    users = users or {}
    channels = channels or {}

    def entity(body: str) -> str:
        target, _, label = body.partition("|")
        if target.startswith("@"):
            uid = target[1:]
            return "@" + (users.get(uid) or label.lstrip("@") or uid)
        if target.startswith("#"):
            cid = target[1:]
            return "#" + (label or channels.get(cid) or cid)
        if target.startswith("!"):
            return _special(target[1:], label)
        return _link(html.unescape(target), strip_emphasis(html.unescape(label)))

    slots: list[str] = []

    def protect(match: re.Match[str]) -> str:
        piece = match.group(0)
        if piece.startswith("<"):
            slots.append(entity(piece[1:-1]))
        else:  # code: entities inside still stand for names and links (Slack encodes them there too)
            slots.append(_ANGLE.sub(lambda m: entity(m.group(1)), piece))
        return f"\ue000{len(slots) - 1}\ue001"

    hidden = _PROTECTED.sub(protect, text)
    prose = strip_emphasis(hidden)
    return html.unescape(_SLOT.sub(lambda m: slots[int(m.group(1))], prose))


def strip_emphasis(text: str) -> str:
    """`text` without Slack's *bold*, _italic_ and ~strike~ markers; other asterisks and underscores stay."""
    for _ in range(4):  # one pass per nesting level; real messages nest two deep at most
        stripped = _EMPHASIS.sub(r"\2", text)
        if stripped == text:
            break
        text = stripped
    return text


def _special(command: str, label: str) -> str:
    if command in ("here", "channel", "everyone"):
        return "@" + command
    if command.startswith("subteam^"):
        return label if label.startswith("@") else "@" + (label or command.partition("^")[2])
    if command.startswith("date^"):
        return label or command
    return label or "@" + command


def _link(url: str, label: str) -> str:
    if url.startswith("mailto:"):
        return label or url[len("mailto:") :]
    bare = re.sub(r"^[a-z]+://", "", url)
    # Slack shows long addresses shortened; a label that is (a prefix of) the address adds nothing.
    if not label or url.startswith(label) or bare.startswith(label):
        return url
    return f"{label} ({url})"


def _dicts(value: Any) -> list[JSON]:
    """The objects in a list-valued field; anything else in it (or a non-list) is no content."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def field_text(value: Any) -> str:
    """A text field's value; numbers are shown as written, other shapes are no text."""
    if isinstance(value, str):
        return value
    return str(value) if isinstance(value, int | float) and not isinstance(value, bool) else ""


def _count(value: Any) -> int:
    """A small non-negative count (list indent, start offset); a malformed one counts as 0."""
    try:
        number = int(value or 0)
    except (TypeError, ValueError, OverflowError):
        return 0
    return min(max(number, 0), 1000)


def _inline(elements: Any, users: Mapping[str, str], channels: Mapping[str, str]) -> str:  # rich_text_section elements
    parts: list[str] = []
    for el in _dicts(elements):
        kind = el.get("type")
        if kind == "text":
            parts.append(field_text(el.get("text")))
        elif kind == "link":
            parts.append(_link(field_text(el.get("url")), field_text(el.get("text"))))
        elif kind == "user":
            uid = field_text(el.get("user_id"))
            parts.append("@" + (users.get(uid) or uid))
        elif kind == "channel":
            cid = field_text(el.get("channel_id"))
            parts.append("#" + (channels.get(cid) or cid))
        elif kind == "usergroup":
            parts.append("@" + field_text(el.get("usergroup_id")))
        elif kind == "broadcast":
            parts.append("@" + (field_text(el.get("range")) or "here"))
        elif kind == "emoji":
            parts.append(f":{field_text(el.get('name'))}:")
        elif kind == "date":
            parts.append(field_text(el.get("fallback")) or field_text(el.get("timestamp")))
        elif kind in ("color", "team"):
            parts.append(field_text(el.get("value")) or field_text(el.get("team_id")))
    return "".join(parts)


def _rich_text(block: JSON, users: Mapping[str, str], channels: Mapping[str, str]) -> str:
    out: list[str] = []
    for el in _dicts(block.get("elements")):
        kind = el.get("type")
        if kind == "rich_text_section":
            out.append(_inline(el.get("elements"), users, channels))
        elif kind == "rich_text_list":
            indent = "  " * min(_count(el.get("indent")), 8)
            start = _count(el.get("offset")) + 1
            for n, item in enumerate(_dicts(el.get("elements")), start=start):
                marker = f"{n}." if el.get("style") == "ordered" else "-"
                out.append(f"{indent}{marker} {_inline(item.get('elements'), users, channels)}")
        elif kind == "rich_text_quote":
            quoted = _inline(el.get("elements"), users, channels)
            out.append("\n".join("> " + line for line in quoted.split("\n")))
        elif kind == "rich_text_preformatted":
            out.append("```\n" + _inline(el.get("elements"), users, channels).strip("\n") + "\n```")
    # Sections often end with their own newline; avoid doubling it when joining.
    return "\n".join(part.rstrip("\n") for part in out)


def _text_object(obj: Any, users: Mapping[str, str], channels: Mapping[str, str]) -> str:
    if not isinstance(obj, dict):
        return ""
    text = field_text(obj.get("text"))
    return render_mrkdwn(text, users, channels) if obj.get("type") == "mrkdwn" else text


def render_blocks(blocks: Any, users: Mapping[str, str], channels: Mapping[str, str]) -> str:
    """The readable text of a message's `blocks` (rich text, sections, headers, context)."""
    out: list[str] = []
    for block in _dicts(blocks):
        kind = block.get("type")
        if kind == "rich_text":
            out.append(_rich_text(block, users, channels))
        elif kind in ("section", "header"):
            out.append(_text_object(block.get("text"), users, channels))
            out.extend(_text_object(field, users, channels) for field in _dicts(block.get("fields")))
        elif kind == "context":
            out.extend(
                _text_object(el, users, channels) or field_text(el.get("alt_text"))
                for el in _dicts(block.get("elements"))
            )
    return "\n".join(part for part in out if part.strip())


def render_attachments(attachments: Any, users: Mapping[str, str], channels: Mapping[str, str]) -> str:
    """Legacy attachments: pretext, title, text and fields, else the fallback."""
    out: list[str] = []
    for att in _dicts(attachments):
        parts = [field_text(att.get("pretext")), field_text(att.get("title")), field_text(att.get("text"))]
        parts += [f"{field_text(f.get('title'))}: {field_text(f.get('value'))}" for f in _dicts(att.get("fields"))]
        body = "\n".join(render_mrkdwn(p, users, channels) for p in parts if p)
        out.append(body or render_mrkdwn(field_text(att.get("fallback")), users, channels))
    return "\n".join(part for part in out if part.strip())


def file_names(message: JSON) -> list[str]:
    """Names (titles where set) of the files a message shares."""
    names: list[str] = []
    for f in _dicts(message.get("files")):
        name = field_text(f.get("title")) or field_text(f.get("name")) or field_text(f.get("id"))
        if name:
            names.append(name)
    return names


def message_text(message: JSON, users: Mapping[str, str], channels: Mapping[str, str]) -> str:
    """A message's readable text: `text`, else its blocks, else its attachments, else its files."""
    raw = field_text(message.get("text"))
    if raw.strip() and raw.strip() not in _PLACEHOLDER_TEXTS:
        return render_mrkdwn(raw, users, channels).strip()
    for text in (
        render_blocks(message.get("blocks"), users, channels),
        render_attachments(message.get("attachments"), users, channels),
    ):
        if text.strip():
            return text.strip()
    names = file_names(message)
    return ", ".join(f"[file: {name}]" for name in names)
