"""Ask where a conversation stands and count the answers its last message leads.

No dev case is read. Every conversation with at least MIN_MESSAGES messages besides the item's own record and
opening (a ticket's comments, an issue's or pull request's comments and reviews, a thread's replies, a mail
thread's mails) and a title of at least three words gives one probe: 'What is the latest on "<its title>"?'
(`--ask latest`, the default) or 'Where does "<its title>" stand?' (`--ask stand`), asked a day after its last
message. An answer is counted when its first citation is a message of the conversation (`own`) and when it is the
conversation's last message (`last`): where something stands is what was said of it last, not how it began.

    python eval/probe_standing.py --config C -n 30 [--seed 7] [--ask latest|stand]
"""

from __future__ import annotations

import random
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from probe_threads import print_with_brief, probe_args  # noqa: E402

MIN_MESSAGES = 3
MIN_WORDS = 3
ASKS = {"latest": 'What is the latest on "{}"?', "stand": 'Where does "{}" stand?'}


def probes(chunks: Any, rng: random.Random, ask: str) -> list[tuple[str, datetime, frozenset[str], str]]:
    """(question, now, refs of the conversation's messages, ref of its last message) per qualifying conversation."""
    from briefing.ask.learned.examples import conversations

    found = []
    for key, parts in sorted(conversations(list(chunks)).items()):
        said = sorted((u for c in parts for u in c.units if u.at and u.ref != key), key=lambda u: u.at or 0)
        if len({u.ref for u in said}) < MIN_MESSAGES:
            continue
        title = parts[0].title.split(": ", 1)[-1].strip()
        if len(title.split()) < MIN_WORDS:
            continue
        now = max(c.end for c in parts) + timedelta(days=1)
        found.append((ASKS[ask].format(title), now, frozenset(u.ref for u in said), said[-1].ref))
    rng.shuffle(found)
    return found


def run(brief: Any, n: int, seed: int, ask: str) -> str:
    from briefing.index import Filter

    view = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC))
    drawn = probes(view.chunks(Filter()), random.Random(seed), ask)[:n]  # noqa: S311 (a reproducible draw)
    own = last = 0
    for question, now, refs, final in drawn:
        answer = brief.ask(question, now=now, k=10)
        first = answer.citations[0].refs[0] if answer.citations and not answer.no_answer else ""
        own += first in refs
        last += first == final
        print(f"{'LAST' if first == final else 'OWN' if first in refs else 'MISS':4} | {question}")
    return f"asked {len(drawn)}: first citation a message of the conversation {own}, its last message {last}"


def main() -> None:
    ask = ("--ask", {"choices": sorted(ASKS), "default": "latest", "help": "how the question is put"})
    args = probe_args(__doc__, 30, ask)
    print_with_brief(args.config, lambda brief: run(brief, args.n, args.seed, args.ask))


if __name__ == "__main__":
    main()
