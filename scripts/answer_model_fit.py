"""Fit the learned answer model on featurised corpora (scripts/train_answer_model.py reads and featurises them).

The ranker is a pairwise logistic model (a linear score learned from the differences between the resolving
sentence and the other sentences of the same question: the `pairs` hardest by the rules' score and as many drawn
at random), so it learns to order one question's evidence, not to tell questions apart; its score is then mapped
to a probability (Platt scaling on every sentence of the answerable examples). A dev set's case weighs
`real_weight` times a question read from the structure; every question's pairs weigh the same in total. The
refusal model is a logistic model over the ranker's best probability, its margin over the second and the rules'
own calibrated confidence, its classes weighed the same. Its threshold is chosen on the training corpora only:
each corpus group in turn is left out, a model fitted on the rest predicts its real cases, and the threshold of
best mean balanced accuracy over the groups wins; so is the blend, how far the model's choice of the lead line
departs from the rules' (`blended`), by the order it gives those cases (`order_quality`).
Needs the `train` extra (scikit-learn).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

THRESHOLDS = np.round(np.arange(0.05, 0.96, 0.025), 3)
BLENDS = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
LEARNERS = {
    "linear": "scikit-learn LogisticRegression: pairwise ranker (C=1) with Platt scaling; refusal (C=1)",
    "trees": "scikit-learn HistGradientBoostingClassifier ranker (answer_model_trees.PARAMS); logistic refusal (C=1)",
}


def group_of(name: str) -> str:
    """The corpus a featurised set's data comes from: its name without `dev_`, up to the first underscore
    (`dev_olake_github` and `olake_github` read the olake corpus as `olake` does)."""
    return name.removeprefix("dev_").split("_")[0]


def mrr(corpus: Any, scores: list[np.ndarray]) -> float:
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


def refusal_rows(corpus: Any, ranker: Any) -> np.ndarray:
    from briefing.ask.learned.features import REFUSAL_FEATURES, refusal_vector

    if not corpus.rows:
        return np.zeros((0, len(REFUSAL_FEATURES)))
    return np.asarray(
        [refusal_vector(q, ranker.probability(x)) for q, x in zip(corpus.question, corpus.rows, strict=True)]
    )


def pair_rows(train: list[Any], *, real_weight: float, pairs: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """For every answerable question with its resolving unit in the context: the best resolving sentence (by the
    rules' score) minus each of up to `pairs` hardest and `pairs` random other sentences, and their weights."""
    from briefing.ask.learned.features import SENTENCE_FEATURES

    at = SENTENCE_FEATURES.index("rules")
    rng = np.random.default_rng(seed)
    diffs, weights = [], []
    for c in train:
        w = real_weight if c.real else 1.0
        for r, y, ok in zip(c.rows, c.labels, c.answerable, strict=True):
            if not ok or not y.any() or y.all():
                continue
            pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
            hard = neg[np.argsort(-r[neg, at], kind="stable")][:pairs]
            drawn = rng.choice(neg, size=min(pairs, len(neg)), replace=False)
            others = np.unique(np.concatenate([hard, drawn]))
            best = pos[np.argmax(r[pos, at])]
            diffs.append(r[best][None, :] - r[others])
            weights.append(np.full(len(others), w / len(others)))
    return np.vstack(diffs), np.concatenate(weights)


def balanced(y: np.ndarray, refuse: np.ndarray) -> float:
    return float((np.mean(~refuse[y]) + np.mean(refuse[~y])) / 2)


def _weights(y: np.ndarray, per_row: np.ndarray) -> np.ndarray:
    """`per_row` rescaled so that the positive and the negative rows weigh the same in total."""
    w = per_row.astype(float).copy()
    pos, neg = w[y].sum(), w[~y].sum()
    if pos > 0 and neg > 0:
        w[y] *= (pos + neg) / (2 * pos)
        w[~y] *= (pos + neg) / (2 * neg)
    return w


def fit_ranker(train: list[Any], *, seed: int, real_weight: float, pairs: int = 20) -> Any:
    """The pairwise ranker (`pair_rows`), its score mapped to a probability by Platt scaling, as a `Linear`."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    from briefing.ask.learned.features import SENTENCE_FEATURES
    from briefing.ask.learned.model import Linear

    scaler = StandardScaler().fit(np.vstack([r for c in train for r in c.rows]))
    d, w = pair_rows(train, real_weight=real_weight, pairs=pairs, seed=seed)
    d = d / scaler.scale_
    y = np.r_[np.ones(len(d)), np.zeros(len(d))]
    pairwise = LogisticRegression(C=1.0, fit_intercept=False, max_iter=3000, random_state=seed)
    weights = pairwise.fit(np.vstack([d, -d]), y, sample_weight=np.r_[w, w]).coef_[0]
    score = Linear(SENTENCE_FEATURES, scaler.mean_, scaler.scale_, weights, 0.0)
    rows = [(r, lb) for c in train for r, lb, ok in zip(c.rows, c.labels, c.answerable, strict=True) if ok]
    z = np.concatenate([np.log(score.probability(r) / (1 - score.probability(r))) for r, _ in rows])
    hit = np.concatenate([lb for _, lb in rows])
    platt = LogisticRegression(C=100.0, max_iter=1000, random_state=seed).fit(z[:, None], hit)
    a, b = float(platt.coef_[0][0]), float(platt.intercept_[0])
    return Linear(SENTENCE_FEATURES, scaler.mean_, scaler.scale_, a * weights, b)


def fit_pair(train: list[Any], *, seed: int, real_weight: float, learner: str = "linear") -> tuple[Any, Any, int, int]:
    """The ranker and the refusal model fitted on `train` (as `Linear`s), and how many pairs and questions they
    read."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    from briefing.ask.learned.features import REFUSAL_FEATURES
    from briefing.ask.learned.model import Linear

    if learner == "trees":
        from answer_model_trees import fit_trees

        ranker = fit_trees(train, seed=seed, real_weight=real_weight)
    else:
        ranker = fit_ranker(train, seed=seed, real_weight=real_weight)
    used = [c for c in train if c.rows]
    rx = np.vstack([refusal_rows(c, ranker) for c in used])
    ry = np.concatenate([np.asarray(c.answerable, dtype=bool) for c in used])
    rw = np.concatenate([np.full(len(c.rows), real_weight if c.real else 1.0) for c in used])
    scaler = StandardScaler().fit(rx)
    logistic = LogisticRegression(C=1.0, max_iter=3000, random_state=seed)
    logistic.fit(scaler.transform(rx), ry, sample_weight=_weights(ry, rw))
    refusal = Linear(REFUSAL_FEATURES, scaler.mean_, scaler.scale_, logistic.coef_[0], float(logistic.intercept_[0]))
    n_pairs = len(pair_rows(train, real_weight=real_weight, pairs=20, seed=seed)[1])
    return ranker, refusal, n_pairs, int(len(ry))


def blended(rules: np.ndarray, p: np.ndarray, blend: float) -> np.ndarray:
    """The rules' scores with the model's lead raised to the top, as `briefing.ask.learned.apply.rank` does."""
    from briefing.ask.learned.apply import LEAD_MARGIN, lead

    out = np.asarray(rules, dtype=float).copy()
    if len(out):
        top = float(out.max())
        chosen = lead(list(out), list(p), blend)
        if out[chosen] < top:
            out[chosen] = top + max(abs(top), 1.0) * LEAD_MARGIN
    return out


def order_quality(corpus: Any, scores: list[np.ndarray]) -> float:
    """How well `scores` order a dev set's answerable cases, as the answer reads them: the mean of the resolving
    unit's reciprocal rank, whether the best unit resolves, and the share of resolving units among those whose
    best line scores within RUNNER_CLOSE of the best (the runner-ups the answer cites)."""
    from briefing.ask.extractive.selection import RUNNER_CLOSE

    found = []
    for s, y, refs, ok in zip(scores, corpus.labels, corpus.units, corpus.answerable, strict=True):
        if not ok or not y.any():
            continue
        best: dict[str, tuple[float, bool]] = {}
        for ref, v, hit in zip(refs, s, y, strict=True):
            if ref not in best or v > best[ref][0]:
                best[ref] = (float(v), bool(hit) or best.get(ref, (0.0, False))[1])
        units = sorted(best.values(), key=lambda t: -t[0])
        rank = next(i for i, (_, hit) in enumerate(units, 1) if hit)
        close = [hit for v, hit in units if v >= units[0][0] * RUNNER_CLOSE]
        found.append((1.0 / rank + float(units[0][1]) + float(np.mean(close))) / 3)
    return float(np.mean(found)) if found else 0.0


def inner_choices(
    train: list[Any], *, seed: int, real_weight: float, learner: str = "linear"
) -> tuple[float, float, dict[str, Any]]:
    """The refusal threshold and the blend, each chosen on the real cases of every training group as predicted
    by a model fitted without that group: the threshold of best mean balanced accuracy, the blend of best mean
    `order_quality`. (0.5, 1.0) when fewer than two groups hold real cases."""
    groups = sorted({group_of(c.name) for c in train})
    refusals: list[tuple[np.ndarray, np.ndarray]] = []
    orders: dict[float, list[float]] = {b: [] for b in BLENDS}
    for g in groups:
        rest = [c for c in train if group_of(c.name) != g]
        real = [c for c in train if group_of(c.name) == g and c.real and c.rows]
        if not rest or not real:
            continue
        ranker, refusal, _, _ = fit_pair(rest, seed=seed, real_weight=real_weight, learner=learner)
        for c in real:
            probabilities = [ranker.probability(r) for r in c.rows]
            for b in BLENDS:
                scores = [blended(r, p, b) for r, p in zip(c.rules, probabilities, strict=True)]
                orders[b].append(order_quality(c, scores))
        y = np.concatenate([np.asarray(c.answerable, dtype=bool) for c in real])
        if y.all() or not y.any():
            continue
        p = np.concatenate([refusal.probability(refusal_rows(c, ranker)) for c in real])
        refusals.append((y, p))
    info: dict[str, Any] = {}
    threshold, blend = 0.5, 1.0
    if refusals:
        accuracy = {float(t): float(np.mean([balanced(y, p < t) for y, p in refusals])) for t in THRESHOLDS}
        threshold = max(accuracy, key=lambda t: (round(accuracy[t], 4), -abs(t - 0.5)))
        info["threshold_groups"], info["balanced"] = len(refusals), round(accuracy[threshold], 4)
    if any(orders.values()):
        quality = {b: float(np.mean(v)) for b, v in orders.items()}
        blend = max(quality, key=lambda b: (round(quality[b], 4), -b))
        info["blend_sets"], info["order_quality"] = (
            len(orders[blend]),
            {str(b): round(q, 4) for b, q in quality.items()},
        )
    return threshold, blend, info


def fit(
    train: list[Any], held: list[Any], *, seed: int, limit: int, real_weight: float = 5.0, learner: str = "linear"
) -> tuple[Any, dict[str, Any]]:
    """The ranker and the refusal model fitted on `train`, and every corpus's metrics beside the rules'."""
    from sklearn.metrics import roc_auc_score

    from briefing.ask.learned.model import AnswerModel

    ranker, refusal, n_pairs, questions = fit_pair(train, seed=seed, real_weight=real_weight, learner=learner)
    threshold, blend, inner = inner_choices(train, seed=seed, real_weight=real_weight, learner=learner)
    report: dict[str, Any] = {}
    for c in [*train, *held]:
        if not c.rows:
            continue
        alone = [ranker.probability(x) for x in c.rows]
        scores = [blended(r, p, blend) for r, p in zip(c.rules, alone, strict=True)]
        yes = np.asarray(c.answerable, dtype=bool)
        p = refusal.probability(refusal_rows(c, ranker))
        rules_p = np.asarray([q["rules_conf"] for q in c.question])
        two = bool(yes.any() and not yes.all())
        report[c.name] = {
            "role": "train" if c in train else "held-out",
            "examples": len(c.rows),
            "mrr_learned": round(mrr(c, scores), 4),
            "mrr_model_alone": round(mrr(c, alone), 4),
            "mrr_rules": round(mrr(c, c.rules), 4),
            "refusal_auc_learned": round(float(roc_auc_score(yes, p)), 4) if two else None,
            "refusal_auc_rules": round(float(roc_auc_score(yes, rules_p)), 4) if two else None,
            "refusal_balanced_learned": round(balanced(yes, p < threshold), 4) if two else None,
            "refusal_balanced_rules": round(balanced(yes, rules_p < 0.4), 4) if two else None,
        }
    model = AnswerModel(
        ranker=ranker,
        refusal=refusal,
        threshold=threshold,
        blend=blend,
        provenance={
            "seed": seed,
            "limit": limit,
            "real_weight": real_weight,
            "trained_on": [c.name for c in train],
            "held_out": [c.name for c in held],
            "pairs": n_pairs,
            "questions": questions,
            "chosen_without_each_group": inner,
            "learner": LEARNERS[learner],
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
