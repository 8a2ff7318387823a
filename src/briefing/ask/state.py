"""The ask graph's state: one dataclass, with reducers for the fields several nodes append to."""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Annotated, Any

from briefing.model import Chunk
from briefing.question.model import Question


def merge_dicts(left: dict[str, Any], right: dict[str, Any]) -> dict[str, Any]:
    """Reducer for the trace and timings: later nodes add keys, never drop earlier ones."""
    return {**left, **right}


@dataclass
class AskState:
    """What flows through extract -> route -> the node of the question's kind."""

    # What was asked: the bare text and `now` until the extract node reads it (`briefing.question.parse`); the
    # router's constraints replace the extracted ones. Every node reads it, none reads the string again.
    question: Question
    k: int = 10
    router_steps: Annotated[list[dict[str, Any]], operator.add] = field(default_factory=list)
    # Chunks the router fetched by key (they enter the context whatever their score) and its extra queries.
    fetched: Annotated[list[Chunk], operator.add] = field(default_factory=list)
    queries: Annotated[list[str], operator.add] = field(default_factory=list)
    hits: list[Any] = field(default_factory=list)
    evidence: list[Chunk] = field(default_factory=list)
    draft: str = ""
    sufficient: bool = True
    answer: str = ""
    no_answer: bool = False
    # Set by an outline, listing or meetings node that found nothing of its kind while an LLM writes fact answers.
    declined: bool = False
    citations: list[dict[str, Any]] = field(default_factory=list)
    removed_citations: Annotated[list[dict[str, Any]], operator.add] = field(default_factory=list)
    trace: Annotated[dict[str, Any], merge_dicts] = field(default_factory=dict)
    timings_ms: Annotated[dict[str, float], merge_dicts] = field(default_factory=dict)
