"""eval/cite_report.py: each answer's citation loss falls in the class a reader of the answer would name."""

from __future__ import annotations

from typing import Any

import pytest

from tests.evaluation.scripts import eval_script

GOLD = "slack:CHELP:2.0"


@pytest.fixture
def cite_report(monkeypatch: pytest.MonkeyPatch) -> Any:
    return eval_script(monkeypatch, "cite_report", "split_report")


def _record(case_id: str, cited: list[str], hits: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "id": case_id,
        "gold_refs": [GOLD],
        "citations": [{"n": n, "refs": [ref]} for n, ref in enumerate(cited, 1)],
        "hits": [{"rank": 1, "refs": hits if hits is not None else [GOLD, "slack:CHELP:1.0"]}],
        **extra,
    }


def test_an_answer_led_by_the_question_beside_the_reply_is_a_lead_loss(cite_report: Any) -> None:
    # The question (1.0) is quoted first and the answering reply (2.0) second.
    assert cite_report.case_class(_record("c1", ["slack:CHELP:1.0", GOLD])) == "lead"


def test_a_runner_up_after_the_right_lead_is_an_extra_loss(cite_report: Any) -> None:
    record = _record("c3", [GOLD, "slack:CGENERAL:9.0"])
    assert cite_report.case_class(record) == "extra"
    assert cite_report.lead_only(record) == 1.0


def test_exact_unretrieved_and_undefined_cases(cite_report: Any) -> None:
    assert cite_report.case_class(_record("c5", [GOLD])) == "exact"
    assert cite_report.case_class(_record("c7", ["slack:CX:1.0"], hits=["slack:CX:1.0"])) == "unretrieved"
    assert cite_report.case_class(_record("c9", [])) is None
    assert cite_report.case_class(_record("c11", [GOLD], expected_no_answer=True)) is None


def test_the_report_splits_held_out_ids_and_counts_only(cite_report: Any) -> None:
    records = [_record("c1", ["slack:CHELP:1.0", GOLD]), _record("c2", [GOLD]), _record("c4", [GOLD, "x"])]
    result = cite_report.report({"cases": records})
    assert result["train"]["lead"] == 1 and result["train"]["cases"] == 1
    assert result["held_out"] == {
        "cases": 2,
        "exact": 1,
        "lead": 0,
        "extra": 1,
        "unretrieved": 0,
        "cited_per_answer": 1.5,
        "lead_only_precision": 1.0,
    }
