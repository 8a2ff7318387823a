"""Ask for a summary of one conversation and measure how much of it the answer covers.

No dev case is read. Every conversation of the index with at least MIN_MESSAGES messages (distinct refs: a
ticket's or issue's own record and body count as one, its comments, a thread's replies, a mail thread's mails)
from at least two people gives one probe: "Summarize the discussion in KEY." for a ticket, issue or pull request
(`--by key`, the default), or 'Summarize the discussion on "<title>".' (`--by title`: the item's summary, the
mail's subject, the thread's first sentence), asked a day after the conversation's last message. The answer is
read for what a summary of a discussion must do:

- own: the share of its citations that are the conversation's own;
- messages: how many of the conversation's messages it cites, out of min(messages, SPREAD);
- people: how many of its participants it quotes, out of min(participants, SPREAD_PEOPLE);
- last: whether it cites the conversation's last message, which says how it ended;
- words: the share of the conversation's ten most distinctive words (tf-idf over all conversations of the index,
  stop words and the title's own words left out) that the answer's text holds.

Prints one line per probe and the means:

    python eval/probe_summaries.py --config C -n 40 [--seed 7] [--by key|title] [--show]
"""

from __future__ import annotations

import math
import random
import re
import sys
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from probe_threads import print_with_brief, probe_args  # noqa: E402

MIN_MESSAGES = 5
SPREAD = 6
SPREAD_PEOPLE = 3
TOP_WORDS = 10
# Ref text: the item a ticket key, issue or pull request ref names ("jira:KEY-1", "github:org/repo#12").
_KEYED = re.compile(r"^(?:jira:([A-Z][A-Z0-9]+-\d+)|github:[^#]+#(\d+))$")


@dataclass(frozen=True)
class Probe:
    key: str
    question: str
    now: datetime
    refs: frozenset[str]
    last: str
    people: frozenset[str]
    words: tuple[str, ...]


def _name(key: str, by: str, title: str, first: str) -> str:
    """How the question names the conversation."""
    m = _KEYED.match(key)
    if by == "key" and m:
        return m[1] or f"#{m[2]}"
    said = re.sub(r"^[A-Z][A-Z0-9]+-\d+:\s*", "", title).strip() or first
    return '"' + " ".join(said.split()[:12]).rstrip(".?!:") + '"'


def probes(chunks: Any, rng: random.Random, by: str) -> list[Probe]:
    from briefing.ask.learned.examples import conversations
    from briefing.question.terms import content_words

    docs = conversations(list(chunks))
    bags: dict[str, Counter[str]] = {}
    for key, parts in docs.items():
        bags[key] = Counter(w for c in parts for u in c.units for w in content_words(u.text))
    df: Counter[str] = Counter(w for bag in bags.values() for w in bag)
    total = len(bags)
    found: list[Probe] = []
    for key in sorted(docs):
        parts = docs[key]
        units = [u for c in parts for u in c.units]
        refs = {u.ref for u in units}
        people = {u.author for u in units if u.author}
        if len(refs) < MIN_MESSAGES or len(people) < 2:
            continue
        if by == "key" and not _KEYED.match(key):
            continue
        dated = sorted((u for u in units if u.at), key=lambda u: u.at)
        if not dated:
            continue
        now = max(c.end for c in parts) + timedelta(days=1)
        title_words = content_words(parts[0].title)
        scored = {w: n * math.log(total / df[w]) for w, n in bags[key].items() if w not in title_words and len(w) > 2}
        words = tuple(w for w, _ in sorted(scored.items(), key=lambda x: (-x[1], x[0]))[:TOP_WORDS])
        first = units[0].text.split("\n")[-1][:120]
        name = _name(key, by, parts[0].title, first)
        found.append(
            Probe(
                key,
                f"Summarize the discussion in {name}." if by == "key" else f"Summarize the discussion on {name}.",
                now,
                frozenset(refs),
                dated[-1].ref,
                frozenset(people),
                words,
            )
        )
    rng.shuffle(found)
    return found


def score(probe: Probe, answer: Any) -> dict[str, float]:
    from briefing.question.terms import content_words

    cited = [r for c in answer.citations for r in c.refs]
    own = [r for r in cited if r in probe.refs]
    quoted = {line.split(" in ", 1)[0].lstrip("- ").strip() for line in answer.answer.splitlines()}
    said = content_words(answer.answer)
    people = {p for p in probe.people if any(p in q or q.endswith(p) for q in quoted) or p in answer.answer}
    return {
        "refused": float(answer.no_answer),
        "own": len(own) / len(cited) if cited else 0.0,
        "messages": len(set(own)) / min(len(probe.refs), SPREAD),
        "people": min(len(people), SPREAD_PEOPLE) / min(len(probe.people), SPREAD_PEOPLE),
        "last": float(probe.last in cited),
        "words": sum(w in said for w in probe.words) / max(len(probe.words), 1),
    }


def run(brief: Any, n: int, seed: int, by: str, show: bool) -> str:
    from briefing.index import Filter

    view = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC))
    drawn = probes(view.chunks(Filter()), random.Random(seed), by)[:n]  # noqa: S311 (a reproducible draw)
    sums: Counter[str] = Counter()
    for probe in drawn:
        answer = brief.ask(probe.question, now=probe.now, k=10)
        got = score(probe, answer)
        sums.update(got)
        line = " ".join(f"{k} {v:.2f}" for k, v in got.items())
        print(f"{probe.key} | {probe.question[:90]} | {line}")
        if show:
            print("   " + answer.answer[:600].replace("\n", "\n   "))
    asked = max(len(drawn), 1)
    return f"asked {len(drawn)}: " + ", ".join(
        f"{k} {sums[k] / asked:.3f}" for k in ("own", "messages", "people", "last", "words", "refused")
    )


def main() -> None:
    by = ("--by", {"choices": ["key", "title"], "default": "key", "help": "name the conversation by key or title"})
    args = probe_args(__doc__, 40, by)
    print_with_brief(args.config, lambda brief: run(brief, args.n, args.seed, args.by, args.show))


if __name__ == "__main__":
    main()
