"""Ask who replied to a ticket, an issue or a mail thread, and count answers that name a replier, not the opener.

A manager asks "Who replied to <the ticket's summary / the patch's subject>?". The one who opened the item (the
ticket's reporter, the patch's author) wrote its best-matching lines, and is never who replied. The probes are
`probe_threads.py`'s tickets, issues and mail threads (no dev case is read); each topic is asked as 'Who replied to
<topic>?' as of a day after the conversation's last message. The first line names a replier (RIGHT: the author of
the probe's answering unit), the opener (ASKER), someone else (OTHER, often another replier), or refuses.

    python eval/probe_repliers.py --config C -n 30 [--seed 7] [--show] [--verb "commented on"]
"""

from __future__ import annotations

import random
import re
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from probe_threads import print_with_brief, probe_args, probes  # noqa: E402

# Probe question: the wording `probe_threads.py` puts around a ticket's summary or a mail's subject.
_FRAME = re.compile(
    r"^(?:What was the feedback on|What did reviewers say about|How was|What was done about|What is the fix for)\s+"
    r"(.*?)(?:\s+resolved)?\?$"
)


def topic(question: str) -> str:
    """The summary or subject a `probe_threads.py` question is about."""
    m = _FRAME.match(question)
    return m[1] if m else question.rstrip("?")


def verdict(first: str, repliers: set[str], openers: set[str], refused: bool) -> str:
    """RIGHT, ASKER, OTHER or REFUSED for an answer whose first line is `first` (a person answer's name, or the
    assignee an item's role sentence names: "KEY-1 (...) is assigned to Ana Ruiz [1].")."""
    named = first.split(" — ", 1)[0]
    if " is assigned to " in first:
        named = first.split(" is assigned to ", 1)[1]
    if refused:
        return "REFUSED"
    if any(named.startswith(p) for p in repliers):
        return "RIGHT"
    return "ASKER" if any(named.startswith(p) for p in openers) else "OTHER"


def run(brief: Any, n: int, seed: int, show: bool = False, verb: str = "replied to") -> str:
    from briefing.index import Filter

    chunks = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC)).chunks(Filter())
    drawn = [p for p in probes(chunks, random.Random(seed), "") if p.shape in ("ticket", "mail")]  # noqa: S311
    authors = {u.ref: u.author for c in chunks for u in c.units if u.author}
    counts: Counter[str] = Counter()
    for probe in drawn[:n]:
        answer = brief.ask(f"Who {verb} {topic(probe.question)}?", now=probe.now, k=10)
        first = answer.answer.splitlines()[0] if answer.answer else ""
        repliers = {authors[r] for r in probe.answering if r in authors}
        openers = {authors[r] for r in probe.asker_refs if r in authors}
        found = verdict(first, repliers, openers, answer.no_answer)
        counts[found] += 1
        print(f"{found:8} {probe.key} | {topic(probe.question)} | {first[:140] if show else ''}")
    asked = sum(counts.values())
    return f"asked {asked}, " + ", ".join(f"{k} {counts[k]}" for k in ("RIGHT", "ASKER", "OTHER", "REFUSED"))


def main() -> None:
    verb = ("--verb", {"default": "replied to", "help": 'how the question asks ("commented on")'})
    args = probe_args(__doc__, 30, verb)
    print_with_brief(args.config, lambda brief: run(brief, args.n, args.seed, show=args.show, verb=args.verb))


if __name__ == "__main__":
    main()
