"""A sender name that is a common word ("To : David Airlie", a mail header read as a name) names that person only
where a question writes it as a name: every question with "to" in it would otherwise be about them."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from briefing.model import Person
from briefing.question.constraints import extract
from briefing.question.values import Directory

NOW = datetime(2019, 9, 2, 9, 0, tzinfo=UTC)
LIST = Directory(
    people=[
        Person("P1", "To : David Airlie", (), ("airlied@lists.example",)),
        Person("P2", "Linus Walleij", (), ("linus.walleij@lists.example",)),
    ]
)


@pytest.mark.parametrize(
    ("question", "people"),
    [
        ("What did reviewers say about add reset control to amba bus probe?", []),
        ("What was the feedback on the move to dma-direct helpers?", []),
        ("What did Linus say about the pinctrl fix?", ["Linus Walleij"]),
        ("Which patches did airlied@lists.example send to the list?", ["To : David Airlie"]),
    ],
)
def test_a_common_word_in_a_senders_name_does_not_name_them(question: str, people: list[str]) -> None:
    assert extract(question, now=NOW, directory=LIST).people == people
