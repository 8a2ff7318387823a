"""eval/probe_assigned.py: each assignee's unresolved items, read from the items' headers, are the yardstick."""

from __future__ import annotations

from typing import Any

import pytest

from briefing.model import Unit
from tests.ask.chunks import at, ticket_chunk
from tests.evaluation.scripts import eval_script


@pytest.fixture
def probe_assigned(monkeypatch: pytest.MonkeyPatch) -> Any:
    return eval_script(monkeypatch, "probe_assigned")


def _ticket(key: str, state: str) -> Any:
    unit = Unit(ref=f"jira:{key}", text=f"Type: Bug | Status: {state}", author="Lena Vogt", at=at(6, 1, 9))
    return ticket_chunk(key, f"Ticket {key}", [unit], "PLAT")


def test_only_unresolved_assigned_items_count(probe_assigned: Any) -> None:
    chunks = [
        _ticket("PLAT-1", "In Progress | Assignee: Dana Kim"),
        _ticket("PLAT-2", "Closed | Resolution: Fixed | Assignee: Dana Kim"),
        _ticket("PLAT-3", "Open | Assignee: Unassigned"),
        _ticket("PLAT-4", "Open | Assignee: Omar Haddad"),
    ]
    held, last = probe_assigned.open_by_person(chunks)
    assert held == {"Dana Kim": {"jira:PLAT-1"}, "Omar Haddad": {"jira:PLAT-4"}}
    assert last == max(c.end for c in chunks)
