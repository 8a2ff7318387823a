"""Metric values computed by hand on small synthetic records."""

from __future__ import annotations

import pytest

from briefing.evaluation.metrics import case_scores, compute, percentile
from tests.evaluation.records import RECORDS, A, B, C, D, E, rec


def test_case_scores_of_a_partly_found_case() -> None:
    scores = case_scores(A, k=10)
    assert scores["hit@5"] == 1.0
    assert scores["hit@10"] == 1.0
    assert scores["recall@5"] == 0.5
    assert scores["recall@10"] == 1.0
    assert scores["mrr@10"] == 0.5
    assert scores["precision@k"] == pytest.approx(0.2)
    assert scores["citation_precision"] == 0.5
    assert scores["citation_recall"] == 0.5
    assert scores["keyword_correct"] == 1.0
    assert scores["no_answer_correct"] == 1.0


def test_hit_needs_a_gold_ref_within_k() -> None:
    late = rec("L", "fact", gold=["g1", "g2"], hits=[["x"]] * 6 + [["g2"]])
    assert case_scores(late)["hit@5"] == 0.0
    assert case_scores(late)["hit@10"] == 1.0
    assert case_scores(late)["recall@10"] == 0.5


def test_precision_divides_by_k() -> None:
    assert case_scores(A, k=5)["precision@k"] == pytest.approx(1 / 5)


def test_refusal_of_an_answerable_case_scores_zero_everywhere() -> None:
    scores = case_scores(B)
    assert scores["recall@10"] == 0.0
    assert scores["hit@10"] == 0.0
    assert scores["mrr@10"] == 0.0
    assert scores["citation_precision"] is None  # nothing cited: precision undefined
    assert scores["citation_recall"] == 0.0
    assert scores["keyword_correct"] == 0.0
    assert scores["no_answer_correct"] == 0.0


def test_keywords_match_any_alternative_case_insensitively_and_need_every_group() -> None:
    partial = dict(A, answer="pgbouncer ran out")
    assert case_scores(partial)["keyword_correct"] == 0.0
    alternative = dict(A, answer="PGBOUNCER had too many CONNECTIONS")
    assert case_scores(alternative)["keyword_correct"] == 1.0


def test_unanswerable_and_ungolded_cases_define_only_no_answer_accuracy() -> None:
    for record, correct in ((C, 1.0), (D, 0.0), (E, 1.0)):
        scores = case_scores(record)
        assert scores.pop("no_answer_correct") == correct
        assert set(scores.values()) == {None}


def test_overall_metrics() -> None:
    overall = compute(RECORDS, k=10)["overall"]
    assert overall["cases"] == 5
    assert (overall["answerable"], overall["unanswerable"]) == (3, 2)
    assert overall["hit@5"] == 0.5
    assert overall["recall@5"] == 0.25
    assert overall["recall@10"] == 0.5
    assert overall["mrr@10"] == 0.25
    assert overall["precision@k"] == 0.1
    assert overall["citation_precision"] == 0.5
    assert overall["citation_recall"] == 0.25
    assert overall["keyword_correctness"] == 0.5
    assert overall["no_answer_accuracy"] == 0.6
    assert overall["false_refusal_rate"] == pytest.approx(1 / 3, abs=1e-4)
    assert overall["refusal_precision"] == 0.5
    assert overall["refusal_recall"] == 0.5
    assert overall["latency_ms"]["total"] == {"p50": 300.0, "p95": 480.0}
    assert overall["latency_ms"]["retrieve"] == {"p50": 150.0, "p95": 240.0}


def test_per_category_split() -> None:
    by_category = compute(RECORDS)["by_category"]
    assert sorted(by_category) == ["fact", "no_answer", "summary"]
    fact = by_category["fact"]
    assert fact["cases"] == 2
    assert fact["recall@10"] == 0.5
    assert fact["false_refusal_rate"] == 0.5
    assert fact["refusal_recall"] is None  # no unanswerable case in this category
    refusals = by_category["no_answer"]
    assert refusals["recall@10"] is None
    assert refusals["no_answer_accuracy"] == 0.5
    assert refusals["refusal_precision"] == 1.0
    assert refusals["false_refusal_rate"] is None
    assert by_category["summary"]["no_answer_accuracy"] == 1.0


def test_empty_run_has_no_values() -> None:
    overall = compute([])["overall"]
    assert overall["cases"] == 0
    assert overall["recall@10"] is None
    assert overall["no_answer_accuracy"] is None
    assert overall["latency_ms"] == {}


def test_percentile_interpolates() -> None:
    assert percentile([], 50) is None
    assert percentile([7.0], 95) == 7.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
