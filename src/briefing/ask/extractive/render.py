"""The answer's lines: who said it, when and where, the quote, and one `[n]` citation (with its link) per unit."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from briefing.ask.extractive.evidence import Evidence, presentation
from briefing.ask.extractive.quoting import shown
from briefing.model import Chunk


def day(at: datetime, *, with_time: bool, with_year: bool) -> str:
    text = f"{at:%a} {at.day} {at:%b}"
    if with_year:
        text += f" {at.year}"
    if with_time:
        text += f", {at:%H:%M} {at.tzname() or 'UTC'}"
    return text


def when(ev: Evidence, *, year: bool = True) -> str:
    if not ev.at_iso:
        return ""
    return day(datetime.fromisoformat(ev.at_iso), with_time=False, with_year=year)


def title(chunk: Chunk) -> tuple[str, str]:
    """(document title, section path) from "Title > Section > Sub"."""
    parts = [p.strip() for p in chunk.title.split(" > ")]
    return parts[0], " › ".join(parts[1:])


def where(chunk: Chunk) -> str:
    """The place a quote comes from, the way its source names places ("#payments", "PLAT-7 ...", 'wiki "X"')."""
    shown_as = presentation(chunk)
    if shown_as.place == "container":
        return f"{shown_as.container_prefix}{chunk.container}" if chunk.container else shown_as.label
    name, section = title(chunk)
    if shown_as.place == "title":
        return name or shown_as.label
    if shown_as.place == "title_or_container":
        return name or chunk.container
    place = f'"{name}"' if name else chunk.source_type
    if shown_as.document_word:
        place = f"{shown_as.document_word} {place}"
    return f"{place}, {section}" if section else place


def attribution(ev: Evidence, *, with_time: bool = False, with_year: bool = False) -> str:
    at = datetime.fromisoformat(ev.at_iso) if ev.at_iso else None
    shown_as = presentation(ev.chunk)
    said = day(at, with_time=with_time and shown_as.time_of_day, with_year=with_year) if at else ""
    who = ev.author or ""
    place = where(ev.chunk)
    if shown_as.conversational:
        head = f"{who} in {place}" if who else place
        return f"{head}, {said}" if said else head
    detail = ", ".join(p for p in (who, said) if p)
    return f"{place} ({detail})" if detail else place


def label(part: str) -> str:
    """A part of a two-part question as its answer line names it: its first eight words, capitalised."""
    words = part.split()
    text = " ".join(words[:8]) + (" …" if len(words) > 8 else "")
    return text[:1].upper() + text[1:]


def render(
    chosen: list[Evidence],
    head: Sequence[tuple[str, Evidence | None]] = (),
    differ: Sequence[tuple[str, Evidence]] = (),
    *,
    holders: bool = False,
) -> tuple[list[str], dict[int, list[str]], dict[int, str]]:
    """Answer lines first (`head`: the value or a part's answer, each cited; or, when the best sources disagree on
    the value, `differ`: each value with its source's label and day and its citation, newest first; with `holders`,
    `differ` holds the several holders of the asked role, named as one answer, each cited), then one quoted line
    per piece.

    Markers number the quoted units themselves (a message, a comment, a section), in order of appearance, so
    that each `[n]` opens exactly the unit it quotes.
    """
    days = [e.at_iso[:10] for e in chosen if e.at_iso]
    years = {d[:4] for d in days}
    with_time = len(days) != len(set(days))  # same-day lines need the time to read as a timeline
    lines: list[str] = []
    cited: dict[int, list[str]] = {}
    urls: dict[int, str] = {}
    numbers: dict[tuple[str, str], int] = {}

    def marker(ev: Evidence) -> int:
        key = (ev.ref, ev.url)
        if key not in numbers:
            numbers[key] = len(numbers) + 1
            cited[numbers[key]] = [ev.ref]
            urls[numbers[key]] = ev.url
        return numbers[key]

    if differ and holders:
        named = [f"{value} [{marker(ev)}]" for value, ev in differ]
        lines.append(", ".join(named[:-1]) + f" and {named[-1]}")
    elif differ:
        said = "; ".join(f"{value} ({_source_day(ev)}) [{marker(ev)}]" for value, ev in differ)
        lines.append(f"Sources differ: {said}")
    quoted = {id(ev) for text, ev in head if ev is not None and _quoted_in_head(text, ev)}
    said_once: set[tuple[str, str]] = set()
    for text, ev in head:
        if ev is None:
            lines.append(text)
        elif id(ev) in quoted:
            lines.append(f"{text} [{marker(ev)}]")
        elif (ev.ref, ev.text) in said_once:
            # A later part answered by the line an earlier part quotes: its value, or a pointer, not the quote again.
            lines.append(
                f"{text} [{marker(ev)}]" if not text.endswith(":") else f"{text} the same message [{marker(ev)}]"
            )
        else:
            said_once.add((ev.ref, ev.text))
            said = attribution(ev, with_time=with_time, with_year=len(years) > 1)
            joiner = " " if text.endswith(":") else " — "
            lines.append(f'{text}{joiner}{said}: "{shown(ev)}" [{marker(ev)}]')
    in_head = {id(ev) for _, ev in head if ev is not None}
    for ev in chosen:
        if id(ev) in in_head:
            continue
        said = attribution(ev, with_time=with_time, with_year=len(years) > 1)
        # Quoted: the evidence is shown as what a source said, never as the answer's own words.
        lines.append(f'- {said}: "{shown(ev)}" [{marker(ev)}]')
    return lines, cited, urls


def _source_day(ev: Evidence) -> str:
    """A side of a disagreement as its line names it: the source's label and the day ("Slack, Wed 12 Aug")."""
    day_said = when(ev, year=False)
    label = presentation(ev.chunk).label
    return f"{label}, {day_said}" if day_said else label


def _quoted_in_head(text: str, ev: Evidence) -> bool:
    """A head line that already quotes its evidence (the "As of ...: <quote>" form)."""
    return text.endswith('"') and shown(ev) in text
