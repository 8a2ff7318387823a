"""Ask questions made from a chat channel's own exchanges outside threads, and count how often the answer's lead
cites the reply that answered them.

Older Slack workspaces (and IRC-style channels) answer in the channel, not in threads: someone asks, and the reply
comes minutes or hours later, addressed to the asker by name ("@Ana this is caused by an old tools.reader ...").
No dev case is read. Each channel of the index gives probes from its own structure:
- a message by A that asks (its first asking sentence, of MIN_WORDS or more content words) and does not itself open
  by addressing someone;
- answered by the messages by others that open by addressing A ("@A ...") within REPLY_HOURS after it and before A
  asks again.
With `--shape addressee`, a message by A that asks and opens by addressing B ("@B how do I ...?") instead, answered
by B's first message after it, within ADDRESSEE_HOURS, unless that addresses a third person.
Each question is asked through the production path (`Brief.ask`) as of a day after its answer, so the asker's own
message, the side remarks and other conversations are all in the index, as for a user.

    python eval/probe_replies.py --config C -n 40 [--seed 7] [--show] [--shape named|addressee]

Prints, per question, LEAD / CITED / REFUSED / MISS as `probe_threads.py` does, and the same counts. With `--ask
briefing` each probe asks instead "What happened in #<channel> on <the question's day>?" (a day after the answer)
and counts whether the briefing line that cites the asker's message also cites a reply (JOINED), another line
does (SPLIT), no line does (UNANSWERED), or no line cites the asker (MISSING). With `--ask who` it asks 'Who
answered the question "<question>"?' and counts whether the answer names a replier first (RIGHT), names the asker
(ASKER), someone else (OTHER), or refuses (REFUSED).
"""

from __future__ import annotations

import random
import re
import sys
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from probe_threads import Probe, ask_and_count, ask_who, print_with_brief, probe_args, summary  # noqa: E402

REPLY_HOURS = 6
ADDRESSEE_HOURS = 1
MIN_WORDS = 4
# Message text: a message that opens by addressing someone ("@Ana Lima this is ...").
_ADDRESSED = re.compile(r"^\s*@")


class _Raw:
    """A stand-in random source whose choice keeps `short_question`'s text as it is (no template)."""

    def choice(self, _seq: Any) -> str:
        return "{}"


# Message text: "@" and the name, not followed by a letter or digit (not "@Ana Limarez" for "Ana Lima").
def _addressed_to(text: str, name: str) -> bool:
    """Whether `text` opens by addressing `name` ("@Ana Lima, ..."): read here, not by the product's own rule."""
    return re.match("@" + re.escape(name) + r"(?!\w)", text.lstrip()) is not None


def _addressee_probe(key: str, units: list[Any], i: int) -> Probe | None:
    """The probe of message `i` of a channel when it opens by addressing one of the channel's other writers: the
    question without the address ("@Sam Ortiz: how do I pin it?" is asked "how do I pin it?")."""
    from briefing.ask.learned.examples import short_question
    from briefing.question.terms import content_words

    asked = units[i]
    names = {u.author for u in units if u.author != asked.author}
    to = max((n for n in names if _addressed_to(asked.text, n)), key=len, default="")
    if not to:
        return None
    question = short_question(asked.text.lstrip()[len(to) + 1 :].lstrip(" ,:;"), _Raw(), summary=False)
    if not question.endswith("?") or len(content_words(question)) < MIN_WORDS:
        return None
    until = asked.at + timedelta(hours=ADDRESSEE_HOURS)
    reply = next((u for u in units[i + 1 :] if u.author == to and u.at <= until), None)
    if reply is None or (reply.text.lstrip().startswith("@") and not _addressed_to(reply.text, asked.author)):
        return None
    between = frozenset(u.ref for u in units if asked.at <= u.at <= reply.at)
    now = reply.at + timedelta(days=1)
    return Probe(
        f"{key}@{asked.ref.rpartition(':')[2]}",
        question,
        now,
        frozenset({reply.ref}),
        frozenset({asked.ref}),
        between,
        "addressee",
    )


def channel_probes(chunks: Any, rng: random.Random, shape: str = "named") -> list[Probe]:
    """One probe per asking message of a channel (outside threads) that got a reply addressed to its asker (with
    `shape` "addressee": per asking message addressed to someone who then spoke)."""
    from briefing.ask.learned.examples import conversations, short_question
    from briefing.question.terms import content_words

    found: list[Probe] = []
    docs = conversations(list(chunks))
    for key in sorted(docs):
        parts = docs[key]
        if parts[0].kind != "slack_channel":
            continue
        units = sorted({u.ref: u for c in parts for u in c.units if u.at and u.author}.values(), key=lambda u: u.at)
        for i, asked in enumerate(units):
            if "?" not in asked.text or bool(_ADDRESSED.match(asked.text)) != (shape == "addressee"):
                continue
            if shape == "addressee":
                probe = _addressee_probe(key, units, i)
                if probe is not None:
                    found.append(probe)
                continue
            question = short_question(asked.text, _Raw(), summary=False)
            if not question.endswith("?") or len(content_words(question)) < MIN_WORDS:
                continue
            until = asked.at + timedelta(hours=REPLY_HOURS)
            answers: list[str] = []
            asker_refs = {asked.ref}
            between = {asked.ref}
            for later in units[i + 1 :]:
                if later.at > until:
                    break
                if later.author == asked.author:
                    if "?" in later.text and answers:
                        break  # asks again: what follows answers that
                    asker_refs.add(later.ref)
                elif _addressed_to(later.text, asked.author):
                    answers.append(later.ref)
                between.add(later.ref)
            if not answers:
                continue
            last = max(u.at for u in units if u.ref in answers)
            found.append(
                Probe(
                    f"{key}@{asked.ref.rpartition(':')[2]}",
                    question,
                    last + timedelta(days=1),
                    frozenset(answers),
                    frozenset(asker_refs),
                    frozenset(between),
                    "channel",
                )
            )
    order = list(range(len(found)))
    rng.shuffle(order)
    return [found[i] for i in order]


# Answer text: the citation marks of a line ("[3]").
_MARK = re.compile(r"\[(\d+)\]")


def briefing_verdict(probe: Probe, answer: Any) -> str:
    """JOINED, SPLIT, UNANSWERED or MISSING (the module docstring) for a briefing `answer` to `probe`'s day."""
    cited = {c.n: set(c.refs) for c in answer.citations}
    marks = [_MARK.findall(line) for line in answer.answer.splitlines()]
    lines = [set().union(*(cited.get(int(m), set()) for m in found)) for found in marks]
    asker = [refs for refs in lines if refs & probe.asker_refs]
    if not asker:
        return "MISSING"
    if any(refs & probe.answering for refs in asker):
        return "JOINED"
    return "SPLIT" if any(refs & probe.answering for refs in lines) else "UNANSWERED"


def ask_briefing(brief: Any, probe: Probe, channel: str, counts: Counter[str], *, show: bool = False) -> None:
    """Ask what happened in `probe`'s channel on the day of its question, add the verdict to `counts`, print it."""
    day = datetime.fromtimestamp(float(probe.key.rpartition("@")[2]), UTC)
    answer = brief.ask(f"What happened in #{channel} on {day:%Y-%m-%d}?", now=probe.now, k=10)
    verdict = briefing_verdict(probe, answer)
    counts[verdict] += 1
    counts["asked"] += 1
    line = next((x for x in answer.answer.splitlines() if "[" in x), "") if show else ""
    print(f"{verdict:10} {probe.key} | {probe.question} | {line[:140]}")


def run(
    brief: Any, n: int, seed: int, *, show: bool = False, shape: str = "named", ask: str = "question"
) -> Counter[str]:
    """Ask `n` probes of `brief`'s index through `brief.ask`, print one line each, and return the counts."""
    from briefing.index import Filter

    view = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC))
    chunks = view.chunks(Filter())
    channels = {c.doc_key: c.container for c in chunks if c.container}
    authors = {u.ref: u.author for c in chunks for u in c.units if u.author}
    drawn = channel_probes(chunks, random.Random(seed), shape)[:n]  # noqa: S311 (a reproducible draw)
    counts: Counter[str] = Counter()
    for probe in drawn:
        if ask == "briefing":
            ask_briefing(brief, probe, channels.get(probe.key.partition("@")[0], ""), counts, show=show)
        elif ask == "who":
            ask_who(brief, probe, authors, counts, show=show)
        else:
            ask_and_count(brief, probe, counts, show=show)
    return counts


def main() -> None:
    shape = ("--shape", {"choices": ["named", "addressee"], "default": "named", "help": "which replies make probes"})
    ask = ("--ask", {"choices": ["question", "briefing", "who"], "default": "question", "help": "what each probe asks"})
    args = probe_args(__doc__, 40, shape, ask)

    def counted(brief: Any) -> str:
        counts = run(brief, args.n, args.seed, show=args.show, shape=args.shape, ask=args.ask)
        if args.ask == "briefing":
            return ", ".join(f"{k} {counts[k]}" for k in ("asked", "JOINED", "SPLIT", "UNANSWERED", "MISSING"))
        if args.ask == "who":
            return ", ".join(f"{k} {counts[k]}" for k in ("asked", "RIGHT", "ASKER", "OTHER", "REFUSED"))
        return summary(counts)

    print_with_brief(args.config, counted)


if __name__ == "__main__":
    main()
