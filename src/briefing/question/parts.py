"""Two-part questions ("who reported it and how was it fixed?"): the parts, and each part read as a question."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from briefing.question.terms import GENERIC, content_words

if TYPE_CHECKING:
    from briefing.question.model import Question

# Question text: where one asked part ends and the next begins (a "?", a ";", "and who / what ...", ", and did
# ..."), and the words a part that asks starts with.
_PART_SPLIT = re.compile(
    r"\?\s+(?=\w)|;\s*(?=\w)|,?\s+and\s+(?=(?:who|whom|what|when|where|why|how|which)\b)"
    r"|,\s+and\s+(?=(?:did|does|do|is|was|were|are|has|have|can|could|will|would|should)\b)",
    re.I,
)
_QUESTION_START = re.compile(
    # A place or time said first ("In #jobs, which company ...") does not stop a part from asking.
    r"^\W*(?:(?:in|on|at|during|over)\s+[#\w.-]+(?:\s+[\w.-]+){0,2},\s*)?(?:who|whom|whose|what|when|where|why|how|which|did|does|do|is|was|were|are|has|have|can|could|will|"
    r"would|should)\b",
    re.I,
)


# Question text: where a sentence ends and the next begins (". " or "! " before a word; a version's dot has no space).
_SENTENCE_END = re.compile(r"(?<=[.!])\s+(?=\S)")


def asked_sentence(question: str) -> str:
    """The question as it asks, without a statement said first: "Our sync fails on Fargate. Which memory limit
    fixed it?" asks "Which memory limit fixed it?" (the statement is context: its words still search and score).
    The text unchanged when its first sentence asks, or when no later one does."""
    text = question.strip()
    starts = [0, *(m.end() for m in _SENTENCE_END.finditer(text))]
    if len(starts) < 2 or _asks(text[: starts[1]]):
        return question
    for start, end in zip(starts[1:], [*starts[2:], len(text)], strict=True):
        if _asks(text[start:end]):
            return text[start:]  # as written, so what comes before it is the statement
    return question


def _asks(sentence: str) -> bool:
    return sentence.rstrip().endswith("?") or _QUESTION_START.match(sentence) is not None


def question_parts(question: str) -> list[str]:
    """The parts of a two-part question ("who reported it and how was it fixed?"), or the question alone."""
    parts = [p.strip(" ?,;") for p in _PART_SPLIT.split(question.strip())]
    parts = [p for p in parts if content_words(p) and len(p.split()) >= 2]
    # Both sides must ask something: "A user got an error ...; which setting ..." is one question with a preamble.
    if len(parts) < 2 or not all(_QUESTION_START.match(p) for p in parts):
        return [question]
    return parts[:3]


def part_queries(parts: list[str]) -> list[str]:
    """What each part is scored as: a short later part ("how was it fixed") says "it", so the first part's topic
    words come along."""
    topic = " ".join(sorted(content_words(parts[0]) - GENERIC))
    return [part if i == 0 or len(content_words(part)) >= 3 else f"{part} ({topic})" for i, part in enumerate(parts)]


@dataclass(frozen=True)
class Part:
    """One part of a two-part question, read twice: as scored (`query`, with the first part's topic when short)
    and as answered (`text`); each reading holds the `Question` fields of that text under the part's `intent`."""

    text: str
    query: str
    intent: str
    scored: dict[str, Any] = field(default_factory=dict)
    answered: dict[str, Any] = field(default_factory=dict)

    def as_scored(self, question: Question) -> Question:
        """The part as the sentences are scored against it (time window, people and places of the whole)."""
        return replace(question, text=self.query, intent=self.intent, **self.scored)

    def as_answered(self, question: Question) -> Question:
        """The part as its answer line's value is read."""
        return replace(question, text=self.text, intent=self.intent, **self.answered)
