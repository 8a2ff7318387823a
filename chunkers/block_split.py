"""A Markdown block too big for a chunk, cut to fit: prose at sentences, lists at items, tables at rows, code at lines.

A table repeats its header on every piece; code reopens its fence, marked as continued.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from chunkers.markdown_blocks import Block, closes_fence, fence_of, is_list_item
from chunkers.packing import hard_cut

_SENTENCE_END = re.compile(r"(?<=[.!?])(?:[\"')\]]*)\s+")
_CONTINUED = "(code continued)"

Fits = Callable[[str], bool]


def split_block(block: Block, fits: Fits) -> list[str]:
    """A block too big for one chunk, cut into pieces that each fit (by its kind: code, table, list, prose)."""
    if block.kind == "code":
        return _split_code(block.text, fits)
    if block.kind == "table":
        return _split_table(block.text, fits)
    if block.kind == "list":
        items = _list_items(block.text)
        if len(items) > 1:
            # A loose list keeps its blank lines between items, but no piece ends with one.
            return [piece.rstrip("\n") for piece in _pack(items, "\n", fits)]
    return split_text(block.text, fits)


def _pack(pieces: list[str], sep: str, fits: Fits) -> list[str]:
    """Greedy: join pieces while the result fits; a piece too large alone is cut as prose."""
    out: list[str] = []
    current = ""
    for piece in pieces:
        candidate = f"{current}{sep}{piece}" if current else piece
        if fits(candidate):
            current = candidate
            continue
        if current:
            out.append(current)
        if fits(piece):
            current = piece
        else:
            out.extend(split_text(piece, fits))
            current = ""
    if current:
        out.append(current)
    return out


def split_text(text: str, fits: Fits) -> list[str]:
    """Prose cut at sentence ends, then at spaces, then (a single huge word) at characters."""
    text = text.strip()
    if not text or fits(text):
        return [text] if text else []
    for splitter in (_sentences, _words):
        segments = splitter(text)
        if len(segments) > 1:
            out: list[str] = []
            current = ""
            for seg in segments:
                candidate = current + seg
                if fits(candidate.strip()):
                    current = candidate
                    continue
                if current.strip():
                    out.append(current.strip())
                if fits(seg.strip()):
                    current = seg
                else:
                    out.extend(split_text(seg, fits) if splitter is _sentences else hard_cut_text(seg.strip(), fits))
                    current = ""
            if current.strip():
                out.append(current.strip())
            return out
    return hard_cut_text(text, fits)


def _sentences(text: str) -> list[str]:
    """Sentences with their trailing whitespace, so that joining them gives the text back."""
    out: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        out.append(text[start : match.end()])
        start = match.end()
    if start < len(text):
        out.append(text[start:])
    return out


def _words(text: str) -> list[str]:
    return re.findall(r"\S+\s*", text)


def hard_cut_text(text: str, fits: Fits) -> list[str]:
    """Text cut where it must, anywhere, into pieces that fit."""
    return [piece for piece, _ in hard_cut(text, fits)]


def _split_code(text: str, fits: Fits) -> list[str]:
    """A fenced block cut at line ends; every piece is a closed fence, later ones marked as continued."""
    lines = text.split("\n")
    opened = fence_of(lines[0])
    if opened is None:
        # Indented code has no fence to reopen: cut it at line ends, each line kept exactly as written.
        return _pack(lines, "\n", fits)
    indent = lines[0][: len(lines[0]) - len(lines[0].lstrip())]
    fence = opened[0] if opened else "```"
    head = lines[0]
    body = lines[1:]
    if body and closes_fence(body[-1], fence):
        body = body[:-1]
    close = indent + fence

    def wrap(chunk_lines: list[str], first: bool) -> str:
        inner = "\n".join(chunk_lines)
        return ("" if first else f"{_CONTINUED}\n") + f"{head}\n{inner}\n{close}"

    # Prefer cutting at blank lines (between statements or functions), then at any line end.
    stanzas: list[list[str]] = [[]]
    for line in body:
        stanzas[-1].append(line)
        if not line.strip():
            stanzas.append([])
    pieces: list[str] = []
    current: list[str] = []
    for stanza in (s for s in stanzas if s):
        if fits(wrap([*current, *stanza], not pieces)):
            current.extend(stanza)
            continue
        if current:
            pieces.append(wrap(current, not pieces))
            current = []
        if fits(wrap(stanza, not pieces)):
            current = list(stanza)
            continue
        for line in stanza:
            if fits(wrap([*current, line], not pieces)):
                current.append(line)
                continue
            if current:
                pieces.append(wrap(current, not pieces))
                current = []
            if fits(wrap([line], not pieces)):
                current = [line]
                continue
            # One line longer than a chunk: cut it, each part in its own reopened fence.
            for part in hard_cut_text(line, lambda s: fits(wrap([s], False))):
                pieces.append(wrap([part], not pieces))
    if current or not pieces:
        pieces.append(wrap(current, not pieces))
    return pieces


def _split_table(text: str, fits: Fits) -> list[str]:
    """A table cut between rows, the header (and its separator row) repeated on every piece."""
    lines = text.split("\n")
    header_len = 2 if len(lines) > 1 and re.fullmatch(r"\s*\|?[\s:|-]+\|?\s*", lines[1]) else 1
    header = "\n".join(lines[:header_len])
    rows = lines[header_len:]
    if not rows or not fits(f"{header}\n{rows[0]}"):
        return _pack(lines, "\n", fits)
    pieces: list[str] = []
    current: list[str] = []
    for row in rows:
        if fits("\n".join([header, *current, row])):
            current.append(row)
            continue
        if current:
            pieces.append("\n".join([header, *current]))
        if fits(f"{header}\n{row}"):
            current = [row]
        else:
            pieces.extend(split_text(row, fits))
            current = []
    if current:
        pieces.append("\n".join([header, *current]))
    return pieces


def _list_items(text: str) -> list[str]:
    """Top-level items of a list block, each with its indented continuation lines."""
    lines = text.split("\n")
    base = min(len(line) - len(line.lstrip()) for line in lines if is_list_item(line))
    items: list[list[str]] = []
    for line in lines:
        if is_list_item(line) and len(line) - len(line.lstrip()) == base or not items:
            items.append([line])
        else:
            items[-1].append(line)
    return ["\n".join(item) for item in items]
