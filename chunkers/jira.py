"""JIRA issue chunker: body with attributes, relationships, history in runs of 20 changes, comment threads.

Pure: one `Document` (from `connectors.jira.normalise`) in, its chunks out. Every chunk names the ticket in
`tickets`, the ticket's status at the chunk's time in `metadata.status_at`, and its people in `authors`; every
line of a history or comment chunk starts with its date and author so a chunk read alone still says who and when.
The first body chunk, which states the ticket's status, assignee, versions..., comes once per interval of that
state (`chunkers.jira_state`): written when the interval began, `valid_until` when the next began, so a reader as
of any moment sees the state the ticket had then and never a later one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from briefing.model import Chunk, ChunkLimits, Document, Item, Unit
from briefing.textrules import find_ticket_keys
from chunkers.jira_state import State, Statuses, states, status_events, status_timeline
from chunkers.packing import longest_prefix
from chunkers.similarity import drifted
from chunkers.versions import versioned

HISTORY_PER_CHUNK = 20
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class _Entry:
    """One line of a chunk (`prefix` + the unit's text) and the unit it cites."""

    unit: Unit
    prefix: str = ""

    @property
    def line(self) -> str:
        return self.prefix + self.unit.text


@dataclass(frozen=True)
class _Section:
    name: str
    header: str
    separator: str
    groups: list[list[_Entry]]


def chunk_issue(
    document: Document,
    *,
    limits: ChunkLimits,
    vectors: Mapping[str, Sequence[float]] | None = None,
) -> list[Chunk]:
    """All chunks of one issue, in order: body, links, history, comments."""
    meta = document.metadata
    key = str(meta.get("key") or document.key.removeprefix("jira:"))
    name = f"{key}: {meta.get('summary')}" if meta.get("summary") else document.title
    body = next((item for item in document.items if item.kind == "issue"), None)
    comments = [item for item in document.items if item.kind == "comment"]
    all_changes = [item for item in document.items if item.kind == "change"]
    changes = [item for item in all_changes if item.text]  # bookkeeping-only entries are not discussion
    statuses = status_timeline(all_changes, meta.get("initial_status") or meta.get("status"))
    versions = states(meta, all_changes, body.occurred_at) if body is not None else []
    fits = _fits(limits)

    sections: list[_Section] = []
    if body is not None:
        header = name
        # Packed with the longest of its versions, so that every version of the state chunk fits the limits.
        longest = max((_attribute_block(meta, v) for v in versions), key=len)
        entries = [_Entry(Unit(body.ref, longest, body.author, body.occurred_at, _unit_url(body)))]
        for paragraph in _paragraphs(body.text):
            entries.append(_Entry(Unit(body.ref, paragraph, body.author, body.occurred_at, _unit_url(body))))
        entries = _presplit(entries, header, fits)
        sections.append(_Section("body", header, "\n\n", _pack(header, entries, "\n\n", limits, fits)))
        link_lines = _relationship_lines(key, meta)
        if link_lines:
            header = f"{name} (links)"
            at = body.occurred_at
            entries = _presplit(
                [_Entry(Unit(body.ref, line, body.author, at, _unit_url(body))) for line in link_lines], header, fits
            )
            sections.append(_Section("links", header, "\n", _pack(header, entries, "\n", limits, fits)))
    if changes:
        header = f"{name} (history)"
        entries = _presplit([_dated(item, changed=True) for item in changes], header, fits)
        max_items = min(HISTORY_PER_CHUNK, limits.max_items) if limits.max_items > 0 else HISTORY_PER_CHUNK
        sections.append(_Section("history", header, "\n", _pack(header, entries, "\n", limits, fits, max_items)))
    if comments:
        header = f"{name} (comments)"
        entries = _presplit([_dated(item, changed=False) for item in comments], header, fits)
        topic = _apart(document, _topic_break(vectors, limits.topic_threshold))
        sections.append(
            _Section("comments", header, "\n", _pack(header, entries, "\n", limits, fits, limits.max_items, topic))
        )

    chunks: list[Chunk] = []
    n = 0
    for section in sections:
        for group in section.groups:
            if n == 0 and section.name == "body":
                chunks.extend(_state_chunks(document, key, section, group, versions, statuses, body, limits))
            else:
                chunks.append(_chunk(document, key, section, group, n, statuses, body, limits))
            n += 1
    return chunks


def _state_chunks(
    document: Document,
    key: str,
    section: _Section,
    group: list[_Entry],
    versions: list[State],
    statuses: Statuses,
    body: Item | None,
    limits: ChunkLimits,
) -> list[Chunk]:
    """The first body chunk once per state interval; the current state keeps the plain id `<doc key>::0`."""
    out: list[Chunk] = []
    head, rest = group[0].unit, group[1:]
    for version in versions:
        author = version.by or head.author
        unit = Unit(head.ref, _attribute_block(document.metadata, version), author, version.start, head.url)
        out.append(_chunk(document, key, section, [_Entry(unit), *rest], 0, statuses, body, limits, version))
    return versioned(out, [(v.start, v.until) for v in versions])


def _chunk(
    document: Document,
    key: str,
    section: _Section,
    group: list[_Entry],
    n: int,
    statuses: Statuses,
    body: Item | None,
    limits: ChunkLimits,
    version: State | None = None,
) -> Chunk:
    meta = document.metadata
    units = [entry.unit for entry in group]
    text = section.header + section.separator + section.separator.join(entry.line for entry in group)
    truncated = False
    if not _fits(limits)(text):
        # Only reachable when the header alone is over the limit: cut, and say so.
        text, truncated = longest_prefix(text, _fits(limits)), True
    times = [unit.at for unit in units if unit.at is not None]
    start, end = min(times), max(times)
    authors: list[str] = []
    # The state as of this chunk: its version's for the state chunk, the state at its end for the others.
    state: Mapping[str, Any] = version.values if version is not None and version.known else {"status": statuses.at(end)}
    if version is not None:
        end = max(end, version.updated or version.start)
        authors.extend(a for a in (meta.get("reporter"), state.get("assignee")) if a)
    elif section.name in ("body", "links"):
        authors.extend(a for a in (meta.get("reporter"),) if a)
    status_at = state.get("status")
    authors.extend(unit.author for unit in units if unit.author)
    tickets = [key, *find_ticket_keys(text)]
    url = document.url
    if section.name == "comments" and url:
        url = f"{url}?focusedCommentId={units[0].ref.rsplit('-', 1)[-1]}"
    return Chunk(
        chunk_id=f"{document.key}::{n}",
        doc_key=document.key,
        source_type=document.source_type,
        kind=document.kind,
        title=document.title,
        text=text,
        refs=list(dict.fromkeys(unit.ref for unit in units)),
        start=start,
        end=end,
        authors=list(dict.fromkeys(authors)),
        url=url,
        container=document.container,
        tickets=list(dict.fromkeys(tickets)),
        units=units,
        metadata={
            "section": section.name,
            "status_at": status_at,
            "status": status_at,
            "issue_type": meta.get("type"),
            "priority": state.get("priority"),
            "assignee": state.get("assignee"),
            **({"links": _linked(meta)} if section.name == "links" else {}),
            **({"events": events} if section.name == "history" and (events := status_events(document, units)) else {}),
        },
        truncated=truncated,
    )


# --- text -------------------------------------------------------------------------------------------------------


def _attribute_block(meta: Mapping[str, Any], version: State) -> str:
    """The ticket's attributes as they stood in `version`'s interval (its tracked state unknown: said so)."""
    state = version.values if version.known else {name: version.values.get(name) for name in version.partial}
    rows: list[list[tuple[str, Any]]] = [
        [("Type", meta.get("type")), ("Status", state.get("status")), ("Priority", state.get("priority"))],
        [("Resolution", state.get("resolution")), ("Fix Version/s", ", ".join(state.get("fix_versions") or []))],
        [("Affects Version/s", ", ".join(state.get("affects_versions") or []))],
        [
            ("Assignee", (state.get("assignee") or "Unassigned") if version.known else None),
            ("Reporter", meta.get("reporter")),
        ],
        [("Labels", ", ".join(state.get("labels") or [])), ("Components", ", ".join(state.get("components") or []))],
        [("Sprint", ", ".join(state.get("sprint") or [])), ("Epic", meta.get("epic")), ("Parent", _parent(meta))],
        [
            ("Created", _day(meta.get("created"))),
            ("Updated", version.updated.date().isoformat() if version.updated and version.known else None),
            ("Resolved", version.resolved.date().isoformat() if version.resolved else None),
        ],
    ]
    if not version.known and version.until is not None:
        what = "Other fields" if version.partial else "State"
        rows.append([(what, f"not recorded before {version.until.date().isoformat()}")])
    lines = [" | ".join(f"{label}: {value}" for label, value in row if value) for row in rows]
    return "\n".join(line for line in lines if line)


def _parent(meta: Mapping[str, Any]) -> str | None:
    parent = meta.get("parent")
    if not isinstance(parent, Mapping) or not parent.get("key"):
        return None
    if parent.get("key") == meta.get("epic") and (parent.get("type") or "").lower() == "epic":
        return None  # already shown as the epic
    return str(parent["key"])  # its summary is the parent's own text, read from the parent as its reader may


def _relationship_lines(key: str, meta: Mapping[str, Any]) -> list[str]:
    lines: list[str] = []
    parent = meta.get("parent")
    if isinstance(parent, Mapping) and parent.get("key"):
        kind = f" ({parent['type']})" if parent.get("type") else ""
        lines.append(f"{key} has parent {parent['key']}{kind}")
    epic = meta.get("epic")
    if epic and not (isinstance(parent, Mapping) and parent.get("key") == epic):
        lines.append(f"{key} belongs to epic {epic}")
    for link in meta.get("links") or []:
        # Neither the crawl-time status (not as of `now`) nor the summary (which this issue's reader may not be
        # allowed to read): both are read from the linked issue through the reader's view (`links` metadata).
        lines.append(f"{key} {link.get('relation')} {link.get('key')}")
    return lines


def _linked(meta: Mapping[str, Any]) -> list[str]:
    """Refs of the issues this one links to (links, sub-tasks, parent, epic), for reading their state as of now."""
    keys = [link.get("key") for link in meta.get("links") or [] if isinstance(link, Mapping)]
    parent = meta.get("parent")
    keys += [parent.get("key")] if isinstance(parent, Mapping) else []
    keys += [meta.get("epic")]
    return [f"jira:{k}" for k in dict.fromkeys(keys) if isinstance(k, str) and k]


def _dated(item: Item, *, changed: bool) -> _Entry:
    """`2026-05-06 Alice Chen changed status: ...` for a change, `2026-05-06 Alice Chen: ...` for a comment."""
    who = item.author or "someone"
    prefix = f"{item.occurred_at.date().isoformat()} {who}" + (" " if changed else ": ")
    return _Entry(Unit(item.ref, item.text, item.author, item.occurred_at, _unit_url(item)), prefix)


def _unit_url(item: Item) -> str:
    """The link that opens this item itself: a comment's permalink, a history entry in the history tab."""
    if not item.url:
        return ""
    if item.kind == "comment" and item.metadata.get("comment_id"):
        cid = item.metadata["comment_id"]
        return f"{item.url}?focusedCommentId={cid}#comment-{cid}"
    if item.kind == "change" and item.metadata.get("change_id"):
        tab = "com.atlassian.jira.plugin.system.issuetabpanels:changehistory-tabpanel"
        return f"{item.url}?page={tab}#changehistory-{item.metadata['change_id']}"
    return item.url


def _paragraphs(text: str) -> list[str]:
    return [p.strip() for p in re.split(r"\n\s*\n", text or "") if p.strip()]


def _day(value: Any) -> str | None:
    parsed = _parse(value)
    return parsed.date().isoformat() if parsed else None


def _parse(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


# --- packing ----------------------------------------------------------------------------------------------------


def _fits(limits: ChunkLimits) -> Callable[[str], bool]:
    def fits(text: str) -> bool:
        return len(text) <= limits.max_chars and limits.count_tokens(text) <= limits.max_tokens

    return fits


def _topic_break(
    vectors: Mapping[str, Sequence[float]] | None, threshold: float
) -> Callable[[_Entry, _Entry], bool] | None:
    if vectors is None:
        return None

    def breaks(previous: _Entry, current: _Entry) -> bool:
        if previous.unit.ref == current.unit.ref:
            return False
        return drifted(vectors, previous.unit.ref, current.unit.ref, threshold)

    return breaks


def _apart(document: Document, topic: Callable[[_Entry, _Entry], bool] | None) -> Callable[..., bool] | None:
    """Also a break where a comment's own readers (restricted to a role or group) differ from the previous one's."""
    own = {item.ref: item.metadata.get("readers") for item in document.items if item.kind == "comment"}
    if not any(readers is not None for readers in own.values()):
        return topic

    def breaks(previous: _Entry, current: _Entry) -> bool:
        apart = own.get(previous.unit.ref) != own.get(current.unit.ref)
        return apart or (topic is not None and topic(previous, current))

    return breaks


def _pack(
    header: str,
    entries: list[_Entry],
    separator: str,
    limits: ChunkLimits,
    fits: Callable[[str], bool],
    max_items: int = 0,
    split_before: Callable[[_Entry, _Entry], bool] | None = None,
) -> list[list[_Entry]]:
    """Greedy groups that fit the limits; a new group starts on overflow or where `split_before` says."""
    groups: list[list[_Entry]] = []
    current: list[_Entry] = []
    refs = 0
    for entry in entries:
        if current:
            new_ref = entry.unit.ref != current[-1].unit.ref
            candidate = header + separator + separator.join(e.line for e in [*current, entry])
            if (
                (max_items and new_ref and refs >= max_items)
                or not fits(candidate)
                or (split_before is not None and split_before(current[-1], entry))
            ):
                groups.append(current)
                current, refs = [], 0
        if not current or entry.unit.ref != current[-1].unit.ref:
            refs += 1
        current.append(entry)
    if current:
        groups.append(current)
    return groups


def _presplit(entries: list[_Entry], header: str, fits: Callable[[str], bool]) -> list[_Entry]:
    """Entries too long to share a chunk with the header alone, split into pieces that each fit."""
    out: list[_Entry] = []
    for entry in entries:
        if fits(header + "\n\n" + entry.line):
            out.append(entry)
            continue
        # The prefix (date and author) repeats on every piece, so each piece still says who and when.
        prefix = entry.prefix

        def piece_fits(text: str, prefix: str = prefix) -> bool:
            return fits(header + "\n\n" + prefix + text)

        pieces = _split_text(entry.unit.text, piece_fits)
        for piece in pieces:
            out.append(
                _Entry(Unit(entry.unit.ref, piece, entry.unit.author, entry.unit.at, entry.unit.url), entry.prefix)
            )
    return out


def _split_text(text: str, fits: Callable[[str], bool]) -> list[str]:
    """Paragraphs, then lines, sentences, words, and as a last resort characters, packed greedily."""
    for pattern in (r"\n\s*\n", r"\n", _SENTENCE_END.pattern, r"\s+"):
        parts = [p for p in re.split(pattern, text) if p.strip()]
        if len(parts) > 1:
            joiner = "\n\n" if pattern == r"\n\s*\n" else "\n" if pattern == r"\n" else " "
            pieces: list[str] = []
            for part in parts:
                if pieces and fits(pieces[-1] + joiner + part):
                    pieces[-1] = pieces[-1] + joiner + part
                elif fits(part):
                    pieces.append(part)
                else:
                    pieces.extend(_split_text(part, fits))
            return pieces
    cut = longest_prefix(text, fits)
    rest = text[len(cut) :]
    return [cut, *(_split_text(rest, fits) if rest.strip() else [])] if cut else [text]
