"""The dev sets keep to the case contract and their evidence: every gold ref exists, every keyword group occurs
in the gold evidence, and no question copies its evidence (eval/check_*.py, run here so a broken case fails CI)."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

EVAL = Path(__file__).resolve().parents[2] / "eval"
CLOJURIANS = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "slack-clojurians"


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.syspath_prepend(str(EVAL))
    names = (
        "case_checks",
        "check_olake_dev",
        "check_olake_fresh",
        "check_olake_github_dev",
        "check_sample_dev",
        "check_clojurians_dev",
        "check_clojurians_fresh",
    )
    for name in names:
        sys.modules.pop(name, None)
    return importlib.import_module("case_checks")


def _case(**changes: Any) -> dict[str, Any]:
    case = {
        "id": "x1",
        "question": "Which engine reads the delete files?",
        "now": "2026-08-22T09:00:00+00:00",
        "gold_refs": ["slack:C1:1.0"],
        "answer_keywords": [["trino"]],
        "no_answer": False,
        "category": "direct",
    }
    return case | changes


def test_a_case_whose_evidence_does_not_hold_its_answer_is_reported(checks: Any) -> None:
    found = {
        "slack": checks.from_index(
            {"slack:C1:1.0": "Trino reads position deletes since the last release, Ana said."}, "a message"
        )
    }
    assert checks.check_case(_case(), found) == []
    assert checks.check_case(_case(gold_refs=["slack:C1:2.0"]), found) == ["x1: slack:C1:2.0 is not a message"]
    assert checks.check_case(_case(answer_keywords=[["spark"]]), found) == [
        "x1: none of ['spark'] occurs in the gold evidence"
    ]
    assert checks.check_case(_case(gold_refs=["jira:P-1"]), found) == ["x1: unknown ref scheme jira:P-1"]
    copied = _case(question="Who said that trino reads position deletes since the upgrade?")
    assert checks.check_case(copied, found) == [
        "x1: question repeats the evidence ('trino reads position deletes since the'); paraphrase it"
    ]
    assert checks.check_case(_case(no_answer=True), found)[0] == "x1: no_answer flag does not match category"
    assert checks.check_cases([_case(), _case()], found) == ["x1: duplicate id"]


def test_a_category_that_only_one_half_of_the_split_holds_is_reported(checks: Any) -> None:
    fresh = importlib.import_module("check_clojurians_fresh")
    both = [_case(id="c1"), _case(id="c2"), _case(id="c3", category="person")]
    assert fresh.category_split_problems(both) == []
    train_only = [*both, _case(id="c5", category="person")]
    assert fresh.category_split_problems(train_only) == ["category person (2 cases) is not in both halves of the split"]


def test_the_sample_dev_set_holds_to_its_evidence(checks: Any) -> None:
    assert importlib.import_module("check_sample_dev").check() == []


def test_the_olake_dev_sets_hold_to_the_real_corpus(checks: Any, olake: Path) -> None:
    assert importlib.import_module("check_olake_dev").check() == []
    assert importlib.import_module("check_olake_github_dev").check() == []
    # The fresh set, written without running the product on it, keeps to the same rules and to its split.
    assert importlib.import_module("check_olake_fresh").check() == []
    # The held-out near misses for the refusal fit and the off-topic probes: unanswerable cases in the contract.
    for name in ("refusal_extra.jsonl", "offtopic_probes.jsonl"):
        extra = [json.loads(line) for line in (EVAL / name).read_text().splitlines() if line.strip()]
        assert extra and all(case["no_answer"] for case in extra), name
        assert checks.check_cases(extra, {}) == [], name


def test_the_clojurians_dev_set_holds_to_the_real_slack_export(checks: Any) -> None:
    if not (CLOJURIANS / "channels.json").is_file():
        pytest.skip("the Clojurians Slack export is not present beside this checkout (../shared/corpora)")
    assert importlib.import_module("check_clojurians_dev").check() == []
    # The fresh set, written without running the product on it, keeps to the same rules and to its split.
    assert importlib.import_module("check_clojurians_fresh").check() == []


@pytest.mark.parametrize(
    ("corpus", "checker"),
    [("jira-timob", "check_jira_timob_dev"), ("github-mls-protocol", "check_github_mls_dev")],
)
def test_the_split_dev_sets_hold_to_their_real_corpora(checks: Any, corpus: str, checker: str) -> None:
    if not (CLOJURIANS.parent / corpus / "README.md").is_file():
        pytest.skip(f"the {corpus} corpus is not present beside this checkout (../shared/corpora)")
    assert importlib.import_module(checker).check() == []
