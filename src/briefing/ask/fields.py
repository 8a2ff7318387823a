"""Questions about a field of one named ticket or pull request, answered from the item's own header as of now.

"Who is assigned to PLAT-142?", "Who merged PR #650?": a field of the item, not the writer of the best-ranked line.
The header unit, as the `View` returns it at `now`, lists the fields as `Label: value` rows ("Status: Closed |
Assignee: Dana Reyes") and, for a pull request, one sentence ("authored by dana, opened 2024-05-02, merged
2024-05-09 by lee"); review verdicts are units of their own ("lee approved"). The answer names the value, cited;
an item not in the index, or a header without the field, leaves the question to the fact path.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from briefing import registry
from briefing.ask.header import AUTHORED as _AUTHORED
from briefing.ask.header import LABELS, UNKNOWN_VALUE, UNSET, is_header, rows
from briefing.ask.header import NAME as _NAME
from briefing.ask.item_model import DAY, MARK, Item, Read
from briefing.index.payload import doc_id
from briefing.model import Chunk, Unit

if TYPE_CHECKING:
    from briefing.ask.extractive import ExtractiveAnswer
    from briefing.view import View

# How an answer names each field.
NAMES = {"fix_version": "fix version", "labels": "labels", "components": "components"}
# Review verdicts, as a review unit states them after its time stamp ("[2024-05-02 10:00] lee approved: ..."), or
# as a mail review gives them, a tag on a line of its own ("Reviewed-by: Andrew Lunn <andrew@lunn.ch>").
REVIEW_FIELDS = {
    "reviewer": ("approved", "requested changes", "reviewed", "Reviewed-by", "Acked-by"),
    "approver": ("approved", "Acked-by"),
    "changes": ("requested changes",),
    "tester": ("Tested-by",),
}
# How a sentence says each review role was played.
_REVIEWED = {"tester": "was tested by"}
MAX_ITEMS = 3
# How much of an item's latest comment a "where does it stand" answer quotes.
LATEST_QUOTE = 240

# The fields a tracker's item may leave empty, said so when asked ("PLAT-7 has no priority set"); others (a fix
# version, a sprint) are often stated in the item's comments when the field is empty, so the fact path reads them.
_TRACKER_FIELDS = frozenset({"priority", "labels", "components"})
# Header text of a code host's item: the day it was opened ("opened 2022-05-05").
_OPENED = re.compile(r"\bopened (\d{4}-\d{2}-\d{2})")
_MERGED = re.compile(r"\bmerged (\d{4}-\d{2}-\d{2})(?: by " + _NAME + ")?")
_CLOSED = re.compile(r"\bclosed( unmerged)? (\d{4}-\d{2}-\d{2})(?: by " + _NAME + ")?")
# A review verdict unit: an optional "[time]" stamp, the reviewer, the verdict.
_VERDICT = re.compile(r"^\s*(?:\[[^\]]*\]\s*)?([\w.@-]+)\s+(approved|requested changes|reviewed)\b")
# Mail text: a review tag on a line of its own, not quoted ("Acked-by: Rob Herring <robh@kernel.org>"): the tag and
# the name before the address.
_TAG = re.compile(r"^[ \t]*(Reviewed-by|Acked-by|Tested-by):[ \t]*([^<>\n]*?)[ \t]*(?:<[^<>\n]*>)?[ \t]*$", re.I | re.M)


def _label(key: str, chunk: Chunk) -> str:
    """How the answer names the item: "PR #650" / "Issue #640" from its header sentence, else its key."""
    own = doc_id(key)
    number = re.search(r"#(\d+)$", own)
    if number is None:
        return own
    kind = "PR" if re.search(r"\bPR #" + number[1] + r"\b", chunk.text) else "Issue"
    return f"{kind} #{number[1]}"


def item_of(key: str, chunks: Sequence[Chunk]) -> Item:
    """One item from its own chunks as the view returned them: the header is the unit whose ref is the item's key
    and which holds fields."""
    own = sorted(chunks, key=lambda c: (c.start, c.ordinal, c.chunk_id))
    units = tuple(u for c in own for u in c.units)
    header = next((u for u in units if u.ref == key and is_header(u.text)), None)
    events = tuple(ev for c in own for ev in registry.meta(c, "events") if isinstance(ev, dict))
    return Item(key, _label(key, own[0]), header, units, events, bare_title(key, own[0].title))


def bare_title(key: str, title: str) -> str:
    """A document's title without the key it opens with ("PLAT-7: Retry" -> "Retry"), since the label says it."""
    own = doc_id(key)
    return title[len(own) :].lstrip(" :") if title.startswith(own) else title


def named_items(view: View, keys: Sequence[str]) -> list[Item]:
    """The items the question names, each with its header unit (the unit whose ref is the item's own key)."""
    if not keys:
        return []
    chunks = view.fetch(tickets=keys, doc_ids=keys)
    by_doc: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        if doc_id(chunk.doc_key) in keys or chunk.doc_key in keys:
            by_doc.setdefault(chunk.doc_key, []).append(chunk)
    items: list[Item] = []
    for key in keys:
        docs = [d for d in by_doc if d == key or doc_id(d) == key]
        if docs:
            items.append(item_of(docs[0], by_doc[docs[0]]))
    return items[:MAX_ITEMS]


def items_at(view: View, doc_keys: Sequence[str]) -> list[Item]:
    """The items of these document keys as the view holds them, in the order given (those it holds none of left
    out)."""
    by_doc: dict[str, list[Chunk]] = {}
    for chunk in view.fetch(doc_keys=doc_keys):
        by_doc.setdefault(chunk.doc_key, []).append(chunk)
    return [item_of(key, by_doc[key]) for key in doc_keys if key in by_doc]


def _row(header: Unit, field: str) -> str | None:
    cells = rows(header.text)
    for label in LABELS.get(field, ()):
        if label in cells:
            return cells[label]
    return None


def read_field(item: Item, field: str) -> Read | None:
    """A sentence stating `field` of `item` with a `MARK` where each unit it is read from is cited, and those
    units; None when the item does not say."""
    if field in REVIEW_FIELDS:
        return _reviews(item, field)
    if field in ("about", "last_comment"):
        from briefing.ask.item_reads import about, last_comment

        return about(item) if field == "about" else last_comment(item)
    header = item.header
    if header is None:
        return _started(item) if field == "reporter" else None
    value = _row(header, field)
    if field == "assignee" and value is not None:
        if value.lower() in UNSET:
            return f"{item.label} is unassigned{MARK}", [header]
        return f"{item.label} is assigned to {value}{MARK}", [header]
    if field == "reporter":
        authored = _AUTHORED.search(header.text)
        if value is not None:
            return f"{item.label} was reported by {value}{MARK}", [header]
        return (f"{item.label} was opened by {authored[1]}{MARK}", [header]) if authored else None
    if field == "merger":
        return _merged(item, header)
    if field == "resolved":
        return _resolved(item, header)
    if field == "resolver":
        return _resolver(item, header)
    if field == "fixer":
        from briefing.ask.item_reads import fixer

        return fixer(item, header)
    if field == "reopened":
        return _reopened(item, header)
    if field == "created":
        return _created(item, header)
    if field == "standing":
        return _standing(item, header)
    if value is None or value.lower() in UNSET:
        return _unset(item, header, field, value)
    if field == "status":
        return f"{item.label} is {value}{MARK}", [header]
    if field == "organiser":
        return f"{item.label} was organised by {value}{MARK}", [header]
    name = NAMES.get(field, field)
    return f"The {name} of {item.label} {'are' if name.endswith('s') else 'is'} {value}{MARK}", [header]


def _standing(item: Item, header: Unit) -> Read | None:
    """Where an item stands: its status (a pull request's merge or close, when merged or closed), then its latest
    comment that says something, with who wrote it and when; None when its header states neither."""
    from briefing.ask.item_reads import latest_comment, quoted

    value = _row(header, "status")
    state = _merged(item, header)  # a pull request's merge says by whom and when
    if state is None and value and value.lower() not in UNSET:
        state = f"{item.label} is {value}{MARK}", [header]
    if state is None:
        return None
    last = latest_comment(item, saying=True)
    if last is None:
        return state
    return f"{state[0]}; latest, {quoted(last, LATEST_QUOTE)}{MARK}", [*state[1], last]


def _started(item: Item) -> Read | None:
    """Who started an item that states no fields (a mail thread): the writer of its opening unit."""
    opening = next((unit for unit in item.units if unit.ref == item.key and unit.author), None)
    return None if opening is None else (f"{item.label} was started by {opening.author}{MARK}", [opening])


def _merged(item: Item, header: Unit) -> Read | None:
    merged = _MERGED.search(header.text)
    if merged:
        by = f" by {merged[2]}" if merged[2] else ""
        return f"{item.label} was merged{by} on {merged[1]}{MARK}", [header]
    closed = _CLOSED.search(header.text)
    if closed and closed[1]:
        return f"{item.label} was closed without being merged on {closed[2]}{MARK}", [header]
    return None


def _resolved(item: Item, header: Unit) -> Read | None:
    """The day the item reached its end: a tracker's "Resolved:" row, or a pull request's merge or close."""
    day = rows(header.text).get("resolved", "")
    if day and day.lower() not in UNSET and DAY.match(day):
        return f"{item.label} was resolved on {DAY.match(day)[0]}{MARK}", [header]  # type: ignore[index]
    merged = _MERGED.search(header.text)
    if merged:
        return f"{item.label} was merged on {merged[1]}{MARK}", [header]
    closed = _CLOSED.search(header.text)
    return (f"{item.label} was closed on {closed[2]}{MARK}", [header]) if closed else None


def _resolver(item: Item, header: Unit) -> Read | None:
    """Who ended the item: the author of its last recorded change into a done state (a changelog entry the view
    holds), or a pull request's merger; that it is not resolved, when its state says so. None for a resolved item
    with no such record: the fact path reads the comment that announces it ("Closing, verified in 6.3.0"), which
    names who did it more often than the assignee does."""
    from briefing.ask.finished import DONE_STATUS, closing

    if item.label.startswith(("PR ", "Issue #")):
        return _merged(item, header)
    units = {u.ref: u for u in item.units}  # the view holds the changes made by its `now`
    done = sorted((str(ev.get("at")), ev) for ev in item.events if closing(ev) and ev.get("ref") in units)
    if done:
        ev = done[-1][1]
        return f"{item.label} was resolved by {ev.get('by')} on {done[-1][0][:10]}{MARK}", [units[str(ev["ref"])]]
    if _resolved(item, header) is not None:
        return None
    status = _row(header, "status") or ""
    if UNKNOWN_VALUE.match(status):
        return f"{item.label}'s state at that time is not recorded (its recorded history starts later){MARK}", [header]
    if status and not DONE_STATUS.match(status):
        return f"{item.label} is not resolved; its status is {status}{MARK}", [header]
    return None


def _reopened(item: Item, header: Unit) -> Read | None:
    """Who reopened the item and when: its last recorded change out of a done state into one that is not (a
    changelog entry the view holds), or a code host's reopen; that it was never reopened, when its changes are
    recorded and none reopened it. None when the item's changes are not recorded (the fact path reads its comments)."""
    from briefing.ask.finished import DONE_STATUS

    units = {u.ref: u for u in item.units}
    held = [ev for ev in item.events if ev.get("ref") in units]
    back = [
        ev
        for ev in held
        if ev.get("event") == "reopened"
        or (
            ev.get("event") == "status"
            and DONE_STATUS.match(str(ev.get("from") or ""))
            and not DONE_STATUS.match(str(ev.get("to") or ""))
        )
    ]
    if back:
        ev = max(back, key=lambda e: str(e.get("at")))
        by = f" by {ev['by']}" if ev.get("by") else ""
        return f"{item.label} was reopened{by} on {str(ev.get('at'))[:10]}{MARK}", [units[str(ev["ref"])]]
    if any(ev.get("event") == "status" for ev in held):
        status = _row(header, "status") or "not stated"
        return f"{item.label} has not been reopened; its status is {status}{MARK}", [header]
    return None


def _created(item: Item, header: Unit) -> Read | None:
    """The day the item was created: a tracker's "Created:" row, or the day a code host's item was opened."""
    day = rows(header.text).get("created", "")
    if DAY.match(day):
        return f"{item.label} was created on {DAY.match(day)[0]}{MARK}", [header]  # type: ignore[index]
    opened = _OPENED.search(header.text)
    return (f"{item.label} was opened on {opened[1]}{MARK}", [header]) if opened else None


def _unset(item: Item, header: Unit, field: str, value: str | None) -> Read | None:
    """A tracker field the item's state leaves empty ("PLAT-7 has no priority set") or, where its record starts
    later, does not state; None for a field trackers do not keep, or an item that is no tracker's."""
    cells = rows(header.text)
    if field not in _TRACKER_FIELDS or "type" not in cells:
        return None
    name = NAMES.get(field, field.replace("_", " "))
    if any(UNKNOWN_VALUE.match(v) for v in cells.values()):
        return f"{item.label}'s {name} at that time is not recorded (its recorded history starts later){MARK}", [header]
    return f"{item.label} has no {name} set{MARK}", [header]


def _reviews(item: Item, field: str) -> Read | None:
    """The reviewers whose verdict is among the asked ones, newest verdict per reviewer, each with its unit."""
    wanted = REVIEW_FIELDS[field]
    latest: dict[str, tuple[str, Unit]] = {}
    for unit in item.units:  # in the item's order: a later verdict of the same reviewer replaces the earlier
        for who, verdict, tagged in verdicts(unit):
            if verdict in wanted:
                if tagged:
                    latest.pop(who, None)  # a name is listed once, by its latest tag
                latest[who] = (verdict, unit)
    if not latest:
        return None
    # Every reviewer named with their last verdict, each cited by the unit that gives it.
    names = ", ".join(f"{who} ({verdict}){MARK}" for who, (verdict, _) in latest.items())
    return f"{item.label} {_REVIEWED.get(field, 'was reviewed by')} {names}", [unit for _, unit in latest.values()]


def verdicts(unit: Unit) -> list[tuple[str, str, bool]]:
    """The reviews `unit` records: (who, verdict, whether a mail tag says it). A code host's review ("[stamp] login
    approved"), by its writer; a mail's review tags ("Reviewed-by: Rob Herring <...>"), by the name in each."""
    found: list[tuple[str, str, bool]] = []
    m = _VERDICT.match(unit.text)
    if m:
        found.append((unit.author or m[1], m[2], False))
    for tag in _TAG.finditer(unit.text):
        who = tag[2].strip().strip("\"'") or unit.author
        if who:
            found.append((who, _TAG_CASE.get(tag[1].lower(), tag[1]), True))
    return found


# The tags as the answer writes them, whatever case the mail used.
_TAG_CASE = {tag.lower(): tag for tag in ("Reviewed-by", "Acked-by", "Tested-by")}


def compose(found: Sequence[Sequence[Read]], answer: ExtractiveAnswer, lead: str = "") -> ExtractiveAnswer:
    """`answer` replaced by the sentences read (one list per item), each unit they cite numbered once."""
    lines = [lead] if lead else []
    cited: dict[int, list[str]] = {}
    urls: dict[int, str] = {}
    by_ref: dict[str, int] = {}
    for reads in found:
        for sentence, units in reads:
            for unit in units:
                n = by_ref.setdefault(unit.ref, len(by_ref) + 1)
                cited[n], urls[n] = [unit.ref], unit.url
                sentence = sentence.replace(MARK, f" [{n}]", 1)
            lines.append(sentence + ".")
    return replace(answer, text=" ".join(lines), no_answer=False, cited=cited, urls=urls)


def answer_fields(
    fields: Sequence[str], keys: Sequence[str], answer: ExtractiveAnswer, view: View
) -> ExtractiveAnswer | None:
    """The answer read from the named items' fields (the items that hold every asked field: "PR #57" may name one
    in each of several repositories), or None when none does."""
    read = [(item, [read_field(item, field) for field in fields]) for item in named_items(view, keys)]
    found = [[r for r in reads if r is not None] for _, reads in read if fields and all(reads)]
    return compose(found, answer) if found else None
