"""eval/probe_refusals.py: a thread probe becomes two evaluation cases, answerable after its conversation and
unanswerable the day before it began, which `brief eval` reads as any dev set."""

from __future__ import annotations

import importlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from briefing.evaluation.cases import load_cases
from tests.evaluation.scripts import eval_script


@pytest.fixture
def probe_refusals(monkeypatch: pytest.MonkeyPatch) -> Any:
    return eval_script(monkeypatch, "probe_refusals", "probe_threads")


def test_a_probe_is_asked_after_its_conversation_and_before_it_began(probe_refusals: Any, tmp_path: Path) -> None:
    threads = importlib.import_module("probe_threads")
    asked, replied = datetime(2026, 3, 2, 9, tzinfo=UTC), datetime(2026, 3, 2, 11, tzinfo=UTC)
    probe = threads.Probe(
        "slack:C/1.0", "How do I rotate the key?", datetime(2026, 3, 3, 11, tzinfo=UTC), frozenset({"r2"}),
        frozenset({"r1"}), frozenset({"r1", "r2"}), "thread",
    )  # fmt: skip
    path = tmp_path / "probes.jsonl"
    cases = probe_refusals.as_cases([probe], {"r1": asked, "r2": replied})
    path.write_text("".join(json.dumps(c) + "\n" for c in cases))
    after, before = load_cases(path)
    assert (after.no_answer, after.gold_refs, after.now_dt) == (False, ("r2",), probe.now)
    assert (before.no_answer, before.gold_refs, before.now_dt) == (True, (), datetime(2026, 3, 1, 9, tzinfo=UTC))
    assert after.question == before.question == "How do I rotate the key?"
