"""What still stands between a release and shipping it, listed from the items' state as of now.

"What is blocking the 7.0.0 release?", "What's left for 2.2.1?", "Which tickets are still open for 6.3.0?": the
answer is the set of items of sources with a history whose state as of `now` carries that fix version and holds no
resolution and no done status, each with its status and assignee, and the items its links say block it. Each line
is cited to the state that states it. With no such item, nothing is answered here and the question takes the fact
path (which may say what the sources say about the release).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import tzinfo
from typing import TYPE_CHECKING

from briefing.ask.finished import fix_versions, names_match
from briefing.ask.inventory import item_states
from briefing.ask.segment import clean
from briefing.question.timewindow import local_day

if TYPE_CHECKING:
    from briefing.ask.extractive import ExtractiveAnswer
    from briefing.model import Unit
    from briefing.view import View

MAX_LISTED = 15
# A link line as the item's links section writes it: "<key> is blocked by <other key>: <summary>".
_BLOCKED_BY = re.compile(r"\bis\s+blocked\s+by\s+([A-Za-z][\w-]*-\d+|#\d+)", re.I)


@dataclass(frozen=True)
class Open:
    """One unresolved item with the version: its status, assignee, what blocks it, its state unit."""

    key: str
    title: str
    status: str
    assignee: str
    blocked_by: tuple[str, ...]
    unit: Unit


def open_items(versions: Sequence[str], view: View, person: str = "") -> list[Open]:
    """The items whose state as of the view's `now` has every version among its fix versions (and, with `person`,
    is assigned to them) and is not resolved."""
    wanted = {v.lower().lstrip("v") for v in versions}
    if not (wanted or person):
        return []
    found: list[Open] = []
    for item in item_states(view):
        if not wanted <= fix_versions(item.cells) or item.done:
            continue
        if person and not names_match([person], item.assignee):
            continue
        blockers = tuple(dict.fromkeys(m[1] for m in _BLOCKED_BY.finditer(item.own)))
        found.append(Open(item.key, item.title, item.status, item.cells.get("assignee", ""), blockers, item.header))
    found.sort(key=lambda o: o.key)
    return found


def answer_open(
    versions: Sequence[str],
    answer: ExtractiveAnswer,
    view: View,
    *,
    zone: tzinfo,
    person: str = "",
    ready: bool = False,
) -> tuple[ExtractiveAnswer, list[str]] | None:
    """The unresolved items of the release (or, with `person` and no version, the unresolved items assigned to
    them: "What is Dana working on?"), each cited to its state, with their keys; None when there are none. The day
    "as of" is named in `zone`, the workspace's. `ready` ("Is 6.4.0 ready to ship?"): the list opens with "No — "."""
    items = open_items(versions, view, person)
    if not items:
        return None
    shown = items[:MAX_LISTED]
    more = f" ({len(items) - len(shown)} more not shown)" if len(items) > len(shown) else ""
    noun = "item" if len(items) == 1 else "items"
    today = local_day(view.now, zone)
    scope = f"with fix version {', '.join(versions)}" if versions else f"assigned to {person}"
    verdict = "No — " if ready else ""
    lines = [f"{verdict}{len(items)} {noun} {scope} not resolved as of {today}{more}:"]
    cited: dict[int, list[str]] = {}
    urls: dict[int, str] = {}
    for n, item in enumerate(shown, 1):
        assignee = f"assignee {item.assignee}" if item.assignee and not person else ""
        detail = ", ".join(p for p in (item.status, assignee) if p)
        blocked = f"; blocked by {', '.join(item.blocked_by)}" if item.blocked_by else ""
        lines.append(f"- {clean(item.title, limit=160)} ({detail}{blocked}) [{n}]")
        cited[n], urls[n] = [item.unit.ref], item.unit.url
    return replace(answer, text="\n".join(lines), no_answer=False, cited=cited, urls=urls), [i.key for i in items]
