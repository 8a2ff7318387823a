"""Refit the extractive answerer's refusal model (docs/answering.md) on the development sets.

Each set is `CONFIG:HOME:CASES` (a brief.toml, the BRIEF_HOME its index lives in, the cases). Every question is
asked through the production path (`Brief.ask`, each case's `now`) and the answerer's question-level features are
read from the trace and cached in `--features`; the fit then needs no index. L2-regularised logistic regression,
repeated stratified 5-fold cross-validation; the ROC and the threshold table use out-of-fold predictions only.

    python eval/calibrate_refusal.py --set src/briefing/sample/brief.toml:/tmp/smp:eval/sample_dev.jsonl \
        --set /tmp/olk/brief.toml:/tmp/olk/home:eval/olake_dev.jsonl --features /tmp/refusal-features.json
    python eval/calibrate_refusal.py --features /tmp/refusal-features.json     # fit only, from the cache
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

FEATURES = (
    "missing_named",
    "window_empty",
    "best_dense",
    "coverage",
    "chunk_cover",
    "best_lexical",
    "typed_top",
    "typed_near",
    "missing_share",
    # The workspace's own vocabulary (briefing.ask.vocabulary): question words no indexed document holds, or
    # held only by documents outside the context.
    "vocab_unknown",
    "vocab_unknown_any",
    "vocab_stray",
    "vocab_off",
    "vocab_far",
    # A word of the phrase a "which / what" question asks for that no indexed source holds.
    "head_any_absent",
)
# The answerer caps the confidence of a question that asks for a number or a date its best sentences never state
# (`typed_miss`, briefing.ask.extractive.VETO_CAP); the fitted model is scored with that cap applied.
VETO_CAP = 0.05


def collect(spec: str, raw: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Ask every case of one `CONFIG:HOME:CASES[:LABEL]` set; LABEL names the set (default: the cases' file stem),
    so one case file asked over two workspaces stays two sets. With `raw`, the answerer's scored sentences and the
    question's word spread are kept too, for trying new features without asking again."""
    config, home, cases_path, *label = spec.split(":")
    name = label[0] if label else Path(cases_path).stem
    os.environ["BRIEF_HOME"] = home
    from briefing.ask import extractive
    from briefing.evaluation.cases import load_cases
    from briefing.service import Brief, parse_now
    from briefing.settings import load_settings

    seen: list[dict[str, Any]] = []
    original = extractive.ExtractiveAnswerer.score

    def keep(self: Any, question: Any, evidence: Any, context: Any, **kw: Any) -> Any:
        out = original(self, question, evidence, context, **kw)
        if seen:  # the parts of a two-part question are scored again: the whole question's scoring is kept
            return out
        # The answerer scores a parsed `Question`; its word spread is read through the view it answers through.
        spread = kw.get("spread") or self.question_spread(question, kw.get("view"))
        keys = {c.doc_key for c in context}
        top = sorted(evidence, key=lambda e: -e.score)[:60]
        seen.append(
            {
                "question": question.text,
                "intent": question.intent,
                "people": list(question.people),
                "chunks": [
                    {"doc": c.doc_key, "title": c.title, "text": c.text, "units": [u.text for u in c.units]}
                    for c in context
                ],
                "evidence": [
                    {
                        "n": e.n,
                        "unit": e.unit,
                        "text": e.text,
                        "score": e.score,
                        "dense": e.dense,
                        "lexical": e.lexical,
                        "typed": e.typed,
                    }
                    for e in top
                ],
                "spread": {
                    w: {"chunks": s.chunks, "complete": s.complete, "in_context": bool(s.docs & keys)}
                    for w, s in spread.items()
                },
            }
        )
        return out

    rows = []
    if raw is not None:
        extractive.ExtractiveAnswerer.score = keep  # type: ignore[method-assign]
    try:
        with Brief(load_settings(Path(config))) as brief:
            for case in load_cases(Path(cases_path)):
                seen.clear()
                result = brief.ask(case.question, now=parse_now(case.now), k=10)
                features = result.trace.get("features") or {}
                rows.append({"set": name, "id": case.id, "no_answer": case.no_answer, **features})
                if raw is not None:
                    raw.append({"set": name, "id": case.id, "no_answer": case.no_answer, **(seen[-1] if seen else {})})
                print(case.id, round(features.get("confidence", 0.0), 3), file=sys.stderr)
    finally:
        extractive.ExtractiveAnswerer.score = original  # type: ignore[method-assign]
    return rows


# Lower bounds on fitted weights (`--floor best_dense=2`): a monotone constraint, so that the fit cannot leave a
# feature (similarity) at a near-zero weight because the dev sets' paraphrased questions hide its effect.
FLOORS: dict[int, float] = {}


def _newton(xb: np.ndarray, y: np.ndarray, lam: float, steps: int, fixed: dict[int, float]) -> np.ndarray:
    w = np.zeros(xb.shape[1])
    for i, v in fixed.items():
        w[i] = v
    free = [i for i in range(xb.shape[1]) if i not in fixed]
    penalty = np.eye(xb.shape[1]) * lam
    penalty[0, 0] = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-xb @ w))
        grad = (xb.T @ (p - y) + penalty @ w)[free]
        hess = ((xb * (p * (1 - p))[:, None]).T @ xb + penalty)[np.ix_(free, free)]
        w[free] -= np.linalg.solve(hess, grad)
    return w


def fit(x: np.ndarray, y: np.ndarray, lam: float = 0.1, steps: int = 50) -> np.ndarray:
    """Newton's method for L2-regularised logistic regression (the bias is not penalised). A weight that falls
    below its floor (`FLOORS`, by feature column) is held at the floor and the others refitted; the loss is
    convex, so with one bound active that is the constrained optimum."""
    xb = np.hstack([np.ones((len(x), 1)), x])
    fixed: dict[int, float] = {}
    w = _newton(xb, y, lam, steps, fixed)
    while True:
        low = [(j, v) for j, v in FLOORS.items() if j + 1 not in fixed and w[j + 1] < v]
        if not low:
            return w
        j, v = low[0]
        fixed[j + 1] = v
        w = _newton(xb, y, lam, steps, fixed)


def predict(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.asarray(1.0 / (1.0 + np.exp(-(w[0] + x @ w[1:]))))


def out_of_fold(x: np.ndarray, y: np.ndarray, repeats: int = 20, folds: int = 5) -> np.ndarray:
    """Mean out-of-fold P(answerable) over repeated stratified k-fold splits."""
    rng = np.random.default_rng(0)
    total = np.zeros(len(y))
    for _ in range(repeats):
        fold = np.empty(len(y), dtype=int)
        for label in (0, 1):
            idx = np.flatnonzero(y == label)
            rng.shuffle(idx)
            fold[idx] = np.arange(len(idx)) % folds
        for k in range(folds):
            test = fold == k
            total[test] += predict(fit(x[~test], y[~test]), x[test])
    return total / repeats


def auc(score: np.ndarray, y: np.ndarray) -> float:
    pos, neg = score[y == 1], score[y == 0]
    if not len(pos) or not len(neg):
        return float("nan")
    return float(
        ((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()) / (len(pos) * len(neg))
    )


def _share(mask: np.ndarray) -> float:
    return float(mask.mean()) if mask.size else float("nan")


def table(p: np.ndarray, y: np.ndarray, sets: np.ndarray) -> list[dict[str, float]]:
    """Refusal recall, false refusals and balanced accuracy per threshold: pooled over the sets that hold both
    answerable and unanswerable questions (the dev sets; an all-unanswerable probe set would inflate the pooled
    recall), and per set (a set without answerable questions has no false-refusal rate: NaN)."""
    both = np.isin(sets, [n for n in set(sets) if (y[sets == n] == 0).any() and (y[sets == n] == 1).any()])
    rows = []
    for t in np.round(np.arange(0.05, 0.96, 0.05), 2):
        refused = p < t
        row: dict[str, float] = {"threshold": float(t)}
        row["refusal_recall"] = _share(refused[both & (y == 0)])
        row["false_refusals"] = _share(refused[both & (y == 1)])
        row["balanced_accuracy"] = (row["refusal_recall"] + 1 - row["false_refusals"]) / 2
        for name in sorted(set(sets)):
            m = sets == name
            row[f"{name}_recall"] = _share(refused[m & (y == 0)])
            row[f"{name}_false"] = _share(refused[m & (y == 1)])
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", action="append", default=[], help="CONFIG:HOME:CASES")
    parser.add_argument(
        "--features",
        type=Path,
        action="append",
        required=True,
        help="feature cache (written when --set is given; several are read as one)",
    )
    parser.add_argument("--raw", type=Path, help="with --set: also keep each question's scored sentences here")
    parser.add_argument("--use", default=",".join(FEATURES), help="comma-separated features to fit")
    parser.add_argument("--veto", action="store_true", help="apply the answerer's typed_miss cap to the predictions")
    parser.add_argument("--only", default="", help="comma-separated set names to read from the caches")
    parser.add_argument("--floor", action="append", default=[], help="FEATURE=MIN: a lower bound on its weight")
    parser.add_argument("--shipped", action="store_true", help="only the ROC of the shipped confidence (no fit)")
    parser.add_argument(
        "--second",
        default="",
        help="comma-separated features of a second opinion (e.g. the e5 features of eval/e5_refusal_features.py): "
        "a model on --use plus these is compared with the --use model, fold by fold",
    )
    parser.add_argument(
        "--band",
        default="0,1",
        help="LO,HI: the second opinion replaces the first model's confidence only where that is in [LO, HI)",
    )
    args = parser.parse_args()
    if args.set:
        raw: list[dict[str, Any]] | None = [] if args.raw else None
        rows = [row for spec in args.set for row in collect(spec, raw)]
        args.features[0].write_text(json.dumps(rows, indent=1))
        if args.raw:
            args.raw.write_text(json.dumps(raw))
    rows = [row for path in args.features for row in json.loads(path.read_text())]
    if args.only:
        rows = [row for row in rows if row["set"] in args.only.split(",")]
    if args.shipped:
        # The confidence the answerer computed (shipped weights, cap included): nothing is fitted here.
        rows = [r for r in rows if "confidence" in r]
        y = np.array([0 if r["no_answer"] else 1 for r in rows])
        sets = np.array([r["set"] for r in rows])
        conf = np.array([float(r["confidence"]) for r in rows])
        shipped = {"cases": len(y), "unanswerable": int((y == 0).sum()), "auc": round(auc(conf, y), 3)}
        shipped["by_set_auc"] = {n: round(auc(conf[sets == n], y[sets == n]), 3) for n in sorted(set(sets))}
        shipped["table"] = [{k: round(v, 3) for k, v in row.items()} for row in table(conf, y, sets)]
        print(json.dumps(shipped, indent=1))
        return
    use = args.use.split(",")
    # A question answered by another node (a summary, a digest) has no extractive features: it says nothing
    # about the refusal model and is left out of the fit.
    skipped = sorted(r["id"] for r in rows if "confidence" not in r)
    rows = [r for r in rows if "confidence" in r]
    x = np.array([[float(r.get(f, 0.0)) for f in use] for r in rows])
    y = np.array([0 if r["no_answer"] else 1 for r in rows])
    sets = np.array([r["set"] for r in rows])
    for spec in args.floor:
        name, _, value = spec.partition("=")
        FLOORS[use.index(name)] = float(value)
    # The answerer caps the confidence of a typed-value miss, an off-topic question and a question whose asked thing
    # no source names (`head_miss`; briefing.ask.extractive).
    capped = [sum(float(r.get(k, 0.0)) for k in ("typed_miss", "off_topic", "head_miss")) for r in rows]
    veto = np.array(capped) > 0 if args.veto else np.zeros(len(y), bool)
    p = np.where(veto, np.minimum(out_of_fold(x, y), VETO_CAP), out_of_fold(x, y))
    if args.second:
        second(args, rows, x, y, sets, veto, use)
        return
    w = fit(x, y)
    # Held out by set: fitted on every other dev set, scored on this one (no case of it was seen by the fit).
    by_set: dict[str, Any] = {}
    for name in sorted(set(sets)):
        test = sets == name
        if test.all():
            continue
        q = predict(fit(x[~test], y[~test]), x[test])
        q = np.where(veto[test], np.minimum(q, VETO_CAP), q)
        by_set[name] = {"auc": round(auc(q, y[test]), 3), "table": table(q, y[test], sets[test])}
    result = {
        "cases": len(y),
        "unanswerable": int((y == 0).sum()),
        "skipped_no_features": skipped,
        "features": use,
        "weights": {"bias": round(float(w[0]), 2), **{f: round(float(v), 2) for f, v in zip(use, w[1:], strict=True)}},
        "auc_cv": round(auc(p, y), 3),
        "auc_cv_by_set": {n: round(auc(p[sets == n], y[sets == n]), 3) for n in sorted(set(sets))},
        "auc_in_sample": round(auc(predict(w, x), y), 3),
        "auc_single": {f: round(auc(x[:, i], y), 3) for i, f in enumerate(use)},
        "table": [{k: round(v, 3) for k, v in row.items()} for row in table(p, y, sets)],
        "veto": bool(args.veto),
        "held_out_by_set": {
            name: {"auc": v["auc"], "table": [{k: round(x, 3) for k, x in row.items()} for row in v["table"]]}
            for name, v in by_set.items()
        },
        "out_of_fold": {r["id"]: round(float(v), 3) for r, v in zip(rows, p, strict=True)},
    }
    print(json.dumps({k: v for k, v in result.items() if k not in {"out_of_fold", "held_out_by_set"}}, indent=1))
    args.features[0].with_suffix(".fit.json").write_text(json.dumps(result, indent=1))


def _summary(q: np.ndarray, y: np.ndarray, sets: np.ndarray, at: tuple[float, ...] = (0.3, 0.4, 0.5)) -> dict[str, Any]:
    rows = {row["threshold"]: row for row in table(q, y, sets)}
    out: dict[str, Any] = {"auc": round(auc(q, y), 3)}
    out["auc_by_set"] = {n: round(auc(q[sets == n], y[sets == n]), 3) for n in sorted(set(sets))}
    for t in at:
        row = rows[t]
        out[f"at_{t}"] = {
            k: round(v, 3) for k, v in row.items() if k.endswith(("recall", "false", "refusals", "accuracy"))
        }
        for n in sorted(set(sets)):
            m = sets == n
            r, f = 1 - row.get(f"{n}_false", 0.0), row.get(f"{n}_recall", 0.0)
            if (y[m] == 0).any() and (y[m] == 1).any():
                out[f"at_{t}"][f"{n}_balanced"] = round((r + f) / 2, 3)
    return out


def with_second(
    first: np.ndarray, second: np.ndarray, capped: np.ndarray, band: tuple[float, float]
) -> tuple[np.ndarray, np.ndarray]:
    """The first model's confidence (capped) and the confidence with the second opinion: the second model's, capped
    the same way, where the first one's is in [band[0], band[1]); the first one's elsewhere."""
    first = np.where(capped, np.minimum(first, VETO_CAP), first)
    inside = (first >= band[0]) & (first < band[1])
    return first, np.where(inside, np.where(capped, np.minimum(second, VETO_CAP), second), first)


def second(
    args: argparse.Namespace,
    rows: list[dict[str, Any]],
    x: np.ndarray,
    y: np.ndarray,
    sets: np.ndarray,
    veto: np.ndarray,
    use: list[str],
) -> None:
    """The second opinion against the first model: both refitted on the same folds (repeated stratified 5-fold;
    and each set held out in turn), the second one's confidence used only where the first one's is in the band;
    caps applied to both."""
    extra = args.second.split(",")
    x2 = np.hstack([x, np.array([[float(r.get(f, 0.0)) for f in extra] for r in rows])])
    lo, hi = (float(v) for v in args.band.split(","))

    def combine(p1: np.ndarray, p2: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return with_second(p1, p2, v, (lo, hi))

    first_cv, second_cv = combine(out_of_fold(x, y), out_of_fold(x2, y), veto)
    w1, w2 = fit(x, y), fit(x2, y)
    held: dict[str, Any] = {}
    for name in sorted(set(sets)):
        test = sets == name
        if test.all():
            continue
        a, b = combine(
            predict(fit(x[~test], y[~test]), x[test]), predict(fit(x2[~test], y[~test]), x2[test]), veto[test]
        )
        held[name] = {"first": _summary(a, y[test], sets[test]), "second": _summary(b, y[test], sets[test])}
    band = (first_cv >= lo) & (first_cv < hi)
    result = {
        "cases": len(y),
        "band": [lo, hi],
        "in_band_cv": int(band.sum()),
        "single_auc": {f: round(auc(x2[:, len(use) + i], y), 3) for i, f in enumerate(extra)},
        "weights_second": {
            "bias": round(float(w2[0]), 2),
            **{f: round(float(v), 2) for f, v in zip(use + extra, w2[1:], strict=True)},
        },
        "weights_first": {
            "bias": round(float(w1[0]), 2),
            **{f: round(float(v), 2) for f, v in zip(use, w1[1:], strict=True)},
        },
        "cv_first": _summary(first_cv, y, sets),
        "cv_second": _summary(second_cv, y, sets),
        "held_out": held,
        "changed": {
            r["id"]: [round(float(a), 3), round(float(b), 3), int(yy)]
            for r, a, b, yy in zip(rows, first_cv, second_cv, y, strict=True)
            if (a < 0.4) != (b < 0.4)
        },
    }
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
