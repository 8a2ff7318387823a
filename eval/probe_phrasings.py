"""Ask the structure-made probes of other scripts in the other words a manager uses, and count the answers.

No dev case is read. A question reader that knows one phrasing of a question ("Summarize the discussion in #605")
and not another ("What were the main points raised in #605?") answers the second as a different question; each
family below takes its probes from the index and asks them in several phrasings, the first being the one the
original probe asks:

- `summary`: `probe_summaries.py`'s conversations (by key, or `--by title` in the title's own phrasings), scored as
  it scores them (the means of own / messages / people / last / words / refused);
- `assignee`, `resolved`, `closed`, `reopened`, `pull`, `status`, `fix_version`, `merger`, `author`, `tagged`,
  `cause`, `fixed`, `said`, `closes`: `probe_items.py`'s items of that mode, right as it judges them (the header's
  assignee named, the resolution day stated, who announced the close named first, the comment that reopened it
  cited first, the linked pull request named first, the header's status or fix version stated, the merger or author
  named first, a reviewer its tags name named first, a comment that states the cause or the fix or one of the
  person's comments cited first, the issue closed named first);
- `feedback`: `probe_feedback.py`'s conversations, counted when the first citation is the conversation's own and
  when it is a reply (by someone other than its starter);
- `answerer`: `probe_threads.py --who`'s chat threads, counted when the first line names the one who replied, the
  asker, or refuses;
- `standing`: `probe_standing.py`'s conversations, counted when the first citation is the conversation's own, when
  it is its last message, when one of the first two citations is (an item's state may come first), and when any
  is (a timeline ends with it);
- `workload`: `probe_assigned.py`'s assignees, counted when the answer cites all of their open items, and when it
  cites only those;
- `inventory`: `probe_inventory.py`'s questions (a day after the index's last change), counted as it counts them:
  the first line states how many items match, the answer cites exactly those;
- `catchup`: (channel, day) pairs of the index's chat messages, counted the same as the briefing that "What
  happened in #c on <day>?" gives;
- `owner`, `reporter`: `probe_items.py`'s `assignee` and `reporter` items in other words ("Who owns the ticket about
  X?", "Who filed the ticket about X?"), judged as it judges them;
- `finished`: (person, week) pairs of the index's trackers in which "Which tickets did P finish last week?" lists
  items, asked as of the Monday after; counted when a phrasing cites the same items.

    python eval/probe_phrasings.py --config C --family summary -n 20 [--by title]
    python eval/probe_phrasings.py --config C --family assignee --now 2017-11-20T12:00:00+00:00 -n 20
    python eval/probe_phrasings.py --config C --family catchup -n 10
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

SUMMARY_FORMS = (
    "Summarize the discussion in {k}.",
    "What were the main points raised in {k}?",
    "What was discussed in {k}?",
    "Give me a summary of {k}.",
    "What happened in {k}?",
)
# A conversation named by its title ({t}: the quoted title, as `probe_summaries.py --by title` names it).
TITLE_FORMS = (
    "Summarize the discussion on {t}.",
    "What were the main points of the discussion on {t}?",
    "What was discussed in the thread {t}?",
    "Give me a summary of the discussion on {t}.",
    "What happened with {t}?",
)
# Per `probe_items.py` mode: the question it asks (the item's words in group 1) and the phrasings asked.
ITEM_FORMS: dict[str, tuple[str, tuple[str, ...]]] = {
    "assignee": (
        r"^Who is working on the ticket about (.*)\?$",
        (
            "Who is working on the ticket about {s}?",
            "Who's handling the ticket about {s}?",
            "Who is on the ticket about {s}?",
            "Who picked up the ticket about {s}?",
            "Who has the ticket about {s}?",
            "Who's looking into {s}?",
            "Who is assigned to {s}?",
        ),
    ),
    "owner": (
        r"^Who is working on the ticket about (.*)\?$",
        (
            "Who owns the ticket about {s}?",
            "Who is the owner of the ticket about {s}?",
            "Who is responsible for {s}?",
            "Who is doing {s}?",
            "Who's taking care of {s}?",
            "Who is in charge of the ticket about {s}?",
            "Whose ticket is {s}?",
        ),
    ),
    "reporter": (
        r"^Who reported the ticket about (.*)\?$",
        (
            "Who reported the ticket about {s}?",
            "Who filed the ticket about {s}?",
            "Who raised the ticket about {s}?",
            "Who opened the ticket about {s}?",
            "Who created the ticket about {s}?",
            "Who logged the bug about {s}?",
            "Who first reported {s}?",
        ),
    ),
    "resolved": (
        r"^When was the ticket about (.*) resolved\?$",
        (
            "When was the ticket about {s} resolved?",
            "What day was {s} resolved?",
            "When did the ticket about {s} get closed?",
        ),
    ),
    "closed": (
        r"^Who closed the ticket about (.*)\?$",
        (
            "Who closed the ticket about {s}?",
            "Who resolved the ticket about {s}?",
            "Which person closed the ticket about {s}?",
        ),
    ),
    "reopened": (
        r"^Why was the ticket about (.*) reopened\?$",
        (
            "Why was the ticket about {s} reopened?",
            "Why did they reopen the ticket about {s}?",
            "How come the ticket about {s} got reopened?",
        ),
    ),
    "status": (
        r"^What is the status of the ticket about (.*)\?$",
        (
            "What is the status of the ticket about {s}?",
            "Where does the ticket about {s} stand?",
            "How is the ticket about {s} going?",
            "Where do things stand with {s}?",
            "What state is the ticket about {s} in?",
            "Is the ticket about {s} done?",
            "Is the ticket about {s} still open?",
            "What's the current status of {s}?",
            "Status of the ticket about {s}?",
        ),
    ),
    "fix_version": (
        r"^Which release is the ticket about (.*) fixed in\?$",
        (
            "Which release is the ticket about {s} fixed in?",
            "What version has the fix for {s}?",
            "Which version will the fix for {s} ship in?",
            "What is the fix version of the ticket about {s}?",
            "When will the fix for {s} be released?",
        ),
    ),
    "merger": (
        r"^Who merged the pull request that does (.*)\?$",
        (
            "Who merged the pull request that does {s}?",
            "Who merged the PR that does {s}?",
            "Who landed the pull request that does {s}?",
            "Which person merged the PR that does {s}?",
            "By whom was the pull request that does {s} merged?",
        ),
    ),
    "author": (
        r"^Who opened the pull request that does (.*)\?$",
        (
            "Who opened the pull request that does {s}?",
            "Who wrote the PR that does {s}?",
            "Who authored the pull request that does {s}?",
            "Who created the PR that does {s}?",
            "Whose pull request does {s}?",
            "Who sent the PR that does {s}?",
        ),
    ),
    "tagged": (
        r"^Who reviewed the patch about (.*)\?$",
        (
            "Who reviewed the patch about {s}?",
            "Who acked the patch about {s}?",
            "Who signed off on the patch about {s}?",
            "Who gave a Reviewed-by on the patch about {s}?",
            "Which people reviewed the patch about {s}?",
        ),
    ),
    "cause": (
        r"^(?:Why did the problem in (.*) happen|What caused the problem in (.*))\?$",
        (
            "What caused the problem in {s}?",
            "What is the root cause of the problem in {s}?",
            "What was behind the problem in {s}?",
            "What was the reason for the problem in {s}?",
            "How come the problem in {s} happened?",
        ),
    ),
    "fixed": (
        r"^What fixed the problem in (.*)\?$",
        (
            "What fixed the problem in {s}?",
            "How was the problem in {s} fixed?",
            "What was the fix for the problem in {s}?",
            "How did they solve the problem in {s}?",
            "What resolved the problem in {s}?",
        ),
    ),
    "said": (
        r"^What did (.*) say about (the .*)\?$",
        (
            "What did {0} say about {1}?",
            "What was {0}'s take on {1}?",
            "What did {0} think about {1}?",
            "What were {0}'s comments on {1}?",
            "How did {0} weigh in on {1}?",
        ),
    ),
    "closes": (
        r"^Which issue did the pull request that does (.*) close\?$",
        (
            "Which issue did the pull request that does {s} close?",
            "What issue does the PR that does {s} fix?",
            "Which issue is closed by the pull request that does {s}?",
            "Which bug does the PR that does {s} resolve?",
        ),
    ),
    "pull": (
        r"^Which pull request fixed the ticket about (.*)\?$",
        (
            "Which pull request fixed the ticket about {s}?",
            "Which PR fixed the ticket about {s}?",
            "Where is the pull request for the ticket about {s}?",
            "What PR has the fix for {s}?",
        ),
    ),
}
FEEDBACK_FORMS = (
    'What was the feedback on "{t}"?',
    'How did people react to "{t}"?',
    'What were the reactions to "{t}"?',
    'What did people think of "{t}"?',
    'Did anyone reply to "{t}"?',
)
ANSWERER_FORMS = (
    'Who answered the question "{q}"?',
    'Who helped with "{q}"?',
    'Who solved "{q}"?',
    'Who figured out "{q}"?',
    'Who had the answer to "{q}"?',
)
# Work someone finished in a week, asked as of the Monday after: counted the same as the canonical first form's.
FINISHED_FORMS = (
    "Which tickets did {p} finish last week?",
    "What did {p} finish last week?",
    "What did {p} get done last week?",
    "What did {p} complete last week?",
    "What did {p} resolve last week?",
    "What did {p} close out last week?",
    "What did {p} wrap up last week?",
    "What did {p} deliver last week?",
    "What work did {p} finish last week?",
)
CATCHUP_FORMS = (
    "What did I miss in #{c} on {d}?",
    "Give me the highlights from #{c} on {d}.",
    "Anything interesting in #{c} on {d}?",
    "What did people talk about in #{c} on {d}?",
    "Fill me in on #{c} on {d}.",
)
# Where a conversation stands ({t}: its title, quoted as `probe_standing.py` quotes it).
STANDING_FORMS = (
    'What is the latest on "{t}"?',
    'Where does "{t}" stand?',
    'Any news on "{t}"?',
    'Any updates on "{t}"?',
    'What is the current state of "{t}"?',
    'How is "{t}" going?',
)
# What someone has open ({p}: an assignee, as `probe_assigned.py` names them).
WORKLOAD_FORMS = (
    "What is {p} working on?",
    "Which tickets is {p} assigned to?",
    "What's on {p}'s plate?",
    "What does {p} have open?",
    "What is assigned to {p}?",
    "What is {p} busy with?",
)
# Per `probe_inventory.py` question (its words in groups), the phrasings asked.
INVENTORY_FORMS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        r"^Which open (\S+) (.+) are there\?$",
        (
            "Which open {0} {1} are there?",
            "What {0} {1} are still open?",
            "List the open {0} {1}.",
            "Are there any open {0} {1}?",
            "Show me all unresolved {0} {1}.",
        ),
    ),
    (
        r"^Which (.+) are still open\?$",
        (
            "Which {0} are still open?",
            "What {0} are still open?",
            "List the open {0}.",
            "Show me the open {0}.",
            "Do we have any open {0}?",
        ),
    ),
    (
        r"^How many open (.+) are there\?$",
        (
            "How many open {0} are there?",
            "How many {0} are still open?",
            "How many open {0} do we have?",
            "What's the number of open {0}?",
        ),
    ),
    (
        r"^What went into release (.+)\?$",
        (
            "What went into release {0}?",
            "What was fixed in {0}?",
            "Which tickets were fixed in release {0}?",
            "What shipped in {0}?",
            "What's in release {0}?",
        ),
    ),
    (
        r"^Which tickets reported by (.+) are still open\?$",
        (
            "Which tickets reported by {0} are still open?",
            "What open tickets did {0} report?",
            "Which of {0}'s tickets are still open?",
            "List the open tickets {0} reported.",
        ),
    ),
    (
        r"^Which (\S+) tickets are unresolved\?$",
        (
            "Which {0} tickets are unresolved?",
            "What {0} tickets are still open?",
            "List the unresolved {0} tickets.",
            "Any open {0} tickets?",
        ),
    ),
)
# A family asked of another family's `probe_items.py` mode: an owner is the assignee.
_ITEM_MODE = {"owner": "assignee"}
_SUMMARY_METRICS = ("own", "messages", "people", "last", "words", "refused")


def summaries(brief: Any, n: int, seed: int, by: str) -> None:
    from probe_summaries import probes, score

    from briefing.index import Filter

    view = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC))
    drawn = probes(view.chunks(Filter()), random.Random(seed), by)[:n]  # noqa: S311 (a reproducible draw)
    for form in SUMMARY_FORMS if by == "key" else TITLE_FORMS:
        sums: Counter[str] = Counter()
        for probe in drawn:
            name = probe.question.removeprefix("Summarize the discussion in ").removeprefix(
                "Summarize the discussion on "
            )
            name = name.removesuffix(".")
            sums.update(score(probe, brief.ask(form.format(k=name, t=name), now=probe.now, k=10)))
        asked = max(len(drawn), 1)
        print(f"{form:42s} " + " ".join(f"{m} {sums[m] / asked:.2f}" for m in _SUMMARY_METRICS), flush=True)


def items(brief: Any, n: int, seed: int, mode: str, now: datetime) -> None:
    from probe_items import _cases, _right

    from briefing.ask.run import build_deps

    view = build_deps(brief).retriever.index.view(now)
    asked, forms = ITEM_FORMS[mode]
    mode = _ITEM_MODE.get(mode, mode)
    cases = _cases(view, mode)
    keys = sorted(cases)
    random.Random(seed).shuffle(keys)  # noqa: S311 (a reproducible draw)
    keys = keys[:n]
    for form in forms:
        right = 0
        for key in keys:
            question, expected = cases[key]
            said = re.match(asked, question)
            if said is not None:
                groups = [g for g in said.groups() if g is not None]
                right += _right(mode, expected, brief.ask(form.format(*groups, s=groups[0]), now=now, k=10))
        print(f"{form:55s} {right} of {len(keys)} right", flush=True)


def feedback(brief: Any, n: int, seed: int) -> None:
    from probe_feedback import probes

    from briefing.index import Filter

    view = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC))
    drawn = probes(view.chunks(Filter()), random.Random(seed))[:n]  # noqa: S311 (a reproducible draw)
    for form in FEEDBACK_FORMS:
        own = reply = 0
        for question, now, starter, by in drawn:
            title = question.removeprefix('What was the feedback on "').removesuffix('"?')
            answer = brief.ask(form.format(t=title), now=now, k=10)
            first = answer.citations[0].refs[0] if answer.citations and not answer.no_answer else ""
            own += first in by
            reply += first in by and by[first] != starter
        print(f"{form:45s} first citation its own {own}, a reply {reply} of {len(drawn)}", flush=True)


def answerers(brief: Any, n: int, seed: int) -> None:
    from probe_threads import probes

    from briefing.index import Filter

    chunks = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC)).chunks(Filter())
    drawn = [p for p in probes(chunks, random.Random(seed)) if p.shape == "thread"][:n]  # noqa: S311
    authors = {u.ref: u.author for c in chunks for u in c.units if u.author}
    for form in ANSWERER_FORMS:
        counts: Counter[str] = Counter()
        for probe in drawn:
            answer = brief.ask(form.format(q=probe.question), now=probe.now, k=10)
            named = (answer.answer.splitlines()[0] if answer.answer else "").split(" — ", 1)[0]
            repliers = {authors[r] for r in probe.answering if r in authors}
            askers = {authors[r] for r in probe.asker_refs if r in authors}
            if answer.no_answer:
                counts["refused"] += 1
            elif any(named.startswith(p) for p in repliers):
                counts["replier"] += 1
            elif any(named.startswith(p) for p in askers):
                counts["asker"] += 1
        print(
            f"{form:42s} replier named {counts['replier']}, asker {counts['asker']}, refused {counts['refused']} "
            f"of {len(drawn)}",
            flush=True,
        )


def standing(brief: Any, n: int, seed: int) -> None:
    from probe_standing import probes

    from briefing.index import Filter

    view = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC))
    drawn = probes(view.chunks(Filter()), random.Random(seed), "latest")[:n]  # noqa: S311 (a reproducible draw)
    for form in STANDING_FORMS:
        own = last = second = anywhere = 0
        for question, now, refs, final in drawn:
            title = question.removeprefix('What is the latest on "').removesuffix('"?')
            answer = brief.ask(form.format(t=title), now=now, k=10)
            cited = [r for c in answer.citations for r in c.refs] if not answer.no_answer else []
            own += bool(cited) and cited[0] in refs
            last += bool(cited) and cited[0] == final
            second += final in cited[:2]  # after the item's state, its last message
            anywhere += final in cited  # a timeline ends with it
        print(
            f"{form:38s} first citation its own {own}, its last message {last} (of the first two {second}, "
            f"anywhere {anywhere}) of {len(drawn)}",
            flush=True,
        )


def workload(brief: Any, n: int) -> None:
    from probe_assigned import open_by_person

    from briefing.index import Filter

    held, latest = open_by_person(brief.index.view(datetime(2200, 1, 1, tzinfo=UTC)).chunks(Filter()))
    people = sorted(held, key=lambda p: (-len(held[p]), p))[:n]
    for form in WORKLOAD_FORMS:
        every = only = 0
        for person in people:
            answer = brief.ask(form.format(p=person), now=latest + timedelta(days=1), k=10)
            cited = {r.split("#")[0] if r.startswith("jira:") else r for c in answer.citations for r in c.refs}
            cited = {r.split("/comment-")[0] for r in cited}
            every += held[person] <= cited
            only += bool(cited) and cited <= held[person]
        print(f"{form:42s} cites all their open items {every}, only those {only} of {len(people)}", flush=True)


def inventory(brief: Any, n: int, seed: int) -> None:
    from probe_inventory import SHOWN, questions, read_items

    from briefing.index import Filter

    chunks = list(brief.index.view(datetime(2200, 1, 1, tzinfo=UTC)).chunks(Filter()))
    now = max(c.end for c in chunks) + timedelta(days=1)
    made = questions(read_items(brief.index.view(now).chunks(Filter())))
    random.Random(seed).shuffle(made)  # noqa: S311 (a reproducible draw)
    for asked, forms in INVENTORY_FORMS:
        drawn = [(m, keys) for question, keys in made if (m := re.match(asked, question))][:n]
        for form in forms:
            counted = exact = 0
            for m, keys in drawn:
                answer = brief.ask(form.format(*m.groups()), now=now, k=10)
                cited = {r.split("#comment")[0].split("/comment-")[0] for c in answer.citations for r in c.refs}
                first = answer.answer.splitlines()[0] if answer.answer else ""
                counted += first.startswith(f"{len(keys)} ")
                exact += cited == keys if len(keys) <= SHOWN else (len(cited) == SHOWN and cited <= keys)
            print(f"{form:48s} count right {counted}, cited set right {exact} of {len(drawn)}", flush=True)


def finished(brief: Any, n: int, seed: int) -> None:
    from briefing.ask.finished import history_families
    from briefing.index import Filter

    chunks = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC)).chunks(Filter(source_types=history_families()))
    pairs = sorted(
        {
            (u.author.split()[0], (u.at - timedelta(days=u.at.weekday())).date())
            for c in chunks
            for u in c.units
            if u.at and u.author and u.ref != c.doc_key
        }
    )
    random.Random(seed).shuffle(pairs)  # noqa: S311 (a reproducible draw)
    same: Counter[str] = Counter()
    drawn = 0
    for person, monday in pairs:
        if drawn == n:
            break
        now = datetime(monday.year, monday.month, monday.day, 10, tzinfo=UTC) + timedelta(days=7)
        base = brief.ask(FINISHED_FORMS[0].format(p=person), now=now, k=10)
        if base.no_answer or not re.match(r"\d+ \w+ finished by ", base.answer):
            continue  # asked of the weeks in which the person finished something (the list answers)
        drawn += 1
        cited = {r.split("#")[0].split("/comment-")[0] for c in base.citations for r in c.refs}
        for form in FINISHED_FORMS:
            answer = brief.ask(form.format(p=person), now=now, k=10)
            got = {r.split("#")[0].split("/comment-")[0] for c in answer.citations for r in c.refs}
            same[form] += not answer.no_answer and got == cited
    for form in FINISHED_FORMS:
        print(f"{form:45s} the same items: {same[form]} of {drawn}", flush=True)


def catchup(brief: Any, n: int, seed: int) -> None:
    from briefing.index import Filter

    chunks = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC)).chunks(Filter(source_types=("slack",)))
    pairs = sorted({(c.container.lstrip("#"), u.at.date()) for c in chunks for u in c.units if u.at and c.container})
    random.Random(seed).shuffle(pairs)  # noqa: S311 (a reproducible draw)
    same: Counter[str] = Counter()
    drawn = pairs[:n]
    for channel, day in drawn:
        said = f"{day.day} {day.strftime('%B %Y')}"
        now = datetime(day.year, day.month, day.day, tzinfo=UTC) + timedelta(days=2)
        base = brief.ask(f"What happened in #{channel} on {said}?", now=now, k=10).answer.split("\n", 1)[-1]
        for form in CATCHUP_FORMS:
            answer = brief.ask(form.format(c=channel, d=said), now=now, k=10).answer.split("\n", 1)[-1]
            same[form] += answer == base
    for form in CATCHUP_FORMS:
        print(f"{form:45s} the same briefing: {same[form]} of {len(drawn)}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--config", type=Path, required=True)
    families = [
        "summary",
        "catchup",
        "finished",
        "feedback",
        "answerer",
        "standing",
        "workload",
        "inventory",
        *ITEM_FORMS,
    ]
    parser.add_argument("--family", choices=families, required=True)
    parser.add_argument("-n", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--by", choices=["key", "title"], default="key", help="summary: name conversations so")
    parser.add_argument("--now", help="the item families: the moment the items are read as of")
    args = parser.parse_args()

    from briefing.service import Brief, parse_now
    from briefing.settings import load_settings

    with Brief(load_settings(args.config)) as brief:
        if args.family == "summary":
            summaries(brief, args.n, args.seed, args.by)
        elif args.family == "catchup":
            catchup(brief, args.n, args.seed)
        elif args.family == "finished":
            finished(brief, args.n, args.seed)
        elif args.family == "feedback":
            feedback(brief, args.n, args.seed)
        elif args.family == "answerer":
            answerers(brief, args.n, args.seed)
        elif args.family == "standing":
            standing(brief, args.n, args.seed)
        elif args.family == "workload":
            workload(brief, args.n)
        elif args.family == "inventory":
            inventory(brief, args.n, args.seed)
        else:
            if not args.now:
                parser.error(f"--family {args.family} needs --now (the moment the items are read as of)")
            items(brief, args.n, args.seed, args.family, parse_now(args.now))


if __name__ == "__main__":
    main()
