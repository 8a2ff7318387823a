"""Which lines an answer quotes and cites: the person asked about first, the reply before the report in a help
thread, no holding reply, no merely topical line from elsewhere, at most two sources."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.embed import Embedder
from briefing.model import Chunk, Unit
from briefing.settings import AnswerSettings, EmbeddingSettings
from tests.ask.chunks import (
    INCIDENT,
    assert_citations_valid,
    at,
    doc,
    help_thread,
    lines,
    slack,
    thread_part,
    ticket_chunk,
)
from tests.ask.parsed import parsed


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("extractive-home"))
    defaults = AnswerSettings()
    yield ExtractiveAnswerer(embedder, min_evidence=defaults.min_evidence, max_sentences=defaults.max_sentences)
    embedder.close()


def test_messages_by_the_person_asked_about_come_first(answerer: ExtractiveAnswerer) -> None:
    channel = slack(
        "slack:CDEV::0",
        "dev",
        ("Aiko Tanaka", "I worked on the retry policy for failed full-load chunks this week.", at(7, 6, 9)),
        ("Krishanu Das", "This week I worked on the state handling tests for the Postgres driver.", at(7, 6, 10)),
    )
    answer = answerer.answer(parsed("What did Krishanu work on this week?", people=["Krishanu Das"]), [channel])
    assert lines(answer)[0]["attribution"].startswith("Krishanu Das in #dev"), answer.text


def test_each_citation_opens_the_message_it_quotes(answerer: ExtractiveAnswerer) -> None:
    units = [
        Unit(u.ref, u.text, u.author, u.at, f"https://team.slack.com/archives/CINCIDENTS/p{i}")
        for i, u in enumerate(INCIDENT.units)
    ]
    linked = Chunk(**{**INCIDENT.__dict__, "units": units, "url": units[0].url})
    answer = answerer.answer(parsed("What did Lena change in PgBouncer to stop the errors?"), [linked])
    quoted = next(n for n, refs in answer.cited.items() if refs == [units[2].ref])
    assert answer.urls[quoted] == units[2].url != linked.url


def test_a_why_question_quotes_the_reply_even_when_the_report_is_worded_like_the_question(
    answerer: ExtractiveAnswerer,
) -> None:
    opening = "Hi team, since yesterday our scheduled Kafka ingestion jobs keep failing."
    chunks = help_thread(
        opening,
        opening[:-1] + " with: logs directory not found. Could someone help?",
        "The worker could not create the jobs folder: no space left on device. Free up the disk on the worker node "
        "and the runs go through.",
    )
    answer = answerer.answer(
        parsed("Why were the scheduled Kafka ingestion jobs failing with a missing log folder?"), chunks
    )
    first = lines(answer)[0]
    assert first["attribution"].startswith("Omar Haddad"), answer.text
    assert "no space left on device" in first["text"]


def test_a_holding_reply_is_not_quoted_beside_the_answer(answerer: ExtractiveAnswerer) -> None:
    root = at(7, 2, 9, 0)
    opening = "Hi team, our Kafka sync to Iceberg stopped writing new snapshots after the upgrade. Any idea?"
    holding = "Thanks for reporting the Kafka sync issue, we will check and get back to you."
    fix = (
        "After the upgrade the Kafka consumer group offset was reset; set auto.offset.reset to earliest and the "
        "sync writes again."
    )
    chunks = [
        thread_part(root.timestamp(), 0, "Priya Shah", opening, ("Priya Shah", opening, root)),
        thread_part(root.timestamp(), 1, "Priya Shah", opening, ("Omar Haddad", holding, at(7, 2, 10))),
        thread_part(root.timestamp(), 2, "Priya Shah", opening, ("Omar Haddad", fix, at(7, 3))),
    ]
    answer = answerer.answer(
        parsed("What was suggested for the Kafka sync that stopped writing snapshots after the upgrade?"), chunks
    )
    assert "auto.offset.reset" in lines(answer)[0]["text"], answer.text
    assert "get back to you" not in answer.text
    assert answer.cited == {1: [chunks[2].units[0].ref]}


def test_a_line_that_announces_what_follows_is_quoted_with_the_next_message(answerer: ExtractiveAnswerer) -> None:
    chunk = slack(
        "slack:CGENERAL::3",
        "general",
        ("Anna Berg", "Happy Tuesday, everyone! We wonder how teams do this, so this week's poll:", at(8, 4, 9)),
        ("Simple Poll", "Merge-on-read: fast writes, slower reads. Worth the trade?", at(8, 4, 9, 2)),
        ("Anna Berg", "Thanks to everyone who voted in last week's poll on delete strategies!", at(8, 4, 9, 30)),
    )
    answer = answerer.answer(parsed("What did this week's community poll ask?"), [chunk])
    shown = lines(answer)
    poll = next(i for i, m in enumerate(shown) if m["text"].endswith("this week's poll:"))
    assert shown[poll + 1]["attribution"].startswith("Simple Poll"), answer.text
    assert "Merge-on-read" in shown[poll + 1]["text"]
    assert answer.cited[int(shown[poll + 1]["n"])] == [chunk.units[1].ref]


def test_a_report_that_restates_the_question_gives_way_to_the_reply(answerer: ExtractiveAnswerer) -> None:
    """The asker's report shares the most words with the question; the reply in the same thread answers it, so
    the reply leads and the report is not cited beside it."""
    opening = "Hey team, had a question about the new 0.9.0 release."
    report = (
        "Will moving our CDC jobs from 0.8.2 to 0.9.0 change the Iceberg tables that were created earlier? "
        "We have a few hundred of them in production."
    )
    reply = "Existing Iceberg tables are untouched by the 0.9.0 upgrade: their table format version stays as it was."
    chunks = help_thread(opening, report, reply)
    answer = answerer.answer(
        parsed("Will moving a CDC job from 0.8.2 to 0.9.0 change Iceberg tables created earlier?"), chunks
    )
    shown = lines(answer)
    assert [m["attribution"].split(" in ")[0] for m in shown] == ["Omar Haddad"], answer.text
    assert answer.cited == {1: [chunks[1].units[0].ref]}


def test_the_report_is_quoted_when_the_question_asks_who(answerer: ExtractiveAnswerer) -> None:
    opening = "Hey team, had a question about the new 0.9.0 release."
    report = "Will moving our CDC jobs from 0.8.2 to 0.9.0 change the Iceberg tables that were created earlier?"
    reply = "Existing tables are untouched: their table format version stays as it was, only new ones get v3."
    chunks = help_thread(opening, report, reply)
    answer = answerer.answer(
        parsed("Who asked whether moving CDC jobs to 0.9.0 changes existing Iceberg tables?"), chunks
    )
    assert "Priya Shah" in answer.text.splitlines()[0], answer.text


def test_the_report_is_quoted_when_the_question_asks_what_was_raised(answerer: ExtractiveAnswerer) -> None:
    """ "What problem was raised?" is answered by the report itself: it is quoted and cited even when a reply in
    its thread is close (for a why or fix question the report gives way to the reply)."""
    opening = "Hi team, our nightly S3 export keeps failing since yesterday."
    report = opening + " It exits after ten minutes with exit code 1 while writing the nightly export."
    reply = (
        "The nightly S3 export failing since yesterday was its temp directory on a 1 GB volume; moved to the data disk."
    )
    chunks = help_thread(opening, report, reply)
    answer = answerer.answer(parsed("What problem with the nightly S3 export was raised yesterday?"), chunks)
    quoted = [m["attribution"].split(" in ")[0] for m in lines(answer)]
    assert "Priya Shah" in quoted, answer.text
    assert chunks[0].units[0].ref in [ref for refs in answer.cited.values() for ref in refs], answer.text


def test_a_merely_topical_line_from_another_conversation_is_not_cited(answerer: ExtractiveAnswerer) -> None:
    """A line of another channel that shares the question's words, close to the answer's score but holding
    nothing the question asks that the answer lacks (an alert routing note), gets no line and no citation."""
    opening = "Hi team, our nightly S3 export keeps failing since yesterday."
    thread = help_thread(
        opening,
        opening + " It exits after ten minutes with exit code 1.",
        "The nightly S3 export was failing because its temp directory filled the 1 GB volume; point "
        "EXPORT_TMP_DIR at the data disk and it completes.",
    )
    routing = "The nightly S3 export failing alerts now page the data on-call instead of #general."
    other = slack("slack:CGENERAL::7", "general", ("Lena Vogt", routing, at(6, 1)))
    context = [*thread, other]
    answer = answerer.answer(parsed("Why was the nightly S3 export failing?"), context)
    assert "EXPORT_TMP_DIR" in lines(answer)[0]["text"], answer.text
    assert other.units[0].ref not in [ref for refs in answer.cited.values() for ref in refs], answer.text
    assert_citations_valid(answer, context)


def test_the_opening_message_is_quoted_for_what_was_raised_not_a_later_follow_up(answerer: ExtractiveAnswerer) -> None:
    """ "What problem was raised?" quotes the message that raised it: the thread's opener, not the starter's later
    "here are the full logs", which shares the question's words no better and says nothing of the problem."""
    root = at(8, 9, 8, 0)
    opening = "Syncs of the CallLog table fail: grpc says the message is larger than the maximum size of 1 GB."
    chunks = [
        thread_part(root.timestamp(), 0, "Nitish Gupta", opening, ("Nitish Gupta", opening, root)),
        thread_part(
            root.timestamp(),
            1,
            "Nitish Gupta",
            opening,
            ("Saksham Samarth", "Thanks for raising this, we will check.", at(8, 9, 8, 30)),
        ),
        thread_part(
            root.timestamp(),
            2,
            "Nitish Gupta",
            opening,
            ("Nitish Gupta", "Full logs of the new run in help, attached.", at(8, 9, 9, 0)),
        ),
    ]
    answer = answerer.answer(parsed("What problem was raised in the help channel?"), chunks)
    first = lines(answer)[0]
    assert "maximum size" in first["text"], answer.text
    assert answer.cited[1] == [chunks[0].units[0].ref]


def test_who_asked_in_a_question_names_the_asker_and_the_reply_still_answers(answerer: ExtractiveAnswerer) -> None:
    """ "... offered to the newcomer who asked to take #649?" is not a question about what was asked: the reply that
    offers the issues leads, not the newcomer's request."""
    root = at(8, 17, 17, 0)
    request = "Hi, newcomer here: I would like to take the starter issue #649, can you assign it to me?"
    offer = "@Vishesh these are the 2 good first issues of higher priority for you: #1131 and #1128."
    chunks = [
        thread_part(root.timestamp(), 0, "Vishesh Singh", request, ("Vishesh Singh", request, root)),
        thread_part(root.timestamp(), 1, "Vishesh Singh", request, ("Nayan Joshi", offer, at(8, 20, 8, 0))),
    ]
    answer = answerer.answer(
        parsed("Which starter issues were offered to the newcomer who asked to take #649?"), chunks
    )
    first = lines(answer)[0]
    assert "#1131" in first["text"] and first["attribution"].startswith("Nayan Joshi"), answer.text
    assert answer.cited[1] == [chunks[1].units[0].ref]


def test_a_commit_hash_in_the_question_finds_the_line_that_holds_it(answerer: ExtractiveAnswerer) -> None:
    """A commit hash names one change: the line that holds it answers "What does commit f8f7cf1 change?", not the
    better-worded paragraph about commits and changes in general."""
    lineage = doc(
        "blog/row-lineage.md",
        "Row lineage",
        "anshika",
        at(6, 12),
        "The last updated sequence number is always set to the commit that last touched the row, so every change "
        "to a row moves it to the newest commit.",
    )
    pr = slack(
        "slack:CDEV::1",
        "dev",
        (
            "Erik Wickstrom",
            "PR #1070 pick the slot LSN source by recovery state, so CDC works on a read replica; merged as f8f7cf1.",
            at(8, 10),
        ),
    )
    ci = doc(
        "docs/ci.md",
        "Continuous integration",
        "vaibhav",
        at(5, 2),
        "Every commit to main runs the integration suite, and a change that fails it is reverted.",
    )
    answer = answerer.answer(parsed("What does commit f8f7cf1 change?"), [lineage, ci, pr])
    first = lines(answer)[0]
    assert "read replica" in first["text"], answer.text
    assert answer.cited[1] == [pr.units[0].ref]


def test_a_fact_answer_cites_at_most_two_sources(answerer: ExtractiveAnswerer) -> None:
    """A fact answer quotes its best line and one more source at most: a third line may only read on in a source
    already quoted. Three channels that each say something about the export get two citations, not three."""
    context = [
        slack(
            "slack:CDATA::1",
            "data",
            ("Omar Haddad", "The nightly S3 export now runs at 02:00 UTC on the data disk.", at(7, 2)),
        ),
        slack(
            "slack:COPS::1",
            "ops",
            ("Lena Vogt", "Nightly S3 export alerts page the data on-call at 02:30 UTC.", at(7, 3)),
        ),
        slack(
            "slack:CGEN::1",
            "general",
            ("Priya Shah", "Reminder: the nightly S3 export starts at 02:00 UTC, after the backup window.", at(7, 4)),
        ),
    ]
    answer = answerer.answer(parsed("When does the nightly S3 export run?"), context)
    assert len(answer.cited) == 2, answer.text
    assert len(lines(answer)) == 2, answer.text
    assert_citations_valid(answer, context)


def test_who_answered_names_the_replier_whatever_their_reply_says(answerer: ExtractiveAnswerer) -> None:
    """'Who answered the question "<the opening>"?' asks who replied in that thread: a reply that shares none of the
    opening's words ("Possible related message at 3:07pm yesterday") is still the answer, not the asker."""
    opening = "Is there a GDPR solution for the ledger archive? Something along the lines of excision"
    chunks = help_thread(opening, opening, "Possible related message at 3:07pm yesterday")
    answer = answerer.answer(parsed(f'Who answered the question "{opening.split("?")[0]}?"?'), chunks)
    assert answer.text.startswith("Omar Haddad — "), answer.text
    # Asked what the fix was, the same reply is too far from the question to lead over the report.
    fixed = answerer.answer(parsed("What was the GDPR solution for the ledger archive?"), chunks)
    assert lines(fixed)[0]["attribution"].startswith("Priya Shah"), fixed.text


@pytest.mark.parametrize("verb", ["replied to", "commented on", "weighed in on"])
def test_who_replied_to_a_ticket_names_a_commenter_not_its_reporter(answerer: ExtractiveAnswerer, verb: str) -> None:
    """The reporter's description words the question best, and their own follow-up repeats it; who replied is the
    one who commented, whatever their comment's words."""
    made = [
        Unit("jira:OPS-7", "The nightly ledger export fails with a timeout on the statements table.", "Lena Vogt",
             at(6, 2, 9)),
        Unit("jira:OPS-7#comment-1", "Raised the statement query timeout to 120 s; last night's run went through.",
             "Tomás Herrera", at(6, 2, 15)),
        Unit("jira:OPS-7#comment-2", "The nightly ledger export still fails with a timeout on Mondays.", "Lena Vogt",
             at(6, 3, 9)),
    ]  # fmt: skip
    chunks = [ticket_chunk("OPS-7", "Nightly ledger export fails with a timeout", made, "OPS")]
    answer = answerer.answer(parsed(f"Who {verb} the nightly ledger export failing with a timeout?"), chunks)
    assert answer.text.startswith("Tomás Herrera"), answer.text
    assert "Lena Vogt [" not in answer.text.splitlines()[0]  # the reporter is not named beside him
