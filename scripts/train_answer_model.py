"""Train the learned answer stage (briefing.ask.learned) on the structure of indexed conversations.

Each corpus is `CONFIG:HOME[:NAME]` (a brief.toml and the BRIEF_HOME its index lives in). Questions, the units that
resolve them and near misses are read from the index (`briefing.ask.learned.examples`); every sentence is scored by
the answer stage's own code (`briefing.ask.extractive.scoring`, under the index's embedding model) and featurised
as at answer time. Features are cached per corpus under `--cache`. A logistic ranker is fitted on the answerable
examples of the training corpora, then a logistic refusal model on the ranker's probabilities and the question-level
features; both are written as one JSON file with its sha256 beside it (`<out>.sha256`). The held-out corpus gets
the ranking MRR of the resolving unit and the refusal AUC / balanced accuracy, beside the rules' figures.
`--cases CONFIG:HOME:CASES[:NAME]` adds a dev set's cases, asked through the production path, as more training
questions (never the held-out corpus's own).

    python scripts/train_answer_model.py --train olk.toml:olk-home --train mls.toml:mls-home \
        --holdout timob.toml:timob-home --seed 7 --out model.json --cache feature-cache
Needs the `train` extra (scikit-learn).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import random
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

FORMAT = 4  # bump when the cached features change


@dataclass
class Corpus:
    """A corpus featurised: per example, its sentence rows, labels, rules' scores and question-level features."""

    name: str
    rows: list[np.ndarray] = field(default_factory=list)
    labels: list[np.ndarray] = field(default_factory=list)
    units: list[list[str]] = field(default_factory=list)  # each sentence's unit ref
    rules: list[np.ndarray] = field(default_factory=list)  # the rules' sentence scores
    question: list[dict[str, float]] = field(default_factory=list)
    answerable: list[bool] = field(default_factory=list)


def featurise(spec: str, *, seed: int, limit: int, cache: Path | None) -> Corpus:
    """One `CONFIG:HOME[:NAME]` corpus read from its index and featurised (from `cache` when it was before)."""
    config, home, *label = spec.split(":")
    name = label[0] if label else Path(home).parent.name or Path(home).name
    cached = cache / f"{name}-s{seed}-n{limit}-v{FORMAT}.pkl" if cache else None
    if cached is not None and cached.exists():
        with cached.open("rb") as fh:
            return pickle.load(fh)  # type: ignore[no-any-return]  # noqa: S301 - our own cache file
    os.environ["BRIEF_HOME"] = home
    from briefing.service import Brief
    from briefing.settings import load_settings

    settings = load_settings(Path(config))
    brief = Brief(settings)
    embedder = brief.embedder.for_model(settings.answer.sentence_model)
    chunks = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC)).chunks()
    out = featurise_chunks(chunks, embedder, name=name, timezone=settings.workspace.timezone, seed=seed, limit=limit)
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        with cached.open("wb") as fh:
            pickle.dump(out, fh)
    return out


def featurise_cases(spec: str, *, cache: Path | None) -> Corpus:
    """A dev set `CONFIG:HOME:CASES[:NAME]` asked through the production path: each case's context is what the
    answer stage was handed; its gold refs label the sentences, its `no_answer` the refusal."""
    config, home, cases_path, *label = spec.split(":")
    name = label[0] if label else Path(cases_path).stem
    cached = cache / f"cases-{name}-v{FORMAT}.pkl" if cache else None
    if cached is not None and cached.exists():
        with cached.open("rb") as fh:
            return pickle.load(fh)  # type: ignore[no-any-return]  # noqa: S301 - our own cache file
    os.environ["BRIEF_HOME"] = home
    from briefing.ask.extractive import ExtractiveAnswerer
    from briefing.evaluation.cases import load_cases
    from briefing.service import Brief, parse_now
    from briefing.settings import load_settings

    settings = load_settings(Path(config))
    seen: list[tuple[Any, Any]] = []
    original = ExtractiveAnswerer.answer

    def spy(self: Any, question: Any, context: Any, **kw: Any) -> Any:
        seen.append((question, list(context)))
        return original(self, question, context, **kw)

    out = Corpus(name)
    ExtractiveAnswerer.answer = spy  # type: ignore[method-assign]
    try:
        with Brief(settings) as brief:
            embedder = brief.embedder.for_model(settings.answer.sentence_model)
            for case in load_cases(Path(cases_path)):
                seen.clear()
                brief.ask(case.question, now=parse_now(case.now), k=10)
                if not seen or not seen[0][1]:
                    continue
                question, context = seen[0]
                gold = frozenset(() if case.no_answer else case.gold_refs)
                _featurise_one(out, question, context, gold, embedder, settings.workspace.timezone)
    finally:
        ExtractiveAnswerer.answer = original  # type: ignore[method-assign]
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        with cached.open("wb") as fh:
            pickle.dump(out, fh)
    return out


def _featurise_one(out: Corpus, question: Any, context: Any, gold: frozenset[str], embedder: Any, tz: str) -> None:
    """One question over one context, featurised as at answer time and appended to `out`."""
    from zoneinfo import ZoneInfo

    from briefing.ask.extractive.evidence import candidates
    from briefing.ask.extractive.features import question_features
    from briefing.ask.extractive.ranking import rerank
    from briefing.ask.extractive.scoring import score_sentences, word_weights
    from briefing.ask.learned.features import sentence_matrix

    evidence = candidates(context, ZoneInfo(tz), 300)
    if not evidence:
        return
    window = (question.window.start, question.window.end) if question.window is not None else None
    words = word_weights(question, context)
    score_sentences(question, evidence, context, words, embedder, pool=128, window=window)
    out.rows.append(sentence_matrix(question, evidence, window))
    out.labels.append(np.asarray([ev.ref in gold for ev in evidence], dtype=bool))
    out.units.append([ev.ref for ev in evidence])
    out.question.append(question_features(question, evidence, context, words, window))
    rerank(question, evidence)
    out.rules.append(np.asarray([ev.score for ev in evidence]))
    out.answerable.append(bool(gold))


def featurise_chunks(
    chunks: Any, embedder: Any, *, name: str, timezone: str = "UTC", seed: int = 7, limit: int = 1500
) -> Corpus:
    """The examples of `chunks` (`briefing.ask.learned.examples`), each sentence scored by the answer stage's own
    code and featurised as at answer time; the rules' scores and confidence features kept beside."""
    from briefing.ask.learned.examples import examples
    from briefing.question.parse import parse

    found = examples(chunks, rng=random.Random(seed), limit=limit, corpus=name)  # noqa: S311 - seeded sampling
    out = Corpus(name)
    for i, ex in enumerate(found):
        question = parse(ex.question, now=ex.now, timezone=timezone)
        _featurise_one(out, question, ex.context, ex.resolving, embedder, timezone)
        if i % 200 == 0:
            print(f"{name}: {i}/{len(found)} examples", file=sys.stderr)
    return out


def mrr(corpus: Corpus, scores: list[np.ndarray]) -> float:
    """Mean reciprocal rank of the resolving unit among the units (each at its best sentence's score)."""
    ranks = []
    for s, y, refs, ok in zip(scores, corpus.labels, corpus.units, corpus.answerable, strict=True):
        if not ok or not y.any():
            continue
        best: dict[str, float] = {}
        for ref, v in zip(refs, s, strict=True):
            best[ref] = max(best.get(ref, -1e9), float(v))
        target = max(float(v) for v, hit in zip(s, y, strict=True) if hit)
        ranks.append(1.0 / (1 + sum(1 for v in best.values() if v > target)))
    return float(np.mean(ranks)) if ranks else 0.0


def refusal_rows(corpus: Corpus, ranker: Any) -> np.ndarray:
    from briefing.ask.learned.features import refusal_vector

    return np.asarray(
        [refusal_vector(q, ranker.predict_proba(x)[:, 1]) for q, x in zip(corpus.question, corpus.rows, strict=True)]
    )


def linear(names: tuple[str, ...], scaler: Any, clf: Any) -> Any:
    from briefing.ask.learned.model import Linear

    return Linear(names, scaler.mean_, scaler.scale_, clf.coef_[0], float(clf.intercept_[0]))


def balanced(y: np.ndarray, refuse: np.ndarray) -> float:
    return float((np.mean(~refuse[y]) + np.mean(refuse[~y])) / 2)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train", action="append", required=True, help="CONFIG:HOME[:NAME] to train on (repeat)")
    ap.add_argument("--holdout", action="append", default=[], help="CONFIG:HOME[:NAME] to measure on (repeat)")
    ap.add_argument("--cases", action="append", default=[], help="CONFIG:HOME:CASES[:NAME] dev set to train on too")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--limit", type=int, default=1500, help="answerable examples per corpus (as many refusals)")
    ap.add_argument("--cache", type=Path, default=None, help="folder for the featurised corpora")
    ap.add_argument("--out", type=Path, required=True, help="the model JSON to write (and <out>.sha256)")
    args = ap.parse_args(argv)
    train = [featurise(s, seed=args.seed, limit=args.limit, cache=args.cache) for s in args.train]
    train += [featurise_cases(s, cache=args.cache) for s in args.cases]
    held = [featurise(s, seed=args.seed, limit=args.limit, cache=args.cache) for s in args.holdout]
    model, report = fit(train, held, seed=args.seed, limit=args.limit)
    digest = write(model, args.out)
    print(json.dumps(report, indent=1))
    print(f"wrote {args.out} (sha256 {digest})")
    return 0


def fit(train: list[Corpus], held: list[Corpus], *, seed: int, limit: int) -> tuple[Any, dict[str, Any]]:
    """The ranker and the refusal model fitted on `train`, and every corpus's metrics beside the rules'."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from briefing.ask.extractive.refusal import confidence
    from briefing.ask.learned.features import REFUSAL_FEATURES, SENTENCE_FEATURES
    from briefing.ask.learned.model import AnswerModel

    def learner() -> Any:
        logistic = LogisticRegression(C=1.0, class_weight="balanced", max_iter=2000, random_state=seed)
        return make_pipeline(StandardScaler(), logistic)

    x = np.vstack([r for c in train for r, ok in zip(c.rows, c.answerable, strict=True) if ok])
    y = np.concatenate([lb for c in train for lb, ok in zip(c.labels, c.answerable, strict=True) if ok])
    ranker = learner().fit(x, y)
    rx = np.vstack([refusal_rows(c, ranker) for c in train])
    ry = np.concatenate([np.asarray(c.answerable) for c in train])
    refusal = learner().fit(rx, ry)
    report: dict[str, Any] = {}
    for c in [*train, *held]:
        scores = [ranker.predict_proba(r)[:, 1] for r in c.rows]
        yes = np.asarray(c.answerable)
        p = refusal.predict_proba(refusal_rows(c, ranker))[:, 1]
        rules_p = np.asarray([confidence(q) for q in c.question])
        two = yes.any() and not yes.all()
        report[c.name] = {
            "role": "train" if c in train else "held-out",
            "examples": len(c.rows),
            "mrr_learned": round(mrr(c, scores), 4),
            "mrr_rules": round(mrr(c, c.rules), 4),
            "refusal_auc_learned": round(float(roc_auc_score(yes, p)), 4) if two else None,
            "refusal_auc_rules": round(float(roc_auc_score(yes, rules_p)), 4) if two else None,
            "refusal_balanced_learned": round(balanced(yes, p < 0.5), 4) if two else None,
            "refusal_balanced_rules": round(balanced(yes, rules_p < 0.4), 4) if two else None,
        }
    model = AnswerModel(
        ranker=linear(SENTENCE_FEATURES, ranker[0], ranker[1]),
        refusal=linear(REFUSAL_FEATURES, refusal[0], refusal[1]),
        threshold=0.5,
        provenance={
            "seed": seed,
            "limit": limit,
            "trained_on": [c.name for c in train],
            "held_out": [c.name for c in held],
            "sentences": int(len(y)),
            "questions": int(len(ry)),
            "learner": "scikit-learn LogisticRegression (balanced classes, C=1) on standardised features",
            "metrics": report,
        },
    )
    return model, report


def write(model: Any, out: Path) -> str:
    """Write `model` as JSON and its sha256 to `<out>.sha256`; returns the hash."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(model.to_json(), indent=1, sort_keys=True) + "\n")
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    out.with_name(out.name + ".sha256").write_text(f"{digest}  {out.name}\n")
    return digest


if __name__ == "__main__":
    sys.exit(main())
