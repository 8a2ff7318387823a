"""The ask graph's state: one dataclass, with reducers for the fields several nodes append to."""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any

from briefing.model import Chunk
from briefing.question.constraints import Constraints


def merge_dicts(left: dict[str, Any], right: dict[str, Any]) -> dict[str, Any]:
    """Reducer for the trace and timings: later nodes add keys, never drop earlier ones."""
    return {**left, **right}


@dataclass
class AskState:
    """What flows through extract -> route -> retrieve -> answer -> validate."""

    question: str
    now: datetime
    k: int = 10
    # Deterministic extraction; `constraints` is what retrieval uses (routed when a router ran, else the same).
    extracted: Constraints | None = None
    constraints: Constraints | None = None
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
    citations: list[dict[str, Any]] = field(default_factory=list)
    removed_citations: Annotated[list[dict[str, Any]], operator.add] = field(default_factory=list)
    trace: Annotated[dict[str, Any], merge_dicts] = field(default_factory=dict)
    timings_ms: Annotated[dict[str, float], merge_dicts] = field(default_factory=dict)
