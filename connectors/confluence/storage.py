"""Confluence storage format (XHTML with `ac:`/`ri:` elements) to Markdown, with the standard library only.

The page is parsed into a small tree first, because tables, nested lists and macros need their children before
they can be written. Whatever is not understood keeps its text, so no words are lost to an unknown macro.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from connectors.confluence.storage_tree import VOID, Node, descendants, parse, raw_text

_SPACES = re.compile(r"[ \t\r\n\f\v\u00a0]+")
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_CODE_MACROS = frozenset({"code", "noformat"})
_PANEL_MACROS = {"info": "Info", "note": "Note", "warning": "Warning", "tip": "Tip"}
_SKIPPED_MACROS = frozenset({"toc", "children", "anchor", "recently-updated", "pagetree", "attachments"})
_BLOCK_TAGS = frozenset(
    {
        "p",
        "div",
        "ul",
        "ol",
        "table",
        "pre",
        "blockquote",
        "hr",
        "section",
        "ac:layout",
        "ac:layout-section",
        "ac:layout-cell",
        "ac:rich-text-body",
        "ac:task-list",
        *_HEADINGS,
    }
)


def _is_block(node: Node) -> bool:
    if node.tag in _BLOCK_TAGS:
        return True
    if node.tag == "ac:structured-macro":
        name = node.attrs.get("ac:name", "")
        return name in _CODE_MACROS or name in _PANEL_MACROS or node.find("ac:rich-text-body") is not None
    return False


class _Renderer:
    def __init__(self, users: Mapping[str, str]) -> None:
        self.users = users

    # Blocks -----------------------------------------------------------------------------------------------

    def blocks(self, node: Node) -> list[str]:
        out: list[str] = []
        inline: list[str] = []

        def flush() -> None:
            text = _clean_inline("".join(inline))
            if text:
                out.append(text)
            inline.clear()

        for child in node.children:
            if isinstance(child, Node) and _is_block(child):
                flush()
                out.extend(self.block(child))
            else:
                inline.append(self.inline(child))
        flush()
        return out

    def block(self, node: Node) -> list[str]:
        tag = node.tag
        if tag in _HEADINGS:
            text = _clean_inline(self.inline_children(node))
            return [f"{'#' * _HEADINGS[tag]} {text}"] if text else []
        if tag in ("ul", "ol"):
            lines = self.list_lines(node, "")
            return ["\n".join(lines)] if lines else []
        if tag == "ac:task-list":
            return ["\n".join(self.task_lines(node))]
        if tag == "table":
            table = self.table(node)
            return [table] if table else []
        if tag == "pre":
            return [_fence(raw_text(node), "")]
        if tag == "hr":
            return ["---"]
        if tag == "blockquote":
            return [_quote("\n\n".join(self.blocks(node)))]
        if tag == "ac:structured-macro":
            return self.macro_block(node)
        return self.blocks(node)

    def macro_block(self, node: Node) -> list[str]:
        name = node.attrs.get("ac:name", "")
        if name in _CODE_MACROS:
            body = node.find("ac:plain-text-body")
            return [_fence(raw_text(body) if body else "", node.param("language"))]
        body = node.find("ac:rich-text-body")
        inner = self.blocks(body) if body else []
        if name in _PANEL_MACROS and inner:
            title = node.param("title")
            label = f"**{_PANEL_MACROS[name]}{': ' + title if title else ''}**"
            return [_quote("\n\n".join([label, *inner]))]
        if name in ("expand", "details") and node.param("title"):
            return [f"**{node.param('title')}**", *inner]
        return inner

    def list_lines(self, node: Node, indent: str) -> list[str]:
        lines: list[str] = []
        number = 0
        for item in node.children:
            if not isinstance(item, Node) or item.tag != "li":
                continue
            number += 1
            marker = f"{number}." if node.tag == "ol" else "-"
            pad = indent + " " * (len(marker) + 1)
            parts: list[str] = []
            inline: list[str] = []
            nested: list[str] = []
            for child in item.children:
                if isinstance(child, Node) and child.tag in ("ul", "ol"):
                    nested.extend(self.list_lines(child, pad))
                elif isinstance(child, Node) and _is_block(child):
                    parts.append(_clean_inline("".join(inline)))
                    inline.clear()
                    parts.extend(self.block(child))
                else:
                    inline.append(self.inline(child))
            parts.append(_clean_inline("".join(inline)))
            parts = [part for part in parts if part]
            first = parts[0] if parts else ""
            # A paragraph-wrapped item reads as one line; code blocks and tables keep their own lines.
            lines.append(f"{indent}{marker} {first}".rstrip())
            for extra in parts[1:]:
                lines.extend(pad + line if line else "" for line in extra.splitlines())
            lines.extend(nested)
        return lines

    def task_lines(self, node: Node) -> list[str]:
        lines = []
        for task in node.children:
            if not isinstance(task, Node) or task.tag != "ac:task":
                continue
            status = task.find("ac:task-status")
            done = status is not None and raw_text(status).strip() == "complete"
            body = task.find("ac:task-body")
            text = _clean_inline(" ".join(self.blocks(body))) if body else ""
            lines.append(f"- [{'x' if done else ' '}] {text}".rstrip())
        return lines

    def table(self, node: Node) -> str:
        rows: list[list[str]] = []
        for row in descendants(node, "tr"):
            cells = [
                _clean_inline(" ".join(self.blocks(cell)).replace("\n", " ")).replace("|", "\\|")
                for cell in row.children
                if isinstance(cell, Node) and cell.tag in ("th", "td")
            ]
            if cells:
                rows.append(cells)
        if not rows:
            return ""
        width = max(len(row) for row in rows)
        rows = [row + [""] * (width - len(row)) for row in rows]
        lines = ["| " + " | ".join(rows[0]) + " |", "|" + " --- |" * width]
        lines.extend("| " + " | ".join(row) + " |" for row in rows[1:])
        return "\n".join(lines)

    # Inline -----------------------------------------------------------------------------------------------

    def inline_children(self, node: Node) -> str:
        return "".join(self.inline(child) for child in node.children)

    def inline(self, node: Node | str) -> str:
        if isinstance(node, str):
            return _SPACES.sub(" ", node)
        tag = node.tag
        if tag == "br":
            return "\n"
        if tag in ("strong", "b"):
            return _wrap(self.inline_children(node), "**")
        if tag in ("em", "i"):
            return _wrap(self.inline_children(node), "_")
        if tag in ("s", "del"):
            return _wrap(self.inline_children(node), "~~")
        if tag == "code":
            return _wrap(raw_text(node), "`")
        if tag == "a":
            text = _clean_inline(self.inline_children(node))
            href = node.attrs.get("href", "")
            if not href:
                return text
            return f"[{text}]({href})" if text and text != href else href
        if tag == "ac:link":
            return self.link(node)
        if tag == "ri:user":
            return self.mention(node)
        if tag == "time":
            return node.attrs.get("datetime", "")
        if tag == "ac:image":
            return self.image(node)
        if tag == "ac:emoticon":
            return _emoticon(node)
        if tag in ("ac:parameter", "ac:placeholder", "colgroup"):
            return ""
        if tag == "ac:structured-macro":
            return self.inline_macro(node)
        if _is_block(node):
            return " ".join(self.block(node))
        return self.inline_children(node)

    def inline_macro(self, node: Node) -> str:
        name = node.attrs.get("ac:name", "")
        if name == "jira":
            return node.param("key")
        if name == "status":
            title = node.param("title")
            return f"[{title}]" if title else ""
        if name in _SKIPPED_MACROS:
            return ""
        return self.inline_children(node)

    def link(self, node: Node) -> str:
        body = node.find("ac:plain-text-link-body") or node.find("ac:link-body")
        label = _clean_inline(raw_text(body) if body and body.tag.startswith("ac:plain") else "")
        if body is not None and not label:
            label = _clean_inline(self.inline_children(body))
        user = node.find("ri:user")
        if user is not None:
            return f"@{label}" if label else self.mention(user)
        page = node.find("ri:page") or node.find("ri:blog-post")
        if page is not None:
            return label or page.attrs.get("ri:content-title", "")
        attachment = node.find("ri:attachment")
        if attachment is not None:
            return label or attachment.attrs.get("ri:filename", "")
        url = node.find("ri:url")
        if url is not None:
            href = url.attrs.get("ri:value", "")
            return f"[{label}]({href})" if label else href
        return label

    def image(self, node: Node) -> str:
        """An image as its words: alt text (else title), then its caption, as `(image: alt: caption)`."""
        alt = _clean_inline(node.attrs.get("ac:alt") or node.attrs.get("ac:title") or "").replace("\n", " ")
        caption_node = node.find("ac:caption")
        caption = ""
        if caption_node is not None:
            caption = _clean_inline(" ".join(self.blocks(caption_node))).replace("\n", " ")
        words = [w for w in dict.fromkeys((alt, caption)) if w]
        return f" (image: {': '.join(words)}) " if words else ""

    def mention(self, node: Node) -> str:
        for key in ("ri:account-id", "ri:userkey", "ri:username"):
            ident = node.attrs.get(key)
            if ident:
                name = self.users.get(ident) or (ident if key == "ri:username" else "unknown user")
                return f"@{name}"
        return "@unknown user"


def _emoticon(node: Node) -> str:
    """What Confluence shows for an emoticon: its emoji (the fallback), else its short name."""
    for key in ("ac:emoji-fallback", "ac:emoji-shortname"):
        value = node.attrs.get(key, "").strip()
        if value:
            return value
    name = node.attrs.get("ac:name", "").strip()
    return f":{name}:" if name else ""


def _clean_inline(text: str) -> str:
    lines = [_SPACES.sub(" ", line).strip() for line in text.split("\n")]
    return "\n".join(line for line in lines if line)


def _wrap(text: str, mark: str) -> str:
    inner = text.strip()
    if not inner:
        return text
    lead = " " if text[:1].isspace() else ""
    trail = " " if text[-1:].isspace() else ""
    return f"{lead}{mark}{inner}{mark}{trail}"


def _fence(code: str, language: str) -> str:
    code = code.strip("\n")
    fence = "```"
    while fence in code:
        fence += "`"
    return f"{fence}{language}\n{code}\n{fence}"


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines())


def storage_to_markdown(storage: str, users: Mapping[str, str] | None = None) -> str:
    """Markdown for a page body in storage format; `users` maps account ids/user keys to display names."""
    root = parse(storage)
    try:
        blocks = _Renderer(users or {}).blocks(root)
    except RecursionError:
        # Nesting deeper than any editor produces (hostile or broken markup): keep the words, lose the layout.
        return _flat_text(root)
    return "\n\n".join(block for block in blocks if block.strip()).strip()


def _flat_text(root: Node) -> str:
    """The text of every node in document order, without recursion; block elements break lines."""
    parts: list[str] = []
    stack: list[Node | str] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            parts.append(node)
            continue
        if node.tag in _BLOCK_TAGS or node.tag in VOID:
            parts.append("\n")
        stack.extend(reversed(node.children))
    return _clean_inline("".join(parts))
