"""Ask questions made from a corpus's own conversations (a help thread's question, a ticket's summary, a mail's
subject) and count how often the answer's lead cites the reply that answered it.

No dev case is read. Each conversation of the index gives at most one question and the unit(s) that answer it:
- a chat thread whose opening message asks ("How do I ...?"): its first asking sentence, answered by the reply
  just before the asker's thanks, else the first reply by someone else (`briefing.ask.learned.examples`); an
  opening that reports a problem without asking: 'How was this resolved: "<its first sentence>"?';
- a closed ticket or issue ("KEY-1: <summary>"): the summary put as a question ("How was <summary> resolved?"),
  answered by its maintainer's last comment (the assignee's, else the closer's; else anyone's but the reporter's)
  that is not a close or verification notice;
- a mail that starts a subject ("[PATCH v2 3/5] <subject>", or a question): "What was the feedback on
  <subject>?", answered by the first reply by someone else that is not just an acknowledgement (a
  "Reviewed-by:" line, "Applied, thanks") or a robot's.
Each question is asked through the production path (`Brief.ask`) as of a day after its conversation's last
message, so the asker's own message, the side remarks and other threads are all in the index, as for a user.

    python eval/probe_threads.py --config C -n 40 [--seed 7] [--show] [--what-happened summary|key|decided] [--who]

`--who` asks each chat thread's probe 'Who answered the question "<question>"?' and counts answers that name the
answering reply's author first (RIGHT), the asker (ASKER), someone else (OTHER), or refuse (`ask_who`).
`--what-happened summary|key|decided` asks only closed tickets and issues, as 'What happened with "<summary>"?',
"What happened with KEY-1?" / "#12", or 'What was decided about "<summary>"?': an answer whose lines should include
the maintainer's last comment (CITED or LEAD), which says how the item ended, and be the item's own (the share of
citations of its own conversation).

Prints, per question, LEAD (the first citation is an answering unit), CITED (a later citation is), REFUSED or
MISS, what led, and the counts: lead, cited anywhere, refused, and where the misses' leads came from (the asker's
own message, another message of the same conversation, another conversation).
"""

from __future__ import annotations

import argparse
import random
import re
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

# Mail text: the stamp line a mail unit opens with ("[2019-09-05 09:41 UTC] A to B, C | Re: <subject>").
_MAIL_HEAD = re.compile(r"^\[[^\]]*\] [^|\n]* \| (.*)$", re.M)
# Mail subject: the tags and subsystem prefixes before a subject's words ("[PATCH v3 02/16] dt-bindings: arm: ").
_SUBJECT_TAGS = re.compile(r"^(?:\s*(?:\[[^\]]*\]|(?:re|fwd?):)\s*)+", re.I)
_SUBSYSTEMS = re.compile(r"^(?:[\w,./ -]{1,24}:\s+)+")
# Mail body lines that say nothing of their own: quoted text, trailers, greetings, thanks, a sign-off.
_NOISE_LINE = re.compile(
    r"^\s*(?:>.*|[\w-]+-by:.*|(?:hi|hello|hey|thanks|thank you|regards|cheers|best)\b.{0,30}|--.*|[\w .-]{0,30})$",
    re.I,
)
_ROBOT = re.compile(r"\b(?:bot|robot|ci|build)\b", re.I)
# How a summary (a statement) is put as a question whose answer is a reply.
_TICKET_ASKS = ("How was {} resolved?", "What was done about {}?", "What is the fix for {}?")
_MAIL_ASKS = ("What was the feedback on {}?", "What did reviewers say about {}?")
# `--what-happened`: a closed ticket's summary asked as a timeline question; its maintainer's last comment should be
# among the lines cited (the timeline says how it ended).
_HAPPENED_ASKS = ("What happened with {}?", "What happened to {}?")
# `--what-happened decided`: the summary asked for the outcome; the maintainer's last comment says it.
_DECIDED_ASKS = ("What was decided about {}?", "What was the outcome of {}?")
# Ticket text: a header's status row; a comment that only announces a close or a verification.
_STATUS = re.compile(r"\bStatus: ", re.I)
_NOTICE = re.compile(r"^\W*(?:closing|closed|verified|reopening|cleaning up)\b", re.I)
# Chat text: an opening that reports a problem ("I'm facing an issue with ...", "getting an error when ...").
_PROBLEM = re.compile(
    r"\b(?:error|issue|problem|fail(?:s|ed|ing|ure)?|crash\w*|not working|unable|can'?t|cannot|stuck|bug)\b", re.I
)
ACK_WORDS = 8  # a reply with fewer words of its own than this is an acknowledgement
MIN_WORDS = 3


@dataclass(frozen=True)
class Probe:
    """A question read from a conversation, when to ask it, and the refs that answer it."""

    key: str
    question: str
    now: datetime
    answering: frozenset[str]
    asker_refs: frozenset[str]
    thread_refs: frozenset[str]
    shape: str  # "thread", "ticket" or "mail"


class _Raw:
    """A stand-in random source whose choice keeps `short_question`'s text as it is (no template)."""

    def choice(self, _seq: Any) -> str:
        return "{}"


def _mail_subject(text: str) -> str:
    m = _MAIL_HEAD.match(text)
    return m[1].strip() if m else ""


def _own_words(text: str) -> int:
    """Words of a mail body that are its own: not quoted, not a trailer, greeting or sign-off."""
    body = text.split("\n", 1)[1] if "\n" in text else ""
    return sum(len(line.split()) for line in body.splitlines() if not _NOISE_LINE.match(line))


def _mail_probe(key: str, units: list[Any], now: datetime, rng: random.Random) -> Probe | None:
    """The conversation's first mail that got a reply of substance from someone else, as a probe."""
    for i, mail in enumerate(units):
        subject = _mail_subject(mail.text)
        if not subject or subject.lower().startswith("re:") or not mail.author:
            continue
        for reply in units[i + 1 :]:
            said = _mail_subject(reply.text)
            if _SUBJECT_TAGS.sub("", said).strip() != _SUBJECT_TAGS.sub("", subject).strip():
                continue
            if reply.author == mail.author or _ROBOT.search(reply.author or "") or _own_words(reply.text) < ACK_WORDS:
                continue
            topic = _SUBSYSTEMS.sub("", _SUBJECT_TAGS.sub("", subject)).strip().rstrip(".")
            if len(topic.split()) < MIN_WORDS:
                break
            refs = frozenset(u.ref for u in units)
            return Probe(
                key,
                rng.choice(_MAIL_ASKS).format(topic),
                now,
                frozenset({reply.ref}),
                frozenset({mail.ref}),
                refs,
                "mail",
            )
    return None


def _ticket_probe(
    key: str,
    parts: list[Any],
    summary: str,
    reporter: str | None,
    now: datetime,
    rng: random.Random,
    happened: str = "",
) -> Probe | None:
    """A closed ticket or issue (not a pull request) as a probe: its summary asked as a question, answered by the
    last comment of its maintainer (the assignee, else whoever closed it), else of anyone other than the reporter,
    that is not a close or verification notice."""
    from briefing import registry
    from briefing.ask.learned.examples import short_question

    head = parts[0]
    if registry.meta(head, "pull_request"):
        return None
    units = [u for c in parts for u in c.units]
    state = " ".join(str(c.metadata.get(k, "")) for c in parts[:1] for k in ("state", "status"))
    header = next((u.text for u in units if u.ref == key and _STATUS.search(u.text)), "")
    if not re.search(r"\b(?:closed|resolved)\b", state + " " + header[:200], re.I):
        return None
    replies = [u for u in units if u.ref != key and u.author and u.author != reporter and len(u.text) >= 20]
    replies = [u for u in replies if not _NOTICE.search(u.text)]
    # The maintainer: the header's assignee, else whoever closed it (the item's events).
    assignee = re.search(r"\bAssignee: ([^|\n]+)", header)
    closers = {str(e.get("by")) for c in parts for e in registry.meta(c, "events") or [] if e.get("event") == "closed"}
    maintainers = {assignee[1].strip()} if assignee else closers
    replies = [u for u in replies if u.author in maintainers] or replies
    if not replies:
        return None
    topic = _SUBSYSTEMS.sub("", _SUBJECT_TAGS.sub("", summary)).strip()
    raw = short_question(topic, _Raw(), summary=True)
    if happened == "key":
        name = key.rpartition(":")[2]
        question = rng.choice(_HAPPENED_ASKS).format(name if "#" not in name else "#" + name.rpartition("#")[2])
    elif happened == "decided":
        question = rng.choice(_DECIDED_ASKS).format(f'"{topic.rstrip(". ")}"')
    elif happened:
        question = rng.choice(_HAPPENED_ASKS).format(f'"{topic.rstrip(". ")}"')
    elif raw.endswith("?"):
        question = raw
    else:
        question = rng.choice(_TICKET_ASKS).format(raw[:1].lower() + raw[1:].rstrip(". "))
    own = frozenset({key})
    return Probe(key, question, now, frozenset({replies[-1].ref}), own, frozenset(u.ref for u in units), "ticket")


def probes(chunks: Any, rng: random.Random, happened: str = "") -> list[Probe]:
    """One probe per conversation of `chunks` that asks something and got an answer, in a seeded order; with
    `happened` ("summary" or "key"), only closed tickets and issues, asked what happened with them, named by their
    summary or by their key."""
    from briefing.ask.learned.examples import _asked, _resolving, conversations, short_question
    from briefing.question.terms import content_words

    found: list[Probe] = []
    docs = conversations(list(chunks))
    for key in sorted(docs):
        parts = docs[key]
        units = [u for c in parts for u in c.units]
        if not units:
            continue
        now = max(c.end for c in parts) + timedelta(days=1)
        refs = frozenset(u.ref for u in units)
        asked = _asked(parts)
        if asked is None:
            if happened:
                continue
            if any(_mail_subject(u.text) for u in units[:1]):
                probe = _mail_probe(key, sorted(units, key=lambda u: u.at or now), now, rng)
                if probe is not None:
                    found.append(probe)
            continue
        text, asker, blank = asked
        if not blank:
            probe = _ticket_probe(key, parts, text, asker, now, rng, happened)
            if probe is not None:
                found.append(probe)
            continue
        if happened:
            continue
        question = short_question(text, _Raw(), summary=False)
        if not question.endswith("?"):
            first = question.split(". ")[0].rstrip(".!: ")
            if not _PROBLEM.search(first):
                continue  # an opening that neither asks nor reports a problem ("so I've enjoyed zippers")
            question = f'How was this resolved: "{first}"?'
        if len(content_words(question)) < MIN_WORDS + 1:
            continue  # "is that an uncommon use case?": asks of something said before, not on its own
        reply = _resolving(units, asker, blank)
        if reply is None:
            continue
        found.append(Probe(key, question, now, frozenset({reply.ref}), frozenset({blank}), refs, "thread"))
    order = list(range(len(found)))
    rng.shuffle(order)
    return [found[i] for i in order]


def judge(probe: Probe, answer: Any) -> str:
    """LEAD, CITED, REFUSED or MISS for `answer` (a `Brief.ask` result) to `probe`."""
    if answer.no_answer or not answer.citations:
        return "REFUSED"
    if set(answer.citations[0].refs) & probe.answering:
        return "LEAD"
    if any(set(c.refs) & probe.answering for c in answer.citations):
        return "CITED"
    return "MISS"


def led_by(probe: Probe, answer: Any) -> str:
    """Where a wrong lead came from: the asker's own message, the same conversation, or another one."""
    refs = set(answer.citations[0].refs) if answer.citations else set()
    if refs & probe.asker_refs:
        return "asker"
    return "same conversation" if refs & probe.thread_refs else "other conversation"


def run(brief: Any, n: int, seed: int, *, show: bool = False, happened: str = "", who: bool = False) -> Counter[str]:
    """Ask `n` probes of `brief`'s index through `brief.ask`, print one line each, and return the counts; with
    `who`, only the chat threads' probes, each asked who answered it (`ask_who`)."""
    from datetime import UTC

    from briefing.index import Filter

    view = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC))
    chunks = view.chunks(Filter())
    drawn = probes(chunks, random.Random(seed), happened)  # noqa: S311 (a reproducible draw)
    if who:
        drawn = [p for p in drawn if p.shape == "thread"]
    authors = {u.ref: u.author for c in chunks for u in c.units if u.author}
    counts: Counter[str] = Counter()
    for probe in drawn[:n]:
        if who:
            ask_who(brief, probe, authors, counts, show=show)
        else:
            ask_and_count(brief, probe, counts, show=show)
    return counts


def ask_and_count(brief: Any, probe: Probe, counts: Counter[str], *, show: bool = False) -> None:
    """Ask `probe` through `brief.ask`, add its verdict (and where a wrong lead came from) to `counts`, print a line."""
    answer = brief.ask(probe.question, now=probe.now, k=10)
    verdict = judge(probe, answer)
    counts[verdict] += 1
    counts["asked"] += 1
    counts["citations"] += len(answer.citations)
    counts["citations of its own conversation"] += sum(bool(set(c.refs) & probe.thread_refs) for c in answer.citations)
    where = ""
    if verdict in {"CITED", "MISS"}:
        where = led_by(probe, answer)
        counts[f"led by {where}"] += 1
    first = answer.answer.splitlines()[0] if answer.answer else ""
    print(f"{verdict:7} {probe.key} | {probe.question} | {where} | {first[:140] if show else ''}")


def ask_who(brief: Any, probe: Probe, authors: dict[str, str], counts: Counter[str], *, show: bool = False) -> None:
    """Ask who answered `probe`'s question, add the verdict to `counts` (RIGHT, ASKER, OTHER, REFUSED), print it."""
    answer = brief.ask(f'Who answered the question "{probe.question}"?', now=probe.now, k=10)
    first = answer.answer.splitlines()[0] if answer.answer else ""
    repliers = {authors[r] for r in probe.answering if r in authors}
    askers = {authors[r] for r in probe.asker_refs if r in authors}
    named = first.split(" — ", 1)[0]
    if answer.no_answer:
        verdict = "REFUSED"
    elif any(named.startswith(p) for p in repliers):
        verdict = "RIGHT"
    elif any(named.startswith(p) for p in askers):
        verdict = "ASKER"
    else:
        verdict = "OTHER"
    counts[verdict] += 1
    counts["asked"] += 1
    print(f"{verdict:8} {probe.key} | {probe.question} | {first[:140] if show else ''}")


def summary(counts: Counter[str]) -> str:
    """The counts as one line."""
    asked = counts["asked"]
    cited = counts["LEAD"] + counts["CITED"]
    parts = [f"lead {counts['LEAD']} of {asked}", f"cited {cited}", f"refused {counts['REFUSED']}"]
    parts += [f"{k} {v}" for k, v in sorted(counts.items()) if k.startswith("led by")]
    parts.append(
        f"citations of its own conversation {counts['citations of its own conversation']} of {counts['citations']}"
    )
    return ", ".join(parts)


def probe_args(doc: str | None, n: int, *extra: tuple[str, dict[str, Any]]) -> argparse.Namespace:
    """The command line every probe script reads: --config, -n (default `n`), --seed, --show, and its `extra`
    options as (flag, keyword arguments of `add_argument`)."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument("--config", type=Path, required=True)
    parser.add_argument("-n", type=int, default=n)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--show", action="store_true", help="print each answer's first line")
    for flag, options in extra:
        parser.add_argument(flag, **options)
    return parser.parse_args()


def print_with_brief(config: Path, ask: Any) -> None:
    """Open the workspace of `config` and print what `ask(brief)` returns."""
    from briefing.service import Brief
    from briefing.settings import load_settings

    with Brief(load_settings(config)) as brief:
        print(ask(brief))


def main() -> None:
    happened = (
        "--what-happened",
        {
            "choices": ["summary", "key", "decided"],
            "default": "",
            "help": "closed tickets asked what happened with them (or what was decided about them)",
        },
    )
    who = ("--who", {"action": "store_true", "help": 'ask each chat thread\'s probe "Who answered the question ...?"'})
    args = probe_args(__doc__, 40, happened, who)

    def counted(brief: Any) -> str:
        counts = run(brief, args.n, args.seed, show=args.show, happened=args.what_happened, who=args.who)
        if args.who:
            return ", ".join(f"{k} {counts[k]}" for k in ("asked", "RIGHT", "ASKER", "OTHER", "REFUSED"))
        return summary(counts)

    print_with_brief(args.config, counted)


if __name__ == "__main__":
    main()
