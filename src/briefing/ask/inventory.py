"""The work items whose state as of now has the fields a question names, counted and listed.

"Which critical bugs are still open?", "How many open bugs are there?", "What went into release 6.2.1?": the items
of the sources with a history (trackers, code hosts) are read from their state as of the view's `now` (their
header unit: status, resolution, type, priority, fix versions, assignee, reporter, components, labels) and kept
when every field the question names matches (`briefing.question.inventory`). The question's other words must be
said by the item's components, labels, title or description ("Which Android bugs are open?"). Each listed item is
cited to the state that states it; the first line gives the count. With no such item, nothing is answered here and
the question takes the fact path.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import tzinfo
from typing import TYPE_CHECKING

from briefing.ask.finished import DONE_STATUS, NO_WORK, fix_versions, history_families, names_match
from briefing.ask.header import AUTHORED, UNKNOWN_VALUE, UNRESOLVED, UNSET, is_header, rows
from briefing.ask.listing import most_first
from briefing.ask.segment import clean
from briefing.index import Filter
from briefing.question.terms import content_words, says
from briefing.question.timewindow import local_day

if TYPE_CHECKING:
    from briefing.ask.extractive import ExtractiveAnswer
    from briefing.model import Chunk, Unit
    from briefing.question.inventory import InventoryAsked
    from briefing.view import View

# A line of the count by assignee names (and cites) this many of the person's items.
GROUP_KEYS = 3
MAX_LISTED = 15
# Priority names from the most urgent down, as JIRA's schemes name them: a listing shows the most urgent first.
_URGENCY = ("blocker", "highest", "critical", "high", "major", "medium", "normal", "low", "minor", "lowest", "trivial")
# A code host's item header opens with its kind: "PR #12 ..." or "Issue #12 ...".
_HOST_KIND = re.compile(r"^\s*(PR|Issue)\s+#\d+", re.I)
# A key's digits, compared as numbers ("TIMOB-999" before "TIMOB-1000", "#9" before "#10").
_DIGITS = re.compile(r"(\d+)")


@dataclass(frozen=True)
class ItemState:
    """One item as of now: its key and title, its header's `Label: value` cells, the header unit, and the text of
    its own units (the header and description, not its comments)."""

    key: str
    title: str
    cells: dict[str, str]
    header: Unit
    own: str

    @property
    def status(self) -> str:
        return self.cells.get("status") or self.cells.get("state") or ""

    @property
    def unknown(self) -> bool:
        """The item's state at `now` is not recorded (its history starts later): neither open nor done then."""
        return bool(UNKNOWN_VALUE.match(self.status))

    @property
    def done(self) -> bool:
        """Resolved, or in a done status ("Closed", "Done", a pull request merged or closed)."""
        return (
            self.cells.get("resolution", "").lower() not in UNRESOLVED
            or bool(DONE_STATUS.match(self.status))
            or self.status.lower() == "merged"
        )

    @property
    def kind(self) -> str:
        """The item's type as its header states it, lower-case ("bug", "story", "pull", "issue"), or ""."""
        stated = self.cells.get("type", "")
        if stated:
            return stated.lower().replace("-", "")
        host = _HOST_KIND.match(self.header.text)
        return ("pull" if host[1].lower() == "pr" else "issue") if host else ""

    @property
    def assignee(self) -> str:
        value = self.cells.get("assignee") or self.cells.get("assignees") or ""
        return "" if value.lower() in UNSET else value

    @property
    def reporter(self) -> str:
        authored = AUTHORED.search(self.header.text)
        return self.cells.get("reporter") or (authored[1] if authored else "")


def item_states(view: View) -> Iterator[ItemState]:
    """Every item of the sources with a history as the view sees it at its `now`, with a header stating its state."""
    families = history_families()
    if not families:
        return
    by_doc: dict[str, list[Chunk]] = {}
    for chunk in view.chunks(Filter(source_types=families)):
        by_doc.setdefault(chunk.doc_key, []).append(chunk)
    for key, chunks in by_doc.items():
        chunks.sort(key=lambda c: (c.start, c.ordinal, c.chunk_id))
        units = [u for c in chunks for u in c.units if u.ref == key]
        header = next((u for u in units if is_header(u.text)), None)
        if header is not None:
            yield ItemState(key, chunks[0].title, rows(header.text), header, " ".join(u.text for u in units))


def _of_type(kind: str, types: set[str]) -> bool:
    """Whether an item of `kind` is one of the `types` asked. A pull request is only a pull request; a code host's
    issue states no type, so it may be any but a pull request; a tracker's "issue" is any of its tickets."""
    if kind == "pull":
        return "pull" in types
    if kind == "issue" or not kind:
        return types != {"pull"}
    return "issue" in types or any(kind.startswith(t[:4]) for t in types if t != "pull")


def _tag_words(item: ItemState) -> str:
    return " ".join(item.cells.get(label, "") for label in ("components", "labels"))


def _matches(asked: InventoryAsked, item: ItemState, tags: set[str]) -> bool:
    if (asked.state or asked.unassigned) and item.unknown:
        return False  # open or done, held or not, is not known then
    if asked.state == "open" and item.done:
        return False
    if asked.state == "done" and (not item.done or (asked.worked and NO_WORK.search(item.cells.get("resolution", "")))):
        return False
    if asked.types and not _of_type(item.kind, set(asked.types)):
        return False
    priority = item.cells.get("priority", "").lower()
    if asked.priorities and priority not in asked.priorities:
        return False
    if asked.versions and not {v.lower().lstrip("v") for v in asked.versions} <= fix_versions(item.cells):
        return False
    if asked.assignee and not names_match([asked.assignee], item.assignee):
        return False
    if asked.unassigned and item.assignee:
        return False
    if asked.reporter and not names_match([asked.reporter], item.reporter):
        return False
    # A word that names a component or a label somewhere in the workspace ("Android bugs") is said by the item's
    # components, labels or title, as a whole word ("cli" is not "client"); any other word ("crash") by its title or
    # description.
    named = content_words(f"{item.title} {_tag_words(item)}")
    said = named | content_words(item.own)
    return all(word in named if word in tags else says(said, word) for word in asked.words)


def _order(item: ItemState) -> tuple[int, list[int | str]]:
    priority = item.cells.get("priority", "").lower()
    urgency = _URGENCY.index(priority) if priority in _URGENCY else len(_URGENCY)
    return urgency, [int(p) if p.isdigit() else p for p in _DIGITS.split(item.key)]


def _bare(key: str) -> str:
    """An item's key as its children's headers write their parent ("jira:PLAT-7" -> "PLAT-7"), upper-case."""
    return key.rpartition(":")[2].upper()


def _parent_key(item: ItemState) -> set[str]:
    """The keys of the epic and the parent an item's header names (upper-case)."""
    return {v.strip().upper() for v in (item.cells.get("epic", ""), item.cells.get("parent", "")) if v.strip()}


# A parent named by its title is the one whose title says the most of the question's words, at least TITLE_WORDS of
# them and at least TITLE_SHARE of those the question gives; a tie names none.
TITLE_WORDS = 2
TITLE_SHARE = 0.5


def parent_of(asked: InventoryAsked, items: list[ItemState]) -> tuple[str, str] | None:
    """(key, title) of the epic or parent `asked` names, among the items some item's header puts others under: by
    its key, or by the words of its title (the parent need not be in the index to be named by key)."""
    parents = set().union(*(_parent_key(item) for item in items))
    # A tracker's title opens with its key ("PLAT-7: Drop Windows 8.1"); the answer names the key once.
    titles = {
        _bare(item.key): item.title.removeprefix(f"{_bare(item.key)}: ") for item in items if _bare(item.key) in parents
    }
    if asked.within:
        key = asked.within.upper()
        return (key, titles.get(key, "")) if key in parents else None
    words = set(asked.within_title)
    if not words:
        return None
    said = sorted(((len(words & content_words(title)), key) for key, title in titles.items()), reverse=True)
    if not said or said[0][0] < max(TITLE_WORDS, TITLE_SHARE * len(words)):
        return None
    if len(said) > 1 and said[1][0] == said[0][0]:
        return None
    return said[0][1], titles[said[0][1]]


def matching(asked: InventoryAsked, view: View) -> list[ItemState]:
    """The items matching `asked` as of the view's `now`, the most urgent first, then by key."""
    return _matching(asked, list(item_states(view)))[0]


def _matching(
    asked: InventoryAsked, items: list[ItemState]
) -> tuple[list[ItemState], tuple[str, str] | None, InventoryAsked]:
    """The items matching `asked` among `items` (sorted as `matching` sorts them), the parent they are under, and
    `asked` with "the highest priority" read as the most urgent one the items have (`_top_present`)."""
    parent = parent_of(asked, items) if asked.within or asked.within_title else None
    if (asked.within or asked.within_title) and parent is None:
        return [], None, asked
    tags = set().union(*(content_words(_tag_words(item)) for item in items)) if asked.words else set()
    asked = _top_present(asked, items, tags)
    found = [
        item for item in items if _matches(asked, item, tags) and (parent is None or parent[0] in _parent_key(item))
    ]
    return sorted(found, key=_order), parent, asked


def _top_present(asked: InventoryAsked, items: list[ItemState], tags: set[str]) -> InventoryAsked:
    """ "The highest-priority open bugs" where no item's priority is named "Highest": the most urgent priority the
    items matching the rest of the question have ("Critical" in a Blocker-to-Trivial scheme), so the answer lists
    those and says which priority it is."""
    if asked.priorities != ("highest",):
        return asked
    anyone = replace(asked, priorities=())
    levels = {item.cells.get("priority", "").lower() for item in items if _matches(anyone, item, tags)}
    ranked = sorted(level for level in levels if level in _URGENCY)
    if "highest" in levels or not ranked:
        return asked
    return replace(asked, priorities=(min(ranked, key=_URGENCY.index),))


def _unknown(asked: InventoryAsked, items: list[ItemState]) -> int:
    """How many items whose state at `now` is not recorded match `asked` but for the state it asks."""
    if not (asked.state or asked.unassigned):
        return 0
    anyhow = replace(asked, state="", unassigned=False)
    tags = set().union(*(content_words(_tag_words(item)) for item in items)) if asked.words else set()
    return sum(1 for item in items if item.unknown and _matches(anyhow, item, tags))


def _described(asked: InventoryAsked, total: int, parent: tuple[str, str] | None = None) -> str:
    """ "4 open critical bugs assigned to Vijay Singh", "3 finished items with fix version 6.2.1"."""
    state = {"open": "open", "done": "finished" if asked.worked else "closed"}.get(asked.state, "")
    kinds = {"pull": "pull requests", "story": "stories"}
    noun = " or ".join(kinds.get(t, t + "s") for t in asked.types) if asked.types else "items"
    if total == 1:
        noun = noun.removesuffix("ies") + "y" if noun.endswith("ies") else noun.removesuffix("s")
    priority = " or ".join(asked.priorities) + "-priority" if asked.priorities else ""
    parts = [str(total), state, priority, noun]
    if asked.versions:
        parts.append(f"with fix version {', '.join(asked.versions)}")
    if asked.assignee:
        parts.append(f"assigned to {asked.assignee}")
    if asked.unassigned:
        parts.append("with no assignee")
    if asked.reporter:
        parts.append(f"reported by {asked.reporter}")
    if asked.words:
        parts.append("mentioning " + ", ".join(f'"{w}"' for w in asked.words))
    if parent is not None:
        key, title = parent
        parts.append(f"under {key}" + (f" ({clean(title, limit=120)})" if title else ""))
    return " ".join(p for p in parts if p)


def _detail(asked: InventoryAsked, item: ItemState) -> str:
    resolution = item.cells.get("resolution", "")
    status = item.status + (f" ({resolution})" if item.done and resolution.lower() not in UNRESOLVED else "")
    priority = item.cells.get("priority", "")
    shown = [
        status,
        "" if asked.priorities or priority.lower() in UNSET else f"priority {priority}",
        "" if asked.assignee or not item.assignee else f"assignee {item.assignee}",
        "" if asked.versions else ", ".join(f"fix version {v}" for v in sorted(fix_versions(item.cells))),
    ]
    return ", ".join(p for p in shown if p)


def answer_inventory(
    asked: InventoryAsked, answer: ExtractiveAnswer, view: View, *, zone: tzinfo
) -> tuple[ExtractiveAnswer, list[str]] | None:
    """The count and list of the items matching `asked`, each cited to its state, with their keys; None when no
    item matches. The day "as of" is named in `zone`, the workspace's."""
    every = list(item_states(view))
    items, parent, asked = _matching(asked, every)
    if not items:
        return None
    shown = items[:MAX_LISTED]
    notes = [f"{len(items) - len(shown)} more not shown"] if len(items) > len(shown) else []
    unknown = _unknown(asked, every)
    notes += [f"{unknown} more whose state then is not recorded"] if unknown else []
    more = f" ({'; '.join(notes)})" if notes else ""
    today = local_day(view.now, zone)
    lines = [f"{_described(asked, len(items), parent)} as of {today:%a} {today.day} {today:%b %Y}{more}:"]
    cited: dict[int, list[str]] = {}
    urls: dict[int, str] = {}
    for n, item in enumerate(shown, 1):
        detail = _detail(asked, item)
        lines.append(f"- {clean(item.title, limit=160)}" + (f" ({detail})" if detail else "") + f" [{n}]")
        cited[n], urls[n] = [item.header.ref], item.header.url
    return replace(answer, text="\n".join(lines), no_answer=False, cited=cited, urls=urls), [i.key for i in items]


def answer_by_assignee(
    asked: InventoryAsked, answer: ExtractiveAnswer, view: View, *, zone: tzinfo
) -> tuple[ExtractiveAnswer, list[str]] | None:
    """ "Who has the most open bugs?": the items matching `asked` counted by assignee as of now, the one holding the
    most first ("Gary Mathews holds the most: 12 of 62 open items"), then one line per assignee with their count
    and first keys, cited to those items' states; the items nobody holds are counted last. None when no item
    matches or none is assigned. Pull requests nobody is assigned (a code host's usual way) are held by their
    authors: "Who has the most open PRs?" counts them by author, and says so."""
    every = list(item_states(view))
    items, _, asked = _matching(asked, every)
    role = "assignee"
    held: dict[str, list[ItemState]] = {}
    for item in items:
        held.setdefault(item.assignee, []).append(item)
    if list(held) == [""] and all(item.kind == "pull" for item in items):
        role, held = "author", {}
        for item in items:
            held.setdefault(item.reporter, []).append(item)
    nobody = held.pop("", [])
    if not held:
        return None
    ranked, top, names = most_first(held)
    today = local_day(view.now, zone)
    unknown = _unknown(asked, every)
    notes = [f"{len(nobody)} with no {role}"] if nobody else []
    notes += [f"{unknown} more whose state then is not recorded"] if unknown else []
    more = f" ({'; '.join(notes)})" if notes else ""
    verb = "holds" if len(top) == 1 else "hold"
    lead = f"{names} {verb} the most: {len(ranked[0][1])} of {_described(asked, len(items))}"
    lines = [f"{lead} as of {today:%a} {today.day} {today:%b %Y}{more}. By {role}:"]
    cited: dict[int, list[str]] = {}
    urls: dict[int, str] = {}
    for n, (who, mine) in enumerate(ranked[:MAX_LISTED], 1):
        keys = ", ".join(i.key.split(":", 1)[-1] for i in mine[:GROUP_KEYS])
        rest = f" and {len(mine) - GROUP_KEYS} more" if len(mine) > GROUP_KEYS else ""
        lines.append(f"- {who}: {len(mine)} ({keys}{rest}) [{n}]")
        cited[n], urls[n] = [i.header.ref for i in mine[:GROUP_KEYS]], mine[0].header.url
    if len(ranked) > MAX_LISTED:
        lines.append(f"({len(ranked) - MAX_LISTED} more assignees not shown)")
    return replace(answer, text="\n".join(lines), no_answer=False, cited=cited, urls=urls), [i.key for i in items]
