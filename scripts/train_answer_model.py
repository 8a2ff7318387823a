"""Train the learned answer stage (briefing.ask.learned) on the structure of indexed conversations and dev cases.

Each corpus is `CONFIG:HOME[:NAME]` (a brief.toml and the BRIEF_HOME its index lives in). Questions, the units that
resolve them and near misses are read from the index (`briefing.ask.learned.examples`), each opener reshaped into a
short question as a manager asks it (`--long` keeps it whole); every sentence is scored by the answer stage's own
code (`briefing.ask.extractive.scoring`, under the index's embedding model) and featurised as at answer time, the
reranking rules' scores among the features. `--cases CONFIG:HOME:CASES[:NAME]` adds a dev set's cases, asked
through the production path (gold refs label the sentences, `no_answer` the refusal); `--half NAME` keeps only its
train half (ids ending in an odd digit). Features are cached per corpus under `--cache`. The fit
(`answer_model_fit.py` beside this script; `--learner trees` fits boosted trees, `answer_model_trees.py`) writes
one JSON file with its sha256 beside it (`<out>.sha256`) and prints each corpus's ranking MRR of the resolving unit
and refusal AUC / balanced accuracy beside the rules'.

    python scripts/train_answer_model.py --train olk.toml:olk-home:olake --train mls.toml:mls-home:mls \
        --cases olk.toml:olk-home:eval/olake_dev.jsonl:dev_olake --half dev_mls ... \
        --seed 7 --limit 800 --out model.json --cache feature-cache
Needs the `train` extra (scikit-learn).
"""

from __future__ import annotations

import argparse
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from answer_model_fit import fit, write  # noqa: E402 - the script's own sibling module

__all__ = ["Corpus", "featurise", "featurise_cases", "featurise_chunks", "fit", "held_out_id", "main", "write"]

FORMAT = 6  # bump when the cached features change


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
    ids: list[str] = field(default_factory=list)  # a dev case's id; empty for a structure example
    real: bool = False  # a dev set's cases (True) or questions read from the structure (False)

    def only(self, keep: list[bool]) -> Corpus:
        """The examples where `keep` is true."""
        out = Corpus(self.name, real=self.real)
        for attr in ("rows", "labels", "units", "rules", "question", "answerable", "ids"):
            values = getattr(self, attr)  # `ids` is empty for a structure corpus
            setattr(out, attr, [v for v, k in zip(values, keep, strict=True) if k] if values else [])
        return out


def held_out_id(case_id: str) -> bool:
    """The dev sets' split rule (eval/split_report.py): an id ending in an even digit is held out."""
    return case_id[-1:].isdigit() and int(case_id[-1]) % 2 == 0


def featurise(spec: str, *, seed: int, limit: int, cache: Path | None, short: bool = True) -> Corpus:
    """One `CONFIG:HOME[:NAME]` corpus read from its index and featurised (from `cache` when it was before)."""
    config, home, *label = spec.split(":")
    name = label[0] if label else Path(home).parent.name or Path(home).name
    shape = "short" if short else "long"
    cached = cache / f"{name}-s{seed}-n{limit}-{shape}-v{FORMAT}.pkl" if cache else None
    if (done := kept(cached)) is not None:
        return done
    os.environ["BRIEF_HOME"] = home
    from briefing.service import Brief
    from briefing.settings import load_settings

    settings = load_settings(Path(config))
    brief = Brief(settings)
    embedder = brief.embedder.for_model(settings.answer.sentence_model)
    chunks = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC)).chunks()
    tz = settings.workspace.timezone
    out = featurise_chunks(chunks, embedder, name=name, timezone=tz, seed=seed, limit=limit, short=short)
    keep(out, cached)
    return out


def featurise_cases(spec: str, *, cache: Path | None) -> Corpus:
    """A dev set `CONFIG:HOME:CASES[:NAME]` asked through the production path: each case's context is what the
    answer stage was handed; its gold refs label the sentences, its `no_answer` the refusal. Every case is kept
    (with its id); `fit` reads only the train half."""
    config, home, cases_path, *label = spec.split(":")
    name = label[0] if label else Path(cases_path).stem
    cached = cache / f"cases-{name}-v{FORMAT}.pkl" if cache else None
    if (done := kept(cached)) is not None:
        return done
    os.environ["BRIEF_HOME"] = home
    from briefing.ask.extractive import ExtractiveAnswerer
    from briefing.evaluation.cases import load_cases
    from briefing.service import Brief, parse_now
    from briefing.settings import load_settings

    settings = load_settings(Path(config))
    seen: list[tuple[Any, Any, dict[str, float]]] = []
    original = ExtractiveAnswerer.answer

    def spy(self: Any, question: Any, context: Any, **kw: Any) -> Any:
        result = original(self, question, context, **kw)
        seen.append((question, list(context), dict(result.features)))
        return result

    out = Corpus(name, real=True)
    setattr(ExtractiveAnswerer, "answer", spy)  # noqa: B010 - the spy is put in and taken out around the run
    try:
        with Brief(settings) as brief:
            embedder = brief.embedder.for_model(settings.answer.sentence_model)
            for case in load_cases(Path(cases_path)):
                seen.clear()
                brief.ask(case.question, now=parse_now(case.now), k=10)
                if not seen or not seen[0][1]:
                    continue
                featurise_seen(out, seen[0], case, embedder, settings.workspace.timezone)
    finally:
        setattr(ExtractiveAnswerer, "answer", original)  # noqa: B010
    keep(out, cached)
    return out


def featurise_seen(out: Corpus, seen: Any, case: Any, embedder: Any, timezone: str) -> None:
    """One dev case's answer, as the answer stage scored it (`seen`: its question, context and the question-level
    features it computed with the workspace's vocabulary), featurised into `out` under the case's id."""
    question, context, given = seen
    gold = frozenset(() if case.no_answer else case.gold_refs)
    _featurise_one(out, question, context, gold, embedder, timezone, given=given)
    out.ids.extend([case.id] * (len(out.rows) - len(out.ids)))


def kept(cached: Path | None) -> Corpus | None:
    """A featurised corpus read back from its cache file; None when there is none."""
    if cached is None or not cached.exists():
        return None
    with cached.open("rb") as fh:
        return pickle.load(fh)  # type: ignore[no-any-return]  # noqa: S301 - our own cache file


def keep(out: Corpus, cached: Path | None) -> None:
    """Write a featurised corpus to its cache file (none when `cached` is None)."""
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        with cached.open("wb") as sink:
            pickle.dump(out, sink)


def _featurise_one(
    out: Corpus,
    question: Any,
    context: Any,
    gold: frozenset[str],
    embedder: Any,
    tz: str,
    given: dict[str, float] | None = None,
) -> None:
    """One question over one context, featurised as at answer time and appended to `out`; `given` are the
    question-level features the answer stage computed, when it was asked through it."""
    from zoneinfo import ZoneInfo

    from briefing.ask.extractive.evidence import candidates
    from briefing.ask.extractive.features import question_features
    from briefing.ask.extractive.refusal import confidence
    from briefing.ask.extractive.scoring import score_sentences, word_weights
    from briefing.ask.learned.apply import features

    evidence = candidates(context, ZoneInfo(tz), 300)
    if not evidence:
        return
    window = (question.window.start, question.window.end) if question.window is not None else None
    words = word_weights(question, context)
    score_sentences(question, evidence, context, words, embedder, pool=128, window=window)
    matrix, rules = features(question, evidence, window)
    out.rows.append(matrix)
    out.labels.append(np.asarray([ev.ref in gold for ev in evidence], dtype=bool))
    out.units.append([ev.ref for ev in evidence])
    found = dict(given) if given is not None else question_features(question, evidence, context, words, window)
    found["rules_conf"] = confidence(found)
    out.question.append(found)
    out.rules.append(np.asarray(rules))
    out.answerable.append(bool(gold))


def featurise_chunks(
    chunks: Any,
    embedder: Any,
    *,
    name: str,
    timezone: str = "UTC",
    seed: int = 7,
    limit: int = 1500,
    short: bool = True,
) -> Corpus:
    """The examples of `chunks` (`briefing.ask.learned.examples`), each sentence scored by the answer stage's own
    code and featurised as at answer time; the rules' scores and confidence features kept beside."""
    from briefing.ask.learned.examples import examples
    from briefing.question.parse import parse

    rng = random.Random(seed)  # noqa: S311 - seeded sampling
    found = examples(chunks, rng=rng, limit=limit, corpus=name, short=short)
    out = Corpus(name)
    for i, ex in enumerate(found):
        question = parse(ex.question, now=ex.now, timezone=timezone)
        _featurise_one(out, question, ex.context, ex.resolving, embedder, timezone)
        if i % 200 == 0:
            print(f"{name}: {i}/{len(found)} examples", file=sys.stderr)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train", action="append", required=True, help="CONFIG:HOME[:NAME] to train on (repeat)")
    ap.add_argument("--holdout", action="append", default=[], help="CONFIG:HOME[:NAME] to measure on (repeat)")
    ap.add_argument("--cases", action="append", default=[], help="CONFIG:HOME:CASES[:NAME] dev set to train on too")
    ap.add_argument("--half", action="append", default=[], help="NAME of a --cases set to read the train half of")
    ap.add_argument("--real-weight", type=float, default=5.0, help="a dev case's weight against a structure one")
    ap.add_argument("--long", action="store_true", help="keep the structure's questions whole (not reshaped)")
    ap.add_argument("--learner", choices=("linear", "trees"), default="linear", help="the ranker's model")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--limit", type=int, default=1500, help="answerable examples per corpus (as many refusals)")
    ap.add_argument("--cache", type=Path, default=None, help="folder for the featurised corpora")
    ap.add_argument("--out", type=Path, required=True, help="the model JSON to write (and <out>.sha256)")
    args = ap.parse_args(argv)
    short = not args.long
    train = [featurise(s, seed=args.seed, limit=args.limit, cache=args.cache, short=short) for s in args.train]
    for spec in args.cases:
        cases = featurise_cases(spec, cache=args.cache)
        train.append(cases.only([not held_out_id(i) for i in cases.ids]) if cases.name in args.half else cases)
    held = [featurise(s, seed=args.seed, limit=args.limit, cache=args.cache, short=short) for s in args.holdout]
    model, report = fit(
        train, held, seed=args.seed, limit=args.limit, real_weight=args.real_weight, learner=args.learner
    )
    model.provenance["train_half_only"] = sorted(args.half)
    model.provenance["questions_reshaped"] = short
    digest = write(model, args.out)
    print(json.dumps(report, indent=1))
    print(f"wrote {args.out} (sha256 {digest})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
