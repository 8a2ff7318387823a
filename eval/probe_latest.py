"""Ask for the newest release of one product among several that announce releases, and count how many answers name
it.

A manager asks "What is the newest <product> release?" where many products announce versions in the same places
(a community's channels, an announcements stream, release notes). The right answer is the newest version of that
product stated up to the moment asked, not the newest version of any product. Each probe is a message that
announces a version of a named product ("shadow-cljs 2.0.150 released", "OLake Workers 0.3.9 is out", "[ANN]
reitit 0.1.0"); the question is asked an hour after it, when that version is the product's newest and another
product announced a version after the product's previous release (so "the newest version in the sources" is a
different one). No dev case is read. Right when the answer's first line holds the version.

    python eval/probe_latest.py --config C -n 40 [--seed 7] [--show] [--word latest]
"""

from __future__ import annotations

import random
import re
import sys
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from probe_threads import print_with_brief, probe_args  # noqa: E402

# Message text: a product's name (one or two words, the second capitalised) and a version, announced: "<product>
# <version> released / is out / is available / has been released", or "[ANN] <product> <version>", "Released
# <product> <version>".
_VERSION = r"v?(\d+\.\d+(?:\.\d+)?(?:[-.][\w]+)?)"
_PRODUCT = r"([A-Za-z][\w-]*(?: [A-Z][\w-]*)?)"
_ANNOUNCED = re.compile(
    rf"{_PRODUCT} {_VERSION}(?:\s*[:,-]?\s*)(?:(?:is|has been|was|just|now)\s+)*(?:released|out|available|published)\b"
    rf"|\[ANN(?:OUNCE)?\]\s+{_PRODUCT} {_VERSION}|\breleased\s+{_PRODUCT} {_VERSION}",
    re.I,
)
# Product words that name no product ("version", "the new release").
_NOT_PRODUCT = frozenset({"version", "release", "new", "just", "v", "btw", "candidate", "included", "ship"})
ASK = "What is the {word} {product} release?"


@dataclass(frozen=True)
class Release:
    product: str
    version: str
    at: datetime


def releases(view: Any) -> list[Release]:
    """Every announced (product, version) of the index, at its first announcement."""
    from briefing.index import Filter
    from briefing.textrules import STOPWORDS

    first: dict[tuple[str, str], Release] = {}
    for chunk in view.chunks(Filter()):
        for unit in chunk.units:
            at = unit.at or chunk.start
            for m in _ANNOUNCED.finditer(unit.text):
                product, version = next((m[i], m[i + 1]) for i in (1, 3, 5) if m[i])
                product = product.strip()
                first_word = product.split()[0].lower()
                if product.lower() in _NOT_PRODUCT or first_word in _NOT_PRODUCT or first_word in STOPWORDS:
                    continue
                key = (product.lower(), version)
                if key not in first or at < first[key].at:
                    first[key] = Release(product, version, at)
    return sorted(first.values(), key=lambda r: r.at)


def probes(found: list[Release], word: str = "newest") -> list[tuple[str, datetime, str]]:
    """(question, when asked, the right version) for each release after which no newer one of its product was
    announced before the moment asked, and some other product's release came after its previous one."""
    out = []
    for i, rel in enumerate(found):
        now = rel.at + timedelta(hours=1)
        same = [r for r in found if r.product.lower() == rel.product.lower()]
        if any(rel.at < r.at <= now and r.version != rel.version for r in same):
            continue
        previous = max((r.at for r in same if r.at < rel.at), default=None)
        since = previous or datetime.min.replace(tzinfo=rel.at.tzinfo)
        others = [r for r in found[: i + 1] if r.product.lower() != rel.product.lower() and r.at > since]
        if not others:
            continue
        out.append((ASK.format(word=word, product=rel.product), now, rel.version))
    return out


def run(brief: Any, n: int, seed: int, show: bool = False, word: str = "newest") -> str:
    from briefing.ask.run import build_deps

    view = build_deps(brief).retriever.index.view(datetime.now().astimezone())
    asked = probes(releases(view), word)
    random.Random(seed).shuffle(asked)  # noqa: S311 (a reproducible draw, not a secret)
    right = refused = 0
    for question, now, version in asked[:n]:
        answer = brief.ask(question, now=now, k=10)
        first = answer.answer.splitlines()[0] if answer.answer else ""
        ok = version in first
        right += ok
        refused += answer.no_answer
        if show:
            print("OK " if ok else "BAD", now.date(), question, version, "|", first[:160])
    return f"right {right} of {min(n, len(asked))}, refused {refused} ({len(asked)} probes)"


def main() -> None:
    args = probe_args(__doc__, 40, ("--word", {"default": "newest", "help": 'how "newest" is said ("latest")'}))
    print_with_brief(args.config, lambda brief: run(brief, args.n, args.seed, show=args.show, word=args.word))


if __name__ == "__main__":
    main()
