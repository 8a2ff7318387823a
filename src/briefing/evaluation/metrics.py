"""Metrics over per-case records, pure functions so anyone can recompute them from `brief eval --json`.

Definitions (refs compare as exact strings, DESIGN.md "Native references"):
- A retrieval hit is a returned chunk whose `refs` intersect the case's `gold_refs`.
- recall@k: the share of gold refs contained in the refs of the top-k hits (gold refs that are alternative
  evidence for the same fact all count). hit@k: 1 when any retrieval hit is in the top k (success@k).
- MRR@10: 1 / rank of the first retrieval hit within the top 10, else 0.
- precision@k: retrieval hits among the top k, divided by k.
- citation precision: the share of cited refs (union over citations) that are gold refs; defined when something
  was cited. Citation recall: the share of gold refs that were cited (0 when the system refused).
- keyword correctness: 1 when every keyword group has at least one alternative in the answer (case-insensitive),
  else 0; a refusal scores 0.
- no-answer accuracy: predicted `no_answer` equals the expected one. False-refusal rate: refusals among the cases
  that have an answer. Refusal precision / recall: refusals that were right / expected refusals that happened.
Retrieval and citation metrics use answerable cases with gold refs; keyword correctness uses answerable cases with
keywords. A metric no case defines is None. Aggregates are means of per-case values, overall and per category.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

Record = dict[str, Any]
Scores = dict[str, float | None]

CASE_METRICS = (
    "hit@5",
    "hit@10",
    "recall@5",
    "recall@10",
    "mrr@10",
    "precision@k",
    "citation_precision",
    "citation_recall",
    "keyword_correct",
    "no_answer_correct",
)


def _gold(record: Record) -> set[str]:
    return set(record.get("gold_refs") or ())


def _answerable(record: Record) -> bool:
    return not record.get("expected_no_answer", False)


def relevant_ranks(record: Record) -> list[int]:
    """1-based ranks of the hits whose refs intersect the gold refs."""
    gold = _gold(record)
    return [i for i, hit in enumerate(record.get("hits") or (), 1) if gold & set(hit.get("refs") or ())]


def recall_at(record: Record, k: int) -> float | None:
    gold = _gold(record)
    if not gold:
        return None
    found: set[str] = set()
    for hit in (record.get("hits") or [])[:k]:
        found |= gold & set(hit.get("refs") or ())
    return len(found) / len(gold)


def mrr_at(record: Record, k: int = 10) -> float | None:
    if not _gold(record):
        return None
    ranks = [r for r in relevant_ranks(record) if r <= k]
    return 1.0 / ranks[0] if ranks else 0.0


def hit_at(record: Record, k: int) -> float | None:
    if not _gold(record):
        return None
    return 1.0 if any(r <= k for r in relevant_ranks(record)) else 0.0


def precision_at(record: Record, k: int) -> float | None:
    if not _gold(record):
        return None
    return sum(1 for r in relevant_ranks(record) if r <= k) / k


def cited_refs(record: Record) -> set[str]:
    refs: set[str] = set()
    for citation in record.get("citations") or ():
        refs.update(citation.get("refs") or ())
    return refs


def citation_precision(record: Record) -> float | None:
    cited = cited_refs(record)
    if not cited or not _gold(record):
        return None
    return len(cited & _gold(record)) / len(cited)


def citation_recall(record: Record) -> float | None:
    gold = _gold(record)
    if not gold:
        return None
    return len(cited_refs(record) & gold) / len(gold)


def keyword_correct(record: Record) -> float | None:
    groups = record.get("answer_keywords") or ()
    if not groups or not _answerable(record):
        return None
    if record.get("no_answer"):
        return 0.0
    answer = (record.get("answer") or "").lower()
    ok = all(any(alt.lower() in answer for alt in group) for group in groups)
    return 1.0 if ok else 0.0


def case_scores(record: Record, k: int = 10) -> Scores:
    """Every per-case metric value (None where the case does not define it)."""
    answerable = _answerable(record)
    scores: Scores = dict.fromkeys(CASE_METRICS)
    if answerable:
        scores["hit@5"] = hit_at(record, 5)
        scores["hit@10"] = hit_at(record, 10)
        scores["recall@5"] = recall_at(record, 5)
        scores["recall@10"] = recall_at(record, 10)
        scores["mrr@10"] = mrr_at(record, 10)
        scores["precision@k"] = precision_at(record, k)
        scores["citation_precision"] = citation_precision(record)
        scores["citation_recall"] = citation_recall(record)
        scores["keyword_correct"] = keyword_correct(record)
    scores["no_answer_correct"] = 1.0 if bool(record.get("no_answer")) == (not answerable) else 0.0
    return scores


def percentile(values: Sequence[float], q: float) -> float | None:
    """Linear interpolation between closest ranks (numpy's default), q in 0..100."""
    if not values:
        return None
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def _mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def latency(records: Sequence[Record]) -> dict[str, dict[str, float | None]]:
    """p50 / p95 in milliseconds for every stage any record timed."""
    stages: dict[str, list[float]] = {}
    for record in records:
        for stage, ms in (record.get("timings_ms") or {}).items():
            if isinstance(ms, int | float):
                stages.setdefault(stage, []).append(float(ms))
    return {stage: {"p50": _round(percentile(v, 50)), "p95": _round(percentile(v, 95))} for stage, v in stages.items()}


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def summarise(records: Sequence[Record], k: int = 10) -> dict[str, Any]:
    """The metrics of one group of records."""
    scores = [case_scores(r, k) for r in records]
    answerable = [r for r in records if _answerable(r)]
    unanswerable = [r for r in records if not _answerable(r)]
    refused = [r for r in records if r.get("no_answer")]
    correct_refusals = [r for r in refused if not _answerable(r)]
    return {
        "cases": len(records),
        "answerable": len(answerable),
        "unanswerable": len(unanswerable),
        "hit@5": _round(_mean(s["hit@5"] for s in scores)),
        "hit@10": _round(_mean(s["hit@10"] for s in scores)),
        "recall@5": _round(_mean(s["recall@5"] for s in scores)),
        "recall@10": _round(_mean(s["recall@10"] for s in scores)),
        "mrr@10": _round(_mean(s["mrr@10"] for s in scores)),
        "precision@k": _round(_mean(s["precision@k"] for s in scores)),
        "citation_precision": _round(_mean(s["citation_precision"] for s in scores)),
        "citation_recall": _round(_mean(s["citation_recall"] for s in scores)),
        "keyword_correctness": _round(_mean(s["keyword_correct"] for s in scores)),
        "no_answer_accuracy": _round(_mean(s["no_answer_correct"] for s in scores)),
        "false_refusal_rate": _round(
            sum(1 for r in answerable if r.get("no_answer")) / len(answerable) if answerable else None
        ),
        "refusal_precision": _round(len(correct_refusals) / len(refused) if refused else None),
        "refusal_recall": _round(len(correct_refusals) / len(unanswerable) if unanswerable else None),
        "latency_ms": latency(records),
    }


def compute(records: Sequence[Record], k: int = 10) -> dict[str, Any]:
    """Overall and per-category metrics."""
    categories: dict[str, list[Record]] = {}
    for record in records:
        categories.setdefault(str(record.get("category") or "uncategorised"), []).append(record)
    return {
        "k": k,
        "overall": summarise(records, k),
        "by_category": {name: summarise(group, k) for name, group in sorted(categories.items())},
    }
