"""A source file's outline: its functions, classes and methods with their 1-based line ranges.

Python is read with the `ast` module; Go, TypeScript/JavaScript, Java and other C-like languages with a brace
matcher that skips strings, comments, template literals and regex literals.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

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
class Span:
    """A symbol's lines (1-based, inclusive) in the outline, with its members when it is a container."""

    start: int
    end: int
    symbol: str | None
    kind: str
    children: list[Span] = field(default_factory=list)


def outline(lines: list[str], language: str) -> list[Span]:
    """The top-level symbols of a file (members nested), or none for a language it cannot outline."""
    if language == "python":
        try:
            tree = ast.parse("\n".join(lines))
        except (SyntaxError, ValueError):
            return []
        return _python_spans(tree.body, lines, prefix="", floor=0)
    if language in BRACE_LANGUAGES:
        return _brace_spans(lines, language)
    return []


def _python_spans(body: list[ast.stmt], lines: list[str], *, prefix: str, floor: int) -> list[Span]:
    spans: list[Span] = []
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
                spans.append(Span(start, end, name, "class", members))
            else:
                spans.append(Span(start, end, name, "method" if prefix else "function"))
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


def _brace_spans(lines: list[str], language: str) -> list[Span]:
    blocks, masked = _scan("\n".join(lines), language)

    def spans_in(parent: int, parens: int, floor: int, prefix: str) -> list[Span]:
        spans: list[Span] = []
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
                spans.append(Span(start, block.close_line, symbol, kind, members))
            else:
                kind = "method" if prefix and symbol else ("function" if symbol else "code")
                spans.append(Span(start, block.close_line, symbol, kind))
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
