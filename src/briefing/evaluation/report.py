"""Markdown report of one evaluation run: metrics overall and per category, then each failing case."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from briefing.evaluation.metrics import Record, case_scores, cited_refs

COLUMNS = (
    ("cases", "cases"),
    ("hit@5", "hit@5"),
    ("hit@10", "hit@10"),
    ("recall@5", "R@5"),
    ("recall@10", "R@10"),
    ("mrr@10", "MRR@10"),
    ("precision@k", "P@k"),
    ("citation_precision", "cite P"),
    ("citation_recall", "cite R"),
    ("keyword_correctness", "keywords"),
    ("no_answer_accuracy", "no-answer acc"),
    ("false_refusal_rate", "false refusals"),
)


def fmt(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def metric_rows(metrics: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [("overall", metrics["overall"]), *metrics["by_category"].items()]


def latency_text(block: dict[str, Any], stage: str = "total") -> str:
    timing = block.get("latency_ms", {}).get(stage)
    if not timing:
        return "–"
    return f"{timing['p50']:.0f} / {timing['p95']:.0f}"


def failure_reasons(record: Record, k: int = 10) -> list[str]:
    """Why a case failed (wrong refusal, nothing relevant retrieved, keywords missing, no gold ref cited)."""
    scores = case_scores(record, k)
    expected_refusal = bool(record.get("expected_no_answer"))
    if expected_refusal:
        return [] if record.get("no_answer") else ["answered a question the sources do not cover"]
    reasons = []
    if record.get("no_answer"):
        reasons.append("refused a question the sources answer")
    if scores["hit@10"] == 0:
        reasons.append("no gold ref in the top 10")
    if scores["keyword_correct"] == 0 and not record.get("no_answer"):
        reasons.append("answer misses expected keywords")
    if scores["citation_precision"] == 0:
        reasons.append("cites no gold ref")
    return reasons


def _refs(refs: Sequence[str], limit: int = 6) -> str:
    shown = ", ".join(f"`{r}`" for r in list(refs)[:limit])
    more = f" (+{len(refs) - limit} more)" if len(refs) > limit else ""
    return (shown + more) or "none"


def markdown(
    metrics: dict[str, Any],
    records: Sequence[Record],
    *,
    title: str = "Evaluation",
    comparison: dict[str, Any] | None = None,
) -> str:
    k = metrics.get("k", 10)
    header = [label for _, label in COLUMNS] + ["latency p50 / p95 ms"]
    lines = [f"# {title}", "", "| group | " + " | ".join(header) + " |", "|---" * (len(header) + 1) + "|"]
    for name, block in metric_rows(metrics):
        cells = [fmt(block.get(key)) for key, _ in COLUMNS] + [latency_text(block)]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    overall = metrics["overall"]
    lines += ["", "Latency per stage (ms, p50 / p95): "]
    lines.append(", ".join(f"{stage} {latency_text(overall, stage)}" for stage in overall.get("latency_ms", {})))
    if comparison is not None:
        lines += ["", comparison_markdown(comparison)]
    failing = [(r, failure_reasons(r, k)) for r in records]
    failing = [(r, why) for r, why in failing if why]
    lines += ["", f"## Failures ({len(failing)} of {len(records)} cases)", ""]
    for record, why in failing:
        top = [ref for hit in record.get("hits", [])[:5] for ref in hit.get("refs", [])[:3]]
        answer = " ".join((record.get("answer") or "").split())
        lines += [
            f"### {record['id']} ({record.get('category')}): {record.get('question')}",
            f"- why: {'; '.join(why)}",
            f"- scores: {', '.join(f'{name} {fmt(value)}' for name, value in case_scores(record, k).items())}",
            f"- expected: {'no answer' if record.get('expected_no_answer') else _refs(record.get('gold_refs', []))}",
            f"- retrieved (top 5, first refs of each): {_refs(top, 12)}",
            f"- cited: {_refs(sorted(cited_refs(record)))}",
            f"- answer: {answer[:300]}{'…' if len(answer) > 300 else ''}",
            "",
        ]
    return "\n".join(lines).rstrip() + "\n"


def comparison_markdown(comparison: dict[str, Any]) -> str:
    lines = [
        f"## Paired comparison ({comparison['cases_compared']} shared cases, Wilcoxon signed-rank, "
        f"alpha {comparison['alpha']})",
        "",
        "| metric | n | base | new | mean delta | improved | worsened | p-value | effect (rank-biserial) | verdict |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, m in comparison["metrics"].items():
        lines.append(
            f"| {name} | {m['n']} | {fmt(m['base_mean'])} | {fmt(m['new_mean'])} | {fmt(m['mean_delta'])} | "
            f"{m['improved']} | {m['worsened']} | {m['p_value']:.4f} | {m['effect_size']:+.3f} | {m['verdict']} |"
        )
    return "\n".join(lines)
