"""Ask "what happened in <place> about <topic> over the past week?" of a corpus's own conversations and count how
much of each briefing is about the conversation asked about.

No dev case is read. The conversations, their moment (the day after their last unit) and their topic words come
from `probe_threads.py` and `probe_topics.py`: the TOPIC_WORDS rarest content words of the conversation's opening.
`--foreign K` replaces K of those words with words of other conversations (seeded), as a user does who names a
topic in words the conversation never uses; with K = 2 no conversation names most of the topic, so the answer is
the briefing's fallback. Counted per question: whether the answer cites the conversation at all, the share of its
citations that are the conversation's own, how many it cites, and whether the fallback was taken:

    python eval/probe_briefings.py --config C -n 40 [--seed 7] [--foreign 2] [--show]
"""

from __future__ import annotations

import random
import sys
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from probe_threads import Probe, print_with_brief, probe_args, probes  # noqa: E402
from probe_topics import _rarity, topic_question  # noqa: E402

ASK = "What happened in {place} about {topic} over the past week?"
# The fallback's first line: a topic no conversation names in full.
FALLBACKS = ("Nothing mentions", "Nothing names")


def foreign_topic(question: str, k: int, pool: list[str], rng: random.Random) -> str:
    """`question` with the last `k` words of its topic (after "about") replaced by words drawn from `pool`."""
    head, _, rest = question.partition(" about ")
    topic, _, tail = rest.partition(" over the past week")
    words = topic.split()
    for i in range(max(0, len(words) - k), len(words)):
        words[i] = rng.choice(pool)
    return f"{head} about {' '.join(words)} over the past week{tail}"


def judge(probe: Probe, answer: Any) -> dict[str, float]:
    """What one briefing says about its conversation: cited at all, the share of citations that are its own, how
    many citations, the fallback taken."""
    cited = [set(c.refs) for c in answer.citations]
    own = sum(1 for refs in cited if refs & probe.thread_refs)
    text = answer.answer or ""
    return {
        "cited": float(own > 0),
        "share": own / len(cited) if cited else 0.0,
        "citations": float(len(cited)),
        "fallback": float(text.startswith(FALLBACKS)),
    }


def run(brief: Any, n: int, seed: int, *, foreign: int = 0, show: bool = False) -> list[dict[str, float]]:
    """Ask `n` briefing probes of `brief`'s index, print one line each, and return each question's counts."""
    from briefing.index import Filter

    view = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC))
    chunks = list(view.chunks(Filter()))
    spread = _rarity(chunks)
    rng = random.Random(seed + 1)  # noqa: S311 (a reproducible draw)
    pool = sorted(w for w, n_chunks in spread.items() if 2 <= n_chunks <= 20 and w.isalpha())
    places: dict[str, str] = {}
    for chunk in chunks:
        places.setdefault(chunk.doc_key, chunk.container)
    out: list[dict[str, float]] = []
    for probe in probes(chunks, random.Random(seed))[:n]:  # noqa: S311 (a reproducible draw)
        container = places.get(probe.key) or places.get(probe.key.split("#")[0]) or ""
        if not container:
            continue
        place = f"#{container}" if probe.shape == "thread" else container
        question = topic_question(probe, place, spread, "said")
        if question is None:
            continue
        question = question.replace("What was said in ", "What happened in ").rstrip("?") + " over the past week?"
        if foreign:
            question = foreign_topic(question, foreign, pool, rng)
        answer = brief.ask(question, now=probe.now, k=10)
        got = judge(replace(probe, question=question), answer)
        out.append(got)
        first = (answer.answer or "").splitlines()[0] if answer.answer else ""
        mark = "CITED" if got["cited"] else "MISS"
        counts = f"{got['share']:.2f} {int(got['citations']):3}"
        print(f"{mark:5} {counts} {probe.key} | {question} | {first[:90] if show else ''}")
    return out


def summary(rows: list[dict[str, float]]) -> str:
    """The counts as one line."""
    n = len(rows) or 1
    cited = sum(r["cited"] for r in rows)
    share = sum(r["share"] for r in rows) / n
    many = sorted(r["citations"] for r in rows)
    median = many[len(many) // 2] if many else 0
    fell = sum(r["fallback"] for r in rows)
    return (
        f"asked {len(rows)}, conversation cited {int(cited)}, own share of citations {share:.2f}, "
        f"median citations {median:.0f}, fallback {int(fell)}"
    )


def main() -> None:
    args = probe_args(
        __doc__,
        40,
        ("--foreign", {"type": int, "default": 0, "help": "topic words replaced by other conversations' words"}),
    )
    print_with_brief(
        args.config, lambda brief: summary(run(brief, args.n, args.seed, foreign=args.foreign, show=args.show))
    )


if __name__ == "__main__":
    main()
