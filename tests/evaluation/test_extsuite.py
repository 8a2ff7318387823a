"""Other projects' parser test cases (eval/extsuite.py over ../shared/extsuite) still pass as often as they did.

A floor per family: a change that breaks how brief reads Markdown, Confluence storage, ADF, Slack, question
time expressions, mail replies, MIME, threading, Gmail or iCalendar lowers a count and fails here. Skipped when
the suite is absent (it is data outside the repository).
"""

from __future__ import annotations

import importlib
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

EVAL = Path(__file__).resolve().parents[2] / "eval"
# Cases passed per family when these floors were set (eval/README.md has the table).
FLOORS = {
    "timeexpr": 178,
    "email_reply": 204,
    "email_threads": 32,
    "slack": 86,
    "confluence_storage": 54,
    "jira_adf": 60,
    "calendar_ics": 86,
    "markdown": 200,
    "email_mime": 45,
    "gmail": 6,
}


@pytest.fixture(scope="module")
def report() -> dict[str, dict[str, Any]]:
    sys.path.insert(0, str(EVAL))
    try:
        extsuite = importlib.import_module("extsuite")
        suite = extsuite.default_suite()
        if not (suite / "cases").is_dir():
            pytest.skip(f"no external suite at {suite}")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # icalendar warns about the vendor-prefixed zone names it guesses
            return dict(extsuite.evaluate(suite))
    finally:
        sys.path.remove(str(EVAL))


@pytest.mark.corpus
@pytest.mark.parametrize("family", sorted(FLOORS))
def test_each_family_passes_at_least_as_many_cases_as_before(report: dict[str, dict[str, Any]], family: str) -> None:
    row = report.get(family)
    if row is None:
        pytest.skip(f"the suite has no {family} cases")
    failed = ", ".join(list(row["failures"])[:8])
    assert row["passed"] >= FLOORS[family], (
        f"{family}: {row['passed']}/{row['cases']} (floor {FLOORS[family]}); {failed}"
    )
