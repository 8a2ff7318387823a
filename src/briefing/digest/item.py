"""One named item's window ("what happened in PLAT-7 last week?"): its state changes, its key comments, who took
part, each line cited to its unit, in time order; items it is linked to, only when marked as linked.

The item's conversation comes from the briefing engine's enumeration (`briefing.digest.gather`, by time, as of
`now`). State changes are the transitions its source records (`events`) and the fields of its header as of `now`
that differ from the header as of the window's start (the state layer: a ticket resolved, a fix version set).
Comments are chosen by what kind of sentence they hold (a cause found, a fix or change linked, a decision, a
workaround, a resolution), by whether they answer rather than ask, and by how much they say; never by the words
of one question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING

from briefing import registry
from briefing.ask.fields import bare_title
from briefing.ask.header import LABELS, UNKNOWN_VALUE, is_header, rows
from briefing.digest import text as tx
from briefing.digest.conversation import Conversation, Seen, Transition, messages
from briefing.digest.gather import gather
from briefing.digest.lines import LineMaker
from briefing.digest.model import Cited, Digest, Line, Scope, Section
from briefing.index import doc_id
from briefing.model import Chunk, Unit
from briefing.view import as_of

if TYPE_CHECKING:
    from briefing.digest.engine import Briefer
    from briefing.view import View

MAX_LINES = 6  # dated lines per item: its state changes first, then its key comments
MAX_CHANGES = 3
OPENING_WORDS = 6
MAX_LINKED = 2
# The header fields whose change is news, in the order a state is told ("reporter" and "organiser" never change).
_TOLD = tuple(label for field, labels in LABELS.items() if field not in ("reporter", "organiser") for label in labels)
# Where an item stands: its status, how it was resolved, the release it is in, who has it.
_STANDING = tuple(
    label for field in ("status", "resolution", "fix_version", "milestone", "assignee") for label in LABELS[field]
)
# Transitions that already tell the item's status, so its header's status row adds nothing.
_STATUS_EVENTS = frozenset({"status", "merged", "closed", "reopened"})

# Classes of sentences a manager reads an item's week for; each is a kind of statement, not a topic.
_CAUSE = re.compile(
    r"\b(?:because|caus(?:e|ed|es|ing)|due\s+to|root\s+cause|the\s+(?:issue|problem|reason|bug)\s+(?:is|was)|"
    r"turn(?:s|ed)\s+out|comes?\s+from|related\s+to|the\s+culprit)\b",
    re.I,
)
_CHANGE_LINK = re.compile(
    r"/(?:pull|pulls|merge_requests|commit|commits|compare)/\w+|\bPRs?\b|\bpull\s+request\b|\bpatch(?:es)?\b",
    re.I,
)
_WORKAROUND = re.compile(r"\bwork-?arounds?\b|\binstead\b|\breplac(?:e|ed|ing)\b", re.I)
# A pasted block of code or log (fenced, or a tracker's wiki `{code}`/`{noformat}` block) says what was pasted,
# not what happened.
_CODE = re.compile(r"```.*?(?:```|$)|\{(code|noformat)(?::[^}]*)?\}.*?(?:\{\1\}|$)", re.S | re.I)
# A unit's "[2024-05-02 10:00]" stamp and the writer's "name:" after it, as a conversation's units start.
_STAMP = re.compile(r"^\s*\[[^\]]{4,40}\]\s*")
# A review with no words of its own ("lee reviewed", "review: commented by lee") tells nothing.
_BARE_REVIEW = re.compile(r"^(?:[\w.@-]+\s+(?:reviewed|commented)|review:\s+\w+(?:\s+\w+)?\s+by\s+[\w.@-]+)\s*$")
_VERDICT = re.compile(r"^(?:([\w.@-]+)\s+(approved|requested changes)|review:\s+(approved|changes requested)\s+by\s+)")


@dataclass(frozen=True)
class Event:
    """One dated line of an item's window: what it says, the unit it cites, and how much it matters."""

    at: datetime | None
    text: str
    seen: Seen
    weight: float
    change: bool


def _plain(unit: Unit) -> str:
    """A unit's words without the stamp and writer's name a conversation's unit opens with."""
    text = _STAMP.sub("", unit.text)
    if unit.author and text.startswith(unit.author):
        # "lee:", "lee reviewed:", "lee line 27:": the writer and what the unit is, before its words.
        tag = re.match(r"[\w ]{0,24}:\s", text[len(unit.author) :] + " ")
        if tag:
            text = text[len(unit.author) + tag.end() :]
    return text.strip()


def _prose(texts: list[str]) -> str:
    """The first of an item's opening pieces that is prose (OPENING_WORDS words or more), not the branch line or
    the closing keywords a pull request's description starts with ("cred-val -> main", "Closes #678")."""
    return next((t for t in texts if len(tx.words(_CODE.sub(" ", t))) >= OPENING_WORDS), "")


def salience(sentence: str) -> float:
    """How much a sentence tells of an item's progress: its informativeness and the kinds of statement it makes."""
    value = tx.informativeness(sentence)
    value += 0.8 * bool(_CAUSE.search(sentence)) + 0.8 * bool(_CHANGE_LINK.search(sentence))
    value += 0.5 * bool(_WORKAROUND.search(sentence))
    return value


def best(text: str, limit: int = 260) -> tuple[str, float]:
    """The sentence of a comment that tells most, with the neighbour that tells more of it when both fit in
    `limit` (what was done and what it did: "A new certificate was applied. The issue is resolved."), and its
    salience."""
    found = [s.lstrip(" :;,") for s in tx.sentences(_CODE.sub(" ", text))]
    found = [s for s in found if s]
    if not found:
        return "", 0.0
    scores = [salience(s) for s in found]
    value, i = max((v, -i) for i, v in enumerate(scores))
    i = -i
    sentence = found[i]
    near = [j for j in (i - 1, i + 1) if 0 <= j < len(found) and scores[j] > 0]
    if near:
        j = max(near, key=lambda j: scores[j])
        joined = " ".join(found[min(i, j) : max(i, j) + 1])
        if len(joined) <= limit:
            sentence = joined
    return tx.short(sentence, limit), value


def comments(conv: Conversation, skip: set[tuple[str, datetime]], zone_day: LineMaker) -> list[Event]:
    """The window's comments as candidate lines, weighted: an answer over a question, the asker's replies less.
    A long comment split over chunks is read whole (its pieces share its ref)."""
    asker = conv.opener.unit.author
    out: list[Event] = []
    pieces: dict[str, tuple[Seen, list[str]]] = {}
    for seen in conv.units:
        unit = seen.unit
        if (unit.ref, seen.at) in skip or (unit.ref == conv.doc_key and is_header(unit.text)):
            continue  # the item's own header is its state, told as such
        words = _plain(unit)
        verdict = _VERDICT.match(words)
        if verdict:  # a review's verdict is a change of the item's state, said as such
            who = verdict[1] or unit.author or "someone"
            said = (verdict[2] or verdict[3] or "").replace("changes requested", "requested changes")
            out.append(Event(seen.at, f"{zone_day.day(seen.at)}: {said} by {who}", seen, 1.5, True))
        elif words and not _BARE_REVIEW.match(words):
            pieces.setdefault(unit.ref, (seen, []))[1].append(words)
    for seen, texts in pieces.values():
        unit = seen.unit
        words = "\n\n".join(texts)
        opening = unit.ref == conv.opener.unit.ref
        if tx.is_filler(words) or (opening and not conv.opened_in_window):
            continue  # the item's own text from before the window is context, not news
        sentence, value = best(words)
        if opening:  # what an item reports is its first informative sentence, outside what was pasted
            sentence = tx.gist(_CODE.sub(" ", _prose(texts) or words), 200)
        if not sentence or value <= 0:
            continue
        if unit.author and unit.author != asker:
            value += 0.4  # who answers says more of where things stand than who asked
        if tx.is_question(sentence) and not _CAUSE.search(sentence):
            value -= 0.5
        who = unit.author or "unknown"
        label = "opened by " if opening else ""
        out.append(Event(seen.at, f'{zone_day.day(seen.at)}, {label}{who}: "{sentence}"', seen, value, False))
    # A verdict is told once (a review and its summary row share the review's ref).
    kept: dict[tuple[str, bool], Event] = {}
    for event in out:
        key = (event.seen.unit.ref, event.change)
        if key not in kept or event.weight > kept[key].weight:
            kept[key] = event
    return list(kept.values())


def header(view: View, doc_key: str) -> tuple[Seen, datetime] | None:
    """The item's header unit as `view` holds it, and since when that state holds (its chunk's time)."""
    chunks = sorted(view.fetch(doc_keys=(doc_key,)), key=lambda c: (c.start, c.ordinal, c.chunk_id))
    for chunk in chunks:
        for unit in chunk.units:
            if unit.ref == doc_key and is_header(unit.text):
                at = unit.at or chunk.start
                since = max(at, chunk.written_at) if chunk.written_at is not None else at
                return Seen(unit, at, unit.url or chunk.url, chunk), since
    return None


def told(cells: dict[str, str]) -> list[tuple[str, str]]:
    """The header's fields worth telling, in order."""
    return [(label, cells[label]) for label in _TOLD if cells.get(label) and not UNKNOWN_VALUE.match(cells[label])]


def state_changes(
    briefer: Briefer, conv: Conversation, start: datetime, end: datetime, now: datetime, zone_day: LineMaker
) -> tuple[list[Event], Seen | None]:
    """The item's recorded transitions in the window and its fields changed between `start` and `now`, and its
    header as of now (to state where it stands)."""
    out: list[Event] = []
    moves = [c for c in conv.changes if c.event != "opened" or conv.opened_in_window]
    for change in moves:
        at_change = _unit_of(conv, change)
        if at_change is not None and change.event != "opened":
            out.append(Event(change.at, f"{zone_day.day(change.at)}: {change.describe()}", at_change, 2.0, True))
    found = header(as_of(briefer.index, now), conv.doc_key)
    if found is None:
        return out, None
    now_header, since = found
    # Against the state at the window's start, or at its opening for an item opened in the window.
    then = conv.opener.at if conv.opened_in_window else start
    before = header(as_of(briefer.index, then), conv.doc_key)
    old = rows(before[0].unit.text) if before is not None else {}
    statuses = any(c.event in _STATUS_EVENTS for c in moves)
    changed = [
        f"{label[:1].upper()}{label[1:]} {old[label]} → {value}" if old.get(label) else f"{label} set to {value}"
        for label, value in told(rows(now_header.unit.text))
        if old.get(label) != value and not (statuses and label in LABELS["status"])
    ]
    if changed and before is not None:
        when = since if start <= since < end else None
        day = f"{zone_day.day(when)}: " if when is not None else "by now: "
        out.append(Event(when, day + "; ".join(changed), now_header, 2.0, True))
    return out, now_header


def _unit_of(conv: Conversation, change: Transition) -> Seen | None:
    return next((s for s in conv.units if s.unit.ref == change.ref and s.at == change.at), None)


def linked_refs(conv: Conversation) -> set[str]:
    """The ids of the items the item's own chunks mark as linked."""
    chunks = {s.chunk.chunk_id: s.chunk for s in (*conv.earlier, *conv.units)}
    return {doc_id(ref) for chunk in chunks.values() for ref in registry.meta(chunk, "links")}


class Numbers:
    """Citation numbers in reading order over a whole answer, one per cited unit."""

    def __init__(self) -> None:
        self.by_ref: dict[str, int] = {}
        self.last = 0

    def cite(self, seen: Seen, cites: list[Cited], chunks: list[Chunk]) -> str:
        if seen.unit.ref not in self.by_ref:
            self.last += 1
            self.by_ref[seen.unit.ref] = self.last
        n = self.by_ref[seen.unit.ref]
        if all(c.n != n for c in cites):
            cites.append(Cited(n=n, refs=[seen.unit.ref], url=seen.url))
            chunks.append(seen.chunk)
        return f"[{n}]"

    def taken(self, cites: list[Cited]) -> None:
        """Numbers another writer gave (a linked item's line) are used up."""
        self.last = max([self.last, *(c.n for c in cites)])


def item_section(
    briefer: Briefer,
    conv: Conversation,
    linked: list[Conversation],
    window: tuple[datetime, datetime],
    now: datetime,
    numbers: Numbers,
) -> Section:
    """One item's window as a section: a head naming it and who took part, then its dated lines in time order,
    where it stands now, and the linked items active in the window."""
    start, end = window
    maker = LineMaker(briefer.zone, now)
    changes, now_header = state_changes(briefer, conv, start, end, now, maker)
    skip = {(e.seen.unit.ref, e.seen.at) for e in changes}
    # A transition's own unit is told as the change, except the opening: an item opened in the window is told by
    # what it says ("opened by lee: ..."), and its description shares the opening's ref and time.
    skip |= {(c.ref, c.at) for c in conv.changes if c.event != "opened"}
    said = comments(conv, skip, maker)
    changes += [e for e in said if e.change]  # review verdicts
    said = [e for e in said if not e.change]
    chosen = sorted(changes, key=lambda e: e.weight, reverse=True)[:MAX_CHANGES]
    chosen += sorted(said, key=lambda e: e.weight, reverse=True)[: MAX_LINES - len(chosen)]
    chosen.sort(key=lambda e: (e.at is None, e.at or now, e.seen.unit.ref))
    people = conv.people()
    count = messages([s for s in conv.units if s.unit.ref != conv.doc_key])  # its comments and reviews
    who = ", ".join(people[:4]) + (f" +{len(people) - 4}" if len(people) > 4 else "")
    key = doc_id(conv.doc_key)
    title = bare_title(conv.doc_key, conv.title)
    head = f'{key} "{tx.short(title, 120)}"' if title else key
    if count:
        head += f" — {count} message{'s' if count != 1 else ''}"
    head += f" from {who}" if who else ""
    section = Section(title=head)

    def add(text: str, seen: Seen, status: str, at: datetime, weight: float = 0.0) -> None:
        cites: list[Cited] = []
        chunks: list[Chunk] = []
        mark = numbers.cite(seen, cites, chunks)
        section.lines.append(
            Line(text=f"{text} {mark}", occurred_at=at, citations=cites, title=title, key=conv.key, status=status,
                 people=people, score=weight, last_at=at, section=head, chunks=chunks)
        )  # fmt: skip

    for event in chosen:
        add(event.text, event.seen, "changed" if event.change else "said", event.at or now, event.weight)
    if now_header is not None:
        # Where it stands now; a status the window's transitions already told is not told again.
        statuses = any(c.event in _STATUS_EVENTS for c in conv.changes)
        cells = [
            (k, v)
            for k, v in told(rows(now_header.unit.text))
            if k in _STANDING and not (statuses and k in LABELS["status"])
        ]
        if cells:
            state = " | ".join(f"{label[:1].upper()}{label[1:]}: {value}" for label, value in cells)
            add(f"as of now: {state}", now_header, "now", now)
    for other in linked[:MAX_LINKED]:
        line = maker.line(other, numbers.last + 1)
        numbers.taken(line.citations)
        line.text = f"linked {doc_id(other.doc_key)}: {line.text}"
        line.score = min(line.score, 0.0)  # the item's own lines lead its evidence
        section.lines.append(line)
    return section


def item_digest(
    briefer: Briefer, start: datetime, end: datetime, *, now: datetime, scope: Scope, searched: str
) -> Digest | None:
    """The named items' window as a digest of one section per item, or None when none of them was active in it."""
    end = min(end, now)
    # The named items are the scope: the question's other words name what they are about, not a filter on them.
    scope = replace(scope, topic="")
    convs = gather(as_of(briefer.index, now), start, end, scope, burst_gap=briefer.burst_gap)
    order = {doc_id(t): i for i, t in reversed(list(enumerate(scope.tickets)))}
    own = sorted(
        (c for c in convs if doc_id(c.doc_key) in order and not c.stream), key=lambda c: order[doc_id(c.doc_key)]
    )
    if not own:
        return None
    numbers = Numbers()
    sections = []
    for conv in own:
        links = linked_refs(conv)
        linked = [c for c in convs if c not in own and doc_id(c.doc_key) in links]
        sections.append(item_section(briefer, conv, linked, (start, end), now, numbers))
    evidence = list({s.chunk.chunk_id: s.chunk for c in own for s in c.units}.values())
    return Digest(
        start=start,
        end=end,
        now=now,
        scope=scope,
        sections=sections,
        more=[],
        searched=searched,
        conversations=len(own),
        timezone=briefer.timezone,
        evidence=evidence,
    )


def answer_text(digest: Digest) -> str:
    """The items' windows as an ask answer: the window, then per item its head and its lines."""
    from briefing.digest.render import heading

    lines = [f"{heading(digest)}:"]
    for section in digest.sections:
        lines.append(f"{section.title}:")
        lines += [f"- {line.text}" for line in section.lines]
    return "\n".join(lines)
