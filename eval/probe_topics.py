"""Ask the conversation probes of `probe_threads.py` in fewer of the opening's words, and count how often the
answer's lead cites the reply that answered.

`probe_threads.py` asks each conversation's opening word for word, which the restated-opening rules suit. A user
asks about a conversation in a few words of its subject and names where it was ("How do you count a system for
Datomic Pro licensing, according to the answers in #datomic?"). This script keeps the same conversations, the
same answering units and the same moment, and asks about each in the TOPIC_WORDS rarest content words of its
probe question (rarest over the index's own chunks, kept in the question's order) and the place it was in:

    What did the replies in #datomic say about system datomic pro licensing?

No dev case is read. Counts are printed as `probe_threads.py` prints them (lead, cited, refused, where a wrong lead
came from).

    python eval/probe_topics.py --config C -n 60 [--seed 7] [--ask replies|said] [--show]

`--ask said` names no reply ("What was said in #datomic about ...?"): a rule that reads "replies" in the question
is not what it measures.
"""

from __future__ import annotations

import random
import re
import sys
from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from probe_threads import _MAIL_ASKS, _TICKET_ASKS, Probe, ask_and_count, print_with_brief, probe_args, probes, summary  # noqa: E402

# How many of the probe question's content words the topic question keeps.
TOPIC_WORDS = 4
# The probe question's templated lead-in ('How was this resolved: "..."?'), which is not the conversation's topic.
_LEAD_IN = ("how was this resolved", "what was done about", "what is the fix for", "what was the feedback on")
# Question text: a word as written (letters, digits, inner dots and hyphens: "pr-str", "java.lang.invoke").
_TOKEN = re.compile(r"[\w][\w.-]*")
# How the topic is asked: about the replies (`replies`), or about what was said, naming no reply (`said`).
ASKS = {
    "replies": "What did the replies in {place} say about {topic}?",
    "said": "What was said in {place} about {topic}?",
}


def _rarity(chunks: list[Any]) -> Counter[str]:
    """How many chunks hold each content word."""
    from briefing.question.terms import content_words

    found: Counter[str] = Counter()
    for chunk in chunks:
        found.update(content_words(chunk.text))
    return found


def _slot(question: str) -> str:
    """What a templated ticket or mail probe question asks about ("How was <it> resolved?" -> <it>): the template's
    own words ("resolved", "reviewers say") are not the conversation's topic."""
    for template in (*_TICKET_ASKS, *_MAIL_ASKS):
        head, _, tail = template.partition("{}")
        if question.startswith(head) and question.endswith(tail) and len(question) > len(head) + len(tail):
            return question[len(head) : len(question) - len(tail)]
    return question


def topic_question(probe: Probe, place: str, spread: Counter[str], ask: str = "replies") -> str | None:
    """The probe's question in its TOPIC_WORDS rarest content words (as written, rarity by stem) and its place, or
    None with too few words."""
    topic = topic_words(probe, spread)
    return None if topic is None else ASKS[ask].format(place=place, topic=topic)


def topic_words(probe: Probe, spread: Counter[str]) -> str | None:
    """The TOPIC_WORDS rarest content words of the probe's question (as written, in its order), or None with too
    few words."""
    from briefing.question.terms import content_words, stem

    text = _slot(probe.question)
    low = text.lower()
    for lead in _LEAD_IN:
        if low.startswith(lead):
            text = text[len(lead) :]
    said = content_words(text)
    # Each content word once, as the question writes it, with the stem its rarity is counted by.
    words: dict[str, str] = {}
    for token in _TOKEN.findall(text):
        key = stem(token.lower().strip(".-"))
        if key in said and key not in words.values():
            words[token.strip(".-")] = key
    if len(words) < TOPIC_WORDS:
        return None
    keep = set(sorted(words, key=lambda w: (spread[words[w]], w))[:TOPIC_WORDS])
    return " ".join(w for w in words if w in keep)


def run(brief: Any, n: int, seed: int, *, ask: str = "replies", show: bool = False) -> Counter[str]:
    """Ask `n` topic probes of `brief`'s index through `brief.ask`, print one line each, and return the counts."""
    from briefing.index import Filter

    view = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC))
    chunks = list(view.chunks(Filter()))
    spread = _rarity(chunks)
    places: dict[str, str] = {}
    for chunk in chunks:
        places.setdefault(chunk.doc_key, chunk.container)
    counts: Counter[str] = Counter()
    drawn = probes(chunks, random.Random(seed))[:n]  # noqa: S311 (a reproducible draw)
    for probe in drawn:
        container = places.get(probe.key.split("#")[0], "") or ""
        place = f"#{container}" if probe.shape == "thread" else container or "the thread"
        question = topic_question(probe, place, spread, ask)
        if question is None:
            continue
        ask_and_count(brief, replace(probe, question=question), counts, show=show)
    return counts


def main() -> None:
    args = probe_args(
        __doc__, 60, ("--ask", {"choices": sorted(ASKS), "default": "replies", "help": "the question's template"})
    )
    print_with_brief(args.config, lambda brief: summary(run(brief, args.n, args.seed, ask=args.ask, show=args.show)))


if __name__ == "__main__":
    main()
