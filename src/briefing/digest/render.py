"""A digest as Markdown (default), plain text, or the DESIGN.md JSON object."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from zoneinfo import ZoneInfo

from briefing.digest.model import Digest
from briefing.ops.safe import neutralise

_MARK = re.compile(r"\[(\d+)\]")


def heading(digest: Digest) -> str:
    zone = ZoneInfo(digest.timezone)
    first = digest.start.astimezone(zone)
    last = (digest.end - timedelta(microseconds=1)).astimezone(zone)
    span = (
        f"{first:%a} {first.date()}"
        if first.date() == last.date()
        else f"{first:%a} {first.date()} to {last:%a} {last.date()}"
    )
    scope = digest.scope.describe(digest.places)
    verb = "What happened"
    if digest.end > digest.now:
        verb = "What's planned" if digest.start >= digest.now else "What happened and what's planned"
    return f"{verb} {span}" + (f" ({scope})" if scope else "")


def _summary(digest: Digest) -> str:
    shown = len(digest.lines())
    return (
        f"{digest.conversations} conversation{'s' if digest.conversations != 1 else ''}, {shown} shown; "
        f"as of {digest.now.astimezone(ZoneInfo(digest.timezone)):%Y-%m-%d %H:%M %Z}; searched {digest.searched}"
    )


def empty_text(digest: Digest) -> str:
    from briefing.digest.engine import nothing

    return nothing(digest.scope, digest.start, digest.end, digest.timezone, digest.searched, digest.places)


def linked(text: str, urls: dict[int, str]) -> str:
    """`[n]` markers as Markdown links to the unit they cite."""
    return _MARK.sub(lambda m: f"[[{m[1]}]]({urls[int(m[1])]})" if urls.get(int(m[1])) else m[0], text)


def markdown(digest: Digest) -> str:
    lines = [f"# {heading(digest)}", "", f"_{_summary(digest)}_", ""]
    if digest.empty:
        return "\n".join([*lines, empty_text(digest), ""])
    for section in digest.sections:
        lines += [f"## {section.title}", ""]
        for line in section.lines:
            lines.append(f"- {linked(line.text, {c.n: c.url for c in line.citations})}")
        lines.append("")
    if digest.more:
        lines += [f"**And {len(digest.more)} more conversation{'s' if len(digest.more) != 1 else ''}:**", ""]
        lines += [f"- {title}" for title in digest.more]
        lines.append("")
    lines += ["## Sources", ""]
    for cited in digest.citations():
        link = f" <{cited.url}>" if cited.url else ""
        lines.append(f"[{cited.n}] {' '.join(cited.refs)}{link}  ")
    return "\n".join(lines).rstrip() + "\n"


def text(digest: Digest) -> str:
    lines = [heading(digest), _summary(digest), ""]
    if digest.empty:
        return "\n".join([*lines, empty_text(digest), ""])
    for section in digest.sections:
        lines.append(section.title)
        lines += [f"  - {line.text}" for line in section.lines]
        lines.append("")
    if digest.more:
        lines.append(f"And {len(digest.more)} more conversation{'s' if len(digest.more) != 1 else ''}:")
        lines += [f"  - {title}" for title in digest.more]
        lines.append("")
    for cited in digest.citations():
        lines.append(f"[{cited.n}] {' '.join(cited.refs)}" + (f" {cited.url}" if cited.url else ""))
    return "\n".join(lines).rstrip() + "\n"


def answer_text(digest: Digest) -> str:
    """The digest as an ask answer: sections and cited lines, the "and N more" tail; no source list."""
    if digest.empty:
        return empty_text(digest)
    lines = [f"{heading(digest)}: {digest.conversations} conversation{'s' if digest.conversations != 1 else ''}."]
    for section in digest.sections:
        lines.append(f"{section.title}:")
        lines += [f"- {line.text}" for line in section.lines]
    if digest.more:
        lines.append(f"And {len(digest.more)} more: " + "; ".join(digest.more))
    return "\n".join(lines)


def as_json(digest: Digest) -> str:
    return json.dumps(digest.to_json(), ensure_ascii=False)


def render(digest: Digest, fmt: str) -> str:
    """The digest in `fmt`; ingested names and titles reach a terminal or a file without escapes or controls."""
    if fmt == "json":
        return as_json(digest) + "\n"
    if fmt == "text":
        return neutralise(text(digest))
    return neutralise(markdown(digest))
