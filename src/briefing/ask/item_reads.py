"""Reads of one named item beyond a header row: who fixed it, what it is about, its latest comment."""

from __future__ import annotations

import re

from briefing.ask.header import AUTHORED, UNKNOWN_VALUE, UNRESOLVED, UNSET, is_header, rows
from briefing.ask.item_model import DAY, MARK, Item, Read
from briefing.ask.segment import clean
from briefing.model import Unit

# Resolutions that say the item's problem was fixed or its work done (not "Won't Fix", "Duplicate", "Invalid").
_FIXED = frozenset({"fixed", "done", "resolved", "completed"})
# How much of an item's description "What is KEY about?" quotes, and the fewest words a unit of it needs to be
# quoted (a heading or a one-word line says nothing of what the item is about).
ABOUT_QUOTE = 300
ABOUT_MIN_WORDS = 5
# Description unit text that is no prose: a JIRA or Markdown heading ("h5. Issue Description", "## Steps"), a code
# block's opening, a pull request's branch line ("fix-resolution-example -> main"), a commit's trailers
# ("Signed-off-by: ...", "Co-authored-by: ...").
_NOT_PROSE = re.compile(
    r"^\s*(?:h[1-6]\.\s|#{1,6}\s|\{code|\{noformat|```|\S+\s+->\s+\S+\s*$|(?:signed-off|co-authored)-by:)", re.I
)


def fixer(item: Item, header: Unit) -> Read | None:
    """Who fixed the item: the assignee of a tracker's item resolved as fixed (who closes it after verifying is often
    someone else), a pull request's author; that it was not fixed or is not resolved; else None (the fact path)."""
    from briefing.ask.finished import DONE_STATUS

    if item.label.startswith("PR "):
        authored = AUTHORED.search(header.text)
        return (f"{item.label} was written by {authored[1]}{MARK}", [header]) if authored else None
    cells = rows(header.text)
    resolution, assignee, status = cells.get("resolution", ""), cells.get("assignee", ""), cells.get("status", "")
    on = f" on {day[0]}" if (day := DAY.match(cells.get("resolved", ""))) else ""
    if resolution.lower() in _FIXED and assignee.lower() not in UNSET and not UNKNOWN_VALUE.match(assignee):
        return f"{item.label} was fixed by {assignee}, its assignee (resolution {resolution}{on}){MARK}", [header]
    if resolution.lower() not in UNRESOLVED and resolution.lower() not in _FIXED:
        return f"{item.label} was not fixed: it was resolved as {resolution}{on}{MARK}", [header]
    if status and not UNKNOWN_VALUE.match(status) and not DONE_STATUS.match(status):
        return f"{item.label} is not resolved; its status is {status}{MARK}", [header]
    return None


def _prose(text: str, title: str) -> bool:
    """Whether a unit of the item's own text says something in words: not its field rows, a heading, a code block,
    a branch line or trailers, not a record the source wrote about it (one that quotes its title: "First tag after
    PR #948 "..." was merged"), and at least ABOUT_MIN_WORDS words."""
    if is_header(text) or _NOT_PROSE.match(text) or (title and f'"{title}"' in text):
        return False
    return len(clean(text).split()) >= ABOUT_MIN_WORDS


def about(item: Item) -> Read | None:
    """What the item is about, as its opener wrote it: its title and the start of its description (its first unit
    of its own that says something in words, `_prose`), cited to the description; its title alone, cited to its
    header, when it has no description; None when it has neither."""
    description = next((u for u in item.units if u.ref == item.key and _prose(u.text, item.title)), None)
    title = f' ("{item.title}")' if item.title else ""
    if description is not None:
        return f'{item.label}{title} is about: "{clean(description.text, ABOUT_QUOTE)}"{MARK}', [description]
    if item.title and item.header is not None:
        return f'{item.label} is titled "{item.title}"{MARK}', [item.header]
    return None


def latest_comment(item: Item, *, saying: bool = False) -> Unit | None:
    """The item's newest comment (not its own description, not a changelog's state record; with `saying`, not a
    greeting or thanks, nor a review that only says it commented): of the newest, its first unit."""
    from briefing.ask.extractive.acts import bare_review
    from briefing.ask.extractive.contentless import contentless
    from briefing.ask.extractive.extractors import state_record

    said = [
        (u.at, -n, u)
        for n, u in enumerate(item.units)
        if u.ref != item.key
        and u.at
        and u.author
        and not state_record(t := clean(u.text))
        and not (saying and (contentless(t) or bare_review(t)))
    ]
    return max(said)[2] if said else None  # the newest; of one moment, the first unit (n is unique)


def quoted(unit: Unit, limit: int) -> str:
    """`<author> on <day>: "<its words>"`, the words without the unit's stamp, cut at `limit` characters."""
    from briefing.ask.extractive.heads import without_head
    from briefing.ask.extractive.render import day

    when = day(unit.at, with_time=False, with_year=True) if unit.at else "an unknown day"
    words = clean(without_head(unit.text, unit.author, unit.text.split("\n", 1)[0]), limit)
    return f'{unit.author} on {when}: "{words}"'


def last_comment(item: Item) -> Read | None:
    """Who wrote the item's last comment, when, and what it says ("Who last commented on PLAT-7?", "When was the
    last comment on PLAT-7?"); that it has none, cited to its header; None without a header either."""
    last = latest_comment(item)
    if last is not None:
        return f"The last comment on {item.label} is by {quoted(last, ABOUT_QUOTE)}{MARK}", [last]
    return (f"{item.label} has no comments{MARK}", [item.header]) if item.header is not None else None
