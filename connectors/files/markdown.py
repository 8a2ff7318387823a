"""Markdown/MDX clean-up for the files source: front matter, MDX statements, JSX and HTML markup.

The goal is the prose a reader sees on the rendered page, still as Markdown (headings, lists, tables, code), so
the document chunker can cut it along its structure. A CommonMark parser (markdown-it-py) finds the code, fenced
or indented and at any depth (lists, quotes), and code is kept byte for byte (Mermaid labels lose `<br/>`): markup
rules apply to prose only.
HTML comments, `<script>` and `<style>` are not prose and are dropped. MDX does not know indented code, so a
`.mdx` file, or a Markdown file written like one (ESM statements, JSX components), is read as MDX reads it:
only fences are code, and a JSX tag line does not swallow the lines after it.
"""

from __future__ import annotations

import datetime as dt
import re
from functools import cache
from typing import TYPE_CHECKING, Any

import yaml

from connectors.files import frontmatter

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

_FRONT_MATTER = re.compile(r"\A\ufeff?---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_ESM = re.compile(
    r"^(?:import\s+(?:['\"]|[\w*{][^\n]*\bfrom\s+['\"])|export\s+(?:const|let|var|default|function|async|class|\{|\*))"
)
# A line that starts with an HTML/JSX tag: `<Name ...`, `</Name>`, `<Name/>`, `<Name>`.
_TAG_START = re.compile(r"^\s*</?[A-Za-z][\w.:-]*(?=[\s/>]|$)")
# Every pattern below runs on ingested text, so none may backtrack super-linearly: a scan that may fail is
# bounded or possessive, and a match that may start anywhere in a run of spaces starts only at the run's first.
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
# Script and style bodies are code for the browser, not words on the page; an unclosed one runs to the end.
_SCRIPT_STYLE = re.compile(r"<(script|style)\b[^<>]*+>.*?(?:</\1\s*>|\Z)", re.DOTALL | re.IGNORECASE)
_JSX_COMPONENT = re.compile(r"^</?[A-Z][\w.]*(?=[\s/>]|$)")
_ADMONITION = re.compile(r"^ {0,3}:::\s*(\w+)?\s*(.*)$")
_HEADING = re.compile(r"#{1,6}\s")
_ANCHOR_ID = re.compile(r"[\w.-]+")
_IMAGE = re.compile(r"!\[([^\[\]]{0,1000}+)\]\([^()]{0,2000}+\)")
_BR = re.compile(r"(?<!\s)\s*+<br\s*+/?>\s*+", re.IGNORECASE)
# Inline HTML tags worth unwrapping; a closed list so that `Map<String>` or `a <b> c` in prose survive.
_INLINE_TAGS = re.compile(
    r"</?(?:a|abbr|b|big|center|code|del|details|div|em|font|i|ins|kbd|mark|p|s|small|span|strike|strong|"
    r"sub|summary|sup|u|hr|img)(?:\s[^<>]*)?/?>",
    re.IGNORECASE,
)
_ALT = re.compile(r"\balt\s*=\s*[\"']([^\"']+)[\"']")
_BACKTICKS = re.compile(r"`+")
_TEXT_NODE = re.compile(r">([^<>{}]*+)<")
_TAIL_TEXT = re.compile(r">([^<>{}]*+)\Z")
_LETTER = re.compile(r"[^\W\d_]")
_PROSE_VALUE = re.compile(
    r"\b(?:question|answer|title|summary|description|caption)\s*[:=]\s*\{?\s*(\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')"
)


def split_front_matter(text: str) -> tuple[dict[str, Any], str, str | None]:
    """(front matter as JSON-safe dict, body, parse error or None); text without front matter is all body."""
    match = _FRONT_MATTER.match(text)
    if not match:
        return {}, text.lstrip("\ufeff"), None
    body = text[match.end() :]
    try:
        parsed = frontmatter.load(match.group(1))
    except frontmatter.FrontMatterError as exc:
        return {}, body, f"front matter ignored: {exc}"
    except yaml.YAMLError as exc:
        return {}, body, f"front matter is not valid YAML: {str(exc).splitlines()[0]}"
    except (ValueError, TypeError, AttributeError, OverflowError, RecursionError) as exc:  # 2026-13-45, a bad tag
        return {}, body, f"front matter has a value YAML cannot read: {str(exc).splitlines()[0] if str(exc) else exc!r}"
    if parsed is not None and not isinstance(parsed, dict):
        # "---\nFoo\n---": two thematic breaks around a paragraph (or a setext heading), not front matter.
        return {}, text.lstrip("\ufeff"), None
    return parsed or {}, body, None


def json_safe(value: Any) -> Any:
    """YAML values (dates, nested lists and maps) as plain JSON values."""
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [json_safe(v) for v in value]
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


@cache
def _parser(mdx: bool) -> MarkdownIt:
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"maxNesting": 40}).enable("table").disable(["inline", "text_join"])
    # MDX has no indented code, and a JSX tag is an element of its own, not an HTML block that swallows the
    # lines up to the next blank one (a fence right after `<TabItem>` is code).
    return parser.disable(["code", "html_block"]) if mdx else parser


def looks_like_mdx(body: str) -> bool:
    """Whether Markdown is written as MDX: an import/export statement or a JSX component starting a line that is
    not code (as CommonMark reads it: a JavaScript example in a fence is no sign)."""
    return _mdx_signs(body, _code_ranges(body, mdx=False))


def _mdx_signs(body: str, code_ranges: list[tuple[int, int, str]]) -> bool:
    code = {n for start, end, _ in code_ranges for n in range(start, end)}
    lines = body.split("\n")
    return any((_ESM.match(line) or _JSX_COMPONENT.match(line)) and n not in code for n, line in enumerate(lines))


def _code_ranges(body: str, mdx: bool) -> list[tuple[int, int, str]]:
    """(first line, end line, language) of every code block, as the CommonMark parser reads the document."""
    ranges: list[tuple[int, int, str]] = []
    for token in _parser(mdx).parse(body):
        if token.type in ("fence", "code_block") and token.map:
            start, end = token.map
            if not ranges or start >= ranges[-1][1]:
                ranges.append((start, end, token.info.strip().split(" ")[0].lower() if token.info else ""))
    return ranges


def first_h1(text: str) -> str:
    """The text of the document's first top-level H1 (ATX or setext); `#` lines inside code do not count."""
    tokens = _parser(False).parse(text)  # cleaned text: MDX statements and components are gone
    for token, inline in zip(tokens, tokens[1:], strict=False):
        if token.type == "heading_open" and token.tag == "h1" and token.level == 0:
            return " ".join(inline.content.split())
    return ""


def clean_markdown(body: str, *, mdx: bool | None = None) -> str:
    """The body's Markdown without MDX statements, JSX/HTML markup and comments; code is left exactly as written.

    `mdx`: the file is MDX (no indented code); None decides from the text (`looks_like_mdx`).
    """
    # The parser counts a lone CR as a line break too; so must the line numbers its code ranges refer to.
    body = body.replace("\r\n", "\n").replace("\r", "\n")
    ranges = _code_ranges(body, mdx=bool(mdx))
    if mdx is None and _mdx_signs(body, ranges):
        ranges = _code_ranges(body, mdx=True)
    lines = body.split("\n")
    out: list[str] = []
    done = 0
    for start, end, language in ranges:
        out.extend(_clean_prose(lines[done:start]))
        code = lines[start:end]
        if language == "mermaid":
            # In diagram labels `<br/>` is a line break; the words matter, the markup does not.
            code = [code[0], *(_BR.sub(" ", line) for line in code[1:])]
        out.extend(code)
        done = end
    out.extend(_clean_prose(lines[done:]))
    while out and not out[0].strip():
        out.pop(0)
    while out and not out[-1].strip():
        out.pop()
    return "\n".join(out) + "\n"


def code_spans(line: str) -> list[tuple[int, int]]:
    """Inline code spans of one line as (start, end): a run of N backticks up to the next run of exactly N.

    One pass over the runs (each run's next run of the same length is found right to left), so a line of
    thousands of backticks costs as much as their number, never its square.
    """
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(line)]
    following: list[int | None] = [None] * len(runs)
    last: dict[int, int] = {}
    for i in range(len(runs) - 1, -1, -1):
        size = runs[i][1] - runs[i][0]
        following[i] = last.get(size)
        last[size] = i
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(runs):
        j = following[i]
        if j is not None and runs[j][0] > runs[i][1]:
            spans.append((runs[i][0], runs[j][1]))
            i = j + 1
        else:
            i += 1
    return spans


def _hide_code(text: str, codes: list[str]) -> str:
    """`text` with every inline code span replaced by a placeholder; the spans appended to `codes`."""
    out: list[str] = []
    for line in text.split("\n"):
        pieces, at = [], 0
        for start, end in code_spans(line):
            codes.append(line[start:end])
            pieces += [line[at:start], f"\x00{len(codes) - 1}\x00"]
            at = end
        out.append("".join([*pieces, line[at:]]))
    return "\n".join(out)


def _drop_mdx_comments(text: str) -> str:
    """`{/* ... */}` removed; an unclosed one is kept (one forward search each: linear)."""
    out: list[str] = []
    at = 0
    while True:
        start = text.find("{/*", at)
        end = text.find("*/}", start + 3) if start >= 0 else -1
        if end < 0:
            return "".join([*out, text[at:]])
        out.append(text[at:start])
        at = end + 3


def _drop_markup_comments(text: str) -> str:
    """Prose without HTML/MDX comments, scripts and styles; inline code spans keep theirs."""
    codes: list[str] = []
    hidden = _hide_code(text.replace("\x00", ""), codes)
    hidden = _SCRIPT_STYLE.sub("", _drop_mdx_comments(_HTML_COMMENT.sub("", hidden)))
    return re.sub(r"\x00(\d+)\x00", lambda m: codes[int(m.group(1))], hidden)


def _clean_prose(segment: list[str]) -> list[str]:
    """Prose lines (no code among them) cleaned of MDX statements and markup, blank runs collapsed to one."""
    if not segment:
        return []
    lines = _drop_markup_comments("\n".join(segment)).split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if _ESM.match(line):
            # An MDX import/export statement runs to the next blank line.
            while i < len(lines) and lines[i].strip():
                i += 1
            continue
        admonition = _ADMONITION.match(line)
        if admonition:
            kind, label = admonition.group(1), admonition.group(2).strip()
            if kind:
                out.append(f"**{label or kind.capitalize()}:**")
            i += 1
            continue
        if _TAG_START.match(line):
            pieces, i = _markup_block(lines, i)
            out.extend(pieces)
            continue
        out.append(_clean_inline(line) if line.strip() else "")
        i += 1
    collapsed: list[str] = []
    for line in out:
        if line.strip() or not collapsed or collapsed[-1].strip():
            collapsed.append(line if line.strip() else "")
    return collapsed


def _drop_heading_anchor(line: str) -> str:
    """`## Title {#anchor}` as `## Title` (string operations: a regex here backtracked on long runs of spaces)."""
    stripped = line.rstrip()
    if not (stripped.endswith("}") and _HEADING.match(line)):
        return line
    start = stripped.rfind("{#")
    if start < 0 or not _ANCHOR_ID.fullmatch(stripped, start + 2, len(stripped) - 1):
        return line
    head = stripped[:start].rstrip()
    return head if _HEADING.match(head + " ") and head.strip("#") else line


def _clean_inline(line: str) -> str:
    line = _drop_heading_anchor(line)
    codes: list[str] = []
    hidden = _hide_code(line, codes)
    hidden = _IMAGE.sub(lambda m: f"(image: {m.group(1).strip()})" if m.group(1).strip() else "", hidden)
    hidden = _BR.sub(" ", hidden)
    hidden = _INLINE_TAGS.sub("", hidden)
    if hidden.strip() == "" and line.strip() != "":
        return ""
    return re.sub(r"\x00(\d+)\x00", lambda m: codes[int(m.group(1))], hidden)


def _markup_block(lines: list[str], start: int) -> tuple[list[str], int]:
    """Consume HTML/JSX starting at `lines[start]` up to the end of a line where no tag or `{}` is open.

    Returns the prose found in it (text nodes and prose-like attribute values such as an FAQ's questions and
    answers or an image's alt text) as Markdown lines, and the index of the next line to read.
    """
    # A context stack: "tag" (inside `<...>`; "/tag" for a closing one), "expr" (inside `{...}`), "text"
    # (JSX children inside an expression). Quotes count only in tags and expressions, not in prose.
    stack: list[str] = []
    quote: str | None = None
    i = start
    while i < len(lines) and i - start < 300:
        line = lines[i]
        j = 0
        while j < len(line):
            ch, top = line[j], (stack[-1] if stack else "")
            nxt = line[j + 1 : j + 2]
            if quote:
                if ch == "\\":
                    j += 1
                elif ch == quote:
                    quote = None
            elif top in ("tag", "/tag"):
                if ch in "\"'`" and top == "tag":
                    quote = ch
                elif ch == "{":
                    stack.append("expr")
                elif ch == ">":
                    closing = stack.pop() == "/tag" or line[:j].rstrip().endswith("/")
                    if not closing and stack and stack[-1] in ("expr", "text"):
                        stack.append("text")
            elif top == "expr":
                if ch in "\"'`":
                    quote = ch
                elif ch == "{":
                    stack.append("expr")
                elif ch == "}":
                    stack.pop()
                elif ch == "<" and nxt.isalpha():
                    stack.append("tag")
            elif top == "text":
                if ch == "<" and nxt == "/":
                    stack[-1] = "/tag"
                elif ch == "<" and nxt.isalpha():
                    stack.append("tag")
                elif ch == "{":
                    stack.append("expr")
            elif ch == "<" and (nxt.isalpha() or nxt == "/"):
                stack.append("/tag" if nxt == "/" else "tag")
            j += 1
        i += 1
        if not stack and quote is None:
            return _prose_in_markup("\n".join(lines[start:i])), i
    # Unbalanced markup: take only its first line rather than swallow the rest of the document.
    return _prose_in_markup(lines[start]), start + 1


def _prose_in_markup(markup: str) -> list[str]:
    found: list[tuple[int, str]] = []
    for match in _TEXT_NODE.finditer(markup):
        if _LETTER.search(match.group(1)):
            found.append((match.start(1), match.group(1)))
    for match in _PROSE_VALUE.finditer(markup):
        found.append((match.start(1), match.group(1)[1:-1].replace('\\"', '"').replace("\\'", "'")))
    for match in _ALT.finditer(markup):
        found.append((match.start(1), f"(image: {match.group(1).strip()})"))
    # A tag that closes on its own line with text after it (`<p>Some text`) leaves trailing prose too.
    tail = _TAIL_TEXT.search(markup)
    if tail and _LETTER.search(tail.group(1)):
        found.append((tail.start(1), tail.group(1)))
    pieces = [" ".join(text.split()) for _, text in sorted(set(found))]
    pieces = [p for p in pieces if p]
    out: list[str] = []
    for piece in pieces:
        if out and out[-1].endswith("?"):
            out[-1] = f"{out[-1]}\n{piece}"
        else:
            out.append(piece)
    lines: list[str] = []
    for piece in out:
        lines.extend([piece, ""])
    return lines
