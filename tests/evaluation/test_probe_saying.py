"""eval/probe_saying.py: "What did <person> <verb>?" asked of the most active writers, refusals counted by verb."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest

from briefing.model import Chunk
from tests.evaluation.scripts import eval_script

T0 = datetime(2026, 6, 1, 9, tzinfo=UTC)


@pytest.fixture
def probe_saying(monkeypatch: pytest.MonkeyPatch) -> Any:
    return eval_script(monkeypatch, "probe_saying", "probe_threads")


def _chunk(n: int, *authors: str) -> Chunk:
    return Chunk(
        chunk_id=f"c{n}", doc_key=f"d{n}", source_type="slack", kind="slack_channel", title="#dev", text="...",
        refs=[], start=T0, end=T0, authors=list(authors),
    )  # fmt: skip


@dataclass
class _Answer:
    answer: str
    no_answer: bool


@dataclass
class _Brief:
    written: list[Chunk]
    asked: list[tuple[str, datetime]] = field(default_factory=list)

    @property
    def index(self) -> Any:
        return self

    def chunks(self, flt: object) -> list[Chunk]:
        return self.written

    def ask(self, question: str, *, now: datetime, k: int) -> _Answer:
        self.asked.append((question, now))
        refused = question.endswith(("complain?", "flag?"))
        return _Answer("The sources do not cover this." if refused else "- Ana: ...", refused)


def test_the_most_active_writers_are_asked_each_verb_and_refusals_counted(probe_saying: Any) -> None:
    brief = _Brief([_chunk(1, "Ana", "Bo"), _chunk(2, "Ana"), _chunk(3, "Cy")])
    said = probe_saying.run(brief, people=2, now=None)
    asked = [q for q, _ in brief.asked]
    assert len(asked) == 2 * len(probe_saying.VERBS)
    assert "What did Ana suggest?" in asked and "What did Bo complain?" in asked
    assert not any(q.startswith("What did Cy ") for q in asked)  # the third most active writer
    assert all(now == T0 for _, now in brief.asked)  # as of the newest chunk's end
    assert said == "refused 4 of 34 (complain 2, flag 2)"
