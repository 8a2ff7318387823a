"""Ask questions made from a corpus's own items (who holds a role, who closed it, which PR fixed it, why it was
reopened) and count how many answers are right.

No dev case is read: each question is built from an item of the index as of `--now` (its title, its header, its
comments), so it measures a class of questions on data nobody wrote questions for. Modes:
- `assignee`: "Who is working on the ticket about <summary>?", right when the answer names the header's assignee;
- `fixer`: "Who fixed the ticket about <summary>?" of a ticket resolved as Fixed or Done with an assignee, right when
  the answer's first line names the assignee (a tracker records who did the work as the assignee; the one who
  closes it after verifying is often someone else), and "Who fixed <the rest of its title>?" of a merged pull request
  whose title opens with "Fix", right when it names the pull request's author;
- `about`: "What is KEY about?" ("What is #642 about?") of a ticket, issue or pull request with a description,
  right when the answer's first citation is the item's own text (its description), not a line that mentions it;
- `last`: "Who last commented on KEY?" of a ticket, issue or pull request with a comment, right when the answer's
  first line names the writer of its newest unit other than its own text and state records;
- `closed`, `verified`: "Who closed (verified) the ticket about <summary>?", right when the answer's first line
  names the writer of the item's last comment that announces it ("Closing ...", "Verified the fix ... Closing.");
- `merger`, `author`: "Who merged (opened) the pull request that does <title>?", from a pull request's header;
- `pull`: "Which pull request fixed the ticket about <summary>?", right when the answer's first line names a pull
  request a comment of the item links (".../pull/9403");
- `reopened`: "Why was the ticket about <summary> reopened?", right when the answer's first citation is a comment
  of the item that opens with "Reopening";
- `cause`, `fixed`: "Why did the problem in the ticket about <summary> happen?" or "What caused the problem in the
  ticket about <summary>?" (by turns), "What fixed the problem in the ticket about <summary>?", of a ticket or issue
  (not a pull request) with a comment that states a cause ("caused by", "due to", "the problem is", "this happens
  because") or a change that fixed it ("fixed by", "the fix is", "PR: <link>", "I changed ...", "removing X
  resolved it") in a sentence that neither asks nor denies; right when the answer's first citation is such a
  comment of the item. The questions copy no word of those comments;
- `closes`: "Which issue did the pull request that does <title> close?" for an item whose description says
  "Closes #N", right when the answer's first line names #N;
- `said`: "What did <author> say about the ticket about <summary>?" of someone with a comment of 80 characters or
  more on it, right when the answer's first citation is one of that author's comments on the item, of any length;
- `assignee2`, `merger2`, `changes2`: two-part questions with a role part, "What was reported in the ticket about
  <summary>, and who is it assigned to?", "What does the pull request that does <title> change, and who merged it?",
  "Who requested changes on the pull request that does <title>, and what did they ask for?", right when the role
  part's answer line (the one that opens with "Who") names the header's assignee, the merger or a reviewer whose
  last verdict requested changes;
- `tagged`: "Who reviewed the patch about <subject>?" of a mail thread whose replies give review tags
  ("Reviewed-by:", "Acked-by:"), right when the answer's first line names one of the tagged reviewers;
- `replied`: "Who commented on the ticket (issue) about <summary>?", "Who replied to the thread about <subject>?"
  of an item with replies from two people or more other than its opener (a role several hold at once), right when
  the answer's first line names one of them; the count line adds how many first lines read "Sources differ";
- `status`, `fix_version`, `resolved`, `created`, `priority`, `components`: "What is the status of the ticket about
  <summary>?", "Which release is the ticket about <summary> fixed in?", "When was the ticket about <summary>
  resolved?", "... created?", "What is the priority of ...?", "Which component is ... in?", right when the answer's
  first line states the header's value as of `--now` (its day, for `resolved` and `created`; a code host's "state",
  for `status`); items whose value is not recorded then, or "None", are not asked.

    python eval/probe_items.py --config C --now 2017-11-20T12:00:00+00:00 --mode closed -n 30 [--typed]

`--key` names each ticket by its key instead of "the ticket about <summary>" ("Who resolved TIMOB-25266?").
`--which` asks "Who <did>" as "Which people <did>" ("Which people reviewed the patch about <subject>?").
`--framed` asks each question after a sentence of context ("Quick question from the team. Who ...?").
`--typed` asks each question as a phone or Slack writes it: "Who is" and "What is" contracted ("Who's", "What's")
and every apostrophe typographic ("’").

Items are drawn with a fixed seed; prints one line per question (OK or BAD) and the count right.
"""

from __future__ import annotations

import argparse
import random
import re
from datetime import date, datetime
from pathlib import Path
from typing import Any

from probe_threads import _SUBJECT_TAGS, _SUBSYSTEMS

# Comment text: a comment that announces a close or a verification, after an optional stamp, name and mentions.
_LEAD = r"^\s*(?:\[[^\]]*\]\s*)?(?:[\w.@-]+:\s+)?(?:(?:\[~[^\]]*\]|@[\w.-]+)[,:]?\s*)*"
_ANNOUNCES = {
    "closed": re.compile(_LEAD + r"(?:closing|closed)\b", re.I | re.M),
    "verified": re.compile(_LEAD + r"verified\b", re.I | re.M),
}
_REOPENING = re.compile(_LEAD + r"re-?opening\b", re.I | re.M)
# Comment sentence: one that states what caused the problem ("Caused by TIMOB-20037", "this happens because ...",
# "the problem is that ...", "due to the new API").
_STATES_CAUSE = re.compile(
    r"\b(?:caused\s+by|due\s+to|root\s+cause|the\s+(?:problem|issue|cause|reason|culprit|bug)\s+(?:here\s+)?(?:is|was)\b"
    r"|(?:this|it|that)\s+(?:happens|happened|occurs|occurred|fails|failed|crashes|crashed)\s+because"
    r"|(?:this|that|it)(?:'s|\s+is|\s+was)\s+because|turn(?:s|ed)\s+out)",
    re.I,
)
# Comment sentence: one that states the change that fixed it ("fixed by ...", "the fix is ...", "PR: <link>", "I
# changed ...", "removing X resolved it").
_STATES_FIX = re.compile(
    r"\b(?:fixed\s+(?:by|with|via)|the\s+fix\s+(?:here\s+)?(?:is|was)\b|PRs?\s*(?:\([^)]*\))?\s*:\s*\S*/pull/\d+"
    r"|I(?:'ve|\s+have)?\s+(?:changed|removed|added|updated|enabled|disabled|replaced|reverted|moved|fixed)\b"
    r"|(?:resolved|fixed|solved|fixes|resolves|solves)\s+(?:it|this|the\s+(?:issue|problem|crash))\b)",
    re.I,
)
# Sentence text: one that asks or denies ("didn't resolve the problem", "maybe caused by ...?") states nothing.
_NOT_STATED = re.compile(r"\?|\b(?:not|no|never|n't|maybe|perhaps|might|possibly|whether)\b|n't\b", re.I)
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_STATED = {"cause": _STATES_CAUSE, "fixed": _STATES_FIX}


def states(text: str, mode: str) -> bool:
    """Whether comment `text` holds a sentence that states a cause (`mode` "cause") or a fix ("fixed")."""
    rule = _STATED[mode]
    return any(rule.search(s) and not _NOT_STATED.search(s) for s in _SENTENCES.split(text))


# A header field by its row label, and the question asked of it.
_HEADER_ASKS = {
    "status": ("status", "What is the status of the ticket about {}?"),
    "fix_version": ("fix version/s", "Which release is the ticket about {} fixed in?"),
    "resolved": ("resolved", "When was the ticket about {} resolved?"),
    "created": ("created", "When was the ticket about {} created?"),
    "priority": ("priority", "What is the priority of the ticket about {}?"),
    "components": ("components", "Which component is the ticket about {} in?"),
}
# Description text: the issues an item says it closes ("Closes #678", "Fixes: org/repo#12").
_CLOSES = re.compile(r"\b(?:closes|fixes|resolves)\s*:?\s*(?:[\w-]+/[\w-]+)?#(\d+)", re.I)
# Pull request title: one that says it fixes something ("Fix typo in the key schedule", "fix: null check"), and
# what it fixes.
_FIX_TITLE = re.compile(r"^fix(?:es|ed)?\b[:\s]+(.{8,})$", re.I)
# An item's document key: a ticket ("jira:TIMOB-25266") or a code host's issue or pull request ("github:o/r#642").
_ITEM_KEY = re.compile(r"^(?:jira:[A-Z][A-Z0-9_]+-\d+|github:[\w.-]+/[\w.-]+#\d+)$")
# Comment text: a link to a pull request, by its number.
_PULL_LINK = re.compile(r"github\.com/[\w.-]+/[\w.-]+/pull/(\d+)")
# Header text: a pull request's opening sentence, with its author and who merged it.
_PULL = re.compile(r'PR #\d+ "(.*)" authored by (\S+), opened \S+, merged \S+ by (\S+)')
# Review text: a reviewer's verdict after its time stamp ("[2022-01-10 17:01] bifurcation requested changes: ...").
_CHANGES = re.compile(r"^\s*(?:\[[^\]]*\]\s*)?([\w.@-]+)\s+requested changes\b")
# Mail text: a review tag on a line of its own ("Reviewed-by: Andrew Lunn <andrew@lunn.ch>"), the name before the
# address.
_TAGS = re.compile(r"^[ \t]*(?:Reviewed|Acked)-by:[ \t]*([^<>\n]+?)[ \t]*<", re.I | re.M)
# The question each two-part mode asks, of a ticket's summary or a pull request's title.
_TWO_PART = {
    "assignee2": "What was reported in the ticket about {}, and who is it assigned to?",
    "merger2": "What does the pull request that does {} change, and who merged it?",
    "changes2": "Who requested changes on the pull request that does {}, and what did they ask for?",
}


def _summary(title: str) -> str:
    """A ticket title without its key and its platform tag ("TIMOB-1: iOS: X" -> "X")."""
    summary = title.split(": ", 1)[-1] if ": " in title else title
    return re.sub(r"^[A-Za-z]+:\s*", "", summary).rstrip(".").lower()


def _asked(mode: str, key: str, title: str) -> str:
    """The cause or fix question asked of an item (a ticket, a GitHub issue, a mail thread)."""
    if key.startswith(("github:", "jira:")):
        item = f"the {'issue' if key.startswith('github:') else 'ticket'} about {_summary(title)}"
    else:  # a mail thread, by its subject without its tags
        subject = _SUBSYSTEMS.sub("", _SUBJECT_TAGS.sub("", title)).rstrip(".")
        item = f"the thread about {subject[:1].lower() + subject[1:]}"
    if mode == "fixed":
        return f"What fixed the problem in {item}?"
    odd = sum(map(ord, key)) % 2  # by turns, the same for an item every run
    return f"Why did the problem in {item} happen?" if odd else f"What caused the problem in {item}?"


def _replied(key: str, title: str) -> str:
    """Who replied to an item: a ticket's or an issue's commenters, a mail thread's repliers."""
    if key.startswith(("github:", "jira:")):
        return f"Who commented on the {'issue' if key.startswith('github:') else 'ticket'} about {_summary(title)}?"
    subject = _SUBSYSTEMS.sub("", _SUBJECT_TAGS.sub("", title)).rstrip(".")
    return f"Who replied to the thread about {subject[:1].lower() + subject[1:]}?"


def _cases(view: Any, mode: str) -> dict[str, tuple[str, set[str]]]:
    """item key -> (question, what a right answer holds: the person's name, a pull request number, a ref)."""
    from briefing import registry
    from briefing.ask.extractive.extractors import state_record
    from briefing.ask.header import is_header, rows
    from briefing.index import Filter

    found: dict[str, tuple[str, set[str]]] = {}
    linked: dict[str, set[str]] = {}
    said: dict[tuple[str, str], set[str]] = {}  # every comment of theirs on the item answers
    substantive: set[tuple[str, str]] = set()
    tagged: dict[str, set[str]] = {}
    latest: dict[str, tuple[str, datetime | None]] = {}
    newest: dict[str, tuple[datetime, str]] = {}
    titles: dict[str, str] = {}
    openers: dict[str, str] = {}
    for chunk in view.chunks(Filter()):
        titles[chunk.doc_key] = chunk.title
        for unit in chunk.units:
            own = unit.ref == chunk.doc_key
            if own and unit.author:
                openers[chunk.doc_key] = unit.author
            if mode == "reporter" and own and is_header(unit.text):
                reporter = rows(unit.text).get("reporter", "")
                if reporter and "recorded" not in reporter:
                    found[chunk.doc_key] = (
                        f"Who reported the ticket about {_summary(chunk.title)}?",
                        {reporter.split()[0]},
                    )
            elif mode in {"assignee", "assignee2"} and own and is_header(unit.text):
                assignee = rows(unit.text).get("assignee", "")
                if assignee and assignee.lower() not in {"unassigned", "none", "-"} and "recorded" not in assignee:
                    asked = f"Who is working on the ticket about {_summary(chunk.title)}?"
                    asked = _TWO_PART[mode].format(_summary(chunk.title)) if mode == "assignee2" else asked
                    found[chunk.doc_key] = (asked, {assignee.split()[0]})
            elif mode == "about" and own and _ITEM_KEY.match(chunk.doc_key) and len(unit.text.split()) >= 8:
                if is_header(unit.text):
                    continue
                name = chunk.doc_key.split(":", 1)[1]
                name = f"#{name.rsplit('#', 1)[1]}" if chunk.doc_key.startswith("github:") else name
                found.setdefault(chunk.doc_key, (f"What is {name} about?", {chunk.doc_key}))
            elif mode == "last" and not own and unit.author and unit.at and _ITEM_KEY.match(chunk.doc_key):
                if not state_record(unit.text) and (chunk.doc_key not in newest or unit.at > newest[chunk.doc_key][0]):
                    newest[chunk.doc_key] = (unit.at, unit.author)
            elif mode == "fixer" and own and not _PULL.match(unit.text) and is_header(unit.text):
                cells = rows(unit.text)
                assignee = cells.get("assignee", "")
                fixed = cells.get("resolution", "").lower() in {"fixed", "done"}
                if fixed and assignee and assignee.lower() not in {"unassigned", "none", "-"}:
                    found[chunk.doc_key] = (
                        f"Who fixed the ticket about {_summary(chunk.title)}?",
                        {assignee.split()[0]},
                    )
            elif mode in _HEADER_ASKS and own and is_header(unit.text):
                cells = rows(unit.text)
                # A code host's item states its status as "state: merged".
                value = cells.get(_HEADER_ASKS[mode][0]) or (cells.get("state", "") if mode == "status" else "")
                value = value.split(",")[0].strip()
                value = value[:10] if mode in {"resolved", "created"} else value
                if value and "recorded" not in value and value.lower() != "none":
                    found[chunk.doc_key] = (_HEADER_ASKS[mode][1].format(_summary(chunk.title)), {value})
            elif mode in _ANNOUNCES and not own and unit.author and _ANNOUNCES[mode].search(unit.text):
                before = latest.get(chunk.doc_key)
                if before is None or (unit.at and before[1] and unit.at > before[1]):
                    latest[chunk.doc_key] = (unit.author, unit.at)
            elif mode == "merger2" and own and (m := _PULL.match(unit.text)):
                found[chunk.doc_key] = (_TWO_PART[mode].format(m[1].rstrip(".").lower()), {m[3]})
            elif mode == "changes2" and not own and (m := _CHANGES.match(unit.text)):
                linked.setdefault(chunk.doc_key, set()).add(m[1])
            elif mode == "fixer" and own and (m := _PULL.match(unit.text)) and (f := _FIX_TITLE.match(m[1])):
                found[chunk.doc_key] = (f"Who fixed {f[1].rstrip('.')}?", {m[2]})
            elif mode in {"merger", "author"} and own and (m := _PULL.match(unit.text)):
                verb, who = ("merged", m[3]) if mode == "merger" else ("opened", m[2])
                asked = f"Who {verb} the pull request that does {m[1].rstrip('.').lower()}?"
                found[chunk.doc_key] = (asked, {who})
            elif mode == "pull" and not own and (numbers := _PULL_LINK.findall(unit.text)):
                linked.setdefault(chunk.doc_key, set()).update(numbers)
            elif mode == "reopened" and not own and _REOPENING.search(unit.text):
                linked.setdefault(chunk.doc_key, set()).add(unit.ref)
            elif mode in _STATED and not own and unit.author and states(unit.text, mode):
                if not registry.meta(chunk, "pull_request"):
                    linked.setdefault(chunk.doc_key, set()).add(unit.ref)
            elif mode == "closes" and own and (closes := _CLOSES.findall(unit.text)):
                linked.setdefault(chunk.doc_key, set()).update(closes)
            elif mode == "tagged" and not own and (tags := _TAGS.findall(unit.text)):
                tagged.setdefault(chunk.doc_key, set()).update(name.split()[0] for name in tags if name.strip())
            elif mode == "replied" and not own and unit.author and unit.author != openers.get(chunk.doc_key):
                tagged.setdefault(chunk.doc_key, set()).add(unit.author.split()[0])
            elif mode == "said" and not own and unit.author and "review:" not in unit.text:
                said.setdefault((chunk.doc_key, unit.author), set()).add(unit.ref)
                if len(unit.text) >= 80:  # asked only of someone who said something of substance
                    substantive.add((chunk.doc_key, unit.author))
    for key, names in tagged.items():
        subject = _SUBSYSTEMS.sub("", _SUBJECT_TAGS.sub("", titles[key])).rstrip(".")
        if mode == "replied" and len(names) >= 2 and len(subject.split()) >= 3:
            found[key] = (_replied(key, titles[key]), names)
        elif mode == "tagged" and len(subject.split()) >= 3:
            found[key] = (f"Who reviewed the patch about {subject[0].lower() + subject[1:]}?", names)
    for key, (_, author) in newest.items():
        name = key.split(":", 1)[1]
        name = f"#{name.rsplit('#', 1)[1]}" if key.startswith("github:") else name
        found[key] = (f"Who last commented on {name}?", {author.split()[0]})
    for key, (who, _) in latest.items():
        found[key] = (f"Who {mode} the ticket about {_summary(titles[key])}?", {who.split()[0]})
    for (key, author), refs in said.items():
        if (key, author) not in substantive:
            continue
        found[f"{key}|{author}"] = (f"What did {author} say about the ticket about {_summary(titles[key])}?", refs)
    for key, held in linked.items():
        if mode == "pull":
            found[key] = (f"Which pull request fixed the ticket about {_summary(titles[key])}?", held)
        elif mode == "changes2":
            found[key] = (_TWO_PART[mode].format(titles[key].split(": ", 1)[-1].rstrip(".").lower()), held)
        elif mode in _STATED:
            found[key] = (_asked(mode, key, titles[key]), held)
        elif mode == "closes":
            title = titles[key].split(": ", 1)[-1].rstrip(".").lower()
            found[key] = (f"Which issue did the pull request that does {title} close?", held)
        else:
            found[key] = (f"Why was the ticket about {_summary(titles[key])} reopened?", held)
    return found


def _right(mode: str, expected: set[str], answer: Any) -> bool:
    """Whether `answer` (a `Brief.ask` result) holds what a right answer to a question of `mode` holds."""
    first = answer.answer.splitlines()[0] if answer.answer else ""
    if mode in {"reopened", "said", "about", *_STATED}:
        return bool(answer.citations) and bool(set(answer.citations[0].refs) & expected)
    if mode in {"resolved", "created"}:  # the day, written either way ("2017-10-05", "Thu 5 Oct")
        days = [date.fromisoformat(e) for e in expected]
        return any(e in first for e in expected) or any(f"{d.day} {d:%b}" in first for d in days)
    if mode in _TWO_PART:  # the role part's line: the one that opens with "Who" (or "Which people", `--which`)
        lines = [line.lower() for line in answer.answer.splitlines() if line.startswith(("Who", "Which people"))]
        return any(e.lower() in line for e in expected for line in lines)
    if mode in {"pull", "closes"}:
        return any(f"/pull/{n}" in first or f"#{n}" in first for n in expected)
    said = (
        first
        if mode in _ANNOUNCES or mode in _HEADER_ASKS or mode in {"tagged", "replied", "reporter", "fixer", "last"}
        else answer.answer
    )
    said = said.lower()
    return any(e.lower() in said for e in expected)


# The sentence of context `--framed` puts before each question.
FRAME = "Quick question from the team."


# Question text: "Who is" / "What is" at the start, which people type contracted.
_CONTRACTED = re.compile(r"^(Who|What) is\b")


# Question text: "who" before a verb in the past tense ("Who reviewed", "and who merged it").
_WHO_DID = re.compile(r"\b([Ww])ho (?=\w+ed\b)")


# Question text: "who is" before a verb in the present participle ("Who is working on").
_WHO_IS_DOING = re.compile(r"\b([Ww])ho is (?=\w+ing\b)")


def which_people(question: str) -> str:
    """`question` asking for the role's holders by a people noun: "Who reviewed X?" as "Which people reviewed X?",
    "Who is working on X?" as "Which people are working on X?"."""
    question = _WHO_IS_DOING.sub(lambda m: ("Which" if m[1] == "W" else "which") + " people are ", question)
    return _WHO_DID.sub(lambda m: ("Which" if m[1] == "W" else "which") + " people ", question)


def by_key(cases: dict[str, tuple[str, set[str]]], titles: dict[str, str]) -> dict[str, tuple[str, set[str]]]:
    """The tickets' cases with each ticket named by its key ("TIMOB-25266") instead of "the ticket about
    <summary>"; cases of other items (pull requests, mail threads) are left out."""
    out = {}
    for key, (question, expected) in cases.items():
        doc = key.split("|")[0]
        described = f"the ticket about {_summary(titles.get(doc, ''))}"
        if doc.startswith("jira:") and described in question:
            out[key] = (question.replace(described, doc.split(":", 1)[1]), expected)
    return out


def typed(question: str) -> str:
    """`question` as a phone or Slack writes it: "Who is" as "Who’s", every apostrophe typographic."""
    return _CONTRACTED.sub(r"\1's", question).replace("'", "\u2019")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, required=True)
    parser.add_argument("--now", required=True)
    modes = [
        "assignee",
        "about",
        "last",
        "fixer",
        "reporter",
        "closed",
        "verified",
        "merger",
        "author",
        "pull",
        "reopened",
        "status",
        "fix_version",
    ]
    modes += [
        "resolved",
        "created",
        "priority",
        "components",
        "said",
        "closes",
        "tagged",
        "replied",
        *_STATED,
        *_TWO_PART,
    ]
    parser.add_argument("--mode", choices=modes, required=True)
    parser.add_argument("-n", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--typed", action="store_true", help="contracted, with typographic apostrophes")
    parser.add_argument("--which", action="store_true", help='"Who reviewed" asked as "Which people reviewed"')
    parser.add_argument("--framed", action="store_true", help="after a sentence of context")
    parser.add_argument("--key", action="store_true", help='a ticket named by its key, not "the ticket about ..."')
    args = parser.parse_args()

    from briefing.ask.run import build_deps
    from briefing.index import Filter
    from briefing.service import Brief, parse_now
    from briefing.settings import load_settings

    now = parse_now(args.now)
    with Brief(load_settings(args.config)) as brief:
        view = build_deps(brief).retriever.index.view(now)
        cases = _cases(view, args.mode)
        if args.key:
            cases = by_key(cases, {c.doc_key: c.title for c in view.chunks(Filter())})
        keys = sorted(cases)
        random.Random(args.seed).shuffle(keys)  # noqa: S311 (a reproducible draw, not a secret)
        right = items = differ = 0
        for key in keys[: args.n]:
            question, expected = cases[key]
            question = typed(question) if args.typed else question
            question = which_people(question) if args.which else question
            question = f"{FRAME} {question}" if args.framed else question
            answer = brief.ask(question, now=now, k=10)
            ok = _right(args.mode, expected, answer)
            right += ok
            items += bool(answer.citations) and any(r.startswith(key.split("|")[0]) for r in answer.citations[0].refs)
            first = answer.answer.splitlines()[0] if answer.answer else ""
            differ += first.startswith("Sources differ")
            print("OK " if ok else "BAD", key, "|", question, "| expected", sorted(expected)[:3], "|", first[:160])
        asked = min(args.n, len(keys))
        print(f"{right} of {asked} right ({items} led by a line of the item asked about, {differ} sources differ)")


if __name__ == "__main__":
    main()
