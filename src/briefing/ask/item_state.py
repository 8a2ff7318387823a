"""Yes/no questions about an item's state ("Is the design review cancelled?", "Was PR #605 merged?"), read from
the state the item's chunk holds as of `now`.

A polar question that asks whether an item is cancelled, merged, closed / resolved / done, open or assigned is
answered from the item's state where the evidence unit states it: the item's header unit (`Status: Closed`,
`state: merged`, `Assignee: ...`, as the state layer gives it at `now`) or a calendar event (its source's
`cancelled` role). A line that only mentions the item says nothing of its state at `now`. The asked state is read
from the question's words (`asked_state`); for any other polar question, or an evidence unit that states no state,
nothing is read here (`values.yesno_span` decides from the sentence).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from briefing import registry
from briefing.ask.header import UNRESOLVED, UNSET, is_header, rows
from briefing.model import Chunk, Unit

# Question text: a state asked of an item, as the word that closes a polar question ("... cancelled?", "... still
# open?", "... ever merged?", "... resolved yet?"); group names are the states read here.
_ASKS_STATE = re.compile(
    r"\b(?:(?P<cancelled>cancel+ed|called\s+off)|(?P<merged>merged)|"
    r"(?P<done>closed|resolved|done|fixed|finished|completed?)|(?P<open>open|unresolved|in\s+progress)|"
    r"(?P<assigned>assigned))(?:\s+(?:yet|already|now|today))?\s*\?\s*$",
    re.I,
)
# A status that means the work is over (a tracker's or a pull request's state row).
_DONE = re.compile(r"^\s*(?:resolved|closed|done|fixed|completed?|finished|released|shipped|verified|merged)\b", re.I)


@dataclass(frozen=True)
class Stated:
    """Whether the item is in the asked state, how the answer says so ("status: Closed"), and the unit stating it."""

    holds: bool
    says: str
    unit: Unit


def asked_state(question: str) -> str:
    """The state a polar question asks of an item (cancelled, merged, done, open, assigned), or ""."""
    m = _ASKS_STATE.search(question)
    return next((name for name, hit in m.groupdict().items() if hit), "") if m else ""


def header_of(chunk: Chunk) -> Unit | None:
    """The unit of `chunk` that states its item's fields (its ref is the item's key), if the chunk holds it."""
    return next((u for u in chunk.units if u.ref == chunk.doc_key and is_header(u.text)), None)


def state_of(chunk: Chunk, unit: Unit, asked: str) -> Stated | None:
    """Whether the item of `chunk` is in the `asked` state as of the chunk's moment, when `unit` states it."""
    if asked == "cancelled":
        source = registry.family(chunk.source_type)
        if source is None or "cancelled" not in source.metadata:
            return None
        # An event's chunk is the event: any of its units stands for it.
        cancelled = registry.meta(chunk, "cancelled")
        return Stated(cancelled, "cancelled" if cancelled else "not cancelled", unit)
    header = header_of(chunk)
    if header is None or header.ref != unit.ref:  # a unit of the item's own text, not a comment on it
        return None
    return header_state(header, asked, pull_request=registry.meta(chunk, "pull_request"))


def header_state(header: Unit, asked: str, *, pull_request: bool) -> Stated | None:
    """Whether the item whose header unit is `header` is in the `asked` state (merged only for a pull request)."""
    cells = rows(header.text)
    status = cells.get("status") or cells.get("state") or ""
    if asked == "assigned":
        who = cells.get("assignee") or cells.get("assignees")
        if who is None:
            return None
        unset = who.strip().lower() in UNSET
        return Stated(not unset, "unassigned" if unset else f"assigned to {who}", header)
    if not status:
        return None
    says = f"status: {status}"
    if asked == "merged":
        if not pull_request:
            return None
        merged = status.lower() == "merged"
        return Stated(merged, "merged" if merged else f"not merged; {says}", header)
    done = bool(_DONE.match(status)) or cells.get("resolution", "").strip().lower() not in UNRESOLVED
    if asked == "done":
        return Stated(done, says, header)
    if asked == "open":
        return Stated(not done, says, header)
    return None


def verdict(question: str, headers: Sequence[tuple[Unit, bool]]) -> str:
    """ "Yes" or "No" for a polar question about the state of the named items (each its header unit and whether it
    is a pull request), when each header states it and all agree; "" otherwise (the answer states the field)."""
    asked = asked_state(question)
    found = [header_state(header, asked, pull_request=pull) for header, pull in headers]
    if not asked or not found or None in found or len({f.holds for f in found if f is not None}) != 1:
        return ""
    return "Yes" if found[0] is not None and found[0].holds else "No"
