"""The paired comparison calls a change better only when the per-case evidence says so."""

from __future__ import annotations

from typing import Any

import pytest

from briefing.evaluation.compare import compare, paired_test, rank_biserial


def record(cid: str, first_gold_rank: int | None, *, answer: str = "", refused: bool = False) -> dict[str, Any]:
    hits = [{"rank": r, "refs": [f"other-{r}"]} for r in range(1, 11)]
    if first_gold_rank is not None:
        hits[first_gold_rank - 1] = {"rank": first_gold_rank, "refs": ["gold"]}
    return {
        "id": cid,
        "category": "fact",
        "gold_refs": ["gold"],
        "answer_keywords": [["cutover"]],
        "expected_no_answer": False,
        "hits": hits,
        "citations": [],
        "answer": answer,
        "no_answer": refused,
        "timings_ms": {},
    }


def run(ranks: list[int | None], answer: str = "") -> list[dict[str, Any]]:
    return [record(f"case-{i}", rank, answer=answer) for i, rank in enumerate(ranks)]


def test_clearly_better_run_is_called_better() -> None:
    base = run([None] * 12 + [5] * 8)
    new = run([1] * 20, answer="the cutover is on June 9")
    result = compare(base, new)
    assert result["cases_compared"] == 20
    for name in ("recall@10", "mrr@10", "keyword_correct"):
        assert result["metrics"][name]["verdict"] == "better", name
        assert result["metrics"][name]["p_value"] < 0.05
        assert result["metrics"][name]["effect_size"] == 1.0
    assert result["metrics"]["mrr@10"]["improved"] == 20
    assert result["metrics"]["recall@10"]["improved"] == 12  # rank 5 was already inside the top 10


def test_clearly_worse_run_is_called_worse() -> None:
    result = compare(run([1] * 20), run([None] * 20))
    assert result["metrics"]["mrr@10"]["verdict"] == "worse"
    assert result["metrics"]["mrr@10"]["effect_size"] == -1.0


def test_identical_runs_show_no_significant_difference() -> None:
    base = run([1, 2, None, 4] * 5)
    result = compare(base, base)
    for metric in result["metrics"].values():
        assert metric["verdict"] == "no significant difference"
        assert metric["p_value"] == 1.0
        assert metric["effect_size"] == 0.0
    assert result["changed_cases"] == []


def test_a_few_mixed_changes_are_not_significant() -> None:
    base = run([1] * 16 + [2, 2, 1, 1])
    new = run([1] * 16 + [1, 1, 2, 2])
    assert compare(base, new)["metrics"]["mrr@10"]["verdict"] == "no significant difference"


def test_only_shared_case_ids_are_paired() -> None:
    base = run([1, 1, 1])
    new = run([1, 1]) + [record("extra", 1)]
    result = compare(base, new)
    assert result["cases_compared"] == 2
    assert result["only_in_base"] == ["case-2"]
    assert result["only_in_new"] == ["extra"]


def test_effect_size_counts_ranked_magnitudes() -> None:
    # |deltas| ranks: 0.1 -> 1, 0.2 -> 2, 0.3 -> 3; positive 1 + 3 = 4, negative 2: (4 - 2) / 6
    assert rank_biserial([0.1, -0.2, 0.3, 0.0]) == pytest.approx(1 / 3)
    assert paired_test([])["verdict"] == "no significant difference"
