"""JIRA Server/Data Center wiki markup rendered to the plain text model of Cloud's ADF (`connectors.jira.adf`).

`jira2markdown` (a maintained, grammar-based converter) turns the markup into Markdown; this module then writes
that Markdown the way `adf_to_text` writes ADF: `# ` headings, `- ` and `1. ` lists, fenced code, `> ` quotes,
`text (url)` links, `@Name` mentions, `| a | b |` table rows, `[attachment: name]` images, and no emphasis marks.
Code blocks pass through untouched. Markup the converter cannot read is kept as it was, never dropped.
The grammar costs about a fifth of a second of CPU per body, so a source renders markup only when its config
says `render_wiki = true`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_FENCE = re.compile(r"^\s*```")
_IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]*)\)")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_AUTOLINK = re.compile(r"<((?:https?|ftp|mailto|file):[^>\s]+)>")
_STRONG = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_EMPHASIS = re.compile(r"(?<![\w*])[*_](?=\S)([^*_\n]+?)(?<=\S)[*_](?![\w*])")
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
_HTML = re.compile(r"</?(?:u|font|sup|sub|span|ins|del)\b[^>]*>")
_TABLE_RULE = re.compile(r"^\s*\|(?:\s*:?-{3,}:?\s*\|)+\s*$")
_TABLE_ROW = re.compile(r"^(\s*)\|(.*)\|\s*$")
_ORDERED = re.compile(r"^(\s*)1\. ")
# A {code} or {noformat} block, read here rather than by the grammar: logs and stack traces are most of a
# body's characters, and a parser spends nearly all its time on them for nothing.
_CODE_BLOCK = re.compile(r"\{(code|noformat)(?::([^}]*))?\}(.*?)\{\1\}", re.S)
_LANGUAGE = re.compile(r"^(?:language=)?([A-Za-z0-9#+-]+)$")
_WIKI_HINT = re.compile(
    r"\{(?:code|noformat|quote|panel|color)|\[[^\]\n]*\||\[~|^h[1-6]\. |^bq\. |[*_+\-^~]\S|!\S+!|\|\|", re.M
)


def wiki_to_text(markup: str, people: Mapping[str, str] | None = None) -> str:
    """Plain text for a Server/Data Center wiki markup body; `people` maps user names and keys to display names."""
    text = markup.strip()
    if not text or not _WIKI_HINT.search(text):
        return text
    parts: list[str] = []
    cursor = 0
    for block in _CODE_BLOCK.finditer(text):
        parts.append(_convert(text[cursor : block.start()], people))
        parts.append(_fence(block.group(2) or "", block.group(3)))
        cursor = block.end()
    parts.append(_convert(text[cursor:], people))
    return _plain("\n".join(part for part in parts if part.strip())).strip()


def _convert(markup: str, people: Mapping[str, str] | None) -> str:
    if not markup.strip() or not _WIKI_HINT.search(markup):
        return markup.strip("\n")
    try:
        from jira2markdown import convert

        return str(convert(markup, usernames=dict(people or {})))
    except Exception:  # noqa: BLE001 (a grammar that cannot read a body keeps the body as written)
        return markup


def _fence(options: str, code: str) -> str:
    first = options.split("|", 1)[0].strip()
    language = match.group(1) if (match := _LANGUAGE.match(first)) and "=" not in first.replace("language=", "") else ""
    body = code.replace("\r\n", "\n").replace("\r", "\n").strip("\n")
    return f"```{language}\n{body}\n```"


def _plain(markdown: str) -> str:
    out: list[str] = []
    in_code = False
    numbers: dict[str, int] = {}
    for line in markdown.splitlines():
        if _FENCE.match(line):
            in_code = not in_code
            out.append(line.strip())
            continue
        if in_code:
            out.append(line)
            continue
        if _TABLE_RULE.match(line):
            continue
        line = _inline(line.rstrip())
        row = _TABLE_ROW.match(line)
        if row:
            cells = [cell.strip() for cell in row.group(2).split("|")]
            line = row.group(1) + "| " + " | ".join(cells) + " |"
        ordered = _ORDERED.match(line)
        if ordered:
            indent = ordered.group(1)
            numbers[indent] = numbers.get(indent, 0) + 1
            line = f"{indent}{numbers[indent]}. " + line[ordered.end() :]
        elif line.strip():
            numbers = {k: v for k, v in numbers.items() if len(k) < len(line) - len(line.lstrip())}
        out.append(line)
    lines: list[str] = []
    for line in out:  # at most one blank line in a row, as `adf_to_text` writes them
        if not line.strip() and lines and not lines[-1].strip():
            continue
        lines.append("" if not line.strip() else line)
    return "\n".join(lines)


def _inline(line: str) -> str:
    line = _IMAGE.sub(lambda m: f"[attachment: {m.group(1) or m.group(2)}]", line)
    line = _LINK.sub(lambda m: m.group(2) if m.group(1) == m.group(2) else f"{m.group(1)} ({m.group(2)})", line)
    line = _AUTOLINK.sub(r"\1", line)
    line = _HTML.sub("", line)
    line = _STRONG.sub(r"\1", line)
    line = _STRIKE.sub(r"\1", line)
    return _EMPHASIS.sub(r"\1", line)
