"""Questions about one item, on hand-built chunks: a timeline of it ends with its last word ("What happened with
X?" is told how X ended, though the closing comment shares no word with the question), and a question naming it by
key is answered from its own lines, not from another ticket's link records that share the key's shape."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.embed import Embedder
from briefing.model import Unit
from briefing.question.constraints import Constraints
from briefing.question.parse import from_constraints
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
