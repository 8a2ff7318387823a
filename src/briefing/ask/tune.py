"""`brief tune`: compile the LLM answer program with DSPy's BootstrapFewShot on evaluation cases.

Training examples are evaluation cases (DESIGN.md "Evaluation cases") with their evidence retrieved by the one
query path as of each case's `now`, formatted exactly as the answer stage formats it. The metric is what a
manager checks: an answerable question gets every expected fact (one keyword of each group) and cites only
evidence numbers that exist; a question the sources do not cover is marked insufficient. The compiled program
(its few-shot demos) is saved as JSON under the workspace's home and loaded by `brief ask` from then on.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dspy

from briefing.ask.answer import AnswerFromEvidence, _truthy, format_evidence
from briefing.errors import ModelError
from briefing.evaluation.cases import Case
from briefing.model import Chunk
from briefing.settings import Settings

PROGRAM_FILE = "answer_program.json"
# A drafted answer: its citation markers ("[2]").
_CITE = re.compile(r"\[(\d+)\]")


def program_path(settings: Settings) -> Path:
    """Where the compiled answer program of a workspace lives (under BRIEF_HOME)."""
    return settings.workspace_home / "tuned" / PROGRAM_FILE


def new_program() -> Any:
    """The answer program `LLMAnswerer` runs; tuning fills in its demos."""
    return dspy.Predict(AnswerFromEvidence)


def to_example(case: Case, context: Sequence[Chunk]) -> Any:
    """One case as a DSPy example: the answer stage's inputs plus what the metric checks."""
    return dspy.Example(
        question=case.question,
        now=case.now,
        evidence=format_evidence(context),
        blocks=len(context),
        keywords=[list(group) for group in case.answer_keywords],
        no_answer=case.no_answer,
        case_id=case.id,
    ).with_inputs("question", "now", "evidence")


def answer_score(example: Any, prediction: Any, trace: Any = None) -> float | bool:
    """1.0 for a right answer with valid citations (or a right refusal); partial credit for some of the facts.

    During bootstrapping (`trace` set) only fully right predictions become demos.
    """
    sufficient = _truthy(getattr(prediction, "sufficient", False))
    answer = str(getattr(prediction, "answer", "") or "")
    if example.no_answer:
        score = 0.0 if sufficient else 1.0
    elif not sufficient:
        score = 0.0
    else:
        lowered = answer.lower()
        groups = example.keywords
        found = sum(any(k.lower() in lowered for k in group) for group in groups) / len(groups) if groups else 1.0
        cited = [int(n) for n in _CITE.findall(answer)]
        valid = bool(cited) and all(1 <= n <= example.blocks for n in cited)
        score = found if valid else 0.5 * found
    return score >= 1.0 if trace is not None else score


@dataclass
class TuneReport:
    train: int
    dev: int
    demos: int
    before: float
    after: float
    path: Path

    def to_json(self) -> dict[str, Any]:
        return {
            "train": self.train,
            "dev": self.dev,
            "demos": self.demos,
            "dev_score_before": round(self.before, 4),
            "dev_score_after": round(self.after, 4),
            "path": str(self.path),
        }


def split(examples: Sequence[Any], dev_fraction: float, seed: int = 0) -> tuple[list[Any], list[Any]]:
    """A seeded split; both parts keep refusals (they are what the metric rewards least often)."""
    shuffled = list(examples)
    random.Random(seed).shuffle(shuffled)  # noqa: S311 -- a reproducible split, not a secret
    n_dev = round(len(shuffled) * dev_fraction) if len(shuffled) > 1 else 0
    return shuffled[n_dev:], shuffled[:n_dev]


def mean_score(program: Any, examples: Sequence[Any], lm: Any) -> float:
    if not examples:
        return 0.0
    total = 0.0
    with dspy.context(lm=lm):
        for example in examples:
            try:
                prediction = program(**example.inputs())
            except Exception:  # noqa: S112 -- an unparsable reply scores zero, it does not abort the tuning
                continue
            total += float(answer_score(example, prediction))
    return total / len(examples)


def tune(
    examples: Sequence[Any],
    lm: Any,
    path: Path,
    *,
    dev_fraction: float = 0.3,
    max_demos: int = 4,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
) -> TuneReport:
    """Bootstrap few-shot demos on the training part, score both programs on the dev part, save the compiled one.

    Cases carry expected keywords, not written answers, so every demo is one the LM produced and the metric passed.
    """
    train, dev = split(examples, dev_fraction, seed)
    say = progress or (lambda _message: None)
    baseline = new_program()
    say(f"scoring the untuned program on {len(dev)} dev example(s)")
    before = mean_score(baseline, dev, lm)
    optimizer = dspy.BootstrapFewShot(
        metric=answer_score, max_bootstrapped_demos=max_demos, max_labeled_demos=0, max_rounds=1
    )
    say(f"bootstrapping up to {max_demos} demo(s) from {len(train)} training example(s)")
    with dspy.context(lm=lm):
        compiled = optimizer.compile(new_program(), trainset=train)
    after = mean_score(compiled, dev, lm)
    path.parent.mkdir(parents=True, exist_ok=True)
    compiled.save(str(path))
    return TuneReport(len(train), len(dev), len(compiled.demos), before, after, path)


def load_program(path: Path | None) -> Any:
    """The compiled program saved by `brief tune`, or a fresh one where none was saved."""
    program = new_program()
    if path is not None and path.is_file():
        try:
            program.load(str(path))
        except Exception as exc:  # a file from another version, or edited by hand
            raise ModelError(
                f"{path}: the tuned answer program cannot be loaded ({type(exc).__name__}): "
                "run `brief tune` again or delete the file"
            ) from None
    return program
