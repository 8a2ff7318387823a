"""Ask yes/no questions about the state of items named by their title, and count the right "Yes" and "No".

No dev case is read. Every ticket, issue or pull request of the index whose header states its status (as the
index holds it, the latest state) and whose title has at least three words gives one probe, asked a day after its
last message: 'Is "<title>" fixed?' of a ticket or issue, 'Was "<title>" merged?' of a pull request. The truth is
the header's own state (done: a done status or a resolution; merged: the pull request's state), read with
`briefing.ask.item_state.header_state`. An answer is right when its first line starts with the right "Yes" or
"No". With `--ask status` each item is asked 'What is the status of "<title>"?' instead, and an answer is right when
its first line names the header's status; with `--ask when`, each resolved ticket 'When was "<title>" fixed?', right
when its first line gives the header's resolution day (not only in a quote).

    python eval/probe_polar.py --config C -n 30 [--seed 7] [--ask polar|status|when]
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


def probes(chunks: Any, rng: random.Random, ask: str = "polar") -> list[tuple[str, datetime, bool, str]]:
    """(question, now, whether the true answer is yes, the header's status) per item whose header states its
    state."""
    from briefing import registry
    from briefing.ask.header import rows
    from briefing.ask.item_state import header_of, header_state
    from briefing.ask.learned.examples import conversations

    found = []
    for _key, parts in sorted(conversations(list(chunks)).items()):
        headed = [(c, h) for c in parts if (h := header_of(c)) is not None]
        if not headed:
            continue
        chunk, header = max(headed, key=lambda ch: ch[0].end)  # the latest state the index holds
        pull = bool(registry.meta(chunk, "pull_request"))
        state = header_state(header, "merged" if pull else "done", pull_request=pull)
        title = parts[0].title.split(": ", 1)[-1].strip()
        if state is None or len(title.split()) < MIN_WORDS:
            continue
        asked = f'Was "{title}" merged?' if pull else f'Is "{title}" fixed?'
        cells = rows(header.text)
        status = (cells.get("status") or cells.get("state") or "").strip()
        if ask == "status":
            asked = f'What is the status of "{title}"?'
        if ask == "when":
            day = cells.get("resolved", "")[:10]
            if pull or not state.holds or not day:
                continue
            asked, status = f'When was "{title}" fixed?', day
        found.append((asked, max(c.end for c in parts) + timedelta(days=1), state.holds, status))
    rng.shuffle(found)
    return found


def run(brief: Any, n: int, seed: int, ask: str = "polar") -> str:
    from briefing.index import Filter

    view = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC))
    drawn = probes(view.chunks(Filter()), random.Random(seed), ask)[:n]  # noqa: S311 (a reproducible draw)
    right = yes = 0
    for question, now, holds, status in drawn:
        answer = brief.ask(question, now=now, k=10)
        first = answer.answer.strip().splitlines()[0] if answer.answer.strip() else ""
        # The day must be the answer's, not a quoted header's: before the " — " that leads a quote.
        said = first.split(" — ")[0] if ask == "when" else first
        ok = status.lower() in said.lower() if ask != "polar" else first.startswith("Yes" if holds else "No")
        right += ok
        yes += holds
        print(f"{'RIGHT' if ok else 'WRONG':5} {'yes' if holds else 'no ':3} | {question} | {first[:100]}")
    return f"asked {len(drawn)} ({yes} yes): right {right}"


def main() -> None:
    ask = ("--ask", {"choices": ["polar", "status", "when"], "default": "polar", "help": "yes/no, status or day"})
    args = probe_args(__doc__, 30, ask)
    print_with_brief(args.config, lambda brief: run(brief, args.n, args.seed, args.ask))


if __name__ == "__main__":
    main()
