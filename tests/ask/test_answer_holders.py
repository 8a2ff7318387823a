"""A role several people hold at once is answered by its holders; a role one person holds at a time still shows
the sources that differ.

- A pull request reviewed by two people: "Who reviewed ...?" names both, each cited, with no "Sources differ".
- A ticket whose assignee changed: "Who was the ticket ... assigned to?" still says the sources differ, newest
  first, each side cited.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.model import Chunk, Unit
from tests.ask.chunks import at, ticket_chunk
from tests.ask.lines import open_answerer
from tests.ask.parsed import parsed

PR = "github:acme/ledger#pull/412"


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    yield from open_answerer(Path(tmp_path_factory.mktemp("holders-home")))


def _comment(n: int, author: str, text: str, when: datetime) -> Unit:
    return Unit(ref=f"{PR}#comment-{n}", text=text, author=author, at=when)


def pull_request(*comments: Unit) -> Chunk:
    opening = Unit(ref=PR, text="Adds jitter to the payout retry backoff.", author="Dana Kim", at=at(6, 1, 9))
    units = [opening, *comments]
    return Chunk(
        chunk_id=f"{PR}::0",
        doc_key=PR,
        source_type="github",
        kind="github_issue",
        title="acme/ledger PR #412: Add jitter to the payout retry backoff",
        text="\n".join(f"{u.author}: {u.text}" for u in units),
        refs=[u.ref for u in units],
        start=units[0].at or at(6, 1),
        end=units[-1].at or at(6, 1),
        authors=sorted({u.author for u in units if u.author}),
        container="acme/ledger",
        units=units,
        metadata={"pull_request": True},
    )


# The reviewers comment on the pull request too; the lines that say who reviewed name them.
REVIEWED = pull_request(
    _comment(1, "Dana Kim", "Ana Lima reviewed the payout retry jitter change and approved it.", at(6, 2, 10)),
    _comment(2, "Carla Diaz", "Ben Wu reviewed the payout retry jitter change as well.", at(6, 3, 11)),
    _comment(3, "Ana Lima", "Thanks, merging once CI is green.", at(6, 3, 12)),
    _comment(4, "Ben Wu", "Nice work.", at(6, 3, 13)),
)


@pytest.mark.parametrize(
    "question",
    [
        "Who reviewed the payout retry jitter change?",
        "Which people reviewed the payout retry jitter change?",
        "Which engineers have reviewed the payout retry jitter change?",
    ],
)
def test_two_reviewers_of_a_pull_request_are_both_the_answer(answerer: ExtractiveAnswerer, question: str) -> None:
    answer = answerer.answer(parsed(question), [REVIEWED])
    first = answer.text.splitlines()[0]
    assert not first.startswith("Sources differ"), answer.text
    names = {"Ana Lima": REVIEWED.units[1].ref, "Ben Wu": REVIEWED.units[2].ref}
    for name, ref in names.items():
        cited = first.split(name, 1)[1].split("]", 1)[0] if name in first else ""
        assert cited.strip().startswith("["), answer.text
        assert answer.cited[int(cited.strip()[1:])] == [ref], answer.text


def test_an_assignee_that_changed_still_shows_the_sources_that_differ(answerer: ExtractiveAnswerer) -> None:
    key = "PAY-88"
    ticket = ticket_chunk(
        key,
        "Payout export stalls on large batches",
        [
            Unit(f"jira:{key}", "The payout export stalls on large batches.", "Dana Kim", at(6, 1, 9)),
            Unit(f"jira:{key}#c1", "The payout export stall is assigned to Ana Lima.", "Dana Kim", at(6, 2, 9)),
            Unit(f"jira:{key}#c2", "Looking at the batch sizes now.", "Ana Lima", at(6, 3, 9)),
            Unit(f"jira:{key}#c3", "The payout export stall is assigned to Ben Wu.", "Carla Diaz", at(6, 9, 9)),
            Unit(f"jira:{key}#c4", "Taking this over from here.", "Ben Wu", at(6, 9, 10)),
        ],
        "PAY",
    )
    answer = answerer.answer(parsed("Who was the payout export stall assigned to?"), [ticket])
    first = answer.text.splitlines()[0]
    # Newest first: Ben Wu (9 Jun), then Ana Lima (2 Jun), each cited.
    assert first.startswith("Sources differ: Ben Wu ("), answer.text
    assert "; Ana Lima (" in first, answer.text


@pytest.mark.parametrize(
    ("question", "holders"),
    [
        ("Who reviewed the payout retry jitter change?", "many"),
        ("Who tested the fix for the barcode crash?", "many"),
        ("Who attended the ledger design review?", "many"),
        ("Who replied to the thread about the DNS outage?", "many"),
        ("Who took part in the incident call?", "many"),
        ("Who is assigned to the payout export stall?", "one"),
        ("Who owns the ingest service?", "one"),
        ("Who is the lead on the payments project?", "one"),
        ("Who reported the login crash?", "one"),
        ("Who merged the fix for the login crash?", "one"),
        ("Which reviewers approved the payout retry jitter change?", "many"),
        ("Which people reviewed PR #412?", "many"),
        ("Which maintainers reviewed the payout retry jitter change?", "many"),
        ("Which members attended the ledger design review?", "many"),
        ("Which engineers merged the fix for the login crash?", "one"),
        ("Which developers are assigned to the payout export stall?", "one"),
        ("Which reviewers are listed in CODEOWNERS?", ""),
        ("Who fixed the login crash?", ""),
        ("When was the retry change reviewed?", ""),
    ],
)
def test_the_question_says_whether_its_role_has_one_holder_or_several(question: str, holders: str) -> None:
    assert parsed(question).extra["role_holders"] == holders
