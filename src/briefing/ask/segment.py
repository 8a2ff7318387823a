"""Evidence pieces of a unit's text: blocks (paragraphs, list items, table rows, code lines), then sentences.

Sentences come from pysbd (the Golden Rules segmenter) over a masked copy of the block: the dots, "!" and "?"
inside URLs, inline code, versions, file names and decimals, and the digits of a date such as "Aug 3", are
swapped for private-use characters of the same length, so that no rule can cut there; the pieces are then
unmasked. A lead-in that announces a list ("a quick summary of feedbacks:", "two things,") keeps its items.

Inside `reading(store)` a text that needs the segmenter is first looked up in `store` (the splits kept on disk
beside the vector cache, `briefing.ask.splits`), and what is split is handed to it; outside, nothing is stored.
"""

from __future__ import annotations

import re
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from typing import Any, Protocol

# Evidence text: where a block starts (a bullet, a numbered item, a table row, a heading, a quote, a code fence),
# a list item, a table or code line, a Slack emoji code (":tada:") and a citation marker the text already holds.
_BLOCK_START = re.compile(r"^\s*(?:[-*•◦▪]\s+|\d{1,2}[.)]\s+|\||#{1,6}\s|>|```)")
_LIST_ITEM = re.compile(r"^\s*(?:[-*•◦▪]\s+|\(?\d{1,2}[.)]\s+|\(?[a-h][.)]\s+)")
_STRUCTURED = re.compile(r"^\s*(?:\||```)", re.MULTILINE)
_EMOJI = re.compile(r"(?<![\w:]):[a-z0-9_+-]{2,40}:(?![\w:])")
_FAKE_CITATION = re.compile(r"\[(\d+)\]")
CODE_MARK = "\u2063"  # invisible separator: marks a code line, which is evidence but never split

# Spans whose punctuation is never a sentence end.
_PROTECTED = re.compile(
    r"<[^<>\s]+>"  # Slack links and mentions left in raw form
    r"|https?://[^\s<>()]+|www\.[^\s<>()]+"
    r"|`[^`\n]+`"
    r"|\b(?:e\.g|i\.e|etc|vs|approx|incl|cf|aka|w\.r\.t)\."
    r"|[\w@/~-]+(?:\.[\w/-]+)+",  # v0.9.0, config.yml, olake.io, 3.5k, 10.0.0.1, a.b.c
    re.I,
)
_ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "vs", "approx", "incl", "cf", "aka", "w.r.t"})
_MONTH_DAY = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b", re.I
)
_MASK = str.maketrans({".": "\ue000", "!": "\ue001", "?": "\ue002"})
_DIGITS = str.maketrans({str(d): chr(0xE010 + d) for d in range(10)})
_UNMASK = str.maketrans({"\ue000": ".", "\ue001": "!", "\ue002": "?", **{chr(0xE010 + d): str(d) for d in range(10)}})


class Splits(Protocol):
    """Where split texts are kept between processes: `get` what was split before, `put` what was split now,
    `flush` once a reading ends."""

    def get(self, text: str) -> tuple[str, ...] | None: ...

    def put(self, text: str, pieces: tuple[str, ...]) -> None: ...

    def flush(self) -> None: ...


_STORE: ContextVar[Splits | None] = ContextVar("brief_splits", default=None)


@contextmanager
def reading(store: Splits | None) -> Iterator[None]:
    """Splits inside the block read `store` first and are kept in it (flushed at the end)."""
    token = _STORE.set(store)
    try:
        yield
    finally:
        _STORE.reset(token)
        if store is not None:
            store.flush()


@lru_cache(maxsize=16384)
def clean(text: str, limit: int = 320) -> str:
    """The sentence as shown: one line, no emoji codes or emphasis markers, no bracket numbers to mistake for a
    citation; cut at a word boundary when long. (Kept per text: the answer stage cleans a sentence several times.)"""
    text = text.replace(CODE_MARK, "")
    text = _EMOJI.sub("", text).replace("**", "").replace("<br>", " ")
    text = re.sub(r"(?<!\w)\*(\S[^*]*\S|\S)\*(?!\w)", r"\1", text)
    text = re.sub(r"(?<![\w`])_([^_\s][^_]*[^_\s]|[^_\s])_(?![\w`])", r"\1", text)
    text = re.sub(r"(?<!~)~([^~\s][^~]*[^~\s])~(?!~)", r"\1", text)
    text = _FAKE_CITATION.sub(r"(\1)", text)
    text = " ".join(text.split()).strip(" -")
    if len(text) > limit:
        text = text[:limit].rsplit(" ", 1)[0] + " …"
    return text


def blocks(text: str) -> list[str]:
    """Paragraphs, list items and table rows, with hard-wrapped lines joined back into one line."""
    out: list[str] = []
    current: list[str] = []
    header: list[str] = []
    in_code = False

    def flush() -> None:
        if current:
            out.append(" ".join(current))
            current.clear()

    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("```"):
            flush()
            in_code = not in_code
            rest = line.strip("`").strip()
            if rest and " " in rest:  # ```one-liner``` on a single line
                out.append(CODE_MARK + rest)
            continue
        if in_code:
            # Commands and config are evidence too ("which flag sets read-only?"), one line each.
            if line:
                out.append(CODE_MARK + line)
            continue
        if not line:
            flush()
            header = []
            continue
        if line.startswith("|"):
            flush()
            cells = [c.strip() for c in line.strip("|").split("|")]
            if any(cells) and all(re.fullmatch(r":?-{2,}:?", c) for c in cells if c):
                continue
            if not header:
                header = cells
                continue
            pairs = [f"{h}: {c}" if h else c for h, c in zip(header, cells, strict=False) if c]
            out.append("; ".join(pairs))
            continue
        if line.startswith("#"):
            flush()
            continue  # headings are already in the chunk title
        if _BLOCK_START.match(line):
            flush()
        current.append(line.lstrip(">").strip() if line.startswith(">") else line)
    flush()
    return out


@lru_cache(maxsize=8192)
def _compiled(pattern: str | re.Pattern[str], flags: int) -> re.Pattern[str]:
    return re.compile(pattern, flags)


def _held_re() -> types.ModuleType:
    """`re` with a compile cache that holds all of pysbd's patterns. pysbd builds about 2,000 of them (several per
    abbreviation it meets, in the casing met), while `re` keeps the last 512: on real text most were compiled again
    on every split, about half of a first split's CPU. Same patterns, same flags, so the same sentences."""
    held = types.ModuleType("re")
    held.__dict__.update(re.__dict__)

    def sub(pattern: Any, repl: Any, string: str, count: int = 0, flags: int = 0) -> str:
        return _compiled(pattern, flags).sub(repl, string, count)

    def subn(pattern: Any, repl: Any, string: str, count: int = 0, flags: int = 0) -> tuple[str, int]:
        return _compiled(pattern, flags).subn(repl, string, count)

    def split(pattern: Any, string: str, maxsplit: int = 0, flags: int = 0) -> list[Any]:
        return _compiled(pattern, flags).split(string, maxsplit)

    held.__dict__.update(
        compile=lambda pattern, flags=0: _compiled(pattern, flags),
        sub=sub,
        subn=subn,
        split=split,
        search=lambda pattern, string, flags=0: _compiled(pattern, flags).search(string),
        match=lambda pattern, string, flags=0: _compiled(pattern, flags).match(string),
        fullmatch=lambda pattern, string, flags=0: _compiled(pattern, flags).fullmatch(string),
        findall=lambda pattern, string, flags=0: _compiled(pattern, flags).findall(string),
        finditer=lambda pattern, string, flags=0: _compiled(pattern, flags).finditer(string),
    )
    return held


@lru_cache(maxsize=1)
def _segmenter() -> object:
    import pysbd

    held = _held_re()
    for name, module in list(sys.modules.items()):
        if name.startswith("pysbd") and getattr(module, "re", None) is re:
            module.re = held  # type: ignore[attr-defined]
    return pysbd.Segmenter(language="en", clean=False, char_span=False)


def _mask(block: str) -> str:
    chars = list(block)
    for m in _PROTECTED.finditer(block):
        end = m.end()
        # A span's own last character may still end the sentence ("... see olake.io.").
        span = block[m.start() : end]
        abbreviation = span[-1] == "." and span.rstrip(".").lower() in _ABBREVIATIONS
        following = block[end:].lstrip()[:1]
        if abbreviation:  # "e.g. the" never ends a sentence; "... etc. Then" does
            keep_last = span.lower().startswith("etc") and following.isupper()
        else:
            keep_last = span[-1] in ".!?" and (end == len(block) or block[end].isspace())
        stop = end - 1 if keep_last else end
        chars[m.start() : stop] = block[m.start() : stop].translate(_MASK)
    for m in _MONTH_DAY.finditer(block):
        chars[m.start(1) : m.end(1)] = m[1].translate(_DIGITS)
    return "".join(chars)


@lru_cache(maxsize=65536)
def split_sentences(block: str) -> tuple[str, ...]:
    """Sentence boundaries that survive "e.g.", "v2.5.0", "05:30 UTC.", URLs, inline code and "Aug 3."."""
    if block.startswith(CODE_MARK):
        return (block,)
    masked = _mask(block)
    segmenter = _segmenter()
    pieces = segmenter.segment(masked)  # type: ignore[attr-defined]
    out = [str(p).translate(_UNMASK).strip() for p in pieces]
    return tuple(p for p in out if p)


def _lead_in(piece: str) -> bool:
    return piece.rstrip().endswith((":", ",")) or bool(re.search(r"\b(?:following|these|below)\W*$", piece))


# Texts whose pieces one process keeps (with whether the segmenter made them); past it the memo starts again.
SENTENCES_KEPT = 65536
_KEPT: dict[tuple[str, int], tuple[tuple[str, ...], bool]] = {}


def sentences(text: str, *, whole_below: int = 0) -> list[str]:
    """Evidence-sized pieces of a unit's text (see `_sentences`), kept for the process; inside `reading(store)`
    a split this process made before is handed to the store too (which writes each text once)."""
    key = (text, whole_below)
    store = _STORE.get()
    found = _KEPT.get(key)
    if found is None:
        found = _sentences(text, whole_below, store)
        if len(_KEPT) >= SENTENCES_KEPT:
            _KEPT.clear()
        _KEPT[key] = found
    elif found[1] and store is not None:
        store.put(text, found[0])
    return list(found[0])


def forget() -> None:
    """Empty this process's kept pieces (as a new process starts: tests, benchmarks)."""
    _KEPT.clear()
    split_sentences.cache_clear()


def _sentences(text: str, whole_below: int, store: Splits | None) -> tuple[tuple[str, ...], bool]:
    """Evidence-sized pieces of a unit's text; fragments ("moved from", "Impact:") join their successor; and
    whether the segmenter made them (what `store` is read for and given).

    A unit of plain prose shorter than `whole_below` characters stays whole: a short message reads better, and
    cites the same ref, as one piece ("OOM-killed ... Raised the limit to 768 Mi."). A lead-in ending in ":" or
    "," keeps the list items after it, up to 400 characters.
    """
    parts = blocks(text)
    if whole_below and parts and not _STRUCTURED.search(text):
        joined = " ".join(parts)
        size = len(clean(joined))
        if size <= whole_below:
            return ((joined,) if size >= 12 else ()), False
    if store is not None:
        found = store.get(text)
        if found is not None:
            return found, True
    out = _merged([s for block in parts for s in split_sentences(block)])
    if store is not None:
        store.put(text, out)
    return out, True


def _merged(pieces: list[str]) -> tuple[str, ...]:
    """The segmenter's pieces with fragments and announced list items joined, short and image-only ones dropped."""
    merged: list[str] = []
    i = 0
    while i < len(pieces):
        piece = pieces[i]
        i += 1
        if _lead_in(piece) and i < len(pieces):
            # "Here is a summary of the feedback, 1. ... 2. ..." reads as one piece, not a dangling lead-in.
            while i < len(pieces) and (_LIST_ITEM.match(pieces[i]) or len(piece) < 25):
                if len(piece) + len(pieces[i]) > 400:
                    break
                piece = f"{piece} {pieces[i]}"
                i += 1
            if i < len(pieces) and len(piece) < 40:
                piece = f"{piece} {pieces[i]}"
                i += 1
        while len(piece) < 25 and i < len(pieces):
            piece = f"{piece} {pieces[i]}"
            i += 1
        merged.append(piece)
    return tuple(p for p in merged if len(clean(p)) >= 12 and not _IMAGE_ONLY.match(clean(p, limit=100_000)))


# "(image: OLake Go Schema Evolution Iceberg)": an image's alt text is a caption, not evidence.
_IMAGE_ONLY = re.compile(r"^\(?(?:image|img|figure|fig\.?\s*\d*)\s*:[^()]*\)?\.?$", re.I)
