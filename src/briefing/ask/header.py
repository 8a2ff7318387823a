"""An item's header unit: the `Label: value` rows and the opening sentence that state its fields as of now."""

from __future__ import annotations

import re

# The row labels each asked field is written under in a header, lower-case.
LABELS: dict[str, tuple[str, ...]] = {
    "assignee": ("assignee", "assignees"),
    "reporter": ("reporter",),
    "status": ("status", "state"),
    "resolution": ("resolution",),
    "fix_version": ("fix version", "fix versions", "fix version/s"),
    "sprint": ("sprint",),
    "labels": ("labels",),
    "milestone": ("milestone",),
    "priority": ("priority",),
    "components": ("components",),
    "type": ("type",),
    "organiser": ("organiser", "organizer"),
}
_HEADER_LABELS = frozenset(label for labels in LABELS.values() for label in labels)
UNSET = {"", "none", "unassigned", "-"}
# A resolution row that means none yet.
UNRESOLVED = frozenset({"", "unresolved", "none", "-"})
# A header's way of saying a field's value is unknown at that moment ("State: not recorded before 2018-08-06": the
# tracker's history of the item starts later).
UNKNOWN_VALUE = re.compile(r"^not recorded\b", re.I)

# A header row: a short label of letters and spaces, a colon, the value (one " | "-separated cell of a line).
_ROW = re.compile(r"^\s*([A-Za-z][A-Za-z /]{0,24}):\s*(.+?)\s*$")
# The sentence a pull request's or issue's header opens with: who wrote it, when it was merged or closed, by whom.
# A name runs to the next comma or " | " cell break: a login ("lena") or a display name ("Erik Wickstrom").
NAME = r"([\w.@-]+(?: [\w.@'-]+){0,3}?)(?=\s*[,|]|\s+as\s|$)"
AUTHORED = re.compile(r"\bauthored by " + NAME)


def rows(text: str) -> dict[str, str]:
    """The `Label: value` cells of a header's text, by lower-case label (the first of each label wins)."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        for cell in line.split(" | "):
            m = _ROW.match(cell)
            if m:
                found.setdefault(m[1].strip().lower(), m[2].strip())
    return found


def is_header(text: str) -> bool:
    """Whether a unit states an item's fields: rows under the labels of a tracker's fields ("Status: Closed"), or
    the sentence a pull request's header opens with; a line of code or prose with a colon is neither."""
    return bool(_HEADER_LABELS & rows(text).keys()) or bool(AUTHORED.search(text))
