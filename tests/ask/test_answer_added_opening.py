"""A help thread's opening that the context only added after the strongest chunks tells who asked and what; it does
not make a reply that holds none of the question's words the answer.

The best line is the maintainer's release note that answers ("we have released 0.7.4 with support for capturing
deletes ..."); an early reply in the same thread ("you will get the op type as d") scores close to it. With the
thread's opening retrieved on its own merit, the earliest close reply leads (it answers the opening); with the
opening only added to the context, a reply with none of the question's words stays where it ranked, and one that
holds them still leads; so does any reply when the added opening restates the question (it scores close to the
best line).
"""

from __future__ import annotations

from dataclasses import replace

from briefing.ask.extractive.evidence import Evidence
from briefing.ask.extractive.openings import earliest_reply_lead
from briefing.model import ADDED_TO_CONTEXT, Chunk
from tests.ask.chunks import at, thread_part

ROOT = at(5, 18, 9)
OPENING = "Deletes from my Mongo collection are not applied in Iceberg after the sync, how do I fix this?"
STARTER = "Daniel Park"


def _part(n: int, author: str, text: str, hour: int, *, added: bool = False) -> Chunk:
    chunk = thread_part(ROOT.timestamp(), n, STARTER, OPENING, (author, text, at(5, 18 + n, hour)))
    return replace(chunk, metadata={**chunk.metadata, ADDED_TO_CONTEXT: True}) if added else chunk


def _line(n: int, chunk: Chunk, score: float, lexical: float) -> Evidence:
    unit = chunk.units[0]
    at_iso = unit.at.isoformat() if unit.at else None
    return Evidence(n, unit.ref, unit.text, unit.author, at_iso, chunk, score=score, dense=score, lexical=lexical)


def _ranked(*, added: bool, early_words: float) -> list[Evidence]:
    release = _part(3, "Vikash Rao", "We have released 0.7.4 with support for capturing deletes from Mongo.", 10)
    early = _part(1, "Vera Lind", "you will get the op type as d, which can be used to filter out", 11)
    opening = _part(0, STARTER, OPENING, 9, added=added)
    return [
        _line(1, release, 0.80, 0.5),
        _line(2, early, 0.70, early_words),
        _line(9, opening, 0.60, 0.6),
    ]


def _lead(*, added: bool, early_words: float = 0.0) -> str:
    ranked = _ranked(added=added, early_words=early_words)
    earliest_reply_lead(ranked)
    return str(ranked[0].text)


def test_a_retrieved_opening_makes_the_earliest_close_reply_lead() -> None:
    assert _lead(added=False).startswith("you will get the op type")


def test_an_added_opening_does_not_promote_a_reply_without_the_questions_words() -> None:
    assert _lead(added=True).startswith("We have released 0.7.4")


def test_an_added_opening_still_lets_a_reply_with_the_questions_words_lead() -> None:
    assert _lead(added=True, early_words=0.2).startswith("you will get the op type")


def test_an_added_opening_that_restates_the_question_still_lets_its_earliest_reply_lead() -> None:
    # The opening scores within OPENING_CLOSE of the best line: the question asks what the thread asked, and the
    # reply answers it in its own words.
    ranked = _ranked(added=True, early_words=0.0)
    ranked[2].score = 0.75
    earliest_reply_lead(ranked)
    assert ranked[0].text.startswith("you will get the op type")
