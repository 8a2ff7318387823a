"""What a listing question asks for: documents of a kind, records of an event, finished items, someone's open work.

Records of an event are read here too: opened, merged, closed or reopened (`records_asked`), moved into a status
(`moved_asked`), reviewed, approved or commented on (`reviews_asked`).

The readings `briefing.question.kind` hands the listing node (`Wants`), and the reading of a question about the work
assigned to someone, which only the question's words give.
"""

from __future__ import annotations

from dataclasses import dataclass

from briefing.question.words import (
    ASKS_ASSIGNED,
    ASKS_COMMENTED_BY,
    ASKS_EVENTS,
    ASKS_EVENTS_BY,
    ASKS_MOVED,
    ASKS_MOVED_BY,
    ASKS_RECORDS_MOST,
    ASKS_REVIEWED,
    ASKS_REVIEWED_BY,
    ASKS_REVIEWED_MOST,
    EVENT_OF,
    NOBODY,
    PULL,
)


@dataclass(frozen=True)
class DocumentsAsked:
    """ "Which blog posts came out in July?": the kind as the question words it, and a topic ("about Kafka")."""

    kind: str
    topic: str = ""


@dataclass(frozen=True)
class RecordsAsked:
    """ "Which PRs were merged ...?": the kind as worded, the event (merged, opened, closed, reopened), and
    whether pull requests (not issues) are meant."""

    kind: str
    event: str
    pulls: bool
    by: str = ""  # whose event it is ("which PRs did TWal open"): the author of an opening, who merged; "" anyone
    status: str = ""  # the status moved into ("which tickets moved to In Review"), for the event "moved"
    by_person: bool = False  # "Who reviewed the most PRs last week?": counted by who gave the event


@dataclass(frozen=True)
class FinishedAsked:
    """ "Which tickets did Dana resolve last week?": work items that reached a done state in the window, by whom
    (their words as asked, "" for anyone), and the words before the verb that narrow which items ("Hyperloop
    tickets targeted at 2.2.1")."""

    by: str
    narrowing: str
    by_person: bool = False  # "Who closed the most tickets last week?": the items counted by who finished them


def assigned_to(question: str) -> str:
    """ "What is Dana working on?", "Which tickets is Dana assigned to?": the person as the question writes them, or ""
    (also for "we", "the team": nobody in particular)."""
    m = ASKS_ASSIGNED.search(question.strip())
    who = " ".join(next((g for g in m.groups() if g), "").split()) if m else ""
    return "" if who.lower() in NOBODY else who


def records_asked(question: str) -> RecordsAsked | None:
    moved = moved_asked(question)
    if moved is not None:
        return moved
    most = ASKS_RECORDS_MOST.search(question.strip())
    if most is not None:
        kind = " ".join(most["noun"].split())
        event = "merged" if most["verb"].lower() == "merged" else "opened"
        return RecordsAsked(kind, event, bool(PULL.search(kind)), by_person=True)
    reviewed = reviews_asked(question)
    if reviewed is not None:
        return reviewed
    m = ASKS_EVENTS.search(question.strip())
    if m is not None:
        return RecordsAsked(" ".join(m[1].split()), EVENT_OF.get(m[2].lower(), "opened"), bool(PULL.search(m[1])))
    m = ASKS_EVENTS_BY.search(question.strip())
    if m is None:
        return None
    event = "merged" if m[3].lower() == "merge" else "opened"
    return RecordsAsked(" ".join(m[1].split()), event, bool(PULL.search(m[1])), by=m["who"])


def _actor(who: str | None) -> str | None:
    """The person a question names as the one who acted, as written; "" for anyone ("we", "the team"); None for
    nobody ("Which PRs did nobody review?" asks for what was not done, not this listing)."""
    said = " ".join((who or "").split())
    if said.lower() in {"nobody", "no one"}:
        return None
    return "" if all(word in NOBODY for word in said.lower().split()) else said


def moved_asked(question: str) -> RecordsAsked | None:
    """ "Which tickets moved to In Review last week?": the items moved into a status (event "moved"), by someone
    ("Which tickets did Lena move to Done?") or anyone."""
    m = ASKS_MOVED.search(question.strip()) or ASKS_MOVED_BY.search(question.strip())
    if m is None:
        return None
    said = m.groupdict()
    kind = " ".join((said.get("noun") or "").split())
    who = _actor(said.get("who"))
    return None if who is None else RecordsAsked(kind, "moved", False, by=who, status=" ".join(m["status"].split()))


def reviews_asked(question: str) -> RecordsAsked | None:
    """ "Which PRs did bifurcation review last week?", "Which patches were acked?": reviews given (`REVIEW_EVENTS`
    names the event), by someone or by anyone; "Which tickets did Ewan comment on?": comments given ("commented");
    the kind is "" when the question names none ("What did Rob ack?")."""
    commented = ASKS_COMMENTED_BY.search(question.strip())
    if commented is not None:
        kind = " ".join((commented["noun"] or "").split())
        who = _actor(commented["who"])
        return None if who is None else RecordsAsked(kind, "commented", bool(PULL.search(kind)), by=who)
    most = ASKS_REVIEWED_MOST.search(question.strip())
    if most is not None:
        kind = " ".join(most["noun"].split())
        event = "approved" if most["verb"].lower().startswith(("appro", "ack", "sign")) else "reviewed"
        return RecordsAsked(kind, event, bool(PULL.search(kind)), by_person=True)
    m = ASKS_REVIEWED_BY.search(question.strip()) or ASKS_REVIEWED.search(question.strip())
    if m is None:
        return None
    said = m.groupdict()
    verb = (said.get("verb") or said.get("changes") or "").lower()
    event = "approved" if verb.startswith(("appro", "ack", "sign")) else "reviewed"
    kind = " ".join((said.get("noun") or "").split())
    event = "changes requested" if "changes" in verb else event
    who = _actor(said.get("who"))
    return None if who is None else RecordsAsked(kind, event, bool(PULL.search(kind)), by=who)
