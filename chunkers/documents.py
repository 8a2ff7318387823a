"""Chunker for documents (local files, Confluence pages): Markdown sections cut along their structure.

Each chunk starts with its section path ("Title > Heading > Subheading") so that it reads, and embeds, on its
own. Small sibling sections are merged; long ones are cut between paragraphs, never inside a fenced code block,
a table or a list item unless that one block alone is over the limit, in which case it is cut at sentences
(prose), rows (tables, header repeated) or lines (code, fence reopened).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from briefing.model import Chunk, ChunkLimits, Document, Item, Unit
from briefing.textrules import ISSUE_REF, ISSUE_URL, find_ticket_keys, heading_anchor
from chunkers.block_split import Fits, hard_cut_text, split_block
from chunkers.markdown_blocks import Block, parse_blocks


@dataclass
class _Section:
    path: list[str]
    levels: list[int]  # the Markdown level of each heading in path[1:]
    blocks: list[Block] = field(default_factory=list)

    @property
    def level(self) -> int:
        return self.levels[-1] if self.levels else 0


@dataclass
class _Part:
    """One attributable paragraph (or piece of one) inside a chunk."""

    text: str
    page: int | None
    unit: bool = True
    # The heading the paragraph sits under ("" directly under the title): its citation opens that section.
    section: str = ""


@dataclass
class _Draft:
    path: list[str]
    level: int
    parts: list[_Part]


def chunk_document(
    document: Document,
    *,
    limits: ChunkLimits,
    vectors: Mapping[str, Sequence[float]] | None = None,
) -> list[Chunk]:
    """Chunks of every item of a document, numbered across items; `vectors` is unused (no topic splits)."""
    return list(stream_document(document, limits=limits, vectors=vectors))


def stream_document(
    document: Document,
    *,
    limits: ChunkLimits,
    vectors: Mapping[str, Sequence[float]] | None = None,
) -> Iterator[Chunk]:
    """The chunks of `chunk_document`, made one section (or one cut of a long section) at a time.

    What the ingest registers: a large document (a 50 MB text file) is never held as all of its chunks at
    once, only as its text and blocks plus the chunk being made.
    """
    n = 0
    for item in document.items:
        for draft in _drafts(document, item, limits):
            yield _chunk(document, item, draft, n, limits)
            n += 1


def _drafts(document: Document, item: Item, limits: ChunkLimits) -> Iterator[_Draft]:
    fmt = str(item.metadata.get("format") or document.metadata.get("format") or "markdown")
    title = document.title or item.title or document.key
    blocks = parse_blocks(item.text, headings=fmt == "markdown")
    sections = _sections(blocks, title)
    del blocks  # the sections hold the blocks now
    group: list[_Section] = []
    for section in sections:
        if not section.blocks:
            continue
        candidate = [*group, section]
        if group and _mergeable(candidate) and _merge_fits(candidate, limits):
            group = candidate
            continue
        yield from _flush(group, limits)
        group = [section]
    yield from _flush(group, limits)


def _sections(blocks: list[Block], title: str) -> list[_Section]:
    """Sections in document order; the first H1 is the title itself when it says the same.

    A heading with no body of its own keeps its words: when no subsection follows to carry it in its path, the
    heading line becomes the section's body, so a file of headings only still has chunks.
    """
    sections = [_Section([title], [])]
    stack: list[tuple[int, str]] = []
    first_heading = True
    skipped: Block | None = None
    for block in blocks:
        if block.kind != "heading":
            sections[-1].blocks.append(block)
            continue
        if first_heading and block.level == 1 and _same(block.text, title) and not sections[-1].blocks:
            first_heading = False
            skipped = block
            continue
        first_heading = False
        while stack and stack[-1][0] >= block.level:
            stack.pop()
        stack.append((block.level, block.text))
        sections.append(_Section([title, *(text for _, text in stack)], [level for level, _ in stack]))
    for section, following in zip(sections, [*sections[1:], None], strict=True):
        covered = following is not None and following.path[: len(section.path)] == section.path
        if section.blocks or covered:
            continue
        if section.levels:
            section.blocks.append(_heading_body(section.path[-1], section.level, _page_before(sections, section)))
        elif skipped is not None:  # a document that is its title heading and nothing else
            section.blocks.append(_heading_body(skipped.text, skipped.level, skipped.page))
    return sections


def _heading_body(text: str, level: int, page: int | None) -> Block:
    return Block("heading_body", f"{'#' * level} {text}", page)


def _page_before(sections: list[_Section], section: _Section) -> int | None:
    """The page of the nearest block before an empty section (PDF text has no headings, so mostly None)."""
    index = sections.index(section)
    for earlier in reversed(sections[:index]):
        if earlier.blocks:
            return earlier.blocks[-1].page
    return None


def _same(a: str, b: str) -> bool:
    def norm(s: str) -> str:
        return re.sub(r"\W+", "", s).casefold()

    return norm(a) == norm(b)


def _prefix(paths: Sequence[list[str]]) -> list[str]:
    common = list(paths[0])
    for path in paths[1:]:
        n = 0
        while n < min(len(common), len(path)) and common[n] == path[n]:
            n += 1
        common = common[:n]
    return common


def _mergeable(group: list[_Section]) -> bool:
    """Sections under one parent: the first section's parent (the title at least) is above all of them."""
    prefix = _prefix([s.path for s in group])
    return len(prefix) >= max(len(group[0].path) - 1, 1)


def _merge_fits(group: list[_Section], limits: ChunkLimits) -> bool:
    # Merge only small sections: two full sections on different topics make a chunk about neither.
    small = limits.max_chars * 0.4
    sizes = [sum(len(b.text) for b in s.blocks) for s in group]
    if sum(sizes[:-1]) > small and sizes[-1] > small:
        return False
    draft = _merged_draft(group)
    return _fits(_render(draft, limits), limits)


def _merged_draft(group: list[_Section]) -> _Draft:
    """One chunk for several sections: the common path on top, the other headings inline, as in the page."""
    prefix = _prefix([s.path for s in group])
    parts: list[_Part] = []
    shown = list(prefix)
    for section in group:
        heading_only = [b.kind for b in section.blocks] == ["heading_body"]
        last = len(section.path) - 1 if heading_only else len(section.path)
        for depth in range(len(prefix), last):
            if shown[: depth + 1] != section.path[: depth + 1]:
                heading = "#" * section.levels[depth - 1] + " " + section.path[depth]
                parts.append(_Part(heading, section.blocks[0].page, unit=False))
        shown = list(section.path)
        parts.extend(_Part(b.text, b.page, section=_heading(section.path)) for b in section.blocks)
    level = group[0].levels[len(prefix) - 2] if len(prefix) >= 2 else 0
    return _Draft(prefix, level, parts)


def _flush(group: list[_Section], limits: ChunkLimits) -> Iterator[_Draft]:
    if not group:
        return
    if len(group) > 1:
        yield _merged_draft(group)
        return
    section = group[0]
    here = _heading(section.path)
    # A section over the character limit cannot fit whole: not rendered (a 50 MB section would be copied once).
    small = sum(len(b.text) + 2 for b in section.blocks) <= limits.max_chars
    whole = _Draft(section.path, section.level, [_Part(b.text, b.page, section=here) for b in section.blocks])
    if small and _fits(_render(whole, limits), limits):
        yield whole
        return
    del whole
    yield from _split_section(section, limits)


def _split_section(section: _Section, limits: ChunkLimits) -> Iterator[_Draft]:
    """A long section's drafts, made as its blocks are read: only the open draft is held."""
    header = _path_line(section.path, limits)
    here = _heading(section.path)

    def fits_body(body: str) -> bool:
        return _fits(f"{header}\n\n{body}", limits)

    current: list[_Part] = []
    for atom in _atoms(section.blocks, fits_body, here, limits.max_chars):
        candidate = [*current, *atom]
        if current and not fits_body("\n\n".join(p.text for p in candidate)):
            yield _Draft(section.path, section.level, current)
            current = list(atom)
        else:
            current = candidate
    if current:
        yield _Draft(section.path, section.level, current)


def _atoms(blocks: list[Block], fits_body: Fits, here: str, max_chars: int) -> Iterator[list[_Part]]:
    """Runs of parts that go into one chunk together; each fits a chunk on its own.

    Text over `max_chars` cannot fit, so it is not joined or rendered to be measured (no copy of a huge block).
    """
    for run in _glued_runs(blocks):
        if sum(len(b.text) + 2 for b in run) <= max_chars and fits_body("\n\n".join(b.text for b in run)):
            yield [_Part(b.text, b.page, section=here) for b in run]
            continue
        for block in run:
            if len(block.text) <= max_chars and fits_body(block.text):
                yield [_Part(block.text, block.page, section=here)]
            else:
                for piece in split_block(block, fits_body):
                    yield [_Part(piece, block.page, section=here)]


def _glued_runs(blocks: list[Block]) -> Iterator[list[Block]]:
    run: list[Block] = []
    for block in blocks:
        if block.glue and run:
            run.append(block)
            continue
        if run:
            yield run
        run = [block]
    if run:
        yield run


# -- rendering -----------------------------------------------------------------------------------------------


def _fits(text: str, limits: ChunkLimits) -> bool:
    return len(text) <= limits.max_chars and bool(limits.count_tokens(text) <= limits.max_tokens)


def _path_line(path: list[str], limits: ChunkLimits) -> str:
    """The section path, shortened when it would take more than a quarter of a chunk."""
    line = " > ".join(path)

    def small(text: str) -> bool:
        return len(text) <= limits.max_chars // 4 and bool(limits.count_tokens(text) <= limits.max_tokens // 4)

    if small(line) or len(path) < 2:
        return line if small(line) else hard_cut_text(line, small)[0]
    short = f"{path[0]} > ... > {path[-1]}" if len(path) > 2 else line
    return short if small(short) else hard_cut_text(short, small)[0]


def _render(draft: _Draft, limits: ChunkLimits) -> str:
    body = "\n\n".join(p.text for p in draft.parts)
    return f"{_path_line(draft.path, limits)}\n\n{body}"


def _heading(path: list[str]) -> str:
    return path[-1] if len(path) > 1 else ""


def _part_url(item: Item, document: Document, part: _Part) -> str:
    """The paragraph's own link: the document (its URL, else its `file:` ref) plus its section or page anchor."""
    base = item.url or document.url or item.ref
    if part.section:
        return f"{base}#{heading_anchor(part.section)}"
    if part.page is not None:
        return f"{base}#page={part.page}"
    return base


def _tickets(text: str) -> list[str]:
    found = find_ticket_keys(text)
    for match in ISSUE_URL.finditer(text):
        found.append(f"github:{match['repo']}#{match['number']}")
    for match in ISSUE_REF.finditer(text):
        if match["repo"]:
            found.append(f"github:{match['repo']}#{match['number']}")
    return list(dict.fromkeys(found))


def _chunk(document: Document, item: Item, draft: _Draft, n: int, limits: ChunkLimits) -> Chunk:
    text = _render(draft, limits)
    authors = [str(a) for a in item.metadata.get("authors") or ([item.author] if item.author else [])]
    metadata: dict[str, object] = {
        "section_path": " > ".join(draft.path),
        "path": item.metadata.get("path") or document.metadata.get("path") or "",
        "heading_level": draft.level,
    }
    if (
        n == 0 and isinstance(document.metadata.get("events"), list) and document.metadata["events"]
    ):  # the document's history, on its first chunk
        metadata["events"] = document.metadata["events"]
    pages = sorted({p.page for p in draft.parts if p.page is not None})
    if pages:
        metadata["page"] = pages[0]
        if pages[-1] != pages[0]:
            metadata["page_end"] = pages[-1]
    return Chunk(
        chunk_id=f"{document.key}::{n}",
        doc_key=document.key,
        source_type=document.source_type,
        kind=document.kind,
        title=" > ".join(draft.path),
        text=text,
        refs=[item.ref],
        start=item.occurred_at,
        end=item.occurred_at,
        authors=authors,
        url=item.url or document.url,
        container=document.container or item.container,
        tickets=_tickets(text),
        units=[
            Unit(ref=item.ref, text=p.text, author=item.author, at=item.occurred_at, url=_part_url(item, document, p))
            for p in draft.parts
            if p.unit
        ],
        metadata=metadata,
    )
