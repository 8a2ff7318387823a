"""Ask what each person is working on and compare the answer with the items assigned to them and not resolved.

No dev case is read. As of a day after the index's last item changed, every person who is the assignee of at least
one unresolved item (the items' headers, as the index holds them then: no resolution and no done status) is asked
"What is <name> working on?" (`--ask working`, the default) or "Which tickets is <name> assigned to?" (`--ask
assigned`). Counts the answers that cite every one of those items (`all`) and those that cite nothing else
(`only`); an answer citing a unit of an item counts as citing the item.

    python eval/probe_assigned.py --config C [-n 20] [--ask working|assigned]
"""

from __future__ import annotations

import sys
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from probe_threads import print_with_brief, probe_args  # noqa: E402

ASKS = {"working": "What is {} working on?", "assigned": "Which tickets is {} assigned to?"}


def open_by_person(chunks: Any) -> tuple[dict[str, set[str]], datetime]:
    """Each assignee's unresolved items (doc keys) in `chunks` (a view's), and when the last of them changed."""
    from briefing.ask.finished import DONE_STATUS, history_families
    from briefing.ask.header import UNRESOLVED, UNSET, is_header, rows

    families = set(history_families())
    found: dict[str, set[str]] = defaultdict(set)
    last = datetime.min.replace(tzinfo=UTC)
    for chunk in chunks:
        if chunk.source_type not in families:
            continue
        last = max(last, chunk.end)
        for unit in chunk.units:
            if unit.ref != chunk.doc_key or not is_header(unit.text):
                continue
            cells = rows(unit.text)
            who = (cells.get("assignee") or "").strip()
            done = cells.get("resolution", "").lower() not in UNRESOLVED or DONE_STATUS.match(cells.get("status", ""))
            if who.lower() not in UNSET and not done:
                found[who].add(chunk.doc_key)
    return dict(found), last


def run(brief: Any, n: int, ask: str) -> str:
    from briefing.index import Filter

    view = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC))
    held, last = open_by_person(view.chunks(Filter()))
    people = sorted(held, key=lambda p: (-len(held[p]), p))[:n]
    every = only = 0
    for person in people:
        answer = brief.ask(ASKS[ask].format(person), now=last + timedelta(days=1), k=10)
        cited = {ref.split("#")[0] if ref.startswith("jira:") else ref for c in answer.citations for ref in c.refs}
        cited = {ref.split("/comment-")[0] for ref in cited}
        wanted = held[person]
        every += wanted <= cited
        only += bool(cited) and cited <= wanted
        print(f"{len(wanted & cited)}/{len(wanted)} cited, {len(cited - wanted)} other | {ASKS[ask].format(person)}")
    return f"asked {len(people)}: cites all of their open items {every}, cites only those {only}"


def main() -> None:
    ask = ("--ask", {"choices": sorted(ASKS), "default": "working", "help": "how the question is put"})
    args = probe_args(__doc__, 20, ask)
    print_with_brief(args.config, lambda brief: run(brief, args.n, args.ask))


if __name__ == "__main__":
    main()
