"""Paired comparison of two runs on the same case ids: deltas, Wilcoxon signed-rank test, rank-biserial effect."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from briefing.evaluation.metrics import Record, Scores, case_scores
from briefing.evaluation.signed_rank import average_ranks, wilcoxon

ALPHA = 0.05
COMPARED = ("recall@10", "hit@10", "mrr@10", "keyword_correct", "no_answer_correct")


def rank_biserial(deltas: Sequence[float]) -> float:
    """Matched-pairs rank-biserial correlation: (positive rank sum - negative rank sum) / total, zeros dropped."""
    nonzero = [d for d in deltas if d != 0]
    if not nonzero:
        return 0.0
    ranks = average_ranks([abs(d) for d in nonzero])
    positive = sum(r for r, d in zip(ranks, nonzero, strict=True) if d > 0)
    negative = sum(r for r, d in zip(ranks, nonzero, strict=True) if d < 0)
    return float((positive - negative) / (positive + negative))


def paired_test(deltas: Sequence[float], alpha: float = ALPHA) -> dict[str, Any]:
    """Wilcoxon signed-rank on the per-case deltas (new minus base); a verdict only when p < alpha."""
    nonzero = [d for d in deltas if d != 0]
    if not nonzero:
        statistic, p_value = None, 1.0
    else:
        statistic, p_value = wilcoxon(nonzero)
    effect = rank_biserial(deltas)
    if p_value < alpha and effect > 0:
        verdict = "better"
    elif p_value < alpha and effect < 0:
        verdict = "worse"
    else:
        verdict = "no significant difference"
    return {
        "n": len(deltas),
        "improved": sum(1 for d in deltas if d > 0),
        "worsened": sum(1 for d in deltas if d < 0),
        "unchanged": sum(1 for d in deltas if d == 0),
        "mean_delta": round(sum(deltas) / len(deltas), 4) if deltas else None,
        "statistic": statistic,
        "p_value": round(p_value, 6),
        "effect_size": round(effect, 4),
        "verdict": verdict,
    }


def compare_scores(
    base: dict[str, Scores], new: dict[str, Scores], *, alpha: float = ALPHA, metrics: Sequence[str] = COMPARED
) -> dict[str, Any]:
    """Compare per-case metric values (case id -> scores); a metric is paired where both runs define it."""
    shared = [cid for cid in base if cid in new]
    results: dict[str, Any] = {}
    per_case: dict[str, dict[str, float]] = {cid: {} for cid in shared}
    for name in metrics:
        deltas: list[float] = []
        base_values: list[float] = []
        new_values: list[float] = []
        for cid in shared:
            b, n = base[cid].get(name), new[cid].get(name)
            if b is None or n is None:
                continue
            deltas.append(n - b)
            base_values.append(b)
            new_values.append(n)
            if n != b:
                per_case[cid][name] = round(n - b, 4)
        result = paired_test(deltas, alpha)
        result["base_mean"] = round(sum(base_values) / len(base_values), 4) if base_values else None
        result["new_mean"] = round(sum(new_values) / len(new_values), 4) if new_values else None
        results[name] = result
    return {
        "cases_compared": len(shared),
        "only_in_base": sorted(set(base) - set(new)),
        "only_in_new": sorted(set(new) - set(base)),
        "alpha": alpha,
        "metrics": results,
        "changed_cases": [{"id": cid, "deltas": d} for cid, d in per_case.items() if d],
    }


def compare(base: Sequence[Record], new: Sequence[Record], *, k: int = 10, alpha: float = ALPHA) -> dict[str, Any]:
    """Compare `new` against `base` on the case ids both ran (new minus base)."""
    return compare_scores(
        {r["id"]: case_scores(r, k) for r in base}, {r["id"]: case_scores(r, k) for r in new}, alpha=alpha
    )
