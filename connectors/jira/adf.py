"""Atlassian Document Format (the JSON that Jira Cloud's v3 API returns for rich text) rendered as plain text.

The output is readable on its own and keeps what retrieval needs: headings, list structure, code, link targets
and @mentions. Unknown node types degrade to their children's text, so a new ADF node never loses words.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

_BLOCK_SEPARATOR = "\n\n"


def adf_to_text(node: Any) -> str:
    """Plain text for an ADF document, a bare string (Server/Data Center wiki markup), or None."""
    if node is None:
        return ""
    if isinstance(node, str):
        return node.strip()
    if not isinstance(node, dict):
        return str(node)
    try:
        text = _block(node, depth=0)
    except RecursionError:
        # Nesting deeper than any editor produces (hostile or broken JSON): keep the words, lose the layout.
        text = _flat_text(node)
    # Collapse the blank lines that nested blocks leave behind.
    lines = [line.rstrip() for line in text.splitlines()]
    out: list[str] = []
    for line in lines:
        if not line and out and not out[-1]:
            continue
        out.append(line)
    return "\n".join(out).strip()


def _int(value: Any, default: int) -> int:
    """An integer attribute (heading level, list start); a malformed one takes the default."""
    try:
        return int(value) if value not in (None, "") else default
    except (TypeError, ValueError, OverflowError):
        return default


def _flat_text(root: dict[str, Any]) -> str:
    """Every text node's text in document order, without recursion."""
    words: list[str] = []
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        if node.get("type") == "text" and isinstance(node.get("text"), str):
            words.append(node["text"])
        stack.extend(reversed(_children(node)))
    return " ".join(words)


def _children(node: dict[str, Any]) -> list[dict[str, Any]]:
    content = node.get("content")
    return [child for child in content if isinstance(child, dict)] if isinstance(content, list) else []


def _attrs(node: dict[str, Any]) -> dict[str, Any]:
    attrs = node.get("attrs")
    return attrs if isinstance(attrs, dict) else {}


def _blocks(nodes: list[dict[str, Any]], depth: int) -> str:
    parts = [_block(child, depth) for child in nodes]
    return _BLOCK_SEPARATOR.join(part for part in parts if part.strip())


def _block(node: dict[str, Any], depth: int) -> str:
    kind = node.get("type")
    if kind in ("doc", "blockquote", "panel", "layoutSection", "layoutColumn", "bodiedExtension"):
        inner = _blocks(_children(node), depth)
        if kind == "blockquote":
            return "\n".join(f"> {line}" if line else ">" for line in inner.splitlines())
        return inner
    if kind in ("expand", "nestedExpand"):  # nestedExpand: an expand inside a table cell
        title = str(_attrs(node).get("title") or "").strip()
        inner = _blocks(_children(node), depth)
        return f"{title}\n{inner}" if title else inner
    if kind == "paragraph":
        return _inline(_children(node))
    if kind == "heading":
        level = _int(_attrs(node).get("level"), 1)
        return "#" * max(1, min(level, 6)) + " " + _inline(_children(node))
    if kind in ("bulletList", "orderedList", "taskList", "decisionList"):
        return _list(node, depth)
    if kind == "codeBlock":
        language = str(_attrs(node).get("language") or "")
        code = "".join(_inline_text(child) for child in _children(node))
        return f"```{language}\n{code}\n```"
    if kind == "rule":
        return "---"
    if kind == "table":
        return "\n".join(_table_row(row) for row in _children(node))
    if kind in ("mediaSingle", "mediaGroup"):
        media = [m for m in _children(node) if m.get("type") != "caption"]
        names = [str(_attrs(m).get("alt") or _attrs(m).get("id") or "") for m in media]
        label = "[attachment" + (": " + ", ".join(n for n in names if n) if any(names) else "") + "]"
        # mediaSingle's caption is what the page shows under the image.
        captions = [_inline(_children(c)).strip() for c in _children(node) if c.get("type") == "caption"]
        return " ".join([label, *(c for c in captions if c)])
    if kind in ("blockCard", "embedCard"):
        return str(_attrs(node).get("url") or "")
    if kind in ("text", "mention", "emoji", "hardBreak", "inlineCard", "status", "date"):
        return _inline([node])
    # Unknown blocks: keep whatever text their children carry.
    children = _children(node)
    if children and all(child.get("type") in _INLINE for child in children):
        return _inline(children)
    return _blocks(children, depth)


def _list(node: dict[str, Any], depth: int) -> str:
    kind = node.get("type")
    start = _int(_attrs(node).get("order"), 1)
    indent = "  " * depth
    lines: list[str] = []
    for n, item in enumerate(_children(node)):
        if kind == "orderedList":
            marker = f"{start + n}."
        elif kind == "taskList":
            marker = "[x]" if _attrs(item).get("state") == "DONE" else "[ ]"
        elif kind == "decisionList":
            marker = "Decision:"
        else:
            marker = "-"
        if item.get("type") in ("taskItem", "decisionItem"):
            body = _inline(_children(item))
            lines.append(f"{indent}{marker} {body}")
            continue
        parts: list[str] = []
        for child in _children(item):
            if child.get("type") in ("bulletList", "orderedList", "taskList"):
                parts.append(_list(child, depth + 1))
            else:
                text = _block(child, depth + 1)
                parts.append(text if not parts else indent + "  " + text)
        lines.append(f"{indent}{marker} " + "\n".join(p for p in parts if p))
    return "\n".join(lines)


def _table_row(row: dict[str, Any]) -> str:
    cells = [_blocks(_children(cell), 0).replace("\n", " ") for cell in _children(row)]
    return "| " + " | ".join(cells) + " |"


_INLINE = {"text", "mention", "emoji", "hardBreak", "inlineCard", "status", "date", "placeholder"}


def _inline(nodes: list[dict[str, Any]]) -> str:
    return "".join(_inline_text(node) for node in nodes)


def _inline_text(node: dict[str, Any]) -> str:
    kind = node.get("type")
    attrs = _attrs(node)
    if kind == "text":
        return _marked(str(node.get("text") or ""), node.get("marks"))
    if kind == "mention":
        name = str(attrs.get("text") or attrs.get("id") or "someone")
        return name if name.startswith("@") else "@" + name
    if kind == "emoji":
        return str(attrs.get("text") or attrs.get("shortName") or "")
    if kind == "hardBreak":
        return "\n"
    if kind == "inlineCard":
        return str(attrs.get("url") or "")
    if kind == "status":
        return f"[{attrs.get('text') or ''}]"
    if kind == "date":
        try:
            stamp = datetime.fromtimestamp(int(str(attrs.get("timestamp"))) / 1000, tz=UTC)
        except (TypeError, ValueError, OverflowError, OSError):
            return ""
        return stamp.date().isoformat()
    if kind == "placeholder":
        return ""
    return _inline(_children(node))


def _marked(text: str, marks: Any) -> str:
    if not isinstance(marks, list):
        return text
    href = None
    for mark in marks:
        if not isinstance(mark, dict):
            continue
        if mark.get("type") == "code":
            text = f"`{text}`"
        elif mark.get("type") == "link":
            href = _attrs(mark).get("href")
    if href and href != text:
        return f"{text} ({href})"
    return text
