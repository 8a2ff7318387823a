"""Ask what one person said in a conversation ("What did Sean Corfield say about deps alias classpath in #tools?")
and count how often the answer leads with that person's own line there.

A manager asks most often for one person's words on a topic. This script keeps the conversations of
`probe_threads.py` (chat threads, tickets and issues with comments, mail threads) that got a reply of substance
(ACK_WORDS words or more) from someone other than their starter, and asks about each in the TOPIC_WORDS rarest
words of its probe question (`probe_topics.topic_words`) and the place it was in, naming the replier as the corpus
writes them (`--name full`), by the handle the people directory gives them (`handle`), or by first name (`first`,
only where no other author shares it). The verb is drawn with the seed:

    What did Sean Corfield say about deps alias classpath in #tools?
    What did Sean suggest for deps alias classpath in #tools?
    What did Sean Corfield reply to Ana Lima about deps alias classpath in #tools?

Right (LEAD) when the answer's first citation is one of that person's lines in that conversation; BY PERSON when
it is one of their lines elsewhere; CITED when a later citation is one of their lines there. No dev case is read.
`--who opener` asks about the conversation's opener instead (a ticket's reporter, a pull request's author, a
thread's starter: "What did Ian Taylor say about HTTPclient additional post in TIMOB?"), whose first unit holds the
item's fields beside their description; an answer whose first line quotes those fields ("Type: Bug | Status:
Closed ...": the tracker's record, not the person's words) counts as RECORD, not LEAD.

    python eval/probe_people.py --config C -n 60 [--seed 7] [--name full|handle|first] [--who replier|opener] [--show]
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from probe_threads import ACK_WORDS, Probe, print_with_brief, probe_args, probes  # noqa: E402
from probe_topics import _rarity, topic_words  # noqa: E402

# How a person's words are asked, by verb; `reply` names the one they replied to when the starter has a name.
VERBS = {
    "say": "What did {name} say about {topic} in {place}?",
    "suggest": "What did {name} suggest for {topic} in {place}?",
    "recommend": "What did {name} recommend about {topic} in {place}?",
    "reply": "What did {name} reply to {asker} about {topic} in {place}?",
}
NAME_FORMS = ("full", "handle", "first")
WHO = ("replier", "opener")


@dataclass(frozen=True)
class PersonProbe:
    """A question naming one replier of a conversation, when to ask it, and whose lines answer it."""

    key: str
    question: str
    now: datetime
    person: str  # the replier as the corpus writes them
    theirs: frozenset[str]  # their units' refs in the conversation


def _handle(person: str, directory: Any) -> str:
    """The first handle the people directory gives `person` that is not their name ("" when none)."""
    for entry in directory.people if directory else []:
        if entry.name.strip() == person:
            return next((h for h in entry.handles if h.strip() and h.strip().lower() != person.lower()), "")
    return ""


def name_as(person: str, form: str, directory: Any, firsts: Counter[str]) -> str:
    """How the question names `person`: as written, by handle, or by a first name no other author has ("" when
    the form does not apply)."""
    if form == "handle":
        return _handle(person, directory)
    if form == "first":
        first = person.split()[0] if " " in person else ""
        return first if first and firsts[first.lower()] == 1 else ""
    return person


def person_probes(
    chunks: list[Any], rng: random.Random, *, form: str = "full", directory: Any = None, who: str = "replier"
) -> list[PersonProbe]:
    """One person question per conversation of `probes` whose answering reply is of substance and by a named
    author other than the starter, in the seeded order of `probes`; about that replier, or with `who` "opener"
    about the starter."""
    units = {u.ref: u for c in chunks for u in c.units}
    places: dict[str, str] = {}
    for chunk in chunks:
        places.setdefault(chunk.doc_key, chunk.container)
    authors = {(u.author or "").strip() for u in units.values()} - {""}
    firsts = Counter(a.split()[0].lower() for a in authors if " " in a)
    spread = _rarity(chunks)
    found: list[PersonProbe] = []
    for probe in probes(chunks, rng):
        made = _person_probe(probe, units, places, spread, rng, form, directory, firsts, who)
        if made is not None:
            found.append(made)
    return found


def _person_probe(
    probe: Probe,
    units: dict[str, Any],
    places: dict[str, str],
    spread: Counter[str],
    rng: random.Random,
    form: str,
    directory: Any,
    firsts: Counter[str],
    who: str = "replier",
) -> PersonProbe | None:
    reply = next((units[r] for r in sorted(probe.answering) if r in units), None)
    starters = {(units[r].author or "").strip() for r in probe.asker_refs if r in units}
    person = (reply.author or "").strip() if reply else ""
    if not reply or not person or person in starters or len(reply.text.split()) < ACK_WORDS:
        return None
    if who == "opener":
        person = next(iter(sorted(starters - {""})), "")
        if not person:
            return None
    topic = topic_words(probe, spread)
    name = name_as(person, form, directory, firsts)
    if topic is None or not name:
        return None
    container = places.get(probe.key.split("#")[0], "") or ""
    place = f"#{container}" if probe.shape == "thread" else container or "the thread"
    verb = rng.choice(sorted(VERBS))
    asker = next(iter(sorted(starters - {""})), "")
    if verb == "reply" and (not asker or who == "opener"):
        verb = "say"
    question = VERBS[verb].format(name=name, asker=asker, topic=topic, place=place)
    theirs = frozenset(r for r in probe.thread_refs if r in units and (units[r].author or "").strip() == person)
    return PersonProbe(probe.key, question, probe.now, person, theirs)


def judge(probe: PersonProbe, answer: Any, authors: dict[str, str]) -> str:
    """LEAD, RECORD (their item's field rows lead), BY PERSON (their line elsewhere leads), CITED, REFUSED or MISS
    for `answer` to `probe`."""
    from briefing.ask.header import is_header

    if answer.no_answer or not answer.citations:
        return "REFUSED"
    first = set(answer.citations[0].refs)
    if first & probe.theirs:
        lead = answer.answer.splitlines()[0] if answer.answer else ""
        quoted = lead.split(': "', 1)[1] if ': "' in lead else ""
        return "RECORD" if is_header(quoted.replace(" | ", "\n")) else "LEAD"
    if any(authors.get(r, "") == probe.person for r in first):
        return "BY PERSON"
    if any(set(c.refs) & probe.theirs for c in answer.citations):
        return "CITED"
    return "MISS"


def run(brief: Any, n: int, seed: int, *, form: str = "full", show: bool = False, who: str = "replier") -> Counter[str]:
    """Ask `n` person probes of `brief`'s index through `brief.ask`, print one line each, and return the counts."""
    from briefing.index import Filter

    view = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC))
    chunks = list(view.chunks(Filter()))
    authors = {u.ref: (u.author or "").strip() for c in chunks for u in c.units}
    rng = random.Random(seed)  # noqa: S311 (a reproducible draw)
    drawn = person_probes(chunks, rng, form=form, directory=brief.directory(), who=who)[:n]
    counts: Counter[str] = Counter()
    for probe in drawn:
        answer = brief.ask(probe.question, now=probe.now, k=10)
        verdict = judge(probe, answer, authors)
        counts[verdict] += 1
        counts["asked"] += 1
        first = answer.answer.splitlines()[0] if answer.answer else ""
        print(f"{verdict:9} {probe.key} | {probe.question} | {first[:140] if show else ''}")
    return counts


def summary(counts: Counter[str]) -> str:
    """The counts as one line."""
    anywhere = counts["LEAD"] + counts["BY PERSON"]
    cited = counts["LEAD"] + counts["CITED"]
    return (
        f"lead {counts['LEAD']} of {counts['asked']}, their item's fields first {counts['RECORD']}, by the person "
        f"anywhere {anywhere}, their line there cited {cited}, refused {counts['REFUSED']}, miss {counts['MISS']}"
    )


def main() -> None:
    args = probe_args(
        __doc__,
        60,
        ("--name", {"choices": NAME_FORMS, "default": "full", "help": "how the question names the person"}),
        ("--who", {"choices": WHO, "default": "replier", "help": "ask about the replier or the opener"}),
    )
    print_with_brief(
        args.config,
        lambda brief: summary(run(brief, args.n, args.seed, form=args.name, show=args.show, who=args.who)),
    )


if __name__ == "__main__":
    main()
