"""The people a question asks about as the ones who acted: "What did Bozhidar Batsov plan ...?" asks for their words."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

# Question text: a wh-word, an auxiliary, then the name: the person is the subject of what is asked ("What did
# Sean Corfield release", "Why did Ewan Harris reopen it", "What has Aiko been working on"). Not "Who replied to
# X", "What is X's role" or "Which tickets did X resolve" (a listing read from records, not from their words).
_SUBJECT_SLOT = r"\b(?:what|why|how|when|where)\s+(?:did|does|do|has|have|had|will|would|is|was)\s+"


def subject_people(
    text: str, people: Sequence[str], forms: Mapping[str, Sequence[str]] | None = None
) -> frozenset[str]:
    """The names of `people` that stand as the subject of the question `text` (the rule above), each written as
    its name or as one of its `forms` (the handle or first name the question used)."""
    found = set()
    for name in people:
        written = [f.strip() for f in (name, *(forms or {}).get(name, ())) if f.strip()]
        pattern = "(?:" + "|".join(re.escape(f) for f in sorted(written, key=len, reverse=True)) + ")"
        if written and re.search(_SUBJECT_SLOT + pattern + r"(?!['’]s)\b", text, re.I):
            found.add(name)
    return frozenset(found)
