"""A question answered in a channel's own stream (no threads) by a reply that addresses the asker by name.

- "@Ana Ruiz it is an outdated dependency ..." comes an hour and a half after Ana's report, in a later chunk of the
  channel, and shares none of the question's words: it joins the context (cut to that one message, marked as
  added) and leads the answer, over Ana's own report, which only restates the question.
- Without the reply in the context, the answer quotes Ana's report: what the feature changes.
- Only replies by someone else, addressed to the asker by name, within the reply window, are read: not a message
  addressed to someone else, not Ana's own, not one the next day.
- A question put to someone by name ("@Sam Ortiz how do I ...?") is answered by their next message, addressed or
  not, within the hour, unless it speaks to a third person; that answer leads over the question. A reply that opens
  with a name asks nothing of that person: their next message does not take its lead.
- "Who answered / helped with ...?" names the one who replied, not the asker whose message matches best.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

import briefing.retrieve.context as context_module
from briefing.ask.extractive.evidence import Evidence
from briefing.ask.extractive.exchanges import addressed_reply_leads
from briefing.ask.extractive.values import person_span
from briefing.ask.nodes import AskDeps
from briefing.model import ADDED_TO_CONTEXT, Chunk, Unit
from briefing.question.constraints import Directory
from briefing.question.parse import parse
from briefing.retrieve.exchanges import REPLY_HOURS, addressed_replies, addresses, asks, replied_to, reply_positions
from tests.ask_graph import ask_through, chat_deps

NOW = datetime(2026, 7, 1, 9, 0, tzinfo=UTC)
T0 = datetime(2026, 6, 10, 9, 0, tzinfo=UTC)
DOC = "slack:CBUILD"
DIRECTORY = Directory(people=[], channels=["build"])
REPORT = "After upgrading to quillc 3.2 the build fails with: no reader function for tag Inf. Worked on 3.1."
REPLY = "@Ana Ruiz it is an outdated dependency somewhere in your tree; pin the newer one directly"
QUESTION = "Quillc 3.1 built fine but 3.2 complains of no reader function for tag Inf. What is wrong?"


def _unit(minutes: int, author: str, text: str) -> Unit:
    return Unit(f"slack:CBUILD:{1000 + minutes}.1", text, author, T0 + timedelta(minutes=minutes))


def _chunk(n: int, units: list[Unit]) -> Chunk:
    lines = [f"[{u.at:%Y-%m-%d %H:%M} UTC] {u.author}: {u.text}" for u in units if u.at]
    return Chunk(
        chunk_id=f"{DOC}::{n}",
        doc_key=DOC,
        source_type="slack",
        kind="slack_channel",
        title="#build",
        text="\n".join(["#build", *lines]),
        refs=[u.ref for u in units],
        start=min(u.at for u in units if u.at),
        end=max(u.at for u in units if u.at),
        authors=list(dict.fromkeys(u.author for u in units if u.author)),
        container="build",
        units=units,
    )


def chunks() -> list[Chunk]:
    """The channel as the chunker cuts it: Ana's report and some other talk, then, after a silence, the replies."""
    return [
        _chunk(
            0,
            [
                _unit(0, "Ana Ruiz", REPORT),
                _unit(2, "Bo Chen", "anyone going to the meetup on Friday?"),
                _unit(4, "Ana Ruiz", "the 3.2 changelog mentions the new tag literals for Inf and NaN"),
            ],
        ),
        _chunk(
            1,
            [
                _unit(95, "Sam Ortiz", REPLY),
                _unit(97, "Dev Patel", "@Bo Chen yes, see you there"),
                _unit(99, "Ana Ruiz", "@Sam Ortiz thanks, will try"),
            ],
        ),
        _chunk(2, [_unit(60 * (REPLY_HOURS + 2), "Lee Wong", "@Ana Ruiz did the pin work out in the end")]),
        _chunk(3, [_unit(60 * 30, "Bo Chen", "the shared build server is out of disk again")]),
        # Lines on the question's words that answer nothing: the unit list's best units.
        _chunk(4, [_unit(-600, "Sam Ortiz", "quillc 3.2 is out: tag literals for Inf and NaN, a faster reader")]),
        _chunk(5, [_unit(60 * 40, "Bo Chen", "quillc 3.2 builds fine for me, the reader is much faster than 3.1")]),
    ]


@pytest.fixture(scope="module")
def deps(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AskDeps]:
    with chat_deps(tmp_path_factory, chunks(), DIRECTORY) as found:
        yield found


def _ask(deps: AskDeps, question: str) -> tuple[list[Chunk], str]:
    return ask_through(deps, question, NOW)


@pytest.mark.slow
def test_the_reply_addressed_to_the_asker_leads_the_answer(deps: AskDeps) -> None:
    context, answer = _ask(deps, QUESTION)
    assert context[0].chunk_id == f"{DOC}::0"  # the report is what the question matches
    assert answer.splitlines()[0].startswith("- Sam Ortiz in #build")
    assert "outdated dependency" in answer.splitlines()[0]
    added = [c for c in context if REPLY in c.text]
    # Cut to the one message: the side talk and the thanks around it are not evidence.
    assert [[u.text for u in c.units] for c in added] == [[REPLY]]
    assert added[0].metadata.get(ADDED_TO_CONTEXT)


@pytest.mark.slow
def test_without_the_reply_the_answer_quotes_the_report(deps: AskDeps, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(context_module, "ADDRESSED_FROM", 0)
    context, answer = _ask(deps, QUESTION)
    assert not any(REPLY in c.text for c in context)
    assert "outdated dependency" not in answer
    assert answer.splitlines()[0].startswith("- Ana Ruiz in #build")


def test_only_replies_to_the_asker_within_the_window_are_read() -> None:
    found = chunks()

    def channel(key: str, start: datetime, end: datetime) -> list[Chunk]:
        return [c for c in found if c.doc_key == key and c.end >= start and c.start < end]

    added = addressed_replies([found[0]], channel, 1)
    texts = [u.text for c in added for u in c.units]
    # Sam's reply to Ana, and Dev's to Bo (Bo asked too); not Ana's own thanks to Sam (Sam asked nothing), not
    # Lee's message to Ana past the reply window.
    assert texts == [REPLY, "@Bo Chen yes, see you there"]
    assert all(c.units[0].author != "Ana Ruiz" for c in added)


def test_addressing_is_by_the_whole_name_at_the_start() -> None:
    assert addresses("@Ana Ruiz, try the newer one", "Ana Ruiz")
    assert addresses("@Ana Ruiz: try it", "Ana Ruiz")
    assert not addresses("@Ana Ruizova try it", "Ana Ruiz")
    assert not addresses("thanks @Ana Ruiz", "Ana Ruiz")
    assert not addresses("@Ana Ruiz try it", "")


def test_a_message_asks_by_a_question_mark_or_a_problem_report() -> None:
    assert asks("how do I pin it?")
    assert asks("the build fails with a missing namespace")
    assert not asks("see https://example.com/faq?id=3 for the steps")
    # A reply that names the error is an answer, not a report.
    assert not asks("@Ana Ruiz the error is an outdated dependency")


def _stream(*rows: tuple[int, str, str]) -> list[Unit]:
    return [_unit(minutes, author, text) for minutes, author, text in rows]


def test_the_one_a_question_addresses_answers_with_their_next_message() -> None:
    units = _stream(
        (0, "Ana Ruiz", "@Sam Ortiz how do I pin the reader version?"),
        (2, "Bo Chen", "lunch anyone?"),
        (5, "Sam Ortiz", "put it in the deps file directly"),
        (6, "Sam Ortiz", "then run the tree check"),
    )
    assert reply_positions(units, 0) == [2]
    # Sam's first word after the question is to someone else: no reply, and none later counts.
    other = _stream(
        (0, "Ana Ruiz", "@Sam Ortiz how do I pin the reader version?"),
        (5, "Sam Ortiz", "@Bo Chen yes, see you there"),
        (9, "Sam Ortiz", "the weather is nice"),
    )
    assert reply_positions(other, 0) == []
    # An hour and more later, Sam's message is no answer to it.
    late = _stream((0, "Ana Ruiz", "@Sam Ortiz how do I pin it?"), (90, "Sam Ortiz", "put it in the deps file"))
    assert reply_positions(late, 0) == []


def _lines(units: list[Unit], scores: list[float]) -> list[Evidence]:
    chunk = _chunk(9, units)
    return [
        Evidence(1, u.ref, u.text, u.author, u.at.isoformat() if u.at else None, chunk, score=score, unit=pos)
        for pos, (u, score) in enumerate(zip(units, scores, strict=True))
    ]


def test_the_addressees_answer_leads_over_the_question_put_to_them() -> None:
    ranked = _lines(
        _stream((0, "Ana Ruiz", "@Sam Ortiz how do I pin the reader version?"), (5, "Sam Ortiz", "in the deps file")),
        [0.9, 0.1],
    )
    addressed_reply_leads(ranked, fix=False)
    assert [e.author for e in ranked] == ["Sam Ortiz", "Ana Ruiz"]


def test_a_reply_that_opens_with_a_name_keeps_the_lead_on_a_fix_question() -> None:
    ranked = _lines(
        _stream((0, "Sam Ortiz", "@Ana Ruiz pin the newer reader directly"), (2, "Ana Ruiz", "ok, trying that now")),
        [0.9, 0.2],
    )
    # Sam's line answers Ana and asks her nothing: her next message is no answer to it, even for a fix question.
    addressed_reply_leads(ranked, fix=True)
    assert [e.author for e in ranked] == ["Sam Ortiz", "Ana Ruiz"]


def test_a_reply_answers_the_latest_question_of_the_one_it_names() -> None:
    units = _stream(
        (0, "Ana Ruiz", "how do I pin the reader version?"),
        (3, "Ana Ruiz", "I am on quillc 3.2 by the way"),
        (40, "Bo Chen", "lunch anyone?"),
        (60, "Sam Ortiz", "@Ana Ruiz in the deps file"),
    )
    assert replied_to(units, 3) == 1  # her latest message
    assert replied_to(units, 3, asking=True) == 0  # her latest question
    assert replied_to(units, 2) is None  # no name, and nobody asked Bo anything


@pytest.mark.slow
def test_who_answered_names_the_one_who_replied_not_the_asker(deps: AskDeps) -> None:
    _, answer = _ask(deps, "Who answered the question about quillc 3.2 failing with no reader function for tag Inf?")
    assert answer.startswith("Sam Ortiz — "), answer
    _, helped = _ask(deps, "Who helped Ana Ruiz with the quillc 3.2 reader error?")
    assert helped.startswith("Sam Ortiz — "), helped
    _, figured = _ask(deps, "Who figured out why quillc 3.2 fails with no reader function for tag Inf?")
    assert figured.startswith("Sam Ortiz — "), figured
    # The asker's question quoted: its first word opens a sentence, it names nothing the sources must hold.
    _, quoted = _ask(deps, 'Who had the answer to "How do I fix quillc 3.2 failing with no reader function for Inf?"')
    assert quoted.startswith("Sam Ortiz — "), quoted


@pytest.mark.slow
@pytest.mark.parametrize("asked", ["how long until quillc 3.2 reads tag Inf", "when will quillc read tag Inf again"])
def test_who_answered_a_question_that_asks_for_a_value_is_still_a_person(deps: AskDeps, asked: str) -> None:
    """The question quoted asks how long or when; the question about it asks who: the replier, not a duration."""
    _, answer = _ask(deps, f'Who answered the question "{asked}?"')
    assert answer.startswith("Sam Ortiz — "), answer


def test_a_word_that_opens_the_sentence_after_a_mention_is_no_surname() -> None:
    units = _stream((0, "Chris Bidler", "@Marshall Who do I talk to about a license the validator refuses?"))
    (line,) = _lines(units, [0.9])
    question = parse("Who should I talk to about a license the validator refuses?", now=NOW, timezone="UTC")
    assert person_span(question, line, [line.chunk]) == "Marshall"


def test_who_helped_names_the_one_a_line_credits_and_not_the_one_a_reply_addresses() -> None:
    question = parse("Who helped with the quillc reader error?", now=NOW, timezone="UTC")
    credit = _lines(
        _stream((0, "Ben Wu", "pinned it"), (5, "Cara Diaz", "thanks to Ben Wu for sorting out the reader error")),
        [0.2, 0.9],
    )[1]
    assert person_span(question, credit, [credit.chunk]) == "Ben Wu"
    reply = _lines(_stream((0, "Sam Ortiz", "@Ana Ruiz the reader error is an outdated dependency")), [0.9])[0]
    assert person_span(question, reply, [reply.chunk]) == "Sam Ortiz"


def test_who_answered_is_not_the_one_a_reply_mentions_inside_it_unless_it_thanks_them() -> None:
    question = parse("Who answered the question about the compaction issue?", now=NOW, timezone="UTC")
    mid = _lines(
        _stream(
            (0, "Ana Ruiz", "compaction fails"), (9, "Sam Ortiz", "Hey @Ana Ruiz, a few questions: which version?")
        ),
        [0.2, 0.9],
    )[1]
    assert person_span(question, mid, [mid.chunk]) == "Sam Ortiz"
    thanks = _lines(
        _stream((0, "Ben Wu", "pin it"), (5, "Cara Diaz", "Thanks @Ben Wu I will give this a shot")), [0.2, 0.9]
    )[1]
    assert person_span(question, thanks, [thanks.chunk]) == "Ben Wu"


def test_who_answered_is_not_the_one_a_reply_greets_nor_the_one_a_mail_is_sent_to() -> None:
    question = parse("Who replied to the cursor locking patch?", now=NOW, timezone="UTC")
    mail = _lines(
        _stream(
            (0, "Bibby Hsieh", "[2019-08-30 08:00 UTC] Bibby Hsieh to CK Hu | [PATCH] cursor locking\nOne mutex."),
            (9, "CK Hu", "[2019-08-30 08:35 UTC] CK Hu to Bibby Hsieh, Dave Airlie | Re: [PATCH] cursor locking\n"
             "Hi, Bibby: I do not know why this patch is so complicated."),
        ),
        [0.2, 0.9],
    )[1]  # fmt: skip
    assert person_span(question, mail, [mail.chunk]) == "CK Hu"
    greeted = _lines(_stream((0, "Sam Ortiz", "Hello Ana Ruiz, the cursor lock needs one mutex per crtc")), [0.9])[0]
    assert person_span(question, greeted, [greeted.chunk]) == "Sam Ortiz"
