"""Which runner-up lines earn a citation after the answer's first line (`selection.adds_evidence`)."""

from __future__ import annotations

from briefing.ask.extractive.evidence import Evidence
from briefing.ask.extractive.selection import RUNNER_CLOSE, adds_evidence
from briefing.model import Chunk
from tests.ask.chunks import at, slack

PLATFORM = slack(
    "slack:CPLATFORM::4",
    "platform",
    ("Ana Lima", "Where do the payout worker logs end up?", at(6, 3, 9, 0)),
    ("Ben Okoro", "Payout worker logs are shipped to the ops bucket, one file per run.", at(6, 3, 9, 4)),
    ("Ana Lima", "And the staging ones?", at(6, 3, 9, 6)),
)
RANDOM = slack(
    "slack:CRANDOM::9",
    "random",
    ("Chen Wu", "The staging payout worker was slow again today, the queue backed up.", at(6, 2, 15, 0)),
)


def _line(chunk: Chunk, unit: int, score: float, words: set[str], typed: float = 0.0) -> Evidence:
    u = chunk.units[unit]
    return Evidence(
        n=1, ref=u.ref, text=u.text, author=u.author, at_iso=None, chunk=chunk, score=score, unit=unit,
        words=words, typed=typed,
    )  # fmt: skip


LEAD = _line(PLATFORM, 1, 0.65, {"payout", "worker", "logs"})


def test_a_line_from_another_conversation_that_only_adds_a_question_word_is_not_cited() -> None:
    """For "Where are the staging payout worker logs kept?" a message of another channel holds "staging", which the
    reply that answers lacks, but scores well below it: it is about something else and is not cited."""
    aside = _line(RANDOM, 0, 0.65 * (RUNNER_CLOSE - 0.1), {"staging", "payout", "worker"})
    assert not adds_evidence(aside, [LEAD], LEAD.score)


def test_a_close_a_typed_or_a_same_conversation_runner_up_is_cited() -> None:
    close = _line(RANDOM, 0, 0.65 * RUNNER_CLOSE, {"staging"})
    typed = _line(RANDOM, 0, 0.4, {"staging"}, typed=1.0)
    same = _line(PLATFORM, 2, 0.3, {"staging"})
    assert adds_evidence(close, [LEAD], LEAD.score)
    assert adds_evidence(typed, [LEAD], LEAD.score)
    assert adds_evidence(same, [LEAD], LEAD.score)
