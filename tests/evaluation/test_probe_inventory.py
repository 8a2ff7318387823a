"""eval/probe_inventory.py: the probe's own reading of item headers is the yardstick its questions are scored by."""

from __future__ import annotations

from typing import Any

import pytest

from briefing.model import Unit
from tests.ask.chunks import at, ticket_chunk
from tests.evaluation.scripts import eval_script


@pytest.fixture
def probe_inventory(monkeypatch: pytest.MonkeyPatch) -> Any:
    return eval_script(monkeypatch, "probe_inventory")


def _ticket(key: str, rows: str) -> Any:
    unit = Unit(ref=f"jira:{key}", text=rows, author="Lena Vogt", at=at(6, 1, 9))
    return ticket_chunk(key, f"{key}: Ticket {key}", [unit], "PLAT")


def test_questions_ask_for_the_items_whose_header_holds_the_values(probe_inventory: Any) -> None:
    items = probe_inventory.read_items(
        [
            _ticket("PLAT-1", "Type: Bug | Status: Open | Priority: Critical\nAssignee: Dana Kim | Reporter: Omar"),
            _ticket(
                "PLAT-2", "Type: Bug | Status: Closed | Priority: Critical\nResolution: Fixed | Fix Version/s: 2.1"
            ),
            _ticket("PLAT-3", "Type: Bug | Status: Closed\nResolution: Duplicate | Fix Version/s: 2.1"),
            _ticket("PLAT-4", "Type: Task | Status: In Progress | Priority: Low\nComponents: iOS"),
        ]
    )
    made = dict(probe_inventory.questions(items))
    assert made["Which open critical bugs are there?"] == {"jira:PLAT-1"}
    assert made["How many open bugs are there?"] == {"jira:PLAT-1"}
    assert made["What went into release 2.1?"] == {"jira:PLAT-2"}  # a duplicate is not work done
    assert made["Which critical-priority tickets are assigned to Dana Kim?"] == {"jira:PLAT-1"}
    assert made["Which tickets reported by Omar are still open?"] == {"jira:PLAT-1"}
    assert made["Which ios tickets are unresolved?"] == {"jira:PLAT-4"}
    assert "Which open critical tasks are there?" not in made  # no such item: no question
