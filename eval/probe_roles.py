"""Ask role questions made from a corpus's own structure and count how many name the right person.

No dev case is read: each question is built from an item of the index as of `--now` (its title, its header, its
comments), so it measures a class of questions on data nobody wrote questions for. Modes:
- `assignee`: "Who is working on the ticket about <summary>?", right when the answer names the header's assignee;
- `closed`, `verified`: "Who closed (verified) the ticket about <summary>?", right when the answer's first line
  names the writer of the item's last comment that announces it ("Closing ...", "Verified the fix ... Closing.");
- `merger`, `author`: "Who merged (opened) the pull request that does <title>?", from a pull request's header.

    python eval/probe_roles.py --config C --now 2017-11-20T12:00:00+00:00 --mode closed -n 30

Items are drawn with a fixed seed; prints one line per question (OK or BAD) and the count right.
"""

from __future__ import annotations

import argparse
import random
import re
from datetime import datetime
from pathlib import Path
from typing import Any

# Comment text: a comment that announces a close or a verification, after an optional stamp, name and mentions.
_LEAD = r"^\s*(?:\[[^\]]*\]\s*)?(?:[\w.@-]+:\s+)?(?:(?:\[~[^\]]*\]|@[\w.-]+)[,:]?\s*)*"
_ANNOUNCES = {
    "closed": re.compile(_LEAD + r"(?:closing|closed)\b", re.I | re.M),
    "verified": re.compile(_LEAD + r"verified\b", re.I | re.M),
}
# Header text: a pull request's opening sentence, with its author and who merged it.
_PULL = re.compile(r'PR #\d+ "(.*)" authored by (\S+), opened \S+, merged \S+ by (\S+)')


def _summary(title: str) -> str:
    """A ticket title without its key and its platform tag ("TIMOB-1: iOS: X" -> "X")."""
    summary = title.split(": ", 1)[-1] if ": " in title else title
    return re.sub(r"^[A-Za-z]+:\s*", "", summary).rstrip(".").lower()


def _cases(view: Any, mode: str) -> dict[str, tuple[str, str]]:
    """item key -> (question, the person a right answer names)."""
    from briefing.ask.header import is_header, rows
    from briefing.index import Filter

    found: dict[str, tuple[str, str]] = {}
    latest: dict[str, tuple[str, datetime | None]] = {}
    titles: dict[str, str] = {}
    for chunk in view.chunks(Filter()):
        titles[chunk.doc_key] = chunk.title
        for unit in chunk.units:
            own = unit.ref == chunk.doc_key
            if mode == "assignee" and own and is_header(unit.text):
                assignee = rows(unit.text).get("assignee", "")
                if assignee and assignee.lower() not in {"unassigned", "none", "-"} and "recorded" not in assignee:
                    found[chunk.doc_key] = (f"Who is working on the ticket about {_summary(chunk.title)}?", assignee)
            elif mode in _ANNOUNCES and not own and unit.author and _ANNOUNCES[mode].search(unit.text):
                before = latest.get(chunk.doc_key)
                if before is None or (unit.at and before[1] and unit.at > before[1]):
                    latest[chunk.doc_key] = (unit.author, unit.at)
            elif mode in {"merger", "author"} and own and (m := _PULL.match(unit.text)):
                verb, who = ("merged", m[3]) if mode == "merger" else ("opened", m[2])
                found[chunk.doc_key] = (f"Who {verb} the pull request that does {m[1].rstrip('.').lower()}?", who)
    for key, (who, _) in latest.items():
        found[key] = (f"Who {mode} the ticket about {_summary(titles[key])}?", who)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, required=True)
    parser.add_argument("--now", required=True)
    parser.add_argument("--mode", choices=["assignee", "closed", "verified", "merger", "author"], required=True)
    parser.add_argument("-n", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    from briefing.ask.run import build_deps
    from briefing.service import Brief, parse_now
    from briefing.settings import load_settings

    now = parse_now(args.now)
    with Brief(load_settings(args.config)) as brief:
        view = build_deps(brief).retriever.index.view(now)
        cases = _cases(view, args.mode)
        keys = sorted(cases)
        random.Random(args.seed).shuffle(keys)  # noqa: S311 (a reproducible draw, not a secret)
        right = 0
        for key in keys[: args.n]:
            question, who = cases[key]
            answer = brief.ask(question, now=now, k=10).answer
            first = answer.splitlines()[0] if answer else ""
            ok = who.split()[0].lower() in (first if args.mode in _ANNOUNCES else answer).lower()
            right += ok
            print("OK " if ok else "BAD", key, "|", question, "| expected", who, "|", first[:160])
        print(f"{right} of {min(args.n, len(keys))} right")


if __name__ == "__main__":
    main()
