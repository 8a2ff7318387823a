"""`brief eval`: run evaluation cases through the ask path, print metrics, save and compare runs."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from briefing.cli.common import cli_errors, err, out, state
from briefing.errors import InputError


def parse_sets(items: list[str]) -> dict[str, Any]:
    """`section.key=value` pairs as a nested overrides dict; values are TOML scalars, else plain strings."""
    overrides: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        path = [p.strip() for p in key.split(".")]
        if not sep or len(path) < 2 or not all(path):
            raise InputError(f"--set '{item}' must look like section.key=value, e.g. retrieval.candidates=100")
        try:
            value: Any = tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw
        node = overrides
        for part in path[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise InputError(f"--set '{item}' conflicts with another --set for '{part}'")
        node[path[-1]] = value
    return overrides


def _metrics_tables(metrics: dict[str, Any]) -> tuple[Table, Table]:
    """Overall metrics one a row, then a compact per-category table (fits an 80-column terminal)."""
    from briefing.evaluation.report import COLUMNS, fmt, latency_text

    overall = metrics["overall"]
    summary = Table(title=f"brief eval: overall (k={metrics['k']})", box=None, header_style="bold")
    summary.add_column("metric")
    summary.add_column("value", justify="right")
    for key, _ in COLUMNS:
        summary.add_row(key.replace("_", " "), fmt(overall.get(key)))
    summary.add_row(
        "refusal precision / recall", f"{fmt(overall['refusal_precision'])} / {fmt(overall['refusal_recall'])}"
    )
    for stage in overall.get("latency_ms", {}):
        summary.add_row(f"latency {stage} p50 / p95 ms", latency_text(overall, stage))
    compact = (
        ("cases", "n"),
        ("hit@10", "H@10"),
        ("recall@10", "R@10"),
        ("mrr@10", "MRR"),
        ("citation_precision", "citeP"),
        ("keyword_correctness", "kw"),
        ("no_answer_accuracy", "noans"),
    )
    per_category = Table(title="per category", box=None, header_style="bold")
    per_category.add_column("category")
    for _, label in compact:
        per_category.add_column(label, justify="right")
    for name, block in metrics["by_category"].items():
        per_category.add_row(escape(name), *[_short(block.get(key)) for key, _ in compact])
    return summary, per_category


def _short(value: Any) -> str:
    return f"{value:.2f}" if isinstance(value, float) else ("–" if value is None else str(value))


def _comparison_table(comparison: dict[str, Any], other: Path) -> Table:
    from briefing.evaluation.report import fmt

    table = Table(
        title=f"paired comparison against {escape(str(other))} ({comparison['cases_compared']} shared cases)",
        box=None,
        header_style="bold",
    )
    for column in ("metric", "n", "base", "new", "Δ mean", "+", "-", "p-value", "effect", "verdict"):
        table.add_column(column, justify="left" if column in {"metric", "verdict"} else "right")
    for name, m in comparison["metrics"].items():
        colour = {"better": "green", "worse": "red"}.get(m["verdict"], "dim")
        table.add_row(
            name,
            str(m["n"]),
            fmt(m["base_mean"]),
            fmt(m["new_mean"]),
            fmt(m["mean_delta"]),
            str(m["improved"]),
            str(m["worsened"]),
            f"{m['p_value']:.4f}",
            f"{m['effect_size']:+.3f}",
            f"[{colour}]{m['verdict']}[/]",
        )
    return table


def register(app: typer.Typer) -> None:
    @app.command("eval")
    @cli_errors
    def eval_(
        cases_file: Annotated[Path, typer.Argument(help="JSONL file of evaluation cases (DESIGN.md format).")],
        json_out: Annotated[bool, typer.Option("--json", help="Print {metrics, cases} as one JSON object.")] = False,
        out_file: Annotated[Path | None, typer.Option("--out", help="Write a Markdown report here.")] = None,
        save: Annotated[
            Path | None, typer.Option("--save", help="Save results with config and versions (JSON).")
        ] = None,
        compare_to: Annotated[
            Path | None, typer.Option("--compare", help="Paired comparison against a saved results file.")
        ] = None,
        k: Annotated[int, typer.Option("-k", min=1, max=100, help="How many hits per question.")] = 10,
        sets: Annotated[
            list[str] | None,
            typer.Option("--set", help="Override a setting for this run, e.g. retrieval.candidates=100."),
        ] = None,
    ) -> None:
        """Run evaluation cases through the ask path and report retrieval, citation and answer metrics."""
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        from briefing.evaluation.cases import load_cases
        from briefing.evaluation.compare import compare
        from briefing.evaluation.metrics import compute
        from briefing.evaluation.report import failure_reasons, markdown
        from briefing.evaluation.results import load_results, results_document, save_results
        from briefing.evaluation.runner import run_cases
        from briefing.service import Brief
        from briefing.settings import load_settings

        cases = load_cases(cases_file)
        baseline = load_results(compare_to) if compare_to is not None else None
        settings = load_settings(state.config, parse_sets(sets or []))
        with (
            Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=err,
                transient=True,
            ) as bar,
            Brief(settings) as brief,
        ):
            task = bar.add_task("evaluating", total=len(cases))
            records = run_cases(brief, cases, k=k, progress=lambda *_: bar.advance(task))
        metrics = compute(records, k)
        comparison = compare(baseline["cases"], records, k=k) if baseline is not None else None
        if save is not None:
            save_results(
                save,
                results_document(cases_file=str(cases_file), k=k, settings=settings, metrics=metrics, records=records),
            )
        if out_file is not None:
            out_file.parent.mkdir(parents=True, exist_ok=True)
            out_file.write_text(
                markdown(metrics, records, title=f"Evaluation of {cases_file.name}", comparison=comparison),
                encoding="utf-8",
            )
        if json_out:
            data: dict[str, Any] = {"metrics": metrics, "cases": records}
            if comparison is not None:
                data["comparison"] = comparison
            print(json.dumps(data, ensure_ascii=False))
            return
        for table in _metrics_tables(metrics):
            out.print(table)
        failing = [(r, failure_reasons(r, k)) for r in records]
        failing = [(r, why) for r, why in failing if why]
        out.print(f"\n[bold]{len(failing)}[/] of {len(records)} cases have failures", highlight=False)
        for record, why in failing[:15]:
            out.print(f"  [yellow]{escape(record['id'])}[/] {escape('; '.join(why))}", highlight=False)
        if len(failing) > 15:
            out.print(f"  … {len(failing) - 15} more (use --out report.md for the full listing)")
        if comparison is not None and compare_to is not None:
            out.print()
            out.print(_comparison_table(comparison, compare_to))
