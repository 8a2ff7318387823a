"""A refusal names what was searched: only configured sources, never one the question merely mentions."""

from __future__ import annotations

from briefing.ask.nodes import describe_search
from briefing.question.constraints import Constraints


def test_a_source_the_question_names_but_nobody_configured_is_not_claimed_as_searched() -> None:
    asked = Constraints(sources=["github"], channels=["contributing-to-olake"])
    assert describe_search(asked, ["files", "slack"]) == "files, slack; in #contributing-to-olake"


def test_a_configured_source_the_question_names_narrows_the_scope() -> None:
    assert describe_search(Constraints(sources=["slack"]), ["files", "slack"]) == "slack"
