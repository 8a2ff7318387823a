"""Source files chunked by function and class, each chunk with its path, symbol and 1-based line range.

Python is outlined with the `ast` module; Go, TypeScript/JavaScript, Java and other C-like languages with a
brace matcher that skips strings, comments, template literals and regex literals. A file starts with a "header"
chunk (module docstring, imports); a class that does not fit is split into its members; anything still too big
is split at blank lines, then at line ends. Unknown languages are split at blank lines only.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from briefing.model import Chunk, ChunkLimits, Document, Item, Unit
from briefing.textrules import find_ticket_keys

LANGUAGES = {
    ".py": "python", ".pyi": "python", ".go": "go", ".java": "java",
    ".ts": "typescript", ".tsx": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".kt": "kotlin", ".kts": "kotlin", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp",
    ".cs": "csharp", ".scala": "scala", ".swift": "swift",
}  # fmt: skip
BRACE_LANGUAGES = {"go", "java", "typescript", "javascript", "kotlin", "c", "cpp", "csharp", "scala", "swift"}
_JS = {"typescript", "javascript"}
_CONTAINER_WORDS = {"class", "interface", "enum", "record", "namespace", "module", "struct", "object", "trait"}
_KEYWORDS = {
    "if", "for", "while", "switch", "catch", "try", "else", "do", "return", "synchronized", "finally", "with",
    "new", "function", "static", "async", "await", "yield", "typeof", "case", "default",
}  # fmt: skip
_REGEX_AFTER = set("(,=:[!&|?{};+-*%<>~^") | {""}
_REGEX_KEYWORDS = {"return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw", "yield"}


@dataclass
class _Span:
    """A symbol's lines (1-based, inclusive) in the outline, with its members when it is a container."""

    start: int
    end: int
    symbol: str | None
    kind: str
    children: list[_Span] = field(default_factory=list)


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


# -- outline ------------------------------------------------------------------------------------------------


def _outline(lines: list[str], language: str) -> list[_Span]:
    if language == "python":
        try:
            tree = ast.parse("\n".join(lines))
        except (SyntaxError, ValueError):
            return []
        return _python_spans(tree.body, lines, prefix="", floor=0)
    if language in BRACE_LANGUAGES:
        return _brace_spans(lines, language)
    return []


def _python_spans(body: list[ast.stmt], lines: list[str], *, prefix: str, floor: int) -> list[_Span]:
    spans: list[_Span] = []
    previous_end = floor
    for node in body:
        end = node.end_lineno or node.lineno
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            # Comments directly above belong to the definition they describe.
            while start - 1 > previous_end and lines[start - 2].strip().startswith("#"):
                start -= 1
            name = prefix + node.name
            if isinstance(node, ast.ClassDef):
                members = _python_spans(node.body, lines, prefix=name + ".", floor=node.lineno)
                spans.append(_Span(start, end, name, "class", members))
            else:
                spans.append(_Span(start, end, name, "method" if prefix else "function"))
        previous_end = end
    return spans


@dataclass
class _Block:
    open_line: int
    close_line: int
    parent: int
    parens: int


def _scan(text: str, language: str) -> tuple[list[_Block], list[str]]:
    """Matched `{}` blocks outside strings and comments, and each line with strings and comments blanked."""
    blocks: list[_Block] = []
    stack: list[int] = []  # indexes into blocks of the open ones
    templates: list[int] = []  # brace depth at each open `${` of a JS template literal
    masked = list(text)
    parens = 0
    line = 1
    last = ""  # last significant code character or word, to tell a JS regex literal from a division
    i, n = 0, len(text)
    in_template = False

    def blank(a: int, b: int) -> None:
        for k in range(a, min(b, n)):
            if masked[k] != "\n":
                masked[k] = " "

    while i < n:
        c = text[i]
        if in_template:
            j = i
            while j < n and text[j] != "`" and not (text[j] == "$" and j + 1 < n and text[j + 1] == "{"):
                j += 2 if text[j] == "\\" else 1
            blank(i, j)
            line += text.count("\n", i, j)
            if j >= n:
                break
            if text[j] == "`":
                in_template, i, last = False, j + 1, "`"
            else:
                templates.append(len(stack))
                in_template, i, last = False, j + 2, "{"
            continue
        if c == "\n":
            line += 1
            i += 1
            continue
        if c in " \t\r":
            i += 1
            continue
        two = text[i : i + 2]
        if two == "//":
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
            continue
        if two == "/*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank(i, j)
            line += text.count("\n", i, j)
            i = j
            continue
        if c == '"' and text[i : i + 3] == '"""' and language in {"java", "kotlin", "scala", "swift"}:
            j = text.find('"""', i + 3)
            j = n if j < 0 else j + 3
            blank(i + 1, j - 1)
            line += text.count("\n", i, j)
            i, last = j, '"'
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            blank(i + 1, j)
            i, last = min(j + 1, n), c
            continue
        if c == "`":
            if language in _JS:
                in_template = True
                i += 1
                continue
            if language == "go":
                j = text.find("`", i + 1)
                j = n if j < 0 else j + 1
                blank(i + 1, j - 1)
                line += text.count("\n", i, j)
                i, last = j, "`"
                continue
        if c == "/" and language in _JS and (last in _REGEX_AFTER or last in _REGEX_KEYWORDS):
            j, in_class = i + 1, False
            while j < n and text[j] != "\n" and (in_class or text[j] != "/"):
                if text[j] == "\\":
                    j += 1
                elif text[j] == "[":
                    in_class = True
                elif text[j] == "]":
                    in_class = False
                j += 1
            blank(i + 1, j)
            i, last = min(j + 1, n), "/"
            continue
        if c.isalnum() or c in "_$":
            j = i
            while j < n and (text[j].isalnum() or text[j] in "_$"):
                j += 1
            last = text[i:j]
            i = j
            continue
        if c == "{":
            blocks.append(_Block(line, line, stack[-1] if stack else -1, parens))
            stack.append(len(blocks) - 1)
        elif c == "}":
            if templates and templates[-1] == len(stack):
                templates.pop()
                in_template = True
                i += 1
                continue
            if stack:
                blocks[stack.pop()].close_line = line
        elif c in "([":
            parens += 1
        elif c in ")]":
            parens = max(0, parens - 1)
        last = c
        i += 1
    for index in stack:  # unclosed blocks run to the end of the file
        blocks[index].close_line = line
    return blocks, "".join(masked).split("\n")


def _brace_spans(lines: list[str], language: str) -> list[_Span]:
    blocks, masked = _scan("\n".join(lines), language)

    def spans_in(parent: int, parens: int, floor: int, prefix: str) -> list[_Span]:
        spans: list[_Span] = []
        previous_end = floor
        for index, block in enumerate(blocks):
            if block.parent != parent or block.parens != parens:
                continue
            if block.open_line <= previous_end and spans:
                spans[-1].end = max(spans[-1].end, block.close_line)  # `} else {` and the like
                previous_end = spans[-1].end
                continue
            start = block.open_line
            while start - 1 > previous_end and lines[start - 2].strip():
                code = masked[start - 2].rstrip()
                if code and code[-1] in ";{}":
                    break
                start -= 1
            declaration = " ".join(masked[start - 1 : block.open_line])
            declaration = declaration[: declaration.rfind("{")] if "{" in declaration else declaration
            name, container = _name(declaration, language)
            if name is None and block.open_line == block.close_line:
                continue  # `import { a } from "b";`, `x = {}`: braces inside a statement, not a definition
            symbol = f"{prefix}{name}" if name else None
            if container:
                members = spans_in(index, block.parens, block.open_line, f"{symbol}." if symbol else prefix)
                kind = "type" if language == "go" else "class"
                spans.append(_Span(start, block.close_line, symbol, kind, members))
            else:
                kind = "method" if prefix and symbol else ("function" if symbol else "code")
                spans.append(_Span(start, block.close_line, symbol, kind))
            previous_end = block.close_line
        return spans

    return spans_in(-1, 0, 0, "")


def _name(declaration: str, language: str) -> tuple[str | None, bool]:
    """The symbol a block declares, and whether it is a container (class-like) worth splitting into members."""
    text = re.sub(r"@[\w.]+(\s*\([^()]*(\([^()]*\)[^()]*)*\))?", " ", declaration)
    text = re.sub(r"\s+", " ", text).strip()
    if language == "go":
        match = re.search(r"\bfunc\s*(?:\(\s*\w*\s*\*?\s*(\w+)[^)]*\)\s*)?(\w+)", text)
        if match:
            return (f"{match[1]}.{match[2]}" if match[1] else match[2]), False
        match = re.search(r"\btype\s+(\w+)\s+(struct|interface)", text)
        return (match[1], True) if match else (None, False)
    match = re.search(r"\b(class|interface|enum|record|namespace|module|struct|object|trait)\s+([\w$.]+)", text)
    if match and match[1] in _CONTAINER_WORDS:
        return match[2], True
    match = re.search(r"\bfunction\b\s*\*?\s*([\w$]+)", text)
    if match:
        return match[1], False
    match = re.search(r"\b(?:const|let|var|type)\s+([\w$]+)", text)
    if match:
        return match[1], False
    if re.search(r"\bexport\s+default\b", text):
        return "default", False
    for match in re.finditer(r"([\w$]+)\s*(?:<[^<>]*>)?\s*\(", text):
        if match[1] not in _KEYWORDS:
            return match[1], False
    match = re.search(r"^(?:(?:public|private|protected|static|readonly|async|get|set)\s+)*([\w$]+)\s*[:=]", text)
    if match and match[1] not in _KEYWORDS:
        return match[1], False
    return None, False


# -- layout -------------------------------------------------------------------------------------------------


def _pieces(lines: list[str], language: str, path: str, limits: ChunkLimits) -> list[_Piece]:
    def fits(start: int, end: int, symbol: str | None, kind: str) -> bool:
        return _fits(_render(lines, path, _Piece(start, end, symbol, kind)), limits)

    def layout(spans: list[_Span], first: int, last: int, owner: _Span | None) -> list[_Piece]:
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

    def gap(start: int, end: int, owner: _Span | None, *, leading: bool, trailing: bool = False) -> list[_Piece]:
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
    for piece in layout(_outline(lines, language), 1, len(lines), None):
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
