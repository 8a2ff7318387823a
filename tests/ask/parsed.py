"""Questions for answer-stage tests: read as an ask reads them, with the constraints a test names."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from briefing.question.constraints import Constraints
from briefing.question.model import Question
from briefing.question.parse import from_constraints
from briefing.question.timeexpr import TimeWindow

# Asked after everything the tests' sources say, unless a test names its own moment.
LATER = datetime(2100, 1, 1, tzinfo=UTC)


def parsed(
    text: str,
    *,
    intent: str = "fact",
    window: tuple[datetime, datetime] | None = None,
    people: Sequence[str] = (),
    places: Sequence[str] = (),
    now: datetime | None = None,
) -> Question:
    """`text` as `briefing.question.parse.from_constraints` reads it, over exactly the constraints given (the
    time window, the people and the channels it names, its intent), as of `now`."""
    time = TimeWindow(window[0], window[1], None, "") if window is not None else None
    constraints = Constraints(time=time, people=list(people), channels=list(places), intent=intent)
    return from_constraints(text, now or LATER, constraints)
