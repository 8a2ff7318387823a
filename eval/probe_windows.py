"""Ask the conversation probes of `probe_threads.py` about a time: with a window that holds the conversation, count
whether the answer cites that time's lines; with a near miss (a window just after it), whether it says so.

A user asks "What did the team say about <topic> yesterday?" or "... last week?" or "... on 4 June?" and expects
the answer from then. Each conversation of `probe_threads.probes` gives a topic (`probe_topics.topic_words`, the
question's rarest words) and its answering reply's day D. The question names a window that holds D, worded as is
true as of the moment it is asked (the probe's own moment or later, so the whole conversation is in the index):
"yesterday" (asked the day after D), "this week" (asked in D's week), "last week" (asked the week after) or
"on <D>". The near miss asks the same a week (a day for "yesterday" and "on <D>") later, when the window holds
no message of the conversation.

No dev case is read. Printed per question: the window, the verdict and the answer's first line (`--show`); then:
- held: how many answers' first citation was stated in the window, the share of dated citations in it, how many
  cite the answering reply, how many were refused;
- near miss: how many said the window holds nothing ("Nothing from ..." or a refusal), how many cited only lines
  of the window, and how many presented lines from other days as the window's (the failure).

    python eval/probe_windows.py --config C -n 60 [--seed 7] [--show] [--ask said|latest|parts]

`--ask latest` words the question as the newest state ("What was the latest on <topic> <when>?"), `--ask parts` as
two parts ("What did the team say about <topic> <when>, and who answered?").
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parent))

from probe_threads import Probe, print_with_brief, probe_args, probes  # noqa: E402
from probe_topics import _rarity, topic_words  # noqa: E402

FORMS = ("yesterday", "this week", "last week", "on")
ASK = "What did the team say about {topic} {when}?"
ASKS = {
    "said": ASK,
    "latest": "What was the latest on {topic} {when}?",
    "parts": "What did the team say about {topic} {when}, and who answered?",
}
Range = tuple[datetime, datetime]
Times = dict[str, list[datetime]]  # a ref's units' times


@dataclass(frozen=True)
class Asked:
    """A question about a time, when it is asked, and the conversation's message times."""

    question: str
    now: datetime
    held: bool  # whether the window holds the answering reply


def _noon(day: date, zone: tzinfo) -> datetime:
    return datetime.combine(day, time(12), zone).astimezone(UTC)


def _day_words(day: date) -> str:
    return f"on {day.day} {day.strftime('%B')} {day.year}"


def asks(
    probe: Probe, form: str, day: date, last: date, topic: str, zone: tzinfo, ask: str = ASK
) -> tuple[Asked, Asked]:
    """The held question (worded as `form` when that is true at or after the probe's moment, else "on <day>") and
    its near miss, for a conversation whose answering reply is on `day` and whose last message is on `last`; `ask`
    is the question's wording (`ASKS`)."""
    earliest = probe.now.astimezone(zone).date()
    monday = day - timedelta(days=day.weekday())
    if form == "yesterday" and last == day:
        now = _noon(day + timedelta(days=1), zone)
        miss = _noon(day + timedelta(days=2), zone)
    elif form == "this week" and earliest <= monday + timedelta(days=6):
        now = _noon(max(earliest, day), zone)
        miss = now + timedelta(days=7)
        form = "this week" if (last - monday).days < 7 else "on"
    elif form == "last week" and earliest <= monday + timedelta(days=13) and (last - monday).days < 7:
        now = _noon(max(earliest, monday + timedelta(days=7)), zone)
        miss = now + timedelta(days=7)
    else:
        form = "on"
        now = probe.now
        miss = probe.now
    if form == "on":
        gap = last + timedelta(days=1)
        return (
            Asked(ask.format(topic=topic, when=_day_words(day)), now, True),
            Asked(
                ask.format(topic=topic, when=_day_words(gap)), max(miss, _noon(gap + timedelta(days=1), zone)), False
            ),
        )
    return Asked(ask.format(topic=topic, when=form), now, True), Asked(ask.format(topic=topic, when=form), miss, False)


def window_of(question: str, now: datetime, zone: str, week_start: str) -> tuple[datetime, datetime] | None:
    """The question's window as the product reads it."""
    from briefing.question.parse import parse

    window = parse(question, now=now, timezone=zone, week_start=week_start).window
    return (window.start, window.end) if window is not None else None


def inside(ref: str, window: Range, times: Times) -> bool | None:
    """Whether a cited ref was stated in the window: one of its units (a ticket's header is dated by its last
    update, its description by its creation) was; None for an undated ref."""
    if ref not in times:
        return None
    return any(window[0] <= at < window[1] for at in times[ref])


def judge(
    answer: Any, window: tuple[datetime, datetime], times: dict[str, list[datetime]], held: bool, probe: Probe
) -> str:
    """The verdict on one answer: REFUSED; for a held window IN or OUT (the first citation), "+reply" when the
    answering reply is cited; for a near miss SAID ("Nothing from ..."), WINDOW-ONLY or PRESENTED."""
    cited = [r for c in answer.citations for r in c.refs[:1]]
    marks = [inside(r, window, times) for r in cited]
    dated = [m for m in marks if m is not None]
    said = answer.answer.startswith("Nothing from") or "holds nothing" in answer.answer
    if answer.no_answer or not cited:
        return "REFUSED"
    if held:
        answered = any(set(c.refs) & probe.answering for c in answer.citations)
        return ("IN" if marks[0] else "OUT") + ("+reply" if answered else "")
    if said:
        return "SAID"
    return "WINDOW-ONLY" if all(dated) else "PRESENTED"


def run(brief: Any, n: int, seed: int, *, show: bool = False, ask: str = ASK) -> Counter[str]:
    """Ask `n` conversations' held and near-miss questions of `brief`'s index, worded as `ask`; print a line each;
    return counts."""
    from briefing.index import Filter

    settings = brief.settings.workspace
    zone = ZoneInfo(settings.timezone)
    view = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC))
    chunks = list(view.chunks(Filter()))
    spread = _rarity(chunks)
    times: Times = {}
    for unit in (u for c in chunks for u in c.units if u.at is not None):
        times.setdefault(unit.ref, []).append(unit.at)
    counts: Counter[str] = Counter()
    drawn = probes(chunks, random.Random(seed))[:n]  # noqa: S311 (a reproducible draw)
    for i, probe in enumerate(drawn):
        topic = topic_words(probe, spread)
        reply = [min(times[r]) for r in probe.answering if r in times]
        ats = [at for r in probe.thread_refs for at in times.get(r, [])]
        if topic is None or not reply or not ats:
            continue
        day, last = reply[0].astimezone(zone).date(), max(ats).astimezone(zone).date()
        for asked in asks(probe, FORMS[i % len(FORMS)], day, last, topic, zone, ask):
            window = window_of(asked.question, asked.now, settings.timezone, settings.week_start)
            if window is None or (not asked.held and any(window[0] <= at < window[1] for at in ats)):
                continue
            answer = brief.ask(asked.question, now=asked.now, k=10)
            verdict = judge(answer, window, times, asked.held, probe)
            part = "held" if asked.held else "miss"
            counts[f"{part} {verdict}"] += 1
            counts[f"{part} asked"] += 1
            if asked.held:
                marks = [inside(r, window, times) for c in answer.citations for r in c.refs[:1]]
                counts["held cited"] += sum(m is not None for m in marks)
                counts["held cited inside"] += sum(bool(m) for m in marks)
            first = answer.answer.splitlines()[0] if answer.answer else ""
            print(f"{part} {verdict:11} {probe.key} | {asked.question} | {first[:140] if show else ''}")
    return counts


def summary(counts: Counter[str]) -> str:
    """The counts as two lines."""
    held, miss = counts["held asked"], counts["miss asked"]
    first = sum(v for k, v in counts.items() if k.startswith("held IN"))
    reply = sum(v for k, v in counts.items() if k.startswith("held") and k.endswith("+reply"))
    share = counts["held cited inside"] / max(counts["held cited"], 1)
    return (
        f"held {held}: first citation inside {first}, dated citations inside {share:.2f}, "
        f"cite the reply {reply}, refused {counts['held REFUSED']}\n"
        f"near miss {miss}: said nothing there {counts['miss SAID'] + counts['miss REFUSED']}, "
        f"window lines only {counts['miss WINDOW-ONLY']}, presented other days as the window's "
        f"{counts['miss PRESENTED']}"
    )


def main() -> None:
    args = probe_args(__doc__, 60, ("--ask", {"choices": sorted(ASKS), "default": "said"}))
    wording = ASKS[args.ask]
    print_with_brief(args.config, lambda brief: summary(run(brief, args.n, args.seed, show=args.show, ask=wording)))


if __name__ == "__main__":
    main()
