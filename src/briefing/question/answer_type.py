"""What a question asks for: the shape of the value (answer type), the thing asked about, a person's role, parts."""

from __future__ import annotations

from typing import Any

from briefing.question.constraints import Constraints


def read(text: str, constraints: Constraints) -> dict[str, Any]:
    """The `Question` fields this module fills (answer_type, asked, role, parts, extra), by name."""
    return {}
