"""Training examples from the probes: questions made from a corpus's conversations and items, asked through brief.

`eval/probe_threads.py` reads a help thread's question, a closed ticket's summary or a mail's subject with the
reply that resolves it; `eval/probe_items.py` asks who closed, verified or reopened an item, which pull request
fixed it and what someone said about it, with the comment that says so. Each question is asked through the
production path (`Brief.ask`, retrieval included) as of its conversation's end, and the context the answer stage
was handed is featurised as at answer time (`train_answer_model._featurise_one`): the resolving unit labels its
sentences. Up to `n` probes per corpus, drawn with `seed`, cached per corpus. `featurise_saved` featurises a dev
set's frozen retrievals (`eval/answer_replay.py collect`) the same way, without retrieving again.
"""

from __future__ import annotations

import os
import pickle
import random
import re
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "eval"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from train_answer_model import FORMAT, Corpus, _featurise_one, featurise_seen, keep, kept  # noqa: E402

# Probe modes of eval/probe_items.py whose answer is a comment of the item: the comment's ref, or the words it
# holds (a closer's or verifier's name, a pull request's number).
ITEM_MODES = ("reopened", "said", "closed", "verified", "pull")


def _spied(answer: Callable[..., Any]) -> tuple[Callable[..., Any], list[Any]]:
    seen: list[Any] = []

    def spy(self: Any, question: Any, context: Any, **kw: Any) -> Any:
        result = answer(self, question, context, **kw)
        seen.append((question, list(context), dict(result.features)))
        return result

    return spy, seen


def _asked(brief: Any, tz: str, embedder: Any, out: Corpus, asks: Iterator[tuple[str, Any, Any, str]]) -> None:
    """Ask each (question, now, gold, id) through `brief` and featurise what the answer stage was handed; `gold` is
    a set of refs, or a function of a context chunk and one of its units telling whether the unit answers."""
    from briefing.ask.extractive import ExtractiveAnswerer

    original = ExtractiveAnswerer.answer
    spy, seen = _spied(original)
    setattr(ExtractiveAnswerer, "answer", spy)  # noqa: B010 - the spy is put in and taken out around the run
    try:
        for i, (text, now, gold, ident) in enumerate(asks):
            seen.clear()
            brief.ask(text, now=now, k=10)
            if not seen or not seen[0][1]:
                continue
            question, context, given = seen[0]
            refs = gold if not callable(gold) else {u.ref for c in context for u in c.units if gold(c, u)}
            if not refs:
                continue  # the answering unit was not retrieved: nothing to rank
            _featurise_one(out, question, context, frozenset(refs), embedder, tz, given=given)
            out.ids.extend([ident] * (len(out.rows) - len(out.ids)))
            if i % 50 == 0:
                print(f"{out.name}: {i} probes asked, {len(out.rows)} kept", file=sys.stderr)
    finally:
        setattr(ExtractiveAnswerer, "answer", original)  # noqa: B010


def _item_asks(view: Any, n: int, seed: int) -> list[tuple[str, Any, Any, str]]:
    """Up to `n` probe_items questions over ITEM_MODES, each with what tells its answering comment."""
    from probe_items import _cases

    found: list[tuple[str, Any, Any, str]] = []
    for mode in ITEM_MODES:
        for key, (text, expected) in sorted(_cases(view, mode).items()):
            item = key.split("|")[0]
            if mode in {"reopened", "said"}:
                gold: Any = frozenset(expected)
            else:
                words = [f"/pull/{e}" if mode == "pull" else e for e in expected]
                pattern = re.compile("|".join(re.escape(w) for w in words), re.I)

                def gold(chunk: Any, unit: Any, item: str = item, pattern: re.Pattern[str] = pattern) -> bool:
                    """A comment of the item (not its header) that says the expected name or link."""
                    return chunk.doc_key == item and unit.ref != item and bool(pattern.search(unit.text))

            found.append((text, mode, gold, f"item:{mode}:{key}"))
    random.Random(seed).shuffle(found)  # noqa: S311 - a reproducible draw
    return found[:n]


def featurise_probes(spec: str, *, n: int, seed: int, cache: Path | None, items: bool = True) -> Corpus:
    """Up to `n` probes of one `CONFIG:HOME:NAME` corpus (threads first, then items when `items`), featurised."""
    config, home, name = spec.split(":")
    cached = cache / f"probes-{name}-s{seed}-n{n}-v{FORMAT}.pkl" if cache else None
    if (done := kept(cached)) is not None:
        return done
    os.environ["BRIEF_HOME"] = home
    from probe_threads import probes

    from briefing.index import Filter
    from briefing.service import Brief
    from briefing.settings import load_settings

    settings = load_settings(Path(config))
    out = Corpus(f"probe_{name}", real=False)
    with Brief(settings) as brief:
        embedder = brief.embedder.for_model(settings.answer.sentence_model)
        tz = settings.workspace.timezone
        view = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC))
        drawn = probes(view.chunks(Filter()), random.Random(seed))  # noqa: S311 - a reproducible draw
        asks = [(p.question, p.now, p.answering, f"thread:{p.key}") for p in drawn]
        if items:
            extra = _item_asks(view, n // 2, seed)
            now = max((c.end for c in view.chunks(Filter())), default=datetime.now(UTC))
            asks = asks[: n - min(len(extra), n // 2)] + [(t, now, g, i) for t, _, g, i in extra]
        _asked(brief, tz, embedder, out, iter(asks[:n]))
    keep(out, cached)
    return out


def featurise_saved(spec: str, *, cache: Path | None) -> Corpus:
    """A dev set's frozen retrievals `CONFIG:HOME:SAVED:NAME` (eval/answer_replay.py collect) replayed through the
    answer node and featurised: gold refs label the sentences, `no_answer` the refusal; every case keeps its id."""
    config, home, saved_path, name = spec.split(":")
    cached = cache / f"saved-{name}-v{FORMAT}.pkl" if cache else None
    if (done := kept(cached)) is not None:
        return done
    os.environ["BRIEF_HOME"] = home
    from briefing.ask.extractive import ExtractiveAnswerer
    from briefing.ask.nodes import AskDeps, extractive_node
    from briefing.ask.run import build_deps
    from briefing.service import Brief
    from briefing.settings import load_settings

    settings = load_settings(Path(config))
    saved = pickle.loads(Path(saved_path).read_bytes())  # noqa: S301 - written by eval/answer_replay.py
    out = Corpus(name, real=True)
    original = ExtractiveAnswerer.answer
    spy, seen = _spied(original)
    setattr(ExtractiveAnswerer, "answer", spy)  # noqa: B010
    try:
        with Brief(settings) as brief:
            full = build_deps(brief)
            deps = AskDeps(settings=full.settings, retriever=full.retriever, directory=full.directory,
                           extractive=full.extractive, source_types=full.source_types)  # fmt: skip
            embedder = brief.embedder.for_model(settings.answer.sentence_model)
            for item in saved:
                case = item["case"]
                if item["state"] is None:
                    continue
                seen.clear()
                extractive_node(item["state"], deps)
                if not seen or not seen[0][1]:
                    continue
                featurise_seen(out, seen[0], case, embedder, settings.workspace.timezone)
    finally:
        setattr(ExtractiveAnswerer, "answer", original)  # noqa: B010
    keep(out, cached)
    return out
