"""Ask for the feedback on each conversation's opening post and count the answers a reply leads.

No dev case is read. Every conversation whose opening has an author, whose title has at least three words and that
holds a message of substance (over 40 characters) by someone else gives one probe: 'What was the feedback on
"<its title>"?' (a ticket's summary, an issue's or pull request's title, a mail's subject, a thread's opening words),
asked a day after the conversation's last message. An answer is counted when its first citation is a message of
the conversation (`own`) and when that message is by someone other than the starter (`reply`): the feedback on a
post is what others said of it, not the post.

    python eval/probe_feedback.py --config C -n 30 [--seed 7]
"""

from __future__ import annotations

import random
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from probe_threads import print_with_brief, probe_args  # noqa: E402

MIN_WORDS = 3
SUBSTANCE = 40


def probes(chunks: Any, rng: random.Random) -> list[tuple[str, datetime, str, dict[str, str]]]:
    """(question, now, starter, {ref: author} of the conversation) for each conversation that qualifies."""
    from briefing.ask.learned.examples import conversations

    found = []
    for _key, parts in sorted(conversations(list(chunks)).items()):
        units = [u for c in parts for u in c.units]
        if not units or not units[0].author:
            continue
        starter = units[0].author
        if not any(u.author and u.author != starter and len(u.text) > SUBSTANCE for u in units):
            continue
        title = parts[0].title.split(": ", 1)[-1].strip()
        if len(title.split()) < MIN_WORDS:
            continue
        now = max(c.end for c in parts) + timedelta(days=1)
        found.append((f'What was the feedback on "{title}"?', now, starter, {u.ref: u.author or "" for u in units}))
    rng.shuffle(found)
    return found


def run(brief: Any, n: int, seed: int) -> str:
    from briefing.index import Filter

    view = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC))
    drawn = probes(view.chunks(Filter()), random.Random(seed))[:n]  # noqa: S311 (a reproducible draw)
    own = reply = 0
    for question, now, starter, by in drawn:
        answer = brief.ask(question, now=now, k=10)
        first = answer.citations[0].refs[0] if answer.citations and not answer.no_answer else ""
        own += first in by
        reply += first in by and by[first] != starter
        print(f"{'REPLY' if first in by and by[first] != starter else 'OWN' if first in by else 'MISS':5} | {question}")
    return f"asked {len(drawn)}: first citation in the conversation {own}, by someone other than its starter {reply}"


def main() -> None:
    args = probe_args(__doc__, 30)
    print_with_brief(args.config, lambda brief: run(brief, args.n, args.seed))


if __name__ == "__main__":
    main()
