"""Fuzzing time extraction: any mix of date words resolves to well-formed windows or none, never an error."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from briefing.question.constraints import Constraints, extract
from tests.fuzz.strategies import DEEP, FAST, tokens_text

TIME_TOKENS = [
    " ", "from ", "between ", " and ", " to ", "-", "–", "since ", "until ", "before ", "after ", "the ", "of ",
    "on ", "last ", "next ", "this ", " ago", " week", " weeks", "month", "quarter", "year", "weekend", "2026",
    "1999", "13", "1", "31", "32", "0", "999", "1st", "22nd", "first", "twenty-first", "thirtieth", "march",
    "May", "July", "sept", "Feb", "monday", "Fridays", "thursdays", "yesterday", "today", "Q3", "H1", "1.10.30",
    "12/05/2025", "2026-02-30", "v2.3", "'s", ",", ".", "?", "PLAT-12", "#45",
]  # fmt: skip
BUDGETS = [pytest.param(FAST, id="fast"), pytest.param(DEEP, id="deep", marks=pytest.mark.slow)]
NOW = datetime(2026, 6, 15, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize("budget", BUDGETS)
def test_time_extraction_never_crashes_and_windows_are_well_formed(budget: Any) -> None:
    @budget
    @given(tokens_text(TIME_TOKENS, 14), st.sampled_from(["UTC", "America/Los_Angeles", "Asia/Kolkata"]))
    def check(question: str, zone: str) -> None:
        found = extract(question, now=NOW, timezone=zone)
        if found.time is not None:
            assert found.time.start < found.time.end
            assert found.time.start.utcoffset() is not None
            assert Constraints.from_json(found.to_json()).time == found.time
        for kind, span in found.spans:
            assert question[span.start : span.end] == span.text, kind

    check()
