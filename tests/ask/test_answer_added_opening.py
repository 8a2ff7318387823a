"""A help thread's opening that the context only added after the strongest chunks tells who asked and what; it does
not make a reply that holds none of the question's words the answer.

The best line is the maintainer's release note that answers ("we have released 0.7.4 with support for capturing
deletes ..."); an early reply in the same thread ("you will get the op type as d") scores close to it. With the
thread's opening retrieved on its own merit, the earliest close reply leads (it answers the opening); with the
opening only added to the context, a reply with none of the question's words stays where it ranked, and one that
holds them still leads.
"""

from __future__ import annotations

from dataclasses import replace

from briefing.ask.extractive.evidence import Evidence
from briefing.ask.extractive.openings import earliest_reply_lead, matched_thread_lead, opening_reply_lead
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


def _lead(rule: str, *, added: bool, early_words: float = 0.0) -> str:
    ranked = _ranked(added=added, early_words=early_words)
    {"earliest": earliest_reply_lead, "opening": opening_reply_lead, "matched": matched_thread_lead}[rule](ranked)
    return ranked[0].text


def test_a_retrieved_opening_makes_the_earliest_close_reply_lead() -> None:
    assert _lead("earliest", added=False).startswith("you will get the op type")


def test_an_added_opening_does_not_promote_a_reply_without_the_questions_words() -> None:
    assert _lead("earliest", added=True).startswith("We have released 0.7.4")


def test_an_added_opening_still_lets_a_reply_with_the_questions_words_lead() -> None:
    assert _lead("earliest", added=True, early_words=0.2).startswith("you will get the op type")


def test_the_other_opening_rules_keep_an_added_openings_reply_without_words_where_it_ranked() -> None:
    # The best line is of another conversation: the opening scoring close to it (or matching the question best on
    # its own) would lift the thread's best reply; an added opening lifts only one holding the question's words.
    for rule in ("opening", "matched"):
        ranked = _ranked(added=True, early_words=0.0)
        other = replace(ranked[0], chunk=replace(ranked[0].chunk, doc_key="slack:COTHER", chunk_id="slack:COTHER::0"))
        thread = [replace(ranked[1]), replace(ranked[2], score=0.79, dense=0.9)]
        lines = [other, *thread]
        {"opening": opening_reply_lead, "matched": matched_thread_lead}[rule](lines)
        assert lines[0] is other, rule
        retrieved = [other, thread[0], replace(thread[1], chunk=_part(0, STARTER, OPENING, 9))]
        {"opening": opening_reply_lead, "matched": matched_thread_lead}[rule](retrieved)
        assert retrieved[0].text.startswith("you will get the op type"), rule
