"""The question, parsed once per ask: every stage after extraction reads this, none re-parses the string."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from briefing.question.constraints import Constraints
from briefing.question.timeexpr import TimeWindow

# The answer kinds, one graph node each (`briefing.ask.graph`); an LLM swaps only the writer inside a node.
Kind = Literal["fact", "fields", "outline", "listing", "meetings", "briefing", "summary"]
KINDS: tuple[str, ...] = ("fact", "fields", "outline", "listing", "meetings", "briefing", "summary")


@dataclass(frozen=True)
class Question:
    """What was asked, as every later stage reads it.

    `intent` is the constraint extractor's reading (fact, what_happened, summary, latest, who, when); `kind` is the
    answer kind the graph routes on; `answer_type` is the shape of the value asked for (person, date, version,
    amount, status, place, reason, list, yes_no, ... or "" when the question asks for no particular value);
    `asked` is the thing a "which / what X" question asks for ("pull request", "policy"); `role` the part a person
    plays in a who-question (assignee, reporter, reviewer, author, organiser, sender, "" for any); `parts` the
    sub-questions of a two-part question (empty for one).
    """

    text: str
    now: datetime
    constraints: Constraints = field(default_factory=Constraints)
    intent: str = "fact"
    kind: str = "fact"
    answer_type: str = ""
    asked: str = ""
    role: str = ""
    parts: tuple[str, ...] = ()
    # Detector outputs with no field of their own yet, by name (read-only by convention; frozen like the rest).
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def window(self) -> TimeWindow | None:
        return self.constraints.time

    @property
    def people(self) -> tuple[str, ...]:
        return tuple(self.constraints.people)

    @property
    def scope(self) -> tuple[str, ...]:
        """The channels and projects the question names."""
        return (*self.constraints.channels, *self.constraints.projects)

    @property
    def keys(self) -> tuple[str, ...]:
        """Ticket keys and pull request numbers the question names."""
        return (*self.constraints.tickets, *self.constraints.prs)

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "now": self.now.isoformat(),
            "intent": self.intent,
            "kind": self.kind,
            "answer_type": self.answer_type,
            "asked": self.asked,
            "role": self.role,
            "parts": list(self.parts),
            "constraints": self.constraints.to_json(),
        }
