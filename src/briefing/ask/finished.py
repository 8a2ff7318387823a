"""Which work items someone finished in a period, listed from the items' transitions and state as of now.

"Which tickets did Dana resolve last week?", "What was resolved yesterday?", "Which tickets targeted at 2.2.1 were
fixed last week?": the answer is the set of items that reached a done state in the window, not a sentence that
happens to rank first. Among the sources whose descriptor declares a history, an item was finished in the window
when one of its recorded transitions (the `events` role: a status change into a done status from one that was not,
or a close) falls there, or, for an item whose source kept no transitions, when the resolution date its state as
of `now` states (the `Resolved:` row of its header) does. A person asked about finished it when they made such a
transition or are the item's assignee as of now. Versions the question names must be among the item's fix
versions; the words before the verb ("Hyperloop tickets") must be said by its title or description. Each line is
cited to the transition's own unit (a changelog entry), else to the state that states the date.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import TYPE_CHECKING, Any

from briefing import registry
from briefing.ask.header import LABELS, is_header, rows
from briefing.ask.listing import most_first, period_words
from briefing.ask.segment import clean
from briefing.index import Filter
from briefing.question.terms import GENERIC, content_words, says
from briefing.question.timewindow import local_day
from briefing.question.words import FINISHED_ITEMS

if TYPE_CHECKING:
    from briefing.ask.extractive import ExtractiveAnswer
    from briefing.model import Chunk, Unit
    from briefing.question.listings import FinishedAsked
    from briefing.question.model import Question
    from briefing.view import View

MAX_LISTED = 15
# The status names of a done state, as trackers' workflows name them.
DONE_STATUS = re.compile(r"^\s*(?:resolved|closed|done|fixed|completed?|finished|released|shipped|verified)\s*$", re.I)
# Resolutions that close an item without its work being done (a duplicate, a report that was not a bug).
NO_WORK = re.compile(
    r"\b(?:duplicate|invalid|won'?t|cannot|can'?t|not\s+(?:a|our)|incomplete|rejected|obsolete|declined|"
    r"abandoned|out\s+of\s+scope|not\s+planned)\b",
    re.I,
)
# Lifecycle events that end an item whatever its workflow calls the state.
_CLOSING_EVENTS = frozenset({"closed"})
# Words of the narrowing that relate an item to a version or plan rather than say what it is about.
_RELATION_WORDS = content_words(
    "which what how many targeted aimed planned scheduled slated set marked for at in on of the"
)
# Question text: an item type the narrowing names ("which bugs", "how many stories"): items whose header states a
# type are listed only when it is that type ("Type: Bug"); "tickets", "issues" and "work" name no type.
_ITEM_TYPE = re.compile(r"\b(bug|stor(?:y|ies)|task|sub-?task|epic|improvement|feature)s?\b", re.I)
# A release version as questions and fields write it ("2.2.1", "v7.0").
_VERSION = re.compile(r"^v?\d+(?:\.\d+)+$")


@dataclass(frozen=True)
class Finished:
    """One item finished in the window: when, by whom (or its assignee), the unit that says so."""

    key: str
    title: str
    at: datetime | date
    by: str
    assignee: str
    unit: Unit
    transition: bool
    resolution: str = ""
    # Asked about a person: the item records nobody who finished it (no author of its transition, no assignee), so
    # whether they did is not known (a GitHub export records a close without its closer).
    unattributed: bool = False

    @property
    def without_work(self) -> bool:
        """Closed as a duplicate, invalid, won't do...: ended, not finished."""
        return bool(NO_WORK.search(self.resolution))


def history_families() -> tuple[str, ...]:
    """The sources whose items have a state that changes over time (their descriptor declares a history)."""
    return tuple(dict.fromkeys(d.family for d in registry.descriptors() if d.history))


def fix_versions(cells: dict[str, str]) -> set[str]:
    """The fix versions a header's rows state, each as its bare number ("Release 6.3.0" -> "6.3.0")."""
    listed = ",".join(cells.get(label, "") for label in LABELS["fix_version"])
    return {v.strip().lower().rsplit(" ", 1)[-1].lstrip("v") for v in listed.split(",") if v.strip()}


def _when(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value))
    except ValueError:
        return None


def closing(ev: dict[str, Any]) -> bool:
    """Whether a recorded event ends its item: a close, or a status change into a done state from one that was not."""
    kind = str(ev.get("event") or "")
    return kind in _CLOSING_EVENTS or (
        kind == "status"
        and bool(DONE_STATUS.match(str(ev.get("to") or "")))
        and not DONE_STATUS.match(str(ev.get("from") or ""))
    )


def transitions(chunk: Chunk, window: tuple[datetime, datetime], now: datetime) -> list[tuple[datetime, str, str]]:
    """(when, by whom, the unit's ref) of each change of `chunk` into a done state inside `window`, by `now`."""
    out = []
    for ev in registry.meta(chunk, "events"):
        done = closing(ev)
        at = _when(ev.get("at"))
        if done and at is not None and window[0] <= at < window[1] and at <= now:
            out.append((at, str(ev.get("by") or ""), str(ev.get("ref") or "")))
    return out


def day_of(value: str) -> date | None:
    try:
        return date.fromisoformat(value.strip()[:10])
    except ValueError:
        return None


def day_in(day: date, window: tuple[datetime, datetime], now: datetime) -> bool:
    """Whether the `Resolved:` day of a state falls in the window by now. That row is the UTC day of the resolution
    instant (written so at ingest, where the workspace's zone is not known), so the instant lies within that UTC day:
    its middle, 12:00 UTC, stands for it (the day a window in another time zone shares with its neighbour goes to
    the side that holds most of it)."""
    middle = datetime(day.year, day.month, day.day, 12, tzinfo=UTC)
    return window[0] <= middle < window[1] and middle <= now + timedelta(hours=12)


def asked_types(words: str) -> set[str]:
    """The item types a question's words name ("bugs", "stories"), each by its first four letters ("stor")."""
    return {m[1].lower()[:4] for m in _ITEM_TYPE.finditer(words)}


def names_match(asked: Sequence[str], name: str) -> bool:
    """Whether a name (a transition's author, an assignee) is one of the people asked about: every word of an asked
    name is one of its words ("Daniel" is "Daniel Passos")."""
    said = set(name.lower().replace(".", " ").split())
    return any(words and words <= said for words in (set(a.lower().split()) for a in asked))


def _narrowing_words(asked: FinishedAsked) -> set[str]:
    text = _ITEM_TYPE.sub(" ", FINISHED_ITEMS.sub(" ", asked.narrowing))  # an item type is no topic word
    return {w for w in content_words(text) - GENERIC - _RELATION_WORDS if not _VERSION.match(w)}


def finished_items(
    asked: FinishedAsked, question: Question, window: tuple[datetime, datetime], view: View
) -> list[Finished]:
    """The items finished in `window` as of the view's `now`, by the person asked about, oldest first."""
    families = history_families()
    if not families:
        return []
    by_doc: dict[str, list[Chunk]] = {}
    for chunk in view.chunks(Filter(source_types=families, start=window[0], end=window[1])):
        by_doc.setdefault(chunk.doc_key, []).append(chunk)
    people = [p for p in (*question.constraints.people, asked.by) if p]
    versions = {v.lower().lstrip("v") for v in question.constraints.versions}
    topic = _narrowing_words(asked)
    types = asked_types(asked.narrowing)
    found: list[Finished] = []
    for key, chunks in by_doc.items():
        units = {u.ref: u for c in chunks for u in c.units}
        chunks.sort(key=lambda c: (c.start, c.ordinal, c.chunk_id))
        header = next((u for c in chunks for u in c.units if u.ref == key and is_header(u.text)), None)
        cells = rows(header.text) if header is not None else {}
        assignee = cells.get("assignee", "")
        resolution = cells.get("resolution", "")
        moves = sorted(m for c in chunks for m in transitions(c, window, view.now))
        unknown = bool(people) and not assignee and not any(m[1] for m in moves)
        if people:
            kept = [m for m in moves if names_match(people, m[1])] or (moves if names_match(people, assignee) else [])
            moves = kept or (moves[:1] if unknown else [])
        title = chunks[0].title
        if versions and not versions <= fix_versions(cells):
            continue
        stated = cells.get("type", "").lower().replace("-", "")
        if types and stated and not any(t.replace("-", "") in stated for t in types):
            continue
        own = " ".join(u.text for u in units.values() if u.ref == key)
        if topic and not all(says(content_words(f"{title} {own}"), w) for w in topic):
            continue
        if moves:
            at, by, ref = moves[0]
            unit = units.get(ref) or header or chunks[0].units[0]
            found.append(Finished(key, title, at, by, assignee, unit, True, resolution, unknown))
            continue
        resolved = day_of(cells.get("resolved", ""))
        if header is None or resolved is None or not day_in(resolved, window, view.now):
            continue
        if people and assignee and not names_match(people, assignee):
            continue
        found.append(Finished(key, title, resolved, "", assignee, header, False, resolution, unknown))
    found.sort(key=lambda f: (f.at.isoformat(), f.key))
    return found


def _line(n: int, item: Finished, zone: tzinfo) -> str:
    day = local_day(item.at, zone)  # the day in the workspace's zone, as the asked window's days are
    when = f"{day:%a} {day.day} {day:%b}"
    who = f"by {item.by}" if item.by else (f"assignee {item.assignee}" if item.assignee else "")
    detail = ", ".join(p for p in (f"finished {when}", who) if p)
    return f"- {clean(item.title, limit=160)} ({detail}) [{n}]"


def answer_finished(
    asked: FinishedAsked, question: Question, answer: ExtractiveAnswer, view: View, *, zone: tzinfo
) -> tuple[ExtractiveAnswer, list[str]] | None:
    """The list of the items finished in the question's window (up to now when it names none), each cited to the
    unit that records it, with their keys; None when there are none, so the question takes the next path. Days are
    named in `zone`, the workspace's."""
    window = question.window
    span = (
        (window.start, window.end) if window is not None else (datetime.min.replace(tzinfo=view.now.tzinfo), view.now)
    )
    found = finished_items(asked, question, span, view)
    ended = [item for item in found if not item.unattributed]
    unknown = [item for item in found if item.unattributed and not item.without_work]
    items = [item for item in ended if not item.without_work]
    if not items:
        return _nobody_recorded(unknown, asked, question, answer, zone) if unknown else None
    if asked.by_person:
        return _by_person(items, asked, question, answer, zone)
    unfixed = sorted({item.resolution for item in ended if item.without_work})
    others = len(ended) - len(items)
    period, kind, who = _worded(asked, question, len(items))
    notes = [f"{others} more closed without the work done: {', '.join(unfixed)}"] if others else []
    if unknown:
        them = "it" if len(unknown) == 1 else "them"
        notes.append(f"{len(unknown)} more finished {period} with nobody recorded as finishing {them}")
    closed = f" ({'; '.join(notes)})" if notes else ""
    lead = f"{len(items)} {kind} finished{who} {period}{_more(items)}, oldest first{closed}:"
    return _listed(lead, items, answer, zone), [i.key for i in items]


def _more(items: Sequence[Finished]) -> str:
    return f" ({len(items) - MAX_LISTED} more not shown)" if len(items) > MAX_LISTED else ""


def _listed(lead: str, items: Sequence[Finished], answer: ExtractiveAnswer, zone: tzinfo) -> ExtractiveAnswer:
    """`lead`, then one line per item (up to MAX_LISTED), each cited to the unit that records its finish."""
    lines = [lead]
    cited: dict[int, list[str]] = {}
    urls: dict[int, str] = {}
    for n, item in enumerate(items[:MAX_LISTED], 1):
        lines.append(_line(n, item, zone))
        cited[n], urls[n] = [item.unit.ref], item.unit.url
    return replace(answer, text="\n".join(lines), no_answer=False, cited=cited, urls=urls)


def _nobody_recorded(
    items: list[Finished], asked: FinishedAsked, question: Question, answer: ExtractiveAnswer, zone: tzinfo
) -> tuple[ExtractiveAnswer, list[str]]:
    """Asked who finished what ("Which issues did Ana close last week?", "Who closed the most?") where the items
    finished then record nobody who finished them (no closer, no assignee): that is said, and they are listed."""
    period, kind, who = _worded(asked, question, len(items))
    said = f"No {_plural(kind)} recorded as finished{who} {period}: " if who else ""
    lead = (
        f"{said}{len(items)} {kind} finished {period}{_more(items)}, but the source records nobody who finished "
        f"{'it' if len(items) == 1 else 'them'} (no closer, no assignee), oldest first:"
    )
    return _listed(lead, items, answer, zone), [i.key for i in items]


def _plural(kind: str) -> str:
    return kind if kind.endswith("s") else (f"{kind[:-1]}ies" if kind.endswith("y") else f"{kind}s")


def _by_person(
    items: list[Finished], asked: FinishedAsked, question: Question, answer: ExtractiveAnswer, zone: tzinfo
) -> tuple[ExtractiveAnswer, list[str]] | None:
    """ "Who closed the most tickets last week?": the finished items counted by who finished them (the author of the
    transition, else the assignee as of now, said so), the one who finished the most first, each line cited to up
    to three of the items' records; None when no item names anyone."""
    counted: dict[str, list[Finished]] = {}
    for item in items:
        counted.setdefault(item.by or item.assignee, []).append(item)
    nobody = counted.pop("", [])
    if not counted:
        return _nobody_recorded(nobody, asked, question, answer, zone)
    ranked, _, names = most_first(counted)
    period, kind, _ = _worded(asked, question, len(items))
    notes = [f"{len(nobody)} with nobody recorded"] if nobody else []
    if any(not item.transition for item in items):
        notes.append("counted by assignee where the tracker records no transition")
    more = f" ({'; '.join(notes)})" if notes else ""
    lead = f"{names} finished the most: {len(ranked[0][1])} of {len(items)} {kind} finished {period}{more}."
    lines = [f"{lead} By person:"]
    cited: dict[int, list[str]] = {}
    urls: dict[int, str] = {}
    for n, (who, done) in enumerate(ranked[:MAX_LISTED], 1):
        keys = ", ".join(item.key.split(":", 1)[-1] for item in done[:3])
        rest = f" and {len(done) - 3} more" if len(done) > 3 else ""
        lines.append(f"- {who}: {len(done)} ({keys}{rest}) [{n}]")
        cited[n], urls[n] = [item.unit.ref for item in done[:3]], done[0].unit.url
    return replace(answer, text="\n".join(lines), no_answer=False, cited=cited, urls=urls), [i.key for i in items]


def _worded(asked: FinishedAsked, question: Question, n: int) -> tuple[str, str, str]:
    """The period ("last week", "so far"), the item noun ("ticket", "tickets", "items") and " by <person>" (or "")
    a listing of `n` finished items is worded with."""
    window = question.window
    period = period_words(window.label, "") if window is not None else "so far"
    noun = FINISHED_ITEMS.search(asked.narrowing)
    kind = noun[0].lower() if noun else "items"
    if n == 1:  # "1 ticket", "1 story"
        kind = re.sub(r"ies$", "y", kind) if kind.endswith("ies") else kind.removesuffix("s")
    who = f" by {asked.by or question.constraints.people[0]}" if asked.by or question.constraints.people else ""
    return period, kind, who


def none_finished(
    asked: FinishedAsked, question: Question, answer: ExtractiveAnswer, view: View
) -> ExtractiveAnswer | None:
    """When no item was finished in the window (`answer_finished` found none): the fact answer, first saying that
    the trackers record none ("No tickets recorded as finished by Nigel last week; the closest lines:"), so that a
    person's comments of that week are not read as the work they finished. None when the workspace holds no item
    of a source that keeps a history as of `now` (nothing could record a finished item). A refusal, or an answer
    with a header line of its own ("Nothing from last week; the closest, from ...:"), follows that sentence as it
    is."""
    period, kind, who = _worded(asked, question, 0)
    kind = "items" if kind == "work" else kind
    return none_recorded(f"No {kind} recorded as finished{who} {period}", answer, view)


def none_recorded(said: str, answer: ExtractiveAnswer, view: View) -> ExtractiveAnswer | None:
    """The fact answer after `said`, a sentence that the trackers record none of what was listed ("No open items
    recorded as assigned to Hans as of 2017-11-20"); None when the workspace holds no item of a source that keeps a
    history as of `now`. A refusal, or an answer with a header line of its own, follows the sentence as it is."""
    families = history_families()
    if not families or not view.count(Filter(source_types=families)):
        return None
    if answer.no_answer or answer.text.split("\n", 1)[0].endswith(":"):  # a refusal, or a header of its own
        return replace(answer, text=f"{said}. {answer.text}")
    return replace(answer, text=f"{said}; the closest lines:\n{answer.text}")
