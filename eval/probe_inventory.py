"""Ask for sets of work items by their state and fields, and compare the answer with the items' headers.

No dev case is read. At each of a few moments (`--at`: the day after the index's last item changed, or evenly spaced
days across the items' lifetimes, for a code host whose items all end closed), the items of the sources with a history
are read from their headers as the index holds them then (this script's own reading of the `Label: value` rows:
type, status, resolution, priority, fix versions, assignee, reporter, components, labels), and questions are made
from the values that occur: "Which open critical bugs are there?", "How many open bugs are there?", "What went into
release 6.2.1?", "Which high-priority tickets are assigned to <name>?", "Which <component> bugs are unresolved?",
"Which tickets reported by <name> are still open?", "Which issues are still open?", "Which pull requests are still
open?", "Which bugs are unassigned?", "What are the highest-priority open bugs?" (those of the most urgent priority
the open bugs have). An item whose status then is not recorded ("not recorded before <date>": its history starts
later) is neither open nor done, and is left out. Counts the answers whose first line states the number of items
that match (`count`) and those citing exactly those items (`set`; of more than 15, 15 of them and nothing else).

    python eval/probe_inventory.py --config C [-n 40] [--at last|spread]
"""

from __future__ import annotations

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

SHOWN = 15
# Resolution text: closes an item without its work done, so it is not among what "went into" a release.
NO_WORK = re.compile(r"duplicate|invalid|won'?t|cannot|can'?t|not (?:a|our)|incomplete|rejected|obsolete", re.I)
# Status text: a done state, as trackers and code hosts name it.
DONE = re.compile(r"^(?:resolved|closed|done|fixed|completed?|finished|released|shipped|verified|merged)$", re.I)
# Header text: a code host's item opens with its kind.
HOST = re.compile(r"\s*(PR|Issue) #\d+")
# Header text: the author a code host's item names.
AUTHOR = re.compile(r"authored by ([\w.@-]+(?: [\w.@'-]+){0,3}?)(?=\s*[,|])")
# Priorities, most urgent first, as trackers name them.
URGENCY = ("blocker", "highest", "critical", "high", "major", "medium", "normal", "low", "minor", "lowest", "trivial")
# Header row: "Label: value".
ROW = re.compile(r"^\s*([A-Za-z][A-Za-z /]{0,24}):\s*(.+?)\s*$")
# A component's or label's value of one word ("ios", "editorial"; not "ready for PR").
ONE_WORD = re.compile(r"[a-z][a-z0-9]+")
UNSET = {"", "none", "unassigned", "unresolved"}
PLURAL = {"bug": "bugs", "story": "stories", "task": "tasks", "improvement": "improvements", "epic": "epics",
          "sub-task": "sub-tasks", "pr": "pull requests", "issue": "issues"}  # fmt: skip


@dataclass(frozen=True)
class Item:
    key: str
    kind: str
    done: bool
    resolution: str
    priority: str
    versions: frozenset[str]
    assignee: str
    reporter: str
    tags: frozenset[str]  # its components and labels of one word
    titled: frozenset[str]  # the words of its title


def _cells(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in text.splitlines():
        for cell in line.split(" | "):
            m = ROW.match(cell)
            if m:
                out.setdefault(m[1].lower(), m[2])
    return out


def _item(key: str, title: str, text: str) -> Item | None:
    cells = _cells(text)
    status = cells.get("status") or cells.get("state") or ""
    if not status or status.lower().startswith("not recorded"):
        return None
    host, author = HOST.match(text), AUTHOR.search(text)
    resolution = cells.get("resolution", "")
    versions = {
        v.strip().split()[-1].lower().lstrip("v") for v in cells.get("fix version/s", "").split(",") if v.strip()
    }
    tags = [v.strip().lower() for v in f"{cells.get('components', '')},{cells.get('labels', '')}".split(",")]
    held = cells.get("assignee") or cells.get("assignees") or ""  # a code host's item may have several
    return Item(
        key=key,
        kind=(cells.get("type") or (host[1] if host else "")).lower(),
        done=bool(DONE.match(status)) or resolution.lower() not in UNSET,
        resolution=resolution,
        priority=cells.get("priority", "").lower(),
        versions=frozenset(versions),
        assignee="" if held.lower() in UNSET else held,
        reporter=cells.get("reporter") or (author[1] if author else ""),
        tags=frozenset(v for v in tags if ONE_WORD.fullmatch(v)),
        titled=frozenset(re.findall(r"[a-z][a-z0-9]+", title.lower())),
    )


def read_items(chunks: Any) -> list[Item]:
    """Each item's header as the probe reads it (rows split on newlines and " | ", labels lower-cased)."""
    from briefing.ask.finished import history_families

    families = set(history_families())
    found: dict[str, Item] = {}
    for chunk in chunks:
        if chunk.source_type not in families or chunk.doc_key in found:
            continue
        for unit in chunk.units:
            item = _item(chunk.doc_key, chunk.title, unit.text) if unit.ref == chunk.doc_key else None
            if item is not None:
                found[chunk.doc_key] = item
                break
    return list(found.values())


def questions(items: list[Item]) -> list[tuple[str, set[str]]]:
    """(question, the keys of the items it asks for) made from the values the open and done items hold."""
    opened = [i for i in items if not i.done]
    made: list[tuple[str, set[str]]] = []

    def add(question: str, keys: set[str]) -> None:
        if keys:
            made.append((question, keys))

    def ranked(pool: list[Item]) -> set[str]:
        return {i.priority for i in pool if i.priority not in UNSET}

    for kind in sorted({i.kind for i in items if i.kind in PLURAL}):
        noun, of_kind = PLURAL[kind], [i for i in opened if i.kind == kind]
        add(f"Which {noun} are still open?", {i.key for i in of_kind})
        add(f"How many open {noun} are there?", {i.key for i in of_kind})
        for priority in ranked(of_kind):
            add(f"Which open {priority} {noun} are there?", {i.key for i in of_kind if i.priority == priority})
        add(f"Which {noun} are unassigned?", {i.key for i in of_kind if not i.assignee})
        urgent = sorted((p for p in ranked(of_kind) if p in URGENCY), key=URGENCY.index)[:1]
        add(f"What are the highest-priority open {noun}?", {i.key for i in of_kind if i.priority in urgent})
    for version in {v for i in items for v in i.versions}:
        went = {i.key for i in items if version in i.versions and i.done and not NO_WORK.search(i.resolution)}
        add(f"What went into release {version}?", went)
    for person in {i.assignee for i in opened if i.assignee}:
        held = [i for i in opened if i.assignee == person]
        for priority in ranked(held):
            asked = f"Which {priority}-priority tickets are assigned to {person}?"
            add(asked, {i.key for i in held if i.priority == priority})
    for person in {i.reporter for i in opened if i.reporter}:
        add(f"Which tickets reported by {person} are still open?", {i.key for i in opened if i.reporter == person})
    for word, _ in Counter(w for i in items for w in i.tags).most_common(12):
        add(f"Which {word} tickets are unresolved?", {i.key for i in opened if word in i.tags | i.titled})
    return sorted(made)


def run(brief: Any, n: int, at: str, seed: int) -> str:
    from briefing.index import Filter

    final = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC))
    chunks = list(final.chunks(Filter()))
    last = max(c.end for c in chunks)
    first = min(c.start for c in chunks)
    nows = [last + timedelta(days=1)] if at == "last" else [first + (last - first) * k / 5 for k in (1, 2, 3, 4)]
    rng = random.Random(seed)  # noqa: S311 (a reproducible draw)
    asked = count_right = set_right = 0
    for now in nows:
        items = read_items(brief.index.view(now).chunks(Filter()))
        made = questions(items)
        rng.shuffle(made)
        for question, keys in made[: max(1, n // len(nows))]:
            answer = brief.ask(question, now=now, k=10)
            cited = {ref.split("#comment")[0].split("/comment-")[0] for c in answer.citations for ref in c.refs}
            first_line = answer.answer.splitlines()[0] if answer.answer else ""
            counted = first_line.startswith(f"{len(keys)} ")
            exact = cited == keys if len(keys) <= SHOWN else (len(cited) == SHOWN and cited <= keys)
            asked += 1
            count_right += counted
            set_right += exact
            marks = f"{'COUNT' if counted else '-----'} {'SET' if exact else '---'} {len(keys):3}"
            print(f"{marks} | {now:%Y-%m-%d} {question} | {first_line[:100]}")
    return f"asked {asked}: count right {count_right}, cited set right {set_right}"


def main() -> None:
    at = ("--at", {"choices": ["last", "spread"], "default": "last", "help": "when the questions are asked"})
    args = probe_args(__doc__, 40, at)
    print_with_brief(args.config, lambda brief: run(brief, args.n, args.at, args.seed))


if __name__ == "__main__":
    main()
