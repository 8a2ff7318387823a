"""A timeline of one item: the item a question names by key and what was said of it, one line a message, ending
with the item's last word, its latest message in the context, which says how it ended ("Fixed by #88", "closing in
favour of #91") though it rarely shares the question's words."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime

from briefing import registry
from briefing.ask.extractive.contentless import says_nothing
from briefing.ask.extractive.evidence import Evidence, about_item, presentation, unit_text
from briefing.ask.extractive.extractors import state_record
from briefing.ask.extractive.render import day, when
from briefing.ask.header import is_header
from briefing.ask.item_state import asked_state, header_of
from briefing.ask.segment import clean
from briefing.errors import BriefError
from briefing.question.answer_type import extra_of
from briefing.question.model import Question
from briefing.question.terms import names_title

# Sentence text: a calendar day a state record states ("opened 2022-05-29, merged 2022-06-03", "Resolved: 2017-10-04").
_RECORD_DAY = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")


def as_of_day(ev: Evidence, now: datetime | None) -> str:
    """The day a latest-state line speaks for: for a line that records a state, the latest day it states no later
    than `now` when that is after the line's own stamp ("PR #706 ... opened 2022-05-29, merged 2022-06-03 | state:
    merged" is stamped with the day it was opened, and speaks for 3 June); else the line's own day."""
    text = clean(ev.text)
    days: list[datetime] = []
    if state_record(text):
        for m in _RECORD_DAY.finditer(text):
            try:
                found = datetime(int(m[1]), int(m[2]), int(m[3]), tzinfo=UTC)
            except ValueError:
                continue
            if now is None or found <= now:
                days.append(found)
    latest = max(days, default=None)
    if latest is not None and latest.date().isoformat() > (ev.at_iso or "")[:10]:
        return day(latest, with_time=False, with_year=True)
    return when(ev)


def _item(chunk_kind: str, conversational: bool) -> bool:
    """Whether a chunk of this kind is one item's conversation (a ticket, an issue, a pull request, a mail or chat
    thread): a channel's stream is many conversations, a document none."""
    if not conversational:
        return False
    try:
        return not registry.kind(chunk_kind).stream
    except BriefError:
        return False


def _same_unit(a: Evidence, b: Evidence) -> bool:
    return a.n == b.n and a.unit == b.unit


def leading(first: Evidence | None, chosen: list[Evidence]) -> list[Evidence]:
    """`chosen` led by `first` (its other lines after it, as many lines as before: the weakest gives way); `chosen`
    itself when `first` is None or already leads."""
    if first is None or not chosen or _same_unit(first, chosen[0]):
        return chosen
    return [first, *(c for c in chosen if not _same_unit(c, first))][: len(chosen)]


def _one_item(chosen: Sequence[Evidence]) -> str | None:
    """The best line's item (a conversation of one item, not a stream or a document) when at least half of `chosen`
    (best first) is from it: a timeline of that item, not of several conversations."""
    lead = chosen[0] if chosen else None
    if lead is None or not _item(lead.chunk.kind, presentation(lead.chunk).conversational):
        return None
    key = lead.chunk.doc_key
    return key if 2 * sum(c.chunk.doc_key == key for c in chosen) >= len(chosen) else None


def _named_item(question: Question, pool: list[Evidence]) -> str | None:
    """The item the question names (by key or by title) whose line in `pool` scores best; None when it names none."""
    named = titled_only(question, named_only(question, pool))
    items = [ev for ev in named if _item(ev.chunk.kind, presentation(ev.chunk).conversational)]
    return max(items, key=lambda ev: ev.score).chunk.doc_key if named is not pool and items else None


def last_word(chosen: list[Evidence], evidence: Sequence[Evidence], limit: int) -> list[Evidence]:
    """`chosen` (best first) with the latest message of the best line's item added when at least half of
    `chosen` is from that item and none of the message's sentences is among them: that message's best sentence
    that states something (not a state record such as "Status: Closed", not a bare "+1"). With `limit` lines
    already chosen it takes the place of the weakest line of another item, or else of the item's weakest line."""
    key = _one_item(chosen)
    if key is None:
        return chosen  # a timeline of several conversations: the lead's is not what it is about
    last = latest_word(key, evidence)
    if last is None:
        return chosen
    if any(_same_unit(c, last) for c in chosen):
        return chosen
    out = list(chosen)
    if len(out) >= limit:
        # It takes the place of the weakest line of another item, else of the item's own weakest after the lead.
        others = [c for c in out[1:] if c.chunk.doc_key != key] or out[1:]
        if not others:
            return chosen
        out.remove(min(others, key=lambda c: c.score))
    out.append(last)
    return out


def latest_word(key: str, evidence: Sequence[Evidence]) -> Evidence | None:
    """The best sentence of item `key`'s latest message in `evidence` that states something (not a state record
    such as "Status: Closed", not a bare "+1")."""
    said = [
        ev
        for ev in evidence
        if ev.chunk.doc_key == key and ev.at_iso and not state_record(clean(ev.text)) and not says_nothing(ev)
    ]
    if not said:
        return None
    latest = max(ev.at_iso or "" for ev in said)
    return max((ev for ev in said if ev.at_iso == latest), key=lambda ev: ev.score)


def outcome_first(chosen: list[Evidence], evidence: Sequence[Evidence]) -> list[Evidence]:
    """For "What was decided about X?" (`words.ASKS_OUTCOME`): when the best line (first of `chosen`) is in an item's
    conversation, that item's latest message that states something (`latest_word`) leads, and the other lines follow
    in place of the weakest: how the item ended, not the report that opened it, which shares the question's words."""
    if not chosen or not _item(chosen[0].chunk.kind, presentation(chosen[0].chunk).conversational):
        return chosen
    return leading(latest_word(chosen[0].chunk.doc_key, evidence), chosen)


def named_item_latest(question: Question, evidence: list[Evidence]) -> Evidence | None:
    """For a latest-state question that names one item (by key or by title: "What is the latest on PLAT-7?"): that
    item's latest message that states something (`latest_word`), which says where it stands though the item's
    opening, not its last word, shares the question's words; None when the question names no item."""
    key = _named_item(question, evidence)
    return latest_word(key, evidence) if key is not None else None


def state_first(question: Question, chosen: list[Evidence], pool: list[Evidence]) -> list[Evidence]:
    """For a yes/no question about an item's state ("Is <a ticket's summary> fixed?", "Was PLAT-7 closed?":
    `item_state.asked_state`): the item's own header line (its fields as of now: "Status: Closed | Resolution:
    Fixed") leads, so the answer is read from the state, not from a comment that shares the question's words. The
    item is the one the question names (by key or title), else the best line's."""
    if not chosen or extra_of(question)["span_kind"] != "yesno" or not asked_state(question.text):
        return chosen  # "How was X resolved?" asks how, not whether
    key = _named_item(question, pool) or chosen[0].chunk.doc_key
    own = [ev for ev in pool if ev.chunk.doc_key == key and ev.ref == key and header_of(ev.chunk) is not None]
    # The header row itself, else another line of the item's own text (its state is the chunk's header's).
    return leading(max(own, key=lambda ev: (is_header(unit_text(ev)), ev.score), default=None), chosen)


def spread_messages(chosen: list[Evidence], evidence: Sequence[Evidence]) -> list[Evidence]:
    """A timeline of one item (at least half of `chosen`, best first, from the best line's item) that quotes one of
    its messages more than once (an issue's long opening, read paragraph by paragraph) quotes as many lines, one a
    message: the lead, then the best line of each other message of the item in `evidence`, best first, that states
    something; then lines of other items if room is left. A summary of a discussion covers who said what, not one
    message."""
    key = _one_item(chosen)
    if key is None or len({c.ref for c in chosen}) == len(chosen):
        return chosen
    lead = chosen[0]
    best_of: dict[str, Evidence] = {}
    for ev in sorted(evidence, key=lambda e: (-e.score, e.n)):
        if ev.chunk.doc_key != key or ev.ref == lead.ref or state_record(clean(ev.text)) or says_nothing(ev):
            continue
        best_of.setdefault(ev.ref, ev)
    picked = [lead, *best_of.values()][: len(chosen)]
    others = [c for c in chosen if c.chunk.doc_key != key]
    return picked + others[: len(chosen) - len(picked)]


def titled_only(question: Question, pool: list[Evidence]) -> list[Evidence]:
    """The lines of `pool` from the items whose title the question names (`terms.names_title`: 'What happened with
    "<a ticket's summary>"?'), when it names no item by key and `pool` holds such an item: a timeline of it, as of an
    item named by key (`named_only`)."""
    if question.keys:
        return pool
    words = set(extra_of(question)["words"])
    named = {
        ev.chunk.doc_key: names_title(words, ev.chunk.title)
        for ev in pool
        if _item(ev.chunk.kind, presentation(ev.chunk).conversational)
    }
    best = max(named.values(), default=0.0)
    return [ev for ev in pool if best and named.get(ev.chunk.doc_key) == best] or pool


def named_only(question: Question, pool: list[Evidence]) -> list[Evidence]:
    """The lines of `pool` about the items the question names by key (`about_item`), when it names any and `pool`
    holds such lines: a timeline of PLAT-7 is PLAT-7's story and what was said of it, not other tickets'."""
    keys = question.keys
    if not keys:
        return pool
    about = [ev for ev in pool if about_item(ev, keys)]
    return about or pool
