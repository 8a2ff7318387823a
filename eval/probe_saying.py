"""Ask "What did <person> <verb of saying>?" of a workspace's most active writers, and count the refusals.

A manager asks what someone suggested, reported or complained about without naming a topic. The verb names the act,
not the topic: a workspace whose messages never use it ("complain" in a protocol's pull requests) still holds what
the person said, so a refusal because no source mentions the verb is wrong. Each of the `--people` writers with
the most chunks is asked one question per verb, as of `--now` (default: the newest chunk's end); no dev case is
read. Read the refusal counts before and after a change, not as accuracy (a person may have said little).

    python eval/probe_saying.py --config C [--people 3] [--now 2022-06-01T00:00:00+00:00] [--show]
"""

from __future__ import annotations

import sys
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from probe_threads import print_with_brief, probe_args  # noqa: E402

VERBS = (
    "announce propose suggest recommend report complain explain confirm reply respond comment raise flag ask mention "
    "post share"
).split()


def run(brief: Any, people: int, now: datetime | None, show: bool = False) -> str:
    from briefing.index import Filter

    chunks = brief.index.chunks(Filter())
    writers = Counter(a for c in chunks for a in c.authors if a)
    at = now or max(c.end for c in chunks)
    refused: Counter[str] = Counter()
    asked = 0
    for person, _ in writers.most_common(people):
        for verb in VERBS:
            answer = brief.ask(f"What did {person} {verb}?", now=at, k=10)
            asked += 1
            if answer.no_answer:
                refused[verb] += 1
            if show:
                print("REFUSED" if answer.no_answer else "ANSWER ", person, verb, "|", answer.answer[:120])
    by_verb = ", ".join(f"{verb} {n}" for verb, n in sorted(refused.items()))
    return f"refused {sum(refused.values())} of {asked}" + (f" ({by_verb})" if by_verb else "")


def main() -> None:
    args = probe_args(
        __doc__,
        3,
        ("--people", {"type": int, "default": 3, "help": "how many of the most active writers to ask about"}),
        ("--now", {"type": datetime.fromisoformat, "default": None, "help": "ask as of this moment (ISO 8601)"}),
    )
    print_with_brief(args.config, lambda brief: run(brief, args.people, args.now, show=args.show))


if __name__ == "__main__":
    main()
