"""A summary of one document, section by section.

"Summarize the 0.9 release notes", "give an overview of the schema-evolution post": the question is about one
document, and the top-k chunks that retrieval hands the answerer hold only the sections closest to the question's
wording (the release's platform features, never its catalogs or its monitoring). So when a summary question's
context is mostly one sectioned document, the answer reads that whole document (the same scoped, as-of fetch the
router's `fetch_item` uses) and quotes each section once, in the document's order: the heads of a section's list
items ("BigLake catalog support; BigLake multi-bucket catalog support"), or the sentence that says most, closest to
the question and to the document as a whole (the author's own TL;DR first, when there is one). Each line cites its
own section, so a marker opens that section.

Conversations are never outlined (a thread is summarised by the ordinary time-ordered lines), nor is a question
about the latest state or a time window, which the ordinary path answers (`briefing.question.kind` reads that).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import tzinfo
from typing import TYPE_CHECKING

import numpy as np

from briefing import registry
from briefing.ask.extractive import (
    _GENERIC,
    SENTENCE_MAX_CHARS,
    Evidence,
    ExtractiveAnswer,
    ExtractiveAnswerer,
    _presentation,
    _title,
    content_words,
    list_items,
    sentence_text,
)
from briefing.ask.segment import clean
from briefing.digest.text import informativeness
from briefing.index import Filter
from briefing.model import Chunk
from briefing.question.timewindow import local_day
from briefing.textrules import heading_anchor

if TYPE_CHECKING:
    from briefing.view import View

# A document holds at least this many of the context's chunks (and more than any other) to be the one asked about.
MIN_CONTEXT_CHUNKS = 3
MAX_SECTIONS = 12  # lines of an outline; a document with more sections keeps its most informative ones
LEAD_SENTENCES = 3  # the document's lead (the text before its first heading, a TL;DR) is its own summary
MAX_DOCUMENT_CHUNKS = 200  # a document longer than this is not read whole for an answer (nor outlined)
# Sentences an outline may embed when the vector cache lacks them (ingest warms them all by default); past this,
# the uncached ones are chosen by what they say and the question's words alone.
MAX_EMBEDDED = 256
ITEM_HEADS = 6  # list items shown by their heads per section
HEAD_LIMIT = 80
LINE_LIMIT = 320
# Headings under which a document states its own summary.
_LEAD = re.compile(
    r"^\W*(?:tl;?\s*dr|summary|abstract|overview|key\s+takeaways?|at\s+a\s+glance|executive\s+summary)\b", re.I
)

# A paragraph that opens with such a label ("**TL;DR:** ...") is the author's own summary of the document.
_LEAD_TEXT = re.compile(
    r"^\W*(?:tl;?\s*dr|summary|in\s+short|key\s+takeaways?|bottom\s+line|at\s+a\s+glance)\W*(?::|\n)", re.I
)
# An attachment's placeholder says what is there, not what the document says; a line of dates alone ("July 12,
# 2026 – Aug 19, 2026") says when, which the outline's first line states already.
_PLACEHOLDER = re.compile(
    r"^\W*(?:image|file|attachment)\s*:|"
    r"^(?:[\W\d_]|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b)*$",
    re.I,
)


@dataclass(frozen=True)
class Section:
    """One line of an outline: a section's label, what is quoted and the unit it cites."""

    label: str
    quote: str
    ref: str
    url: str
    value: float = 0.0  # how much the line says, to keep the best lines of a document with many sections


def outlined_document(context: Sequence[Chunk], quoted: Sequence[Evidence]) -> str | None:
    """The document a summary question is about: the sectioned document the context holds most of, when the
    ordinary answer (`quoted`, its lines) quotes it more than anything else, or as much and with its best line."""
    counts: dict[str, int] = {}
    for chunk in context:
        sectioned = " > " in chunk.title or _sectioned(chunk)
        if _presentation(chunk).conversational or not sectioned:
            continue
        counts[chunk.doc_key] = counts.get(chunk.doc_key, 0) + 1
    if not counts:
        return None
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])
    key, n = ranked[0]
    if n < MIN_CONTEXT_CHUNKS or (len(ranked) > 1 and ranked[1][1] == n):
        return None
    lines: dict[str, int] = {}
    best: dict[str, float] = {}
    for ev in quoted:
        lines[ev.chunk.doc_key] = lines.get(ev.chunk.doc_key, 0) + 1
        best[ev.chunk.doc_key] = max(best.get(ev.chunk.doc_key, 0.0), ev.score)
    leader = max(lines, key=lambda k: (lines[k], best[k]), default=None)
    return key if leader == key else None


def _sectioned(chunk: Chunk) -> bool:
    return bool(registry.meta(chunk, "section_path"))


def document_chunks(view: View, doc_key: str) -> list[Chunk]:
    """Every chunk of the document as the view sees it (its `now`, its reader's access)."""
    # By document key the fetch already returns every chunk (`whole_documents` would read them all again).
    found = view.fetch(doc_keys=[doc_key])
    return sorted(found, key=lambda c: (c.ordinal, c.chunk_id))


# Document text: a Markdown heading line ("## Setup"): its level and its title.
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


def _sections(chunks: Sequence[Chunk]) -> list[tuple[str, list[tuple[Chunk, int]]]]:
    """(label, units) per section, in the document's order. A unit's section is its link's anchor (chunks hold
    several short sections), labelled by the heading path that anchor names; without anchors, the chunk's title."""
    labels: dict[str, str] = {}
    order: dict[str, tuple[str, list[tuple[Chunk, int]]]] = {}
    for chunk in chunks:
        path = [p.strip() for p in chunk.title.split(" > ") if p.strip()][1:]
        stack: dict[int, str] = dict(enumerate(path, 2))
        for level, text in stack.items():
            labels.setdefault(heading_anchor(text), " › ".join(stack[k] for k in sorted(stack) if k <= level))
        for line in chunk.text.splitlines():
            m = _HEADING.match(line.strip())
            if m is None:
                continue
            level = len(m[1])
            stack = {k: v for k, v in stack.items() if k < level}
            stack[level] = clean(m[2], limit=120)
            labels.setdefault(heading_anchor(m[2]), " › ".join(stack[k] for k in sorted(stack) if k >= 2))
        for i, unit in enumerate(chunk.units):
            fragment = (unit.url or "").partition("#")[2]
            key = fragment or " › ".join(path)
            label = labels.get(fragment, fragment.replace("=", " ").replace("-", " ")) if fragment else key
            order.setdefault(key, (label, []))[1].append((chunk, i))
    return list(order.values())


def _head(item: str) -> str:
    """A list item by its head: "XML file support for S3" of "XML file support for S3 - Added XML ..."."""
    text = clean(item, limit=10_000)
    for sep in (" - ", " — ", ": ", ". "):
        head, found, _ = text.partition(sep)
        if found and 2 <= len(head) <= HEAD_LIMIT:
            return head.strip()
    return clean(text, limit=HEAD_LIMIT)


def _section_line(label: str, found: Sequence[tuple[Evidence, float]], wanted: set[str], lead: bool) -> Section | None:
    """A section's line: its list items by their heads, or its best sentences (`found`: the section's sentences
    with how well each says what the question and the document are about)."""
    heads: list[str] = []
    cite: tuple[str, str] | None = None
    seen: set[tuple[int, int]] = set()
    for ev, _ in found:
        if (id(ev.chunk), ev.unit) in seen:
            continue
        seen.add((id(ev.chunk), ev.unit))
        items = list_items(ev.chunk.units[ev.unit].text) if ev.unit < len(ev.chunk.units) else []
        if items:
            heads.extend(_head(i) for i in items)
            cite = cite or (ev.ref, ev.url)
    if len(heads) >= 2 and cite is not None:
        shown = heads[:ITEM_HEADS]
        quote = "; ".join(shown) + (f"; and {len(heads) - len(shown)} more" if len(heads) > len(shown) else "")
        return Section(label, clean(quote, limit=LINE_LIMIT), *cite, value=1.0 + len(wanted & content_words(quote)))
    summary = [
        (ev, about)
        for ev, about in found
        if ev.unit < len(ev.chunk.units) and _LEAD_TEXT.match(ev.chunk.units[ev.unit].text)
    ]
    if summary:
        found, lead = summary, True
    scored = [
        (informativeness(ev.text) / 2 + about, i, ev)
        for i, (ev, about) in enumerate(found)
        if informativeness(ev.text) > 0 and not _PLACEHOLDER.match(ev.text)
    ]
    if not scored:
        return None
    top = sorted(scored, key=lambda s: (-s[0], s[1]))[: LEAD_SENTENCES if lead else 1]
    # A lead's sentences are quoted in the document's order, those of the best one's unit (one citation).
    first = top[0][2]
    top = sorted((s for s in top if (s[2].ref, s[2].url) == (first.ref, first.url)), key=lambda s: s[1])
    quote = " … ".join(clean(s[2].text, limit=LINE_LIMIT) for s in top)
    return Section(label, quote, first.ref, first.url, value=max(s[0] for s in top))


def outline(question: str, chunks: Sequence[Chunk], answerer: ExtractiveAnswerer) -> list[Section]:
    """The document's sections, one line each, in its order (the most informative ones when there are many).
    A sentence is chosen by what it says (`informativeness`), how close it is to the question and how close to
    the document as a whole (the mean of its sentence vectors: the lines that say what the document is about)."""
    wanted = content_words(question) - _GENERIC
    evidence = answerer.candidates(chunks)
    if not evidence:
        return []
    texts = [sentence_text(e) for e in evidence]
    embedder = answerer.embedder
    if len(embedder.missing(texts, max_chars=SENTENCE_MAX_CHARS)) <= MAX_EMBEDDED:
        vectors = embedder.dense_cached(texts, max_chars=SENTENCE_MAX_CHARS)
    else:
        cached = embedder.cached_only(texts, max_chars=SENTENCE_MAX_CHARS)
        vectors = np.stack([v if v is not None else np.zeros(embedder.dim, np.float32) for v in cached])
    q_vec = embedder.dense([question], query=True)[0]
    centre = vectors.mean(axis=0)
    centre = centre / (float(np.linalg.norm(centre)) or 1.0)
    about = vectors @ q_vec + vectors @ centre
    by_unit: dict[tuple[str, int], list[tuple[Evidence, float]]] = {}
    for ev, value in zip(evidence, about, strict=True):
        by_unit.setdefault((ev.chunk.chunk_id, ev.unit), []).append((ev, float(value)))
    out = []
    for i, (label, units) in enumerate(_sections(chunks)):
        found = [pair for chunk, u in units for pair in by_unit.get((chunk.chunk_id, u), [])]
        section = _section_line(label, found, wanted, lead=(i == 0 and not label) or bool(_LEAD.match(label)))
        if section is not None:
            out.append(section)
    if len(out) > MAX_SECTIONS:
        keep = {id(s) for s in sorted(out[1:], key=lambda s: -s.value)[: MAX_SECTIONS - 1]}
        out = [s for i, s in enumerate(out) if i == 0 or id(s) in keep]
    return out


def render(
    chunks: Sequence[Chunk], sections: Sequence[Section], answer: ExtractiveAnswer, zone: tzinfo
) -> ExtractiveAnswer:
    """The outline as the answer: a lead naming the document (its day in `zone`, the workspace's), then one cited
    line per section."""
    first = chunks[0]
    title, _ = _title(first)
    when = local_day(min(c.start for c in chunks), zone)
    # Who wrote it, as its sections name the author (a chunk's `authors` also holds the directory's other names for
    # the same person: "anshika" and "Anshika Gautam").
    author = next((u.author for c in chunks for u in c.units if u.author), None) or next(
        (a for c in chunks for a in c.authors), ""
    )
    detail = ", ".join(p for p in (author, f"{when:%a} {when.day} {when:%b}") if p)
    lines = [f'"{clean(title, limit=160)}" ({detail}), section by section:']
    cited: dict[int, list[str]] = {}
    urls: dict[int, str] = {}
    numbers: dict[tuple[str, str], int] = {}
    for section in sections:
        key = (section.ref, section.url)
        if key not in numbers:
            numbers[key] = len(numbers) + 1
            cited[numbers[key]] = [section.ref]
            urls[numbers[key]] = section.url
        # A heading that ends with its own colon ("TL;DR:") gets no second one.
        label = f"{clean(section.label, limit=120).rstrip(': ')}: " if section.label else ""
        lines.append(f'- {label}"{section.quote}" [{numbers[key]}]')
    return replace(answer, text="\n".join(lines), cited=cited, urls=urls)


def answer_outline(
    question: str,
    answer: ExtractiveAnswer,
    context: Sequence[Chunk],
    *,
    view: View,
    answerer: ExtractiveAnswerer,
) -> tuple[ExtractiveAnswer, str] | None:
    """`answer` (the ordinary one) as an outline of the document the summary `question` is about, with that
    document's key; None when the context is not mostly one document, or it has fewer than two sections to show."""
    if answer.no_answer:
        return None
    key = outlined_document(context, answer.evidence)
    if key is None or view.count(Filter(doc_keys=(key,))) > MAX_DOCUMENT_CHUNKS:
        return None
    chunks = document_chunks(view, key)
    sections = outline(question, chunks, answerer)
    if len(sections) < 2:
        return None
    return render(chunks, sections, answer, answerer.zone), key
