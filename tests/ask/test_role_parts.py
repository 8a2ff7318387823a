"""A two-part question with a role part ("What was sketched for the user management mockups, and who is it assigned
to?") answers the role from the ticket's state as of now, cited to its header, not from the writer of the line the
fact answer quotes; through a real index and its `View` (the JIRA Server ticket of `test_structured`)."""

from __future__ import annotations

from datetime import datetime

from briefing.ask.extractive import ExtractiveAnswer
from briefing.ask.role_parts import with_role_parts
from briefing.index import Filter, Index
from briefing.question.parse import parse
from tests.ask.test_structured import index  # noqa: F401 (the fixture)

SKETCHED = 'Matthias Wessendorf in AEROGEAR-43: User management mockups: "I sketched the user list."'
# The fact answer as the extractive stage writes it: one line per part, the role part's line naming the writer of
# the best line it found.
FACT = ExtractiveAnswer(
    text=(
        f"What was sketched for the user management mockups: {SKETCHED} [1]\n"
        f"Who is it assigned to: Matthias Wessendorf — {SKETCHED} [1]"
    ),
    no_answer=False,
    cited={1: ["jira:AEROGEAR-43#comment-77"]},
    urls={1: "https://issues.example.org/browse/AEROGEAR-43?focusedCommentId=77"},
)


def _ask(index: Index, question: str, now: str, answer: ExtractiveAnswer = FACT) -> ExtractiveAnswer:  # noqa: F811
    at = datetime.fromisoformat(now)
    view = index.view(at)
    chunks = sorted(view.chunks(Filter()), key=lambda c: (c.doc_key != "jira:AEROGEAR-43", c.chunk_id))
    return with_role_parts(parse(question, now=at), answer, chunks, view)


def test_the_role_part_is_the_assignee_as_of_now_cited_to_the_ticket(index: Index) -> None:  # noqa: F811
    found = _ask(
        index,
        "What was sketched for the user management mockups, and who is it assigned to?",
        "2013-07-20T00:00:00+00:00",
    )
    first, role = found.text.splitlines()
    assert first == f"What was sketched for the user management mockups: {SKETCHED} [1]"
    assert role == 'Who is it assigned to: AEROGEAR-43 ("User management mockups") is assigned to Zoe Braden [2].'
    assert found.cited == {1: ["jira:AEROGEAR-43#comment-77"], 2: ["jira:AEROGEAR-43"]}


def test_asked_before_the_assignment_the_ticket_was_nobodys(index: Index) -> None:  # noqa: F811
    found = _ask(
        index,
        "What was sketched for the user management mockups, and who is it assigned to?",
        "2013-07-11T00:00:00+00:00",
    )
    assert "is unassigned [2]" in found.text and "Zoe" not in found.text


def test_a_question_without_a_role_part_keeps_the_fact_answer(index: Index) -> None:  # noqa: F811
    question = "What was sketched for the user management mockups, and why was it needed?"
    answer = ExtractiveAnswer(
        text=f"What was sketched for the user management mockups: {SKETCHED} [1]\nWhy was it needed: the sources "
        "do not say.",
        no_answer=False,
        cited={1: ["jira:AEROGEAR-43#comment-77"]},
    )
    assert _ask(index, question, "2013-07-20T00:00:00+00:00", answer) is answer


def test_a_role_no_item_described_holds_keeps_the_fact_answer(index: Index) -> None:  # noqa: F811
    found = _ask(
        index, "What broke the Kubernetes autoscaling, and who is it assigned to?", "2013-07-20T00:00:00+00:00"
    )
    assert "Zoe" not in found.text and found.text == FACT.text
