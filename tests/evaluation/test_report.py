"""The Markdown report: metric rows and a listing of exactly the failing cases with what was expected."""

from __future__ import annotations

from briefing.evaluation.metrics import compute
from briefing.evaluation.report import failure_reasons, markdown
from tests.evaluation.records import A, B, C, D, E


def test_failure_reasons() -> None:
    assert failure_reasons(A) == []  # gold found at rank 2, keywords present, one gold ref cited
    assert failure_reasons(B) == ["refused a question the sources answer", "no gold ref in the top 10"]
    assert failure_reasons(C) == []
    assert failure_reasons(D) == ["answered a question the sources do not cover"]
    wrong_citation = dict(A, citations=[{"n": 1, "refs": ["y"]}], answer="nothing useful")
    assert failure_reasons(wrong_citation) == ["answer misses expected keywords", "cites no gold ref"]


def test_markdown_lists_metrics_and_failures() -> None:
    records = [A, B, C, D, E]
    text = markdown(compute(records), records, title="Run")
    assert text.startswith("# Run\n")
    assert "| overall | 5 |" in text
    assert "| fact | 2 |" in text
    assert "## Failures (2 of 5 cases)" in text
    assert "### B (fact): q" in text and "- expected: `g3`" in text
    assert "### D (no_answer): q" in text and "- expected: no answer" in text
    assert "- cited: `x`" in text
    assert "### A " not in text
