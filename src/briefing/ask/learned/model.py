"""The learned answer model: a ranker (logistic or boosted trees) and a logistic refusal model read from a JSON file
with numpy, checked by sha256 at load."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from briefing.ask.learned.features import REFUSAL_FEATURES, SENTENCE_FEATURES
from briefing.errors import BriefError

# The model shipped with brief (trained by scripts/train_answer_model.py) and the sha256 of its bytes.
SHIPPED = Path(__file__).with_name("answer_model.json")
SHIPPED_SHA256 = "fdacc9fbc8803228d5e0c664e6bd03ced6fb3a0d97436330650bb5be6f434a10"


class ModelError(BriefError):
    """An answer model file that is missing, altered or not of this version's features."""

    exit_code = 15


@dataclass(frozen=True)
class Linear:
    """A standardised logistic model: P = sigmoid(bias + weights . (x - mean) / scale)."""

    names: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float

    def probability(self, x: np.ndarray) -> np.ndarray:
        if x.size == 0:
            return np.zeros(len(x))
        z = self.bias + ((x - self.mean) / self.scale) @ self.weights
        return np.asarray(1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0))))

    def to_json(self) -> dict[str, Any]:
        return {
            "features": list(self.names),
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
            "weights": self.weights.tolist(),
            "bias": self.bias,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], expected: tuple[str, ...], where: str) -> Linear:
        names = tuple(data.get("features", ()))
        if names != expected:
            raise ModelError(f"{where}: features {list(names)} are not this version's {list(expected)}")
        arrays = [np.asarray(data[k], dtype=float) for k in ("mean", "scale", "weights")]
        if any(a.shape != (len(names),) for a in arrays):
            raise ModelError(f"{where}: mean, scale and weights must each hold {len(names)} numbers")
        mean, scale, weights = arrays
        return cls(names, mean, np.where(scale > 0, scale, 1.0), weights, float(data["bias"]))


@dataclass(frozen=True)
class Trees:
    """Boosted regression trees over the raw features: P = sigmoid(bias + the sum of each tree's leaf value). The
    trees are stored flat: node i splits on `feature[i]` at `threshold[i]` (a value at or below it goes to
    `left[i]`, else to `right[i]`), or is a leaf (`leaf[i]`) holding `value[i]`; `roots` are the trees' first
    nodes and `depth` the deepest path."""

    names: tuple[str, ...]
    bias: float
    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    leaf: np.ndarray
    value: np.ndarray
    roots: np.ndarray
    depth: int

    def raw(self, x: np.ndarray) -> np.ndarray:
        """The log-odds of each row of `x`: every tree walked at once, one level a step."""
        x = np.nan_to_num(np.asarray(x, dtype=float))
        node = np.broadcast_to(self.roots, (len(x), len(self.roots))).copy()
        rows = np.arange(len(x))[:, None]
        for _ in range(self.depth):
            go_left = x[rows, self.feature[node]] <= self.threshold[node]
            node = np.where(self.leaf[node], node, np.where(go_left, self.left[node], self.right[node]))
        return np.asarray(self.bias + self.value[node].sum(axis=1))

    def probability(self, x: np.ndarray) -> np.ndarray:
        if x.size == 0:
            return np.zeros(len(x))
        return np.asarray(1.0 / (1.0 + np.exp(-np.clip(self.raw(x), -30.0, 30.0))))

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "trees",
            "features": list(self.names),
            "bias": self.bias,
            "feature": self.feature.tolist(),
            "threshold": self.threshold.tolist(),
            "left": self.left.tolist(),
            "right": self.right.tolist(),
            "leaf": self.leaf.astype(int).tolist(),
            "value": self.value.tolist(),
            "roots": self.roots.tolist(),
            "depth": self.depth,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], expected: tuple[str, ...], where: str) -> Trees:
        names = tuple(data.get("features", ()))
        if names != expected:
            raise ModelError(f"{where}: features {list(names)} are not this version's {list(expected)}")
        ints = {k: np.asarray(data[k], dtype=np.int64) for k in ("feature", "left", "right", "leaf", "roots")}
        floats = {k: np.asarray(data[k], dtype=float) for k in ("threshold", "value")}
        n = len(floats["value"])
        if any(len(a) != n for k, a in {**ints, **floats}.items() if k != "roots") or not len(ints["roots"]):
            raise ModelError(f"{where}: the node arrays must all hold {n} entries and there must be a tree")
        links = np.concatenate([ints["left"], ints["right"], ints["roots"]])
        inner = ints["leaf"] == 0
        if links.min() < 0 or links.max() >= n or (ints["feature"][inner] >= len(names)).any():
            raise ModelError(f"{where}: a node points outside the trees or at a feature that is not there")
        return cls(
            names,
            float(data["bias"]),
            np.where(inner, ints["feature"], 0),
            floats["threshold"],
            ints["left"],
            ints["right"],
            ~inner,
            floats["value"],
            ints["roots"],
            int(data["depth"]),
        )


def _ranker(data: dict[str, Any], where: str) -> Linear | Trees:
    if data.get("kind") == "trees":
        return Trees.from_json(data, SENTENCE_FEATURES, where)
    return Linear.from_json(data, SENTENCE_FEATURES, where)


@dataclass(frozen=True)
class AnswerModel:
    """The sentence ranker, the refusal model and where they came from (seed, corpora, held-out metrics)."""

    ranker: Linear | Trees
    refusal: Linear
    threshold: float = 0.5  # the refusal probability below which the answer is refused
    blend: float = 1.0  # how far the model's choice of the lead line departs from the rules' (`apply.lead`); 0: none
    provenance: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": 1,
            "ranker": self.ranker.to_json(),
            "refusal": self.refusal.to_json(),
            "threshold": self.threshold,
            "blend": self.blend,
            "provenance": self.provenance,
        }


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sha256_file(path: Path) -> str:
    """The expected hash of a model file of one's own: the first word of `<file>.sha256` beside it."""
    side = path.with_name(path.name + ".sha256")
    try:
        words = side.read_text().split()
    except OSError:
        raise ModelError(
            f"{side}: missing; it holds the sha256 the answer model {path.name} is checked against"
        ) from None
    if not words:
        raise ModelError(f"{side}: empty; it must hold the sha256 of {path.name}")
    return words[0]


def load_model(path: Path, sha256: str) -> AnswerModel:
    """The model in `path`, refused (one line naming the file) unless its bytes hash to `sha256`."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ModelError(f"{path}: cannot read the answer model ({exc.strerror})") from None
    digest = hashlib.sha256(raw).hexdigest()
    if digest != sha256:
        raise ModelError(f"{path}: sha256 {digest[:12]}... is not the expected {sha256[:12]}...; the file was altered")
    try:
        data = json.loads(raw)
        return AnswerModel(
            ranker=_ranker(data["ranker"], f"{path} ranker"),
            refusal=Linear.from_json(data["refusal"], REFUSAL_FEATURES, f"{path} refusal"),
            threshold=float(data.get("threshold", 0.5)),
            blend=float(data.get("blend", 1.0)),
            provenance=dict(data.get("provenance", {})),
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise ModelError(f"{path}: not an answer model ({exc})") from None


def shipped_model() -> AnswerModel:
    """The model brief ships, checked against the hash recorded beside this module."""
    return load_model(SHIPPED, SHIPPED_SHA256)
