"""eval/probe_polar.py: yes/no questions about the state of items named by title, the truth read from headers."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

import pytest

from briefing.model import Unit
from tests.ask.chunks import at, ticket_chunk
from tests.evaluation.scripts import eval_script


@pytest.fixture
def probe_polar(monkeypatch: pytest.MonkeyPatch) -> Any:
    return eval_script(monkeypatch, "probe_polar")


def _ticket(key: str, status: str) -> Any:
    return ticket_chunk(
        key,
        f"Statement export times out ({key})",
        [Unit(ref=f"jira:{key}", text=f"Type: Bug | Status: {status}", author="Lena Vogt", at=at(6, 1, 9))],
        "PLAT",
    )


def test_each_item_with_a_stated_state_is_asked_and_the_answer_scored_against_it(probe_polar: Any) -> None:
    chunks = [_ticket("PLAT-1", "Closed | Resolution: Fixed"), _ticket("PLAT-2", "Open | Resolution: Unresolved")]
    drawn = sorted(probe_polar.probes(chunks, random.Random(7)))
    assert [(q, holds) for q, _now, holds, _status in drawn] == [
        ('Is "Statement export times out (PLAT-1)" fixed?', True),
        ('Is "Statement export times out (PLAT-2)" fixed?', False),
    ]
    said = {"PLAT-1": "Yes (status: Closed)", "PLAT-2": "Yes (status: Open)"}  # the second is wrong
    brief = SimpleNamespace(
        index=SimpleNamespace(view=lambda _now: SimpleNamespace(chunks=lambda _flt: chunks)),
        ask=lambda q, now, k: SimpleNamespace(answer=said["PLAT-1" if "PLAT-1" in q else "PLAT-2"]),
    )
    assert probe_polar.run(brief, 2, 7) == "asked 2 (1 yes): right 1"
