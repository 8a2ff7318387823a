"""What a listing question asks for: documents of a kind, records of an event, finished items, someone's open work.

The readings `briefing.question.kind` hands the listing node (`Wants`), and the reading of a question about the work
assigned to someone, which only the question's words give.
"""

from __future__ import annotations

from dataclasses import dataclass

from briefing.question.words import ASKS_ASSIGNED, NOBODY


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


@dataclass(frozen=True)
class FinishedAsked:
    """ "Which tickets did Dana resolve last week?": work items that reached a done state in the window, by whom
    (their words as asked, "" for anyone), and the words before the verb that narrow which items ("Hyperloop
    tickets targeted at 2.2.1")."""

    by: str
    narrowing: str


def assigned_to(question: str) -> str:
    """ "What is Dana working on?", "Which tickets is Dana assigned to?": the person as the question writes them, or ""
    (also for "we", "the team": nobody in particular)."""
    m = ASKS_ASSIGNED.search(question.strip())
    who = " ".join(next((g for g in m.groups() if g), "").split()) if m else ""
    return "" if who.lower() in NOBODY else who
