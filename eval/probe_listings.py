"""Ask the listing questions of a corpus (someone's week, the review queue, what blocks a release) in the other
words a manager uses, and count the answers that are the listing the first phrasing gives.

No dev case is read. Each family draws its cases from the index and asks them as of a moment the index holds:

- `activity`: (person, week) pairs with three or more of the person's messages or comments that week, asked as of
  the Monday after ("this week" forms: the Saturday of that week); counted when the answer is the person's week
  briefing ("What happened <week> (by <person>)"), and when half of its citations or more are the person's own
  lines of that week;
- `awaiting`: the first of every other month of the index's years at which "Which PRs are waiting for review?"
  lists open pull requests without an approval; counted when a phrasing gives the same answer;
- `blocking`: (moment, fix version) pairs, the 15th of each month of the index's years, whose version has items
  unresolved then; counted when the first line lists the items with that fix version not resolved;
- `reviewed`: (reviewer, week) pairs with reviews of two to fifteen items that week, read by this probe's own
  patterns (a code host's stamped review line "[...] login approved|requested changes|reviewed" on a pull request
  someone else opened; a mail's "Reviewed-by:" / "Acked-by:" tag in a message its named reviewer wrote), asked as of
  the Monday after ("this week": that Sunday, 23:59); counted when the lead counts those items and every one of them is
  cited by one of its reviews; "approve" forms count approvals and acks only, the passive form anyone's;
- `commented`: (person, week) pairs with messages on two to fifteen items that week (any message but the item's
  opening and its changelog, read by this probe from each unit's writer), asked as of the Monday after ("this
  week": that Sunday, 23:59); counted when the lead counts those items and every one of them is cited;
- `held`: at four moments spread over the index's life, the open items of each type (read by
  `probe_inventory.read_items`, that script's own reading of the items' headers; an item whose state then is not
  recorded is neither open nor counted), asked "Who has the most open <items>?" and "How many open <items> does
  each person have?"; counted when the first line names the assignee (or assignees) holding the most and their
  count of the open items of that type;
- `created`: weeks in which two or more tracker items were created, read by this probe's own patterns from each
  item's state ("Created: 2017-10-09", "Type: Bug", "Reporter: ..."), asked as of the Monday after; counted when the
  lead counts the items asked (bugs only for the bug forms, the week's most frequent reporter's for the person form)
  and it cites those items only, every one of them up to the 15 listed.

    python eval/probe_listings.py --config C --family activity -n 10
    python eval/probe_listings.py --config C --family awaiting --years 2021 2022 2023
    python eval/probe_listings.py --config C --family blocking --years 2017 2018 -n 12
    python eval/probe_listings.py --config C --family reviewed -n 12
    python eval/probe_listings.py --config C --family created -n 12
    python eval/probe_listings.py --config C --family commented -n 12 [--noun tickets]
    python eval/probe_listings.py --config C --family held
"""

from __future__ import annotations

import argparse
import random
import re
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ACTIVITY_FORMS = (
    "What did {p} work on last week?",
    "What did {p} do last week?",
    "What was {p} doing last week?",
    "What was {p} working on last week?",
    "What was {p} busy with last week?",
    "What has {p} been busy with this week?",
    "What did {p} get up to last week?",
)
AWAITING_FORMS = (
    "Which PRs are waiting for review?",
    "What pull requests still need a review?",
    "Which PRs haven't been reviewed yet?",
    "Which PRs are waiting on reviewers?",
    "What's in the review queue?",
    "Which pull requests need approval?",
    "Which PRs have no approval yet?",
    "What PRs are blocked on review?",
    "Any open PRs without a review?",
    "What needs review?",
)
BLOCKING_FORMS = (
    "What is blocking {v}?",
    "What's blocking the {v} release?",
    "What is left for {v}?",
    "What's holding up {v}?",
    "Which tickets are still open for {v}?",
    "What's outstanding for {v}?",
    "What remains to be done for {v}?",
    "What do we still need to finish for {v}?",
    "What is keeping us from shipping {v}?",
    "Is {v} ready to ship?",
)

REVIEWED_FORMS = (
    "Which {k} did {p} review last week?",
    "What did {p} review last week?",
    "Which {k} has {p} reviewed this week?",
    "Which {k} did {p} approve last week?",
    "What {k} did {p} sign off on last week?",
    "Which {k} were approved last week?",
)
COMMENTED_FORMS = (
    "Which {k} did {p} comment on last week?",
    "What did {p} comment on last week?",
    "Which {k} has {p} commented on this week?",
    "What did {p} reply to last week?",
    "What did {p} weigh in on last week?",
)
CREATED_FORMS = (
    "Which tickets were created last week?",
    "Which issues were opened last week?",
    "What tickets were filed last week?",
    "Which bugs were reported last week?",
    "Which bugs were logged last week?",
    "Which tickets did {p} file last week?",
)
# Header text of a tracker item: the day it was created, its type, its reporter (each on its row or cell).
_CREATED_ROW = re.compile(r"\bCreated: (\d{4}-\d{2}-\d{2})")
_TYPE_ROW = re.compile(r"\bType: ([\w -]+?)(?:\s*\||\n|$)")
_REPORTER_ROW = re.compile(r"\bReporter: ([^|\n]+?)\s*(?:\||\n|$)")
# Unit text: a code host's review line ("[2022-05-23 21:10] bifurcation approved: ..."): the login, the verdict.
_STAMPED_REVIEW = re.compile(r"^\[[^\]]+\]\s+([\w.@-]+)\s+(approved|requested changes|reviewed)\b")
# Unit text: a mail's review tag on a line of its own ("Acked-by: Rob Herring <robh@kernel.org>"): tag, name.
_REVIEW_TAG = re.compile(r"^[ \t]*(Reviewed-by|Acked-by):[ \t]*([^<>\n]*?)[ \t]*<", re.M | re.I)
# Header text of a pull request: who opened it ("authored by Bren2010").
_AUTHORED_BY = re.compile(r"\bauthored by ([\w.@-]+)")


def activity(brief: Any, n: int, seed: int) -> None:
    from briefing.index import Filter

    chunks = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC)).chunks(Filter())
    said: dict[tuple[str, Any], set[str]] = {}
    for chunk in chunks:
        for unit in chunk.units:
            if unit.at and unit.author:
                monday = (unit.at - timedelta(days=unit.at.weekday())).date()
                said.setdefault((unit.author, monday), set()).add(unit.ref)
    pairs = sorted(key for key, refs in said.items() if len(refs) >= 3)
    random.Random(seed).shuffle(pairs)  # noqa: S311 (a reproducible draw)
    pairs = pairs[:n]
    for form in ACTIVITY_FORMS:
        briefed = own = 0
        for author, monday in pairs:
            start = datetime(monday.year, monday.month, monday.day, 10, tzinfo=UTC)
            now = start + timedelta(days=5 if "this week" in form else 7)
            answer = brief.ask(form.format(p=author.split()[0]), now=now, k=10)
            cited = [r for c in answer.citations for r in c.refs] if not answer.no_answer else []
            briefed += answer.answer.startswith("What happened")
            own += bool(cited) and 2 * sum(r in said[(author, monday)] for r in cited) >= len(cited)
        print(f"{form:45s} the person's week {briefed}, half the citations theirs {own} of {len(pairs)}", flush=True)


def awaiting(brief: Any, years: list[int]) -> None:
    from briefing.service import parse_now

    moments = [parse_now(f"{y}-{m:02d}-01T00:00:00+00:00") for y in years for m in range(1, 13, 2)]
    base = {at: brief.ask(AWAITING_FORMS[0], now=at, k=10).answer for at in moments}
    listed = [at for at in moments if " open pull request" in base[at].split("\n")[0]]
    for form in AWAITING_FORMS:
        same = sum(brief.ask(form, now=at, k=10).answer == base[at] for at in listed)
        print(f"{form:45s} the same listing {same} of {len(listed)}", flush=True)


def blocking(brief: Any, years: list[int], n: int, seed: int) -> None:
    from briefing.ask.blocking import open_items
    from briefing.ask.finished import fix_versions, history_families
    from briefing.ask.header import is_header, rows
    from briefing.ask.run import build_deps
    from briefing.index import Filter
    from briefing.service import parse_now

    index = build_deps(brief).retriever.index
    pairs = []
    for at in (parse_now(f"{y}-{m:02d}-15T12:00:00+00:00") for y in years for m in range(1, 13)):
        view = index.view(at)
        versions: Counter[str] = Counter()
        for chunk in view.chunks(Filter(source_types=history_families())):
            for unit in chunk.units:
                if unit.ref == chunk.doc_key and is_header(unit.text):
                    versions.update(fix_versions(rows(unit.text)))
        pairs += [(at, v) for v, _ in versions.most_common(10) if open_items([v], view, "")]
    random.Random(seed).shuffle(pairs)  # noqa: S311 (a reproducible draw)
    pairs = pairs[:n]
    for form in BLOCKING_FORMS:
        right = 0
        for at, version in pairs:
            first = brief.ask(form.format(v=version), now=at, k=10).answer.split("\n", 1)[0]
            right += f"with fix version {version} not resolved" in first
        print(f"{form:45s} the release's open items {right} of {len(pairs)}", flush=True)


def _reviews(brief: Any) -> tuple[dict[tuple[str, Any, bool], dict[str, set[str]]], bool]:
    """(reviewer, Monday, approval) -> item key -> the refs of the reviews, and whether the items are pull requests."""
    from briefing.index import Filter

    found: dict[tuple[str, Any, bool], dict[str, set[str]]] = {}
    pulls = False
    chunks = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC)).chunks(Filter())
    openers = {c.doc_key: m[1] for c in chunks for u in c.units if (m := _AUTHORED_BY.search(u.text))}
    for chunk in chunks:
        opener = openers.get(chunk.doc_key, "")
        for unit in chunk.units:
            if unit.at is None:
                continue
            given = []
            if (m := _STAMPED_REVIEW.match(unit.text)) and m[1] != opener:
                given.append((m[1], m[2] == "approved"))
                pulls = True
            given += [(t[2].strip(), t[1].lower() == "acked-by") for t in _REVIEW_TAG.finditer(unit.text)]
            monday = (unit.at - timedelta(days=unit.at.weekday())).date()
            for who, approval in given:
                if unit.author and who.split()[0].lower() != unit.author.split()[0].lower():
                    continue  # a tag carried forward in someone else's message
                for key in {(who, monday, False), *([(who, monday, True)] if approval else [])}:
                    found.setdefault(key, {}).setdefault(chunk.doc_key, set()).add(unit.ref)
    return found, pulls


def reviewed(brief: Any, n: int, seed: int) -> None:
    found, pulls = _reviews(brief)
    kind = "PRs" if pulls else "patches"
    pairs = sorted(key for key, items in found.items() if 2 <= len(items) <= 15 and not key[2])
    random.Random(seed).shuffle(pairs)  # noqa: S311 (a reproducible draw)
    pairs = pairs[:n]
    for form in REVIEWED_FORMS:
        right = asked = 0
        for who, monday, _ in pairs:
            approving = "approve" in form or "sign off" in form
            if "{p}" not in form:  # anyone's approvals that week
                items: dict[str, set[str]] = {}
                for (_, day, approval), reviews in found.items():
                    if day == monday and approval:
                        for key, refs in reviews.items():
                            items.setdefault(key, set()).update(refs)
            else:
                items = found.get((who, monday, approving), {})
            if not items or len(items) > 15:
                continue
            start = datetime(monday.year, monday.month, monday.day, 10, tzinfo=UTC)
            now = start + (timedelta(days=6, hours=13, minutes=59) if "this week" in form else timedelta(days=7))
            answer = brief.ask(form.format(k=kind, p=who), now=now, k=10)
            cited = {r for c in answer.citations for r in c.refs}
            asked += 1
            right += answer.answer.startswith(f"{len(items)} ") and all(refs & cited for refs in items.values())
        print(f"{form:45s} the items reviewed, each cited {right} of {asked}", flush=True)


def commented(brief: Any, n: int, seed: int, noun: str) -> None:
    from briefing.index import Filter

    said: dict[tuple[str, Any], dict[str, set[str]]] = {}  # (writer, Monday) -> item key -> the refs of their messages
    for chunk in brief.index.view(datetime(2200, 1, 1, tzinfo=UTC)).chunks(Filter()):
        if chunk.metadata.get("section") == "history" or chunk.kind == "slack_channel":
            continue  # a changelog's entries are no comments, nor a channel's own posts (JIRA's and Slack's keys)
        for pos, unit in enumerate(chunk.units):
            if unit.at is None or not unit.author or unit.ref == chunk.doc_key:
                continue
            if chunk.kind == "slack_thread" and chunk.ordinal == 0 and pos == 0:
                continue  # the thread's opening message
            monday = (unit.at - timedelta(days=unit.at.weekday())).date()
            said.setdefault((unit.author, monday), {}).setdefault(chunk.doc_key, set()).add(unit.ref)
    pairs = sorted(key for key, items in said.items() if 2 <= len(items) <= 15)
    random.Random(seed).shuffle(pairs)  # noqa: S311 (a reproducible draw)
    pairs = pairs[:n]
    for form in COMMENTED_FORMS:
        right = 0
        for who, monday in pairs:
            items = said[(who, monday)]
            start = datetime(monday.year, monday.month, monday.day, 10, tzinfo=UTC)
            now = start + (timedelta(days=6, hours=13, minutes=59) if "this week" in form else timedelta(days=7))
            answer = brief.ask(form.format(k=noun, p=who), now=now, k=10)
            cited = {r for c in answer.citations for r in c.refs}
            right += answer.answer.startswith(f"{len(items)} ") and all(refs & cited for refs in items.values())
        print(f"{form:45s} the items commented on, each cited {right} of {len(pairs)}", flush=True)


HELD_FORMS = ("Who has the most open {k}?", "How many open {k} does each person have?", "Who owns the most open {k}?")


def held(brief: Any) -> None:
    from probe_inventory import PLURAL, read_items

    from briefing.index import Filter

    chunks = list(brief.index.view(datetime(2200, 1, 1, tzinfo=UTC)).chunks(Filter()))
    first, last = min(c.start for c in chunks), max(c.end for c in chunks)
    cases = []
    for now in (first + (last - first) * k / 5 for k in (1, 2, 3, 4)):
        items = [i for i in read_items(brief.index.view(now).chunks(Filter())) if not i.done]
        for kind, noun in PLURAL.items():
            mine = Counter(i.assignee for i in items if i.kind == kind and i.assignee)
            if mine:
                most = max(mine.values())
                top = sorted(who for who, count in mine.items() if count == most)
                total = sum(1 for i in items if i.kind == kind)
                cases.append((now, noun, top, most, total))
    for form in HELD_FORMS:
        right = 0
        for now, noun, top, most, total in cases:
            line = brief.ask(form.format(k=noun), now=now, k=10).answer.split("\n", 1)[0]
            named = top[0] if len(top) == 1 else f"{', '.join(top[:-1])} and {top[-1]}"
            right += line.startswith(named) and f"the most: {most} of {total} " in line
        print(f"{form:45s} the assignee holding the most and their count {right} of {len(cases)}", flush=True)


def created(brief: Any, n: int, seed: int) -> None:
    from briefing.index import Filter

    made: dict[Any, dict[str, tuple[str, str]]] = {}  # Monday -> key -> (type, reporter)
    for chunk in brief.index.view(datetime(2200, 1, 1, tzinfo=UTC)).chunks(Filter()):
        for unit in chunk.units:
            day = _CREATED_ROW.search(unit.text) if unit.ref == chunk.doc_key else None
            if day is None:
                continue
            on = datetime.fromisoformat(day[1]).date()
            kind, by = _TYPE_ROW.search(unit.text), _REPORTER_ROW.search(unit.text)
            week = made.setdefault(on - timedelta(days=on.weekday()), {})
            week[chunk.doc_key] = ((kind[1] if kind else "").strip(), (by[1] if by else "").strip())
    weeks = sorted(w for w, items in made.items() if len(items) >= 2)
    random.Random(seed).shuffle(weeks)  # noqa: S311 (a reproducible draw)
    weeks = weeks[:n]
    for form in CREATED_FORMS:
        right = asked = 0
        for monday in weeks:
            items = made[monday]
            who = Counter(by for _, by in items.values() if by).most_common(1)
            if "bugs" in form:
                items = {k: v for k, v in items.items() if v[0].lower() == "bug"}
            if "{p}" in form:
                if not who:
                    continue
                items = {k: v for k, v in items.items() if v[1] == who[0][0]}
            if not items:
                continue
            now = datetime(monday.year, monday.month, monday.day, 10, tzinfo=UTC) + timedelta(days=7)
            answer = brief.ask(form.format(p=who[0][0] if who else ""), now=now, k=10)
            cited = {r for c in answer.citations for r in c.refs}
            asked += 1
            listed = {r for r in cited if r in made[monday]}  # the first 15 are listed, the rest counted
            right += answer.answer.startswith(f"{len(items)} ") and listed <= set(items)
            right -= answer.answer.startswith(f"{len(items)} ") and len(listed) < min(len(items), 15)
        print(f"{form:45s} the items created, each cited {right} of {asked}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--config", type=Path, required=True)
    parser.add_argument(
        "--family",
        choices=["activity", "awaiting", "blocking", "reviewed", "created", "commented", "held"],
        required=True,
    )
    parser.add_argument("-n", type=int, default=10)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--years", type=int, nargs="*", default=[], help="awaiting, blocking: the years to ask in")
    parser.add_argument("--noun", default="tickets", help="commented: the items' noun in the question")
    args = parser.parse_args()

    from briefing.service import Brief
    from briefing.settings import load_settings

    with Brief(load_settings(args.config)) as brief:
        if args.family == "activity":
            activity(brief, args.n, args.seed)
        elif args.family == "awaiting":
            awaiting(brief, args.years)
        elif args.family == "blocking":
            blocking(brief, args.years, args.n, args.seed)
        elif args.family == "reviewed":
            reviewed(brief, args.n, args.seed)
        elif args.family == "created":
            created(brief, args.n, args.seed)
        elif args.family == "held":
            held(brief)
        else:
            commented(brief, args.n, args.seed, args.noun)


if __name__ == "__main__":
    main()
