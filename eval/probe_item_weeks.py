"""Ask "what happened in the ticket about <summary> last week?" of a corpus's own items and count how much of each
answer cites the item asked about.

No dev case is read. An item is drawn when one calendar week (Monday to Sunday) holds two or more of its units
(comments, changelog entries, reviews); the question is asked as of the Monday after, naming the item by what it is
about (its summary, less its key and platform tag), then again naming its key, the ceiling. A right answer cites the
item: more than half of its cited units are the item's own. Prints one line per item and both counts:

    python eval/probe_item_weeks.py --config C -n 30 --seed 7
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from probe_items import _summary


def weeks(chunks: list[Any]) -> dict[str, tuple[str, datetime, str, str]]:
    """doc key -> (its summary, the Monday after its busiest week, its key as people write it, what kind of item it
    is), for items whose busiest week holds two or more of their units and whose title says what they are about."""
    from briefing.index.payload import doc_id

    per_week: dict[str, Counter[datetime]] = {}
    titles: dict[str, str] = {}
    kinds: dict[str, str] = {}
    for chunk in chunks:
        if doc_id(chunk.doc_key) not in chunk.tickets and "#" not in chunk.doc_key:
            continue  # a conversation or a page that mentions items, not an item
        titles[chunk.doc_key] = chunk.title
        number = doc_id(chunk.doc_key).rpartition("#")[2]
        if "#" not in chunk.doc_key:
            kinds[chunk.doc_key] = "ticket"
        elif f"PR #{number} " in chunk.text or kinds.get(chunk.doc_key) == "pull request":
            kinds[chunk.doc_key] = "pull request"
        else:
            kinds.setdefault(chunk.doc_key, "issue")
        for unit in chunk.units:
            if unit.at is None or unit.ref == chunk.doc_key:
                continue
            day = unit.at.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
            per_week.setdefault(chunk.doc_key, Counter())[day - timedelta(days=day.weekday())] += 1
    found = {}
    for key, counted in per_week.items():
        monday, n = max(counted.items(), key=lambda kv: (kv[1], kv[0]))
        summary = _summary(titles[key])
        if n >= 2 and len(summary.split()) >= 3:
            said = doc_id(key) if "#" not in key else "#" + key.rpartition("#")[2]
            found[key] = (summary, monday + timedelta(days=7, hours=10), said, kinds[key])
    return found


def share_in(answer: Any, key: str) -> float:
    """The share of the answer's cited units that are the item's own (its key, or a ref under it)."""
    refs = [ref for citation in answer.citations for ref in citation.refs]
    if not refs:
        return 0.0
    return sum(ref == key or ref.startswith((f"{key}#", f"{key}/")) for ref in refs) / len(refs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, required=True)
    parser.add_argument("-n", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    from briefing.ask.run import build_deps
    from briefing.index import Filter
    from briefing.service import Brief
    from briefing.settings import load_settings

    with Brief(load_settings(args.config)) as brief:
        view = build_deps(brief).retriever.index.view(datetime(2200, 1, 1, tzinfo=UTC))
        found = weeks(view.chunks(Filter()))
        keys = sorted(found)
        random.Random(args.seed).shuffle(keys)  # noqa: S311 (a reproducible draw, not a secret)
        right = {"described": 0, "named": 0}
        for key in keys[: args.n]:
            summary, now, said, kind = found[key]
            asked = {
                "described": f"What happened in the {kind} about {summary} last week?",
                "named": f"What happened in {said} last week?",
            }
            shares = {how: share_in(brief.ask(q, now=now, k=10), key) for how, q in asked.items()}
            for how, share in shares.items():
                right[how] += share > 0.5
            print(f"{shares['described']:.2f} {shares['named']:.2f} {key} | {asked['described']}")
        total = min(args.n, len(keys))
        print(f"described: {right['described']} of {total} cite the item; named by key: {right['named']} of {total}")


if __name__ == "__main__":
    main()
