"""Questions about one item, on hand-built chunks: a timeline of it ends with its last word ("What happened with
X?" is told how X ended, though the closing comment shares no word with the question), and a question naming it by
key is answered from its own lines, not from another ticket's link records that share the key's shape."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.embed import Embedder
from briefing.model import Unit
from briefing.question.constraints import Constraints
from briefing.question.parse import from_constraints, parse
from briefing.settings import AnswerSettings, EmbeddingSettings
from tests.ask.chunks import assert_citations_valid, at, lines, slack, ticket_chunk
from tests.ask.parsed import LATER, parsed

KEY = "PLAT-77"
OPENING = "The nightly Parquet export drops the footer on files over 2 GB, so readers reject them."
TICKET = ticket_chunk(
    KEY,
    "Parquet export drops the footer on large files",
    [
        Unit(ref=f"jira:{KEY}", text=OPENING, author="Lena Vogt", at=at(6, 1, 9)),
        Unit(
            ref=f"jira:{KEY}#comment-1",
            text="Reproduced: the Parquet export footer is missing on every file above 2 GB in the nightly run.",
            author="Omar Haddad",
            at=at(6, 2, 10),
        ),
        Unit(
            ref=f"jira:{KEY}#comment-2",
            text="Fixed by PLAT-81, which streams the row groups; shipped in 4.2.",
            author="Omar Haddad",
            at=at(6, 5, 16),
        ),
    ],
    "PLAT",
)


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("outcome-home"))
    defaults = AnswerSettings()
    yield ExtractiveAnswerer(embedder, min_evidence=defaults.min_evidence, max_sentences=defaults.max_sentences)
    embedder.close()


def test_what_happened_with_an_item_ends_with_how_it_ended(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(parsed("What happened with the Parquet export ticket?", intent="what_happened"), [TICKET])
    assert not answer.no_answer, answer.text
    quoted = lines(answer)
    assert "PLAT-81" in quoted[-1]["text"], answer.text
    assert f"jira:{KEY}#comment-2" in [ref for refs in answer.cited.values() for ref in refs]
    assert_citations_valid(answer, [TICKET])


def test_a_timeline_of_many_conversations_is_not_padded_with_one_thread_s_last_word(
    answerer: ExtractiveAnswerer,
) -> None:
    """The best line's conversation holds one of the timeline's lines: its closing "thanks" is not what the
    question is about, and no line is added for it."""
    chunks = [
        slack(
            f"slack:CREL{i}::0",
            f"releases{i}",
            ("Nia Park", f"Helm chart {i}.0 is released with pod annotations and image pull secrets.", at(6, 3, 9 + i)),
            ("Sam Roy", "Great, the upgrade worked here, thanks a lot for the quick release today!", at(6, 3, 12 + i)),
        )
        for i in (1, 2, 3)
    ]
    answer = answerer.answer(parsed("What happened with the Helm chart announcements?", intent="what_happened"), chunks)
    assert not answer.no_answer, answer.text
    assert all("upgrade worked" not in line["text"] for line in lines(answer)), answer.text


def test_a_question_naming_a_ticket_by_key_is_answered_from_that_ticket(answerer: ExtractiveAnswerer) -> None:
    other = ticket_chunk(
        "PLAT-90",
        "Retire the v1 export endpoint",
        [
            Unit(ref="jira:PLAT-90", text="PLAT-90 relates to PLAT-91", author="Dana Kim", at=at(6, 4, 9)),
            Unit(
                ref="jira:PLAT-90#comment-1", text="PLAT-90 is blocked by PLAT-92", author="Dana Kim", at=at(6, 4, 10)
            ),
        ],
        "PLAT",
    )
    context = [TICKET, other]
    question = from_constraints(f"What happened to {KEY}?", LATER, Constraints(tickets=[KEY], intent="what_happened"))
    answer = answerer.answer(question, context)
    assert not answer.no_answer, answer.text
    cited = [ref for refs in answer.cited.values() for ref in refs]
    assert cited and all(ref.startswith(f"jira:{KEY}") for ref in cited), answer.text
    assert_citations_valid(answer, context)


def test_a_summary_of_one_ticket_quotes_each_of_its_messages_once(answerer: ExtractiveAnswerer) -> None:
    """A ticket whose long description is read paragraph by paragraph, with more messages than an answer has
    lines: a summary of its discussion quotes the description once and every comment, ending with how it ended,
    not three paragraphs of the description in place of comments."""
    key = "PLAT-95"
    said = [
        ("Lena Vogt", "The discussion of the export format is in this ticket: the nightly export writes CSV today."),
        ("Lena Vogt", "The discussion so far: the export should move to Parquet so readers can skip columns."),
        ("Lena Vogt", "To summarize the discussion of the export: Parquet, with the schema kept in the footer."),
        ("Omar Haddad", "Agreed on Parquet for the export; the readers need the schema in the footer anyway."),
        ("Dana Kim", "The warehouse loader already reads Parquet, so nothing changes on our side."),
        ("Sam Roy", "The finance extract still wants CSV; we can convert on their side for a month."),
        ("Dana Kim", "Row groups of 128 MB keep the reader memory flat in my test run."),
        ("Omar Haddad", "Shipped in 4.3: the nightly export now writes Parquet files."),
    ]
    units = [
        Unit(ref=f"jira:{key}" if i < 3 else f"jira:{key}#comment-{i}", text=text, author=who, at=at(6, 1 + i, 9))
        for i, (who, text) in enumerate(said)
    ]
    chunk = ticket_chunk(key, "Move the nightly export to Parquet", units, "PLAT")
    question = from_constraints(
        f"Summarize the discussion in {key}.", LATER, Constraints(tickets=[key], intent="summary")
    )
    answer = answerer.answer(question, [chunk])
    assert not answer.no_answer, answer.text
    shown = [n for line in lines(answer) for n in re.findall(r"\[(\d+)\]", line[0])]
    assert len(shown) == len(set(shown)), f"each message is quoted once: {answer.text}"
    cited = {ref for refs in answer.cited.values() for ref in refs}
    assert {f"jira:{key}#comment-{i}" for i in range(3, 8)} <= cited, answer.text
    assert "Shipped in 4.3" in lines(answer)[-1]["text"], answer.text
    assert_citations_valid(answer, [chunk])


@pytest.mark.parametrize(
    "asked",
    ["Summarize the discussion in #41.", "What were the main points raised in #41?", "What was discussed in #41?"],
)
def test_a_summary_of_a_whole_discussion_quotes_what_it_is_about_from_several_people(
    answerer: ExtractiveAnswerer, asked: str
) -> None:
    """A review thread with more messages than an answer has lines: asked for as a whole ("Summarize the discussion
    in #41"), its summary quotes the lines about what the thread discusses, from its several reviewers, not the bare
    review records ("review: commented by ...") or an aside, though neither shares fewer of the question's words."""
    key = "github:acme/export#41"
    said = [
        ("lena", "PR #41: write the nightly export as Parquet with the schema in the footer instead of CSV."),
        ("lena", "Good point on the discussion, updated the summary of the pull request."),
        ("omar", "review: commented by omar"),
        ("omar", "Parquet row groups of 128 MB keep the export reader's memory flat; the footer is written last."),
        ("lena", "The weekend rota for the discussion channel moves to Mondays."),
        ("dana", "The warehouse loader reads Parquet already; the export schema in the footer is what it needs."),
        ("dana", "review: commented by dana"),
        ("sam", "The finance extract still reads CSV, so the export keeps a CSV copy for one month."),
        ("lena", "review: commented by lena"),
        ("lena", "Merged: the nightly export now writes Parquet, with a CSV copy until the end of the month."),
    ]
    units = [
        Unit(ref=key if i == 0 else f"{key}#c{i}", text=text, author=who, at=at(6, 1 + i, 9))
        for i, (who, text) in enumerate(said)
    ]
    chunk = ticket_chunk("X-1", "Write the nightly export as Parquet", units, "acme/export")
    title = "acme/export#41: Write the nightly export as Parquet"
    chunk = replace(chunk, doc_key=key, chunk_id=f"{key}::0", source_type="github", kind="github_issue", title=title)
    question = parse(asked, now=LATER)
    answer = answerer.answer(question, [chunk])
    assert not answer.no_answer, answer.text
    quoted = [line["text"] for line in lines(answer)]
    assert not any(text.startswith("review: commented") for text in quoted), answer.text
    assert not any("weekend rota" in text for text in quoted), answer.text
    cited = {ref for refs in answer.cited.values() for ref in refs}
    assert {f"{key}#c3", f"{key}#c5", f"{key}#c7"} <= cited, answer.text
    assert_citations_valid(answer, [chunk])


def test_what_was_decided_about_an_item_leads_with_how_it_ended(answerer: ExtractiveAnswerer) -> None:
    """The opening shares the question's words; the decision, in the item's last message, does not: it leads."""
    key = "PLAT-97"
    said = [
        ("Dana Kim", "Proposal: retire the v1 export endpoint, since every client can use the v2 export endpoint."),
        ("Sam Roy", "Two merchants still call it every night; they need a month's notice."),
        ("Lena Vogt", "Call notes: keep it until 1 March behind a deprecation header, then remove it in 5.0."),
    ]
    units = [
        Unit(ref=f"jira:{key}" if i == 0 else f"jira:{key}#comment-{i}", text=text, author=who, at=at(6, 1 + i, 9))
        for i, (who, text) in enumerate(said)
    ]
    chunk = ticket_chunk(key, "Retire the v1 export endpoint", units, "PLAT")
    answer = answerer.answer(parsed("What was decided about retiring the v1 export endpoint?"), [chunk])
    assert not answer.no_answer, answer.text
    assert "until 1 March" in lines(answer)[0]["text"], answer.text
    assert_citations_valid(answer, [chunk])


def test_a_timeline_of_an_item_named_by_its_title_is_that_item_s(answerer: ExtractiveAnswerer) -> None:
    """'What happened with "<a ticket's summary>"?' names the ticket as surely as its key: another ticket about
    Parquet exports, which shares the question's words, is not quoted."""
    other = ticket_chunk(
        "PLAT-80",
        "Parquet export of large files is slow",
        [
            Unit(
                ref="jira:PLAT-80",
                text="The Parquet export of large files takes an hour.",
                author="Sam Roy",
                at=at(6, 2, 9),
            ),
            Unit(
                ref="jira:PLAT-80#comment-1",
                text="The export drops nothing, it is only slow on large files; row groups help.",
                author="Dana Kim",
                at=at(6, 3, 9),
            ),
        ],
        "PLAT",
    )
    question = parsed('What happened with "Parquet export drops the footer on large files"?', intent="what_happened")
    answer = answerer.answer(question, [other, TICKET])
    assert not answer.no_answer, answer.text
    cited = [ref for refs in answer.cited.values() for ref in refs]
    assert cited and all(ref.startswith(f"jira:{KEY}") for ref in cited), answer.text
    assert_citations_valid(answer, [other, TICKET])


@pytest.mark.parametrize(
    "question",
    [f"What is the latest on {KEY}?", 'What is the latest on "Parquet export drops the footer on large files"?'],
)
def test_the_latest_on_a_named_item_is_its_last_word(answerer: ExtractiveAnswerer, question: str) -> None:
    """The item's opening shares the question's words; where it stands is its latest message, which leads."""
    answer = answerer.answer(
        from_constraints(question, LATER, Constraints(tickets=[KEY] if KEY in question else [], intent="latest")),
        [TICKET],
    )
    assert not answer.no_answer, answer.text
    assert "PLAT-81" in answer.text.splitlines()[0], answer.text
    assert answer.text.startswith("As of Fri 5 Jun"), answer.text
    assert_citations_valid(answer, [TICKET])


@pytest.mark.parametrize(
    "state, expected", [("Closed | Resolution: Fixed", "Yes"), ("Open | Resolution: Unresolved", "No")]
)
def test_whether_an_item_named_by_its_title_is_fixed_is_read_from_its_state(
    answerer: ExtractiveAnswerer, state: str, expected: str
) -> None:
    """A comment shares more of the question's words than the item's header; the header says whether it is fixed."""
    key = "PLAT-130"
    chunk = ticket_chunk(
        key,
        "Statement export times out for large merchants",
        [
            Unit(
                ref=f"jira:{key}",
                text=f"Type: Bug | Status: {state} | Assignee: Omar Haddad",
                author="Lena Vogt",
                at=at(6, 1, 9),
            ),
            Unit(
                ref=f"jira:{key}#comment-1",
                text="Is the statement export for large merchants fixed? It still times out for two of them.",
                author="Sam Roy",
                at=at(6, 2, 9),
            ),
        ],
        "PLAT",
    )
    answer = answerer.answer(parsed('Is "Statement export times out for large merchants" fixed?'), [chunk])
    assert not answer.no_answer, answer.text
    assert answer.text.startswith(f"{expected} (status: {state.split(' |')[0]})"), answer.text
    assert_citations_valid(answer, [chunk])
