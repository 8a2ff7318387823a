"""One extraction per ask: the question string becomes a `Question`, which every later stage reads."""

from __future__ import annotations

import re
from datetime import datetime

from briefing.question import answer_type, kind
from briefing.question.constraints import Constraints, Directory, extract
from briefing.question.kind import Wants
from briefing.question.model import Question
from briefing.question.parts import asked_sentence
from briefing.textrules import visible

# Typographic apostrophes and quotation marks, and the plain ones they stand for.
_PLAIN_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


# Question text: "whats" and "whos", as chat writes "what's" and "who's" without the apostrophe.
_BARE_CONTRACTION = re.compile(r"\b(what|who)s\b", re.I)


def plain(text: str) -> str:
    """`text` with typographic quotes (a phone's or Slack's "what’s") as the plain ones every rule is written with,
    "whats" / "whos" with their apostrophe, and without the characters that draw nothing (a name copied from a
    chat may hold a zero-width space)."""
    return _BARE_CONTRACTION.sub(r"\1's", visible(text).translate(_PLAIN_QUOTES))


def kind_of(text: str, constraints: Constraints) -> str:
    """The answer kind the graph routes on (see `briefing.question.model.KINDS`)."""
    return kind.read(asked_sentence(plain(text)), constraints).kinds[0]


def wants(question: Question) -> Wants:
    """What the kind detectors read in `question` (read again only for a `Question` not built by `parse`)."""
    found = question.extra.get("wants")
    return found if isinstance(found, Wants) else kind.read(asked_sentence(question.text), question.constraints)


def parse(
    text: str,
    *,
    now: datetime,
    timezone: str = "UTC",
    week_start: str = "monday",
    directory: Directory | None = None,
) -> Question:
    """`text` read once (its quotes `plain`): constraints (time resolved against `now`), intent, answer kind and
    answer shape."""
    text = plain(text)
    constraints = extract(text, now=now, timezone=timezone, week_start=week_start, directory=directory)
    return from_constraints(text, now, constraints)


def from_constraints(text: str, now: datetime, constraints: Constraints) -> Question:
    """A `Question` over constraints already extracted (or routed by the LLM router)."""
    text = plain(text)
    # A statement said before the question is context: the question's form is read from the sentence that asks.
    asks = asked_sentence(text)
    fields = answer_type.read(text, constraints, asks=asks)
    found = kind.read(asks, constraints)
    extra = {**fields.pop("extra", {}), "wants": found}
    return Question(
        text=text,
        now=now,
        constraints=constraints,
        intent=constraints.intent,
        kind=found.kinds[0],
        extra=extra,
        **fields,
    )
