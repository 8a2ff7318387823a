"""Source files chunked by function and class, each chunk with its path, symbol and 1-based line range.

The outline comes from `chunkers.code_outline` (Python by its syntax tree, C-like languages by their braces).
A file starts with a "header" chunk (module docstring, imports); a class that does not fit is split into its
members; anything still too big is split at blank lines, then at line ends. Unknown languages are split at blank
lines only.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from briefing.model import Chunk, ChunkLimits, Document, Item, Unit
from briefing.textrules import find_ticket_keys
from chunkers.code_outline import Span, outline

LANGUAGES = {
    ".py": "python", ".pyi": "python", ".go": "go", ".java": "java",
    ".ts": "typescript", ".tsx": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".kt": "kotlin", ".kts": "kotlin", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp",
    ".cs": "csharp", ".scala": "scala", ".swift": "swift",
}  # fmt: skip


@dataclass
class _Piece:
    start: int
    end: int
    symbol: str | None
    kind: str


def language_of(path: str) -> str:
    """The language name for a file path, or "text" when it is not one the chunker outlines."""
    return LANGUAGES.get(PurePosixPath(path).suffix.lower(), "text")


def chunk_code(
    document: Document,
    *,
    limits: ChunkLimits,
    vectors: Mapping[str, Sequence[float]] | None = None,
) -> list[Chunk]:
    """One chunk per function, class or method (or per fitting part of one), plus a file header chunk."""
    chunks: list[Chunk] = []
    for item in document.items:
        path = str(item.metadata.get("path") or document.metadata.get("path") or item.title or document.title)
        language = str(item.metadata.get("language") or language_of(path))
        lines = item.text.splitlines()
        pieces = _pieces(lines, language, path, limits)
        for piece in pieces:
            chunks.append(_make_chunk(document, item, piece, lines, path, language, limits, len(chunks)))
    return chunks


def _pieces(lines: list[str], language: str, path: str, limits: ChunkLimits) -> list[_Piece]:
    def fits(start: int, end: int, symbol: str | None, kind: str) -> bool:
        return _fits(_render(lines, path, _Piece(start, end, symbol, kind)), limits)

    def layout(spans: list[Span], first: int, last: int, owner: Span | None) -> list[_Piece]:
        pieces: list[_Piece] = []
        cursor = first
        for span in spans:
            if span.start > cursor:
                pieces.extend(gap(cursor, span.start - 1, owner, leading=not pieces))
            if span.children and not fits(span.start, span.end, span.symbol, span.kind):
                pieces.extend(layout(span.children, span.start, span.end, span))
            else:
                pieces.append(_Piece(span.start, span.end, span.symbol, span.kind))
            cursor = span.end + 1
        if cursor <= last:
            pieces.extend(gap(cursor, last, owner, leading=not pieces, trailing=bool(pieces)))
        return pieces

    def gap(start: int, end: int, owner: Span | None, *, leading: bool, trailing: bool = False) -> list[_Piece]:
        body = [k for k in range(start, end + 1) if lines[k - 1].strip()]
        if not body:
            return []
        start, end = body[0], body[-1]
        if trailing and all(re.fullmatch(r"[\s})\];,]*", lines[k - 1]) for k in body):
            return [_Piece(start, end, None, "closing")]  # merged into the piece before it below
        if owner is None:
            return [_Piece(start, end, None, "header" if leading else "code")]
        return [_Piece(start, end, owner.symbol, owner.kind if leading else "code")]

    merged: list[_Piece] = []
    for piece in layout(outline(lines, language), 1, len(lines), None):
        if piece.kind == "closing" and merged:
            merged[-1].end = piece.end
        else:
            merged.append(piece)
    out: list[_Piece] = []
    for piece in merged:
        out.extend(_split(piece, lines, path, limits))
    return out


def _split(piece: _Piece, lines: list[str], path: str, limits: ChunkLimits) -> list[_Piece]:
    """Parts of a piece that each fit: whole blank-line-separated blocks where possible, else single lines."""
    if _fits(_render(lines, path, piece), limits):
        return [piece]

    def fits(start: int, end: int) -> bool:
        return _fits(_render(lines, path, _Piece(start, end, piece.symbol, piece.kind)), limits)

    paragraphs: list[tuple[int, int]] = []
    for number in range(piece.start, piece.end + 1):
        if not lines[number - 1].strip():
            continue
        if paragraphs and paragraphs[-1][1] == number - 1:
            paragraphs[-1] = (paragraphs[-1][0], number)
        else:
            paragraphs.append((number, number))
    parts: list[_Piece] = []
    current: list[int] | None = None
    for start, end in paragraphs:
        if current and fits(current[0], end):
            current[1] = end
            continue
        if current:
            parts.append(_Piece(current[0], current[1], piece.symbol, piece.kind))
            current = None
        if fits(start, end):
            current = [start, end]
            continue
        for number in range(start, end + 1):
            if current and fits(current[0], number):
                current[1] = number
                continue
            if current:
                parts.append(_Piece(current[0], current[1], piece.symbol, piece.kind))
            current = [number, number]
    if current:
        parts.append(_Piece(current[0], current[1], piece.symbol, piece.kind))
    return parts


def _render(lines: list[str], path: str, piece: _Piece) -> str:
    label = piece.symbol or {"header": "file header"}.get(piece.kind, "module code")
    what = f"{piece.kind} {label}" if piece.symbol else label
    head = f"{path} lines {piece.start}-{piece.end}: {what}"
    return head + "\n" + "\n".join(lines[piece.start - 1 : piece.end])


def _fits(text: str, limits: ChunkLimits) -> bool:
    return len(text) <= limits.max_chars and limits.count_tokens(text) <= limits.max_tokens


def _truncate(text: str, limits: ChunkLimits) -> str:
    keep = min(len(text), limits.max_chars)
    while keep > 0 and not _fits(text[:keep], limits):
        keep = keep * 3 // 4
    return text[:keep]


def _make_chunk(
    document: Document,
    item: Item,
    piece: _Piece,
    lines: list[str],
    path: str,
    language: str,
    limits: ChunkLimits,
    n: int,
) -> Chunk:
    text = _render(lines, path, piece)
    truncated = not _fits(text, limits)
    if truncated:
        text = _truncate(text, limits)  # one line longer than the whole budget (minified code, data)
    code = "\n".join(lines[piece.start - 1 : piece.end])
    return Chunk(
        chunk_id=f"{document.key}::{n}",
        doc_key=document.key,
        source_type=document.source_type,
        kind=document.kind,
        title=f"{document.title} ({piece.symbol})" if piece.symbol else document.title,
        text=text,
        refs=[item.ref],
        start=item.occurred_at,
        end=item.occurred_at,
        authors=[item.author] if item.author else [],
        url=item.url or document.url,
        container=document.container,
        tickets=_tickets(code),
        units=[Unit(ref=item.ref, text=text, author=item.author, at=item.occurred_at, url=item.url or document.url)],
        metadata={
            "path": path,
            "language": language,
            "start_line": piece.start,
            "end_line": piece.end,
            "symbol": piece.symbol,
            "symbol_kind": piece.kind,
        },
        truncated=truncated,
    )


def _tickets(text: str) -> list[str]:
    return find_ticket_keys(text)
