"""Fit the learned ranker as boosted trees (scikit-learn's HistGradientBoostingClassifier), stored as `Trees`.

Trees can read interactions a linear score cannot (a reply by someone else, late in the conversation, to a question
that asks for a fix). Each sentence of an answerable question whose resolving unit is in the context is one row,
labelled by whether it belongs to that unit; a question's rows weigh the same in total (`real_weight` for a dev
set's case, 1 for a probe or a structure question), so long contexts do not outweigh short ones. The fitted trees
are copied into flat node arrays that `briefing.ask.learned.model.Trees` walks with numpy alone. Seeded, no early
stopping: the same data gives the same bytes. Needs the `train` extra (scikit-learn).
"""

from __future__ import annotations

from typing import Any

import numpy as np

# The boosting's settings: small trees, slow learning, large leaves (a leaf must hold many sentences, so a
# split follows a pattern of many questions, not one context).
PARAMS: dict[str, Any] = {
    "max_iter": 150,
    "learning_rate": 0.05,
    "max_leaf_nodes": 15,
    "max_depth": 5,
    "min_samples_leaf": 80,
    "l2_regularization": 1.0,
    "early_stopping": False,
}
# A question's rows: its sentences among the rules' TOP best (by the rules' reciprocal rank) and its resolving
# sentences wherever the rules put them; None: every sentence. The model chooses the lead among the rules' best
# lines, so it is trained on the choices it makes.
TOP: int | None = None


def tree_rows(train: list[Any], *, real_weight: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sentence rows, labels and weights of every answerable question with its resolving unit in context."""
    from briefing.ask.learned.features import SENTENCE_FEATURES

    at = SENTENCE_FEATURES.index("rules_rr")
    xs, ys, ws = [], [], []
    for c in train:
        w = real_weight if c.real else 1.0
        for r, y, ok in zip(c.rows, c.labels, c.answerable, strict=True):
            if not ok or not y.any() or y.all():
                continue
            if TOP is not None:
                keep = y | (r[:, at] >= 1.0 / TOP - 1e-9)
                r, y = r[keep], y[keep]
            xs.append(r)
            ys.append(y)
            ws.append(np.full(len(y), w / len(y)))
    return np.vstack(xs), np.concatenate(ys), np.concatenate(ws)


def fit_trees(train: list[Any], *, seed: int, real_weight: float, params: dict[str, Any] | None = None) -> Any:
    """The boosted-tree ranker fitted on `train`, as `briefing.ask.learned.model.Trees`."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    x, y, w = tree_rows(train, real_weight=real_weight)
    model = HistGradientBoostingClassifier(**{**PARAMS, **(params or {})}, random_state=seed)
    model.fit(x, y, sample_weight=w)
    trees = to_trees(model)
    drift = float(np.max(np.abs(trees.raw(x[:500]) - model.decision_function(x[:500]))))
    if drift > 1e-6:
        raise RuntimeError(f"the copied trees read {drift} away from scikit-learn's")
    return trees


def to_trees(model: Any) -> Any:
    """The fitted classifier's trees as flat node arrays (`Trees`)."""
    from briefing.ask.learned.features import SENTENCE_FEATURES
    from briefing.ask.learned.model import Trees

    feature: list[int] = []
    left: list[int] = []
    right: list[int] = []
    roots: list[int] = []
    threshold: list[float] = []
    value: list[float] = []
    leaf: list[bool] = []
    depth = 0
    for (predictor,) in model._predictors:  # noqa: SLF001 - the fitted trees have no public accessor
        nodes = predictor.nodes
        base = len(value)
        roots.append(base)
        for node in nodes:
            at, is_leaf = len(value), bool(node["is_leaf"])
            feature.append(0 if is_leaf else int(node["feature_idx"]))
            threshold.append(float(node["num_threshold"]))
            left.append(base + int(node["left"]) if not is_leaf else at)
            right.append(base + int(node["right"]) if not is_leaf else at)
            leaf.append(is_leaf)
            value.append(float(node["value"]) if is_leaf else 0.0)
            depth = max(depth, int(node["depth"]))
    return Trees(
        SENTENCE_FEATURES,
        float(np.ravel(model._baseline_prediction)[0]),  # noqa: SLF001
        np.asarray(feature, dtype=np.int64),
        np.asarray(threshold, dtype=float),
        np.asarray(left, dtype=np.int64),
        np.asarray(right, dtype=np.int64),
        np.asarray(leaf, dtype=bool),
        np.asarray(value, dtype=float),
        np.asarray(roots, dtype=np.int64),
        depth,
    )
