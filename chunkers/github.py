"""GitHub issue, pull request and release chunker, shaped like tickets.

Pure: one `Document` from `connectors.github` in, its chunks out, in this order:
1. body + attributes: title, kind, state, review verdicts, author, labels, assignees, milestone,
   opened/closed/merged dates, branches and linked issues, then the body (cut between paragraphs when it does
   not fit). The first body chunk, which states the item's state, comes once per interval of that state
   (`chunkers.github_state`): written when the interval began, `valid_until` when the next began, so a reader
   as of any moment sees the state the item had then (open and unreviewed before its review, merged by whom
   after its merge), never a later one;
2. discussion: comments and reviews in time order, one line each with date and author, closed on size or
   when consecutive items drift apart (cosine of their vectors under `limits.topic_threshold`);
3. review comments grouped by file, each thread in reply order.
Every chunk starts with the issue's title line, so it reads (and embeds) on its own; only the state chunk's
title line names a state.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from briefing.model import Chunk, ChunkLimits, Document, Item, Unit
from briefing.textrules import ISSUE_REF, ISSUE_URL, find_ticket_keys
from chunkers.github_state import GithubState, states, verdict_lines
from chunkers.github_text import STATE_LINES, attribute_lines, head_line
from chunkers.similarity import drifted
from chunkers.versions import versioned

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_REVIEW_STATES = {
    "APPROVED": "approved",
    "CHANGES_REQUESTED": "requested changes",
    "COMMENTED": "reviewed",
    "DISMISSED": "review dismissed",
}

Fits = Callable[[str], bool]


@dataclass
class _Line:
    """One line of a chunk and the unit it cites (an item, or a piece of one when it had to be cut)."""

    text: str
    unit: Unit
    item: Item
    attribute: bool = False


@dataclass
class _Draft:
    section: str
    lines: list[_Line] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


def chunk_issue(
    document: Document,
    *,
    limits: ChunkLimits,
    vectors: Mapping[str, Sequence[float]] | None = None,
) -> list[Chunk]:
    """Chunks of one GitHub issue, pull request or release."""
    if not document.items:
        return []
    head = head_line(document)
    fits = _fitter(head, limits)
    versions = [] if document.metadata.get("release") else states(document)
    drafts = _body_drafts(document, versions, limits)
    talk = sorted((i for i in document.items if i.kind in ("comment", "review")), key=lambda i: i.occurred_at)
    drafts += _discussion_drafts(talk, fits, limits, vectors)
    drafts += _review_comment_drafts(document, fits, limits)
    chunks: list[Chunk] = []
    for n, draft in enumerate(drafts):
        if n == 0 and versions:
            per_state = [
                _chunk(document, head_line(document, v), _restated(document, draft, v), 0, v) for v in versions
            ]
            chunks.extend(versioned(per_state, [(v.start, v.until) for v in versions]))
        else:
            chunks.append(_chunk(document, head, draft, n, _at(versions, draft)))
    return chunks


def _restated(document: Document, draft: _Draft, state: GithubState) -> _Draft:
    """The first body draft with the attribute lines of one state interval (as many as the draft held: the state
    is on the first line; the ones a tight limit pushed into the next draft say no state)."""
    body = draft.lines[0].item
    held = sum(1 for x in draft.lines if x.attribute)
    reviews = {i.ref: i for i in document.items if i.kind == "review"}
    verdicts = {text: (ref, at) for text, _, ref, at in verdict_lines(state) if ref in reviews}
    lines: list[_Line] = []
    for text in attribute_lines(document, state)[:held]:
        if text in verdicts:  # a verdict cites the review that gave it
            item = reviews[verdicts[text][0]]
            lines.append(_Line(text, Unit(item.ref, text, item.author, item.occurred_at, item.url), item, True))
        else:  # the item's own line (its author's, dated at its opening); the chunk holds from the interval's start
            unit = Unit(ref=body.ref, text=text, author=body.author, at=body.occurred_at, url=body.url)
            lines.append(_Line(text, unit, body, True))
    return _Draft(draft.section, [*lines, *(x for x in draft.lines if not x.attribute)], dict(draft.extra))


def _at(versions: list[GithubState], draft: _Draft) -> GithubState | None:
    """The state when the draft's first item was written (never later than what a reader of it may know)."""
    first = min((line.item.occurred_at for line in draft.lines), default=None)
    if first is None or not versions:
        return None
    return next((v for v in versions if v.until is None or first < v.until), versions[-1])


def _stamp(item: Item) -> str:
    return f"[{item.occurred_at:%Y-%m-%d %H:%M}] {item.author or 'unknown'}"


# Drafts ---------------------------------------------------------------------------------------------------


def _fitter(head: str, limits: ChunkLimits) -> Callable[[Sequence[str]], bool]:
    def fits(lines: Sequence[str]) -> bool:
        text = "\n".join([head, *lines])
        return len(text) <= limits.max_chars and limits.count_tokens(text) <= limits.max_tokens

    return fits


def _body_drafts(document: Document, versions: list[GithubState], limits: ChunkLimits) -> list[_Draft]:
    """The body's drafts, packed with the longest title line and attribute lines of its states, so that the
    state chunk of every interval fits the limits."""
    heads = [head_line(document, v) for v in versions] or [head_line(document)]
    head = max(heads, key=len)

    def fits_text(text: str) -> bool:
        return len(text) <= limits.max_chars and limits.count_tokens(text) <= limits.max_tokens

    def fits(lines: Sequence[_Line]) -> bool:
        return fits_text(_render(head, _Draft("body", list(lines))))

    body = next((i for i in document.items if i.kind not in ("comment", "review", "review_comment")), None)
    if body is None:
        return []
    attributes = [
        _Line(
            text,
            Unit(ref=body.ref, text=text, author=body.author, at=body.occurred_at, url=body.url),
            body,
            attribute=True,
        )
        for text in max(
            ([attribute_lines(document, v) for v in versions] or [attribute_lines(document)]),
            key=lambda rows: len("\n".join(rows)),
        )
    ]
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", body.text) if p.strip()]
    lines = [*attributes]
    for paragraph in paragraphs:
        for piece in _split(paragraph, lambda text: fits_text(f"{head}\n\n{text}")):
            lines.append(_line(piece, body))
    drafts: list[_Draft] = []
    current = _Draft("body")
    for line in lines:
        if current.lines and not fits([*current.lines, line]):
            drafts.append(current)
            current = _Draft("body")
        current.lines.append(line)
    drafts.append(current)
    # A state's line a tight limit pushed past the first draft would show in every interval: left out there.
    for draft in drafts[1:]:
        draft.lines = [x for x in draft.lines if not (x.attribute and x.text.startswith(STATE_LINES))]
    return [d for d in drafts if d.lines]


def _line(text: str, item: Item) -> _Line:
    return _Line(text, Unit(ref=item.ref, text=text, author=item.author, at=item.occurred_at, url=item.url), item)


def _discussion_line(item: Item) -> str:
    if item.kind == "review":
        verb = _REVIEW_STATES.get(str(item.metadata.get("state")), "reviewed")
        return f"{_stamp(item)} {verb}" + (f": {item.text.strip()}" if item.text.strip() else "")
    return f"{_stamp(item)}: {item.text.strip()}"


def _discussion_drafts(
    items: list[Item],
    fits: Callable[[Sequence[str]], bool],
    limits: ChunkLimits,
    vectors: Mapping[str, Sequence[float]] | None,
) -> list[_Draft]:
    drafts: list[_Draft] = []
    current = _Draft("discussion")
    previous: Item | None = None
    for item in items:
        shifted = previous is not None and drifted(vectors, previous.ref, item.ref, limits.topic_threshold)
        pieces = _split(_discussion_line(item), lambda text: fits([text]))
        new_lines = [_line(p, item) for p in pieces]
        count = len({id(x.item) for x in current.lines})
        too_big = not fits([*(x.text for x in current.lines), *pieces]) or count + 1 > limits.max_items
        if current.lines and (shifted or too_big):
            drafts.append(current)
            current = _Draft("discussion")
        for line in new_lines:
            if current.lines and not fits([*(x.text for x in current.lines), line.text]):
                drafts.append(current)
                current = _Draft("discussion")
            current.lines.append(line)
        previous = item
    if current.lines:
        drafts.append(current)
    return drafts


def _review_comment_drafts(
    document: Document, fits: Callable[[Sequence[str]], bool], limits: ChunkLimits
) -> list[_Draft]:
    comments = sorted((i for i in document.items if i.kind == "review_comment"), key=lambda i: i.occurred_at)
    by_path: dict[str, list[Item]] = {}
    for item in comments:
        by_path.setdefault(str(item.metadata.get("path") or "(no file)"), []).append(item)
    drafts: list[_Draft] = []
    for path, items in by_path.items():
        title = f"Review comments on {path}:"
        current = _Draft("review_comments", extra={"path": path, "title_line": title})
        fits_under_title = _under(title, fits)
        for item in _threaded(items):
            reply = " (reply)" if item.metadata.get("in_reply_to") else ""
            line_no = f" line {item.metadata['line']}" if item.metadata.get("line") else ""
            text = f"{_stamp(item)}{line_no}{reply}: {item.text.strip()}"
            for piece in _split(text, fits_under_title):
                line = _line(piece, item)
                count = len({id(x.item) for x in current.lines})
                if current.lines and (
                    not fits([title, *(x.text for x in current.lines), piece]) or count + 1 > limits.max_items
                ):
                    drafts.append(current)
                    current = _Draft("review_comments", extra={"path": path, "title_line": title})
                current.lines.append(line)
        if current.lines:
            drafts.append(current)
    return drafts


def _threaded(items: list[Item]) -> list[Item]:
    """Roots in time order, each followed by its replies."""
    replies: dict[Any, list[Item]] = {}
    roots: list[Item] = []
    ids = {item.metadata.get("comment_id") for item in items}
    for item in items:
        parent = item.metadata.get("in_reply_to")
        if parent and parent in ids:
            replies.setdefault(parent, []).append(item)
        else:
            roots.append(item)
    out: list[Item] = []

    def walk(item: Item) -> None:
        out.append(item)
        for reply in replies.get(item.metadata.get("comment_id"), []):
            walk(reply)

    for root in roots:
        walk(root)
    return out


def _under(title: str, fits: Callable[[Sequence[str]], bool]) -> Fits:
    """`fits` for one text that goes below `title` in the same chunk."""
    return lambda text: fits([title, text])


def _split(text: str, fits: Fits) -> list[str]:
    """A text cut so that each piece fits: at lines, then sentences, then words, then characters."""
    if fits(text):
        return [text]
    for pattern in (r"\n", _SENTENCE_END.pattern, r"\s+"):
        parts = [p for p in re.split(pattern, text) if p.strip()]
        if len(parts) > 1:
            pieces: list[str] = []
            for part in _pack(parts, " " if pattern != r"\n" else "\n", fits):
                pieces.extend(_split(part, fits) if not fits(part) else [part])
            return pieces
    cut = max(1, len(text) // 2)
    return _split(text[:cut], fits) + _split(text[cut:], fits)


def _pack(parts: list[str], sep: str, fits: Fits) -> list[str]:
    packed: list[str] = []
    for part in parts:
        if packed and fits(packed[-1] + sep + part):
            packed[-1] = packed[-1] + sep + part
        else:
            packed.append(part)
    return packed


# Chunks ---------------------------------------------------------------------------------------------------


def find_tickets(text: str, repo: str) -> list[str]:
    """JIRA-style keys and GitHub issue/PR refs (`github:owner/repo#n`; a bare `#n` is in `repo`)."""
    found = find_ticket_keys(text)
    refs = list(ISSUE_REF.finditer(text))
    found += [f"github:{r}#{n}" for r, n in ISSUE_URL.findall(text)]
    found += [f"github:{m['repo']}#{m['number']}" for m in refs if m["repo"]]
    if repo:
        found += [f"github:{repo}#{m['number']}" for m in refs if not m["repo"]]
    return list(dict.fromkeys(found))


def _render(head: str, draft: _Draft) -> str:
    if draft.section == "body":
        # Attributes one per line under the title; body paragraphs keep their blank lines.
        text = "\n".join([head, *(x.text for x in draft.lines if x.attribute)])
        paragraphs = [x.text for x in draft.lines if not x.attribute]
        return text + ("\n\n" + "\n\n".join(paragraphs) if paragraphs else "")
    title_line = draft.extra.get("title_line")
    return "\n".join([head, *([title_line] if title_line else []), *(x.text for x in draft.lines)])


def _chunk(document: Document, head: str, draft: _Draft, n: int, state: GithubState | None = None) -> Chunk:
    text = _render(head, draft)
    items = list({id(line.item): line.item for line in draft.lines}.values())
    times = [item.occurred_at for item in items]
    meta = document.metadata
    if any(line.attribute for line in draft.lines):
        if state is not None:  # the state chunk holds from when its interval began
            times.append(state.start)
        else:  # a release: its attribute lines state the publication date
            times += [t for t in (_parse(meta.get("merged_at")), _parse(meta.get("closed_at"))) if t is not None]
    authors = list(dict.fromkeys(item.author for item in items if item.author))
    refs = list(dict.fromkeys(line.unit.ref for line in draft.lines))
    units = [line.unit for line in draft.lines]
    own = document.key if document.key.startswith("github:") and "#" in document.key else None
    tickets = find_tickets(text, str(meta.get("repo") or document.container))
    if own:
        tickets = list(dict.fromkeys([own, *tickets]))
    return Chunk(
        chunk_id=f"{document.key}::{n}",
        doc_key=document.key,
        source_type=document.source_type,
        kind=document.kind,
        title=document.title,
        text=text,
        refs=refs,
        start=min(times),
        end=max(times),
        authors=authors,
        url=(document.url or items[0].url) if draft.section == "body" else (items[0].url or document.url),
        container=document.container,
        tickets=tickets,
        units=units,
        metadata={
            "section": "release" if meta.get("release") else draft.section,
            "state": (state.status if state is not None else meta.get("state")),
            "is_pull_request": bool(meta.get("is_pull_request")),
            "labels": list(meta.get("labels") or []),
            **({"events": events} if draft.section == "body" and (events := _events(document, state)) else {}),
            **({"review_requests": waits} if (waits := _waits(document, state)) else {}),
            **{k: v for k, v in draft.extra.items() if k != "title_line"},
        },
    )


def _waits(document: Document, state: GithubState | None) -> list[dict[str, Any]]:
    """On an open pull request's state chunk: each review still requested in its interval, since when."""
    if state is None or state.status != "open" or not document.metadata.get("is_pull_request"):
        return []
    return [
        {"event": "review_requested", "at": at.isoformat(), "by": who, "ref": document.key}
        for who, at in sorted(state.requested_at.items())
    ]


def _events(document: Document, state: GithubState | None) -> list[dict[str, Any]]:
    """The item's lifecycle (opened, merged or closed, published) as the connector recorded it, cited to the item;
    on a state chunk, only what happened by the end of its interval."""
    out = []
    for event in state.events if state is not None else document.metadata.get("events") or []:
        if isinstance(event, dict) and event.get("event") and event.get("at"):
            out.append(
                {"event": str(event["event"]), "at": str(event["at"]), "by": event.get("by"), "ref": document.key}
            )
    return out


def _parse(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def chunk_commits(
    document: Document,
    *,
    limits: ChunkLimits,
    vectors: Mapping[str, Sequence[float]] | None = None,
) -> list[Chunk]:
    """Commit history (a GitHub repository's weeks, or local git's branches and tags), chunked by `chunkers.git`.

    For GitHub, a bare `#n` in a commit message ("Fix the retry (#41)", "Merge pull request #41") links to that
    pull request, `github:<owner>/<repo>#n`."""
    from dataclasses import replace

    from chunkers.git import chunk_commits as chunk_git_history

    chunks = chunk_git_history(document, limits=limits, vectors=vectors)
    repo = str(document.metadata.get("repo") or document.container or "")
    if document.source_type != "github" or repo.count("/") != 1:
        return chunks  # local git history: its `#n` stays as the git chunker wrote it
    return [replace(chunk, tickets=find_tickets(chunk.text, repo)) for chunk in chunks]
