"""Markdown as a flat list of blocks (headings, paragraphs, lists, tables, code), with PDF page numbers.

Only the structure that matters for cutting text is parsed: where a heading starts a section, and which runs of
lines must stay together (a code block, a table, a list item and its continuation). Markdown is read by a
CommonMark parser (markdown-it-py, with GFM tables), so code, setext headings, block quotes and lazy
continuation lines mean what they mean on the rendered page; every block keeps its source lines verbatim.
Plain text and PDF text (`headings=False`) are read by simple line rules, since nothing in them is markup.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_THEMATIC = re.compile(r"^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
_LIST_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)")
_TABLE_ROW = re.compile(r"^\s*\|")
_ANCHOR = re.compile(r"\s*\{#[\w.:-]+\}\s*$")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")


@dataclass
class Block:
    """A run of lines that is cut as one piece when it fits; `glue` keeps it with the block before it."""

    kind: str  # "heading" | "para" | "list" | "table" | "code"
    text: str
    page: int | None = None
    level: int = 0
    glue: bool = False


def heading_text(raw: str) -> str:
    """A heading as plain words: no trailing `{#anchor}`, link targets or emphasis markers."""
    text = _ANCHOR.sub("", raw.strip())
    text = _LINK.sub(r"\1", text)
    text = re.sub(r"(\*\*|__)(.+?)\1", r"\2", text)
    return " ".join(text.split())


def fence_of(line: str) -> tuple[str, str] | None:
    """(fence characters, info string) when the line opens a fenced code block."""
    match = _FENCE.match(line)
    if not match:
        return None
    fence, info = match.group(2), match.group(3)
    if fence[0] == "`" and "`" in info:
        return None
    return fence, info.strip()


def closes_fence(line: str, fence: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(fence) and stripped.strip(fence[0]) == ""


def is_list_item(line: str) -> bool:
    return _LIST_ITEM.match(line) is not None


def is_table_row(line: str) -> bool:
    return _TABLE_ROW.match(line) is not None


def parse_blocks(text: str, *, headings: bool = True) -> list[Block]:
    """Split text into blocks; a form feed starts a new PDF page; `headings=False` for plain text."""
    if headings and "\f" not in text:
        return markdown_blocks(text)
    return _line_blocks(text, headings=headings)


@cache
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"maxNesting": 40}).enable("table").disable(["inline", "text_join"])


def markdown_blocks(text: str) -> list[Block]:
    """Markdown's top-level blocks as the CommonMark parser reads them, each with its source lines."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    tokens = _parser().parse(text)
    blocks: list[Block] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        end = _closing(tokens, i)
        if token.type == "heading_open":
            title = heading_text(tokens[i + 1].content) if i + 1 < len(tokens) else ""
            if title:
                blocks.append(Block("heading", title, level=int(token.tag[1:])))
        elif token.type == "blockquote_open" and any(t.type == "heading_open" for t in tokens[i:end]):
            blocks.extend(_quote_blocks(tokens[i + 1 : end], lines))
        elif token.type == "paragraph_open":
            blocks.extend(_paragraph_blocks(_source(lines, token), None))
        elif token.type != "hr" and token.map:
            source = _source(lines, token)
            if source:
                blocks.append(Block(_KINDS.get(token.type, "para"), "\n".join(source)))
        i = end + 1
    _glue_continuations(blocks)
    return blocks


_KINDS = {
    "fence": "code",
    "code_block": "code",
    "table_open": "table",
    "bullet_list_open": "list",
    "ordered_list_open": "list",
}


def _closing(tokens: list[Token], i: int) -> int:
    """The index of the token that closes `tokens[i]` (itself for a self-contained token)."""
    if tokens[i].nesting != 1:
        return i
    depth = 0
    for j in range(i, len(tokens)):
        depth += tokens[j].nesting
        if depth == 0:
            return j
    return len(tokens) - 1


def _source(lines: list[str], token: Token) -> list[str]:
    start, end = token.map or (0, 0)
    source = lines[start:end]
    while source and not source[-1].strip():
        source.pop()
    return source


def _quote_blocks(inner: list[Token], lines: list[str]) -> list[Block]:
    """A block quote that holds headings: its headings start sections, the rest stays quoted as written."""
    blocks: list[Block] = []
    i = 0
    while i < len(inner):
        token = inner[i]
        end = _closing(inner, i)
        if token.level == 1 and token.type == "heading_open":
            title = heading_text(inner[i + 1].content) if i + 1 < len(inner) else ""
            if title:
                blocks.append(Block("heading", title, level=int(token.tag[1:])))
        elif token.level == 1 and token.map and token.type != "hr":
            source = _source(lines, token)
            if source:
                blocks.append(Block("code" if token.type in ("fence", "code_block") else "para", "\n".join(source)))
        i = end + 1
    return blocks


def _line_blocks(text: str, *, headings: bool) -> list[Block]:
    paged = "\f" in text
    page = 1 if paged else None
    blocks: list[Block] = []
    para: list[str] = []
    code: list[str] = []
    fence: str | None = None

    def flush() -> None:
        if para:
            blocks.extend(_paragraph_blocks(para, page))
            para.clear()

    for line in text.replace("\r\n", "\n").split("\n"):
        if fence is not None:
            code.append(line)
            if closes_fence(line, fence):
                blocks.append(Block("code", "\n".join(code), page))
                code, fence = [], None
            continue
        if "\f" in line:
            flush()
            if page is not None:
                page += line.count("\f")
            line = line.replace("\f", "")
            if not line.strip():
                continue
        opened = fence_of(line)
        if opened:
            flush()
            fence, code = opened[0], [line]
            continue
        if not line.strip():
            flush()
            continue
        if headings:
            atx = _ATX.match(line)
            if atx and atx.group(2) and heading_text(atx.group(2)):
                flush()
                blocks.append(Block("heading", heading_text(atx.group(2)), page, level=len(atx.group(1))))
                continue
            setext = _SETEXT.match(line)
            if setext and len(para) == 1 and not is_list_item(para[0]) and not is_table_row(para[0]):
                level = 1 if setext.group(1).startswith("=") else 2
                title = heading_text(para[0])
                para.clear()
                blocks.append(Block("heading", title, page, level=level))
                continue
            if not para and _THEMATIC.match(line):
                continue
        para.append(line)
    flush()
    if code:
        # An unclosed fence runs to the end of the document, as Markdown renderers show it.
        blocks.append(Block("code", "\n".join(code), page))
    _glue_continuations(blocks)
    return blocks


def _indented(line: str) -> bool:
    return len(line) - len(line.lstrip(" \t")) >= 2


def _paragraph_blocks(lines: list[str], page: int | None) -> list[Block]:
    """A run of non-blank lines; a table inside it becomes a block of its own."""
    out: list[Block] = []
    run: list[str] = []
    in_table = False
    for line in lines:
        row = is_table_row(line)
        if run and row != in_table:
            out.append(_block_of(run, in_table, page))
            run = []
        in_table = row
        run.append(line)
    if run:
        out.append(_block_of(run, in_table, page))
    return out


def _block_of(lines: list[str], table: bool, page: int | None) -> Block:
    if table:
        return Block("table", "\n".join(lines), page)
    return Block("list" if is_list_item(lines[0]) else "para", "\n".join(lines), page)


def _glue_continuations(blocks: list[Block]) -> None:
    """Keep an indented continuation with its list item, and an introducing `...:` line with what it introduces."""
    for prev, block in zip(blocks, blocks[1:], strict=False):
        if block.kind == "heading" or prev.kind == "heading":
            continue
        in_item = prev.kind == "list" or prev.glue
        if in_item and _indented(block.text.split("\n", 1)[0]):
            block.glue = True
        elif prev.kind == "para" and prev.text.rstrip().endswith(":") and block.kind in ("code", "table", "list"):
            block.glue = True
