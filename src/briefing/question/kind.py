"""The answer kind a question asks for, read from its words and constraints alone.

One graph node answers each kind (`briefing.ask.graph`). Some kinds can only be confirmed against the index (an
outline needs one document to match, a listing documents of that kind, a meeting a calendar); the node that
confirms falls back to the next kind the question may take, and in the end to a fact answer. `Wants.kinds` is
that order; the detectors' readings the nodes need (the topic, the kind of document, the meeting words) ride
along, so no node reads the question's words again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from briefing.question.field_asks import FIELD_ASKS
from briefing.question.inventory import InventoryAsked, inventory_asked, most_held
from briefing.question.listings import DocumentsAsked, FinishedAsked, RecordsAsked, assigned_to, records_asked
from briefing.question.parts import question_parts
from briefing.question.values import Constraints
from briefing.question.words import (
    AGENDA_TOPIC,
    ASKS_AGENDA,
    ASKS_AWAITING_REVIEW,
    ASKS_FINISHED,
    ASKS_FINISHED_MOST,
    ASKS_LISTING,
    ASKS_NEXT,
    ASKS_OPEN_FOR,
    AUXILIARIES,
    BRIEFING,
    BROAD,
    CATCH_UP,
    FINISHED_ITEMS,
    LISTING_TOPIC,
    NOBODY,
    NOT_OUTLINE,
    PERIOD_VERB,
    PLAN_WORDS,
    PLANNED,
    SCOPE_WORDS,
    WEEK_OF,
)

# Question text: where the description of the item asked about begins ("the ticket about ...", "the bug that ...").
_DESCRIBED = re.compile(r"\b(?:about|regarding|concerning|that|where|titled|called|named)\b", re.I)


# Question text: a how-question ("How was the crash resolved?" asks how, not whether); the status or state named.
_ASKS_HOW = re.compile(r"^\W*how\b", re.I)
_NAMES_STATE = re.compile(r"\b(?:status|state)\b", re.I)


def _fields_of(part: str) -> list[str]:
    found = sorted((m.start(), name) for name, pattern in FIELD_ASKS if (m := pattern.search(part)))
    # A field's word inside the item's description is what the item is about, not a field asked ("Who is working on
    # the ticket about labels inside nested views?", "Who reported the bug that breaks the status bar?"): once a
    # field is asked before the description begins, the words after its start ask nothing more.
    described = _DESCRIBED.search(part)
    if described is not None and any(at < described.start() for at, _ in found):
        found = [(at, name) for at, name in found if at < described.start()]
    names = [name for _, name in found]
    # A specific review role ("approved", "requested changes") is asked, not reviewers in general.
    if "reviewer" in names and {"approver", "changes"} & set(names):
        names.remove("reviewer")
    # "When was X resolved?" asks the day, not whether it is resolved; "How was X resolved?" asks how.
    if "status" in names and ("resolved" in names or (_ASKS_HOW.match(part) and not _NAMES_STATE.search(part))):
        names.remove("status")
    return names


def fields_asked(question: str, constraints: Constraints) -> tuple[str, ...]:
    """The fields and roles a question about a named ticket or pull request asks for, in the order it asks them;
    empty when it names no ticket key or PR, or when any part of it asks for something else."""
    if not constraints.tickets and not constraints.prs:
        return ()
    names: list[str] = []
    for part in question_parts(question):
        found = _as_of_now(_fields_of(part), constraints)
        if not found:
            return ()
        names += found
    return tuple(dict.fromkeys(names))


# The roles a person plays in an item, which a who-question may ask of an item it names only by description ("Who
# is doing the ticket about the login page?"): the item is the one retrieval finds (`briefing.ask.described`).
# Who resolved an item is asked of one named by key only: by description, the fact path's comment that announces
# the close ("Verified the fix ... Closing.") names who did it more often than the item retrieval finds does.
PERSON_FIELDS = frozenset(
    {"changes", "approver", "reviewer", "tester", "merger", "assignee", "reporter", "organiser", "fixer"}
)
# A question that asks for a person: "who ...", "which engineer / person ...".
_ASKS_WHO = re.compile(r"^\W*(?:who|whose)\b|^\W*(?:which|what)\s+(?:person|people|engineer|developer|one)\b", re.I)


def described_roles(question: str, constraints: Constraints) -> tuple[str, ...]:
    """The person roles a one-part who-question asks of an item it names by description, not by key; empty when it
    names a key, has two parts or asks for something other than a role."""
    if constraints.tickets or constraints.prs or not _ASKS_WHO.search(question):
        return ()
    if len(question_parts(question)) > 1:
        return ()
    names = _fields_of(question)
    return tuple(names) if names and all(name in PERSON_FIELDS for name in names) else ()


def part_roles(part: str) -> tuple[str, ...]:
    """The person roles one part of a two-part question asks of an item ("who requested changes on the X pull
    request", "who is it assigned to"), or the header fields it asks ("what is its status"); empty when the part
    asks anything else."""
    names = _fields_of(part)
    allowed = PERSON_FIELDS if _ASKS_WHO.search(part) else DESCRIBED_FIELDS
    return tuple(names) if names and all(name in allowed for name in names) else ()


# The fields of an item's header a question may ask of an item it names by description ("What is the status of the
# ticket about the login page?", "Which release is the bug that crashes on resume fixed in?"), when it says it asks
# about an item: read as of now from the item retrieval finds, like the roles above. Where it stands ("Where does
# the ticket about X stand?") is asked of an item named so.
DESCRIBED_FIELDS = frozenset(
    {
        "standing",
        "status",
        "resolution",
        "resolved",
        "fix_version",
        "priority",
        "milestone",
        "sprint",
        "created",
        "components",
    }
)
# The fields that say how an item stands, asked whether or not the question says it is about an item.
STATE_FIELDS = frozenset({"standing", "status", "resolution", "resolved", "fix_version"})
_NAMES_ITEM = re.compile(r"\b(?:ticket|issue|bug|pr|pull\s+request|epic|story|task|sub-?task)s?\b", re.I)


def described_fields(question: str, constraints: Constraints) -> tuple[str, ...]:
    """The header fields a one-part question asks of an item it describes (and says is an item, "the ticket about",
    except for `STATE_FIELDS`), not naming its key; empty otherwise. The field is asked before the item is named:
    "Which PR added X, and when was it merged?" asks for an item and a date, not a status."""
    item = _NAMES_ITEM.search(question)
    if constraints.tickets or constraints.prs or len(question_parts(question)) > 1:
        return ()
    asked = [(m.start(), name) for name, pattern in FIELD_ASKS if (m := pattern.search(question))]
    asked = [(at, name) for at, name in asked if name in _as_of_now([name], constraints)]
    if item is None:  # "What is the status of the Parquet footer fix?": its state fields are still asked
        if not asked or not all(name in STATE_FIELDS for _, name in asked):
            return ()
    elif not any(at < item.start() for at, _ in asked):
        return ()
    names = _as_of_now(_fields_of(question), constraints)
    return tuple(names) if names and all(name in DESCRIBED_FIELDS for name in names) else ()


def _as_of_now(names: list[str], constraints: Constraints) -> list[str]:
    """The fields asked, less where the item stands when the question names a period: "Any updates on PLAT-7 this
    week?" asks for that week's briefing, not the state as of now."""
    return [name for name in names if name != "standing" or constraints.time is None]


def finished_asked(question: str, constraints: Constraints) -> FinishedAsked | None:
    """ "Which tickets did Dana finish last week?", "What was resolved yesterday?": work items finished in a window
    (or, naming work items and a person, up to now); None for any other question."""
    most = ASKS_FINISHED_MOST.search(question.strip())
    if most is not None and constraints.time is not None:
        # "Who closed the most tickets last week?": the finished items, counted by who finished them.
        return FinishedAsked("", most["items"], by_person=True)
    m = ASKS_FINISHED.search(question.strip())
    if m is None:
        return None
    who = " ".join((m["who"] or "").split())
    narrowing = question.strip()[: m.start("who") if m["who"] else m.start("passive")]
    if who.lower() in NOBODY:
        who = ""
    if constraints.time is None and not (who and FINISHED_ITEMS.search(narrowing)):
        return None
    return FinishedAsked(who, narrowing)


@dataclass(frozen=True)
class Wants:
    """What the kind detectors read in a question, for the nodes that answer its kinds."""

    # The kinds the question may take, most specific first; the last is always "fact" (or "briefing", which
    # always answers).
    kinds: tuple[str, ...] = ("fact",)
    # A briefing's or summary's topic: the question less its constraints (empty when it names none).
    topic: str = ""
    # "What's planned this week": a window reaching past now, asked about what is ahead.
    forward: bool = False
    documents: DocumentsAsked | None = None
    records: RecordsAsked | None = None
    # "What meetings ... about X": the topic words as worded ("" for none); None when no meetings are asked for.
    agenda: str | None = None
    # "When is the next standup?": the words after "next"; None when not asked.
    next_meeting: str | None = None
    # "the first (second, third, fourth, last) week of" a month, or "".
    week_of: str = ""
    # "Who is assigned to PLAT-142?": the fields of the named item asked for (`fields_asked`), or empty.
    fields: tuple[str, ...] = ()
    # The fields are asked of an item named by description ("the ticket about X"), not by key.
    described: bool = False
    # "Which tickets did Dana resolve last week?" (`finished_asked`), or None.
    finished: FinishedAsked | None = None
    # "What is blocking 7.0.0?": the versions whose unresolved items are asked for, or empty.
    open_for: tuple[str, ...] = ()
    # "Which PRs are waiting for review?": open pull requests nobody has approved.
    awaiting_review: bool = False
    # "What is Dana working on?": the person whose open assigned items are asked for (`listings.assigned_to`), or "".
    assigned_to: str = ""
    # "Which critical bugs are still open?": items picked by the fields of their state as of now, or None.
    inventory: InventoryAsked | None = None
    # "Who has the most open bugs?": the inventory's items counted by assignee.
    by_assignee: bool = False


def period_only(question: str, constraints: Constraints | None) -> bool:
    """ "What was announced in #announcements last week?": a period (and a place) and nothing else asked about,
    which the constraint extractor files as "what happened"."""
    return bool(
        constraints is not None
        and constraints.time is not None
        and constraints.intent == "what_happened"
        and PERIOD_VERB.match(question)
    )


def topic_of(question: str, constraints: Constraints) -> str:
    """What a briefing or summary is about: the question without its constraints and its question words."""
    from briefing.retrieve import residual_query

    if period_only(question, constraints):
        return ""  # the verb ("announced", "discussed") is the question's shape, not a topic
    residual = residual_query(question, constraints)
    if PLANNED.search(question):  # "what's planned" names no topic: what is left after the planning words
        residual = " ".join(PLAN_WORDS.sub(" ", residual).replace("'s", " ").split()).strip(" ?.!")
    # Words that only say where ("the releases channel") or ask to be caught up ("What did I miss") are no topic.
    caught = {w.lower() for m in CATCH_UP.finditer(question) for w in m[0].split()}
    return " ".join(w for w in residual.split() if w not in SCOPE_WORDS and w not in AUXILIARIES and w not in caught)


def wants_forward(question: str, constraints: Constraints | None) -> bool:
    """ "What's planned this week / next week": a window that reaches past now, asked about what is ahead."""
    return bool(constraints is not None and constraints.time is not None and PLANNED.search(question))


def wants_briefing(question: str, constraints: Constraints | None) -> bool:
    """A "what happened" question over a window (or "what's new" / "any updates" with no topic at all)."""
    if constraints is not None and constraints.time is not None and wants_forward(question, constraints):
        return True
    if period_only(question, constraints):
        return True
    if constraints is None or not BRIEFING.search(question):
        return False
    if constraints.time is not None:
        return True
    return not topic_of(question, constraints) and not constraints.tickets and not constraints.prs


def wants_summary(question: str, constraints: Constraints | None) -> bool:
    """A broad question about a topic ("what are the main problems with X"), over no window and no single item:
    the per-conversation summaries answer it, when they were computed."""
    if not BROAD.search(question):
        return False
    constraints = constraints or Constraints()
    if constraints.time is not None or constraints.tickets or constraints.prs:
        return False
    return bool(topic_of(question, constraints).strip())


def wants_outline(question: str, constraints: Constraints) -> bool:
    """A summary of one thing over no period and not about how it stands now: an outline, if one document is it."""
    return constraints.intent == "summary" and constraints.time is None and not NOT_OUTLINE.search(question)


def documents_asked(question: str) -> DocumentsAsked | None:
    m = ASKS_LISTING.search(question.strip())
    if m is None:
        return None
    topic = LISTING_TOPIC.search(m[2]) or LISTING_TOPIC.search(m[3])
    return DocumentsAsked(" ".join(m[1].split()), topic[1] if topic else "")


def agenda_asked(question: str) -> str | None:
    if ASKS_AGENDA.search(question.strip()) is None:
        return None
    about = AGENDA_TOPIC.search(question)
    return about[1] if about else ""


def next_meeting_asked(question: str) -> str | None:
    m = ASKS_NEXT.search(question.strip())
    return m[1] if m else None


def _other_listing(question: str, constraints: Constraints) -> bool:
    """Whether a listing of its own answers the question: pull requests awaiting review, what blocks a release, the
    items someone finished."""
    text = question.strip()
    return bool(
        ASKS_AWAITING_REVIEW.search(text)
        or (constraints.versions and ASKS_OPEN_FOR.search(text))
        or finished_asked(question, constraints) is not None
    )


def read(question: str, constraints: Constraints) -> Wants:
    """The kinds `question` may take, in the order the graph tries them, with what each node needs."""
    fields = fields_asked(question, constraints)
    if fields:
        return Wants(kinds=("fields", "fact"), fields=fields)
    if wants_briefing(question, constraints):
        return Wants(
            kinds=("briefing",),
            topic=topic_of(question, constraints),
            forward=wants_forward(question, constraints),
        )
    held = most_held(question, constraints)
    if held is not None:
        # "Who has the most open bugs?", "How many open tickets does each person have?": counted by assignee.
        return Wants(kinds=("listing", "fact"), inventory=held, by_assignee=True)
    counted = records_asked(question) if constraints.time is not None else None
    if counted is not None and counted.by_person:
        # "Who reviewed the most PRs last week?": the reviews of the period, counted by reviewer.
        return Wants(kinds=("listing", "fact"), records=counted)
    inventory = inventory_asked(question, constraints)
    who = assigned_to(question)
    if inventory is not None and (inventory.narrowed or not who) and not _other_listing(question, constraints):
        # "Which critical bugs are still open?": the items whose state as of now has the fields asked.
        return Wants(kinds=("listing", "fact"), inventory=inventory)
    roles = described_roles(question, constraints) or described_fields(question, constraints)
    if roles:
        return Wants(kinds=("fields", "fact"), fields=roles, described=True)
    if ASKS_AWAITING_REVIEW.search(question.strip()):
        return Wants(kinds=("listing", "fact"), awaiting_review=True)
    if who:
        return Wants(kinds=("listing", "fact"), assigned_to=who)
    if constraints.versions and ASKS_OPEN_FOR.search(question.strip()):
        # "What is blocking the 7.0.0 release?": the items still unresolved with that fix version, as of now.
        return Wants(kinds=("listing", "fact"), open_for=tuple(constraints.versions))
    finished = finished_asked(question, constraints)
    if finished is not None:
        records = records_asked(question) if constraints.time is not None else None
        return Wants(kinds=("listing", "fact"), finished=finished, records=records)
    windowed = constraints.time is not None
    summary = wants_summary(question, constraints)
    agenda = agenda_asked(question) if windowed else None
    following = next_meeting_asked(question)
    documents = documents_asked(question) if windowed else None
    records = records_asked(question) if windowed else None
    week = WEEK_OF.search(question)
    kinds = (
        *(["summary"] if summary else []),
        *(["outline"] if wants_outline(question, constraints) else []),
        # A question asks for meetings in its window, or for the next one, never both (both forms open it).
        *(["meetings"] if agenda is not None or following is not None else []),
        *(["listing"] if documents is not None or records is not None else []),
        "fact",
    )
    return Wants(
        kinds=kinds,
        topic=topic_of(question, constraints) if summary else "",
        documents=documents,
        records=records,
        agenda=agenda,
        next_meeting=following,
        week_of=week[1].lower() if week else "",
    )
