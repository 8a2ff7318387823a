"""Confluence storage format (XHTML with `ac:`/`ri:` elements) parsed into a small tree, with html.parser only."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

_CDATA = re.compile(r"<!\[CDATA\[(.*?)\]\]>", re.DOTALL)
VOID = frozenset({"br", "hr", "img", "col", "input", "wbr", "meta", "link"})


@dataclass
class Node:
    """An element: its tag, attributes, and children (elements and text) in order."""

    tag: str
    attrs: dict[str, str] = field(default_factory=dict)
    children: list[Node | str] = field(default_factory=list)

    def find(self, tag: str) -> Node | None:
        """The first descendant with this tag, depth first."""
        for child in self.children:
            if isinstance(child, Node):
                if child.tag == tag:
                    return child
                found = child.find(tag)
                if found is not None:
                    return found
        return None

    def param(self, name: str) -> str:
        """A macro's `ac:parameter` value by name (direct children only)."""
        for child in self.children:
            if not isinstance(child, Node) or child.tag != "ac:parameter":
                continue
            if child.attrs.get("ac:name") == name:
                return raw_text(child).strip()
        return ""


class _TreeBuilder(HTMLParser):
    """Builds the tree as the parser reads, closing unbalanced tags up to the matching one."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("root")
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Node(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        # Storage format is XHTML, but pasted content is not always balanced: close up to the matching tag.
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def raw_text(node: Node) -> str:
    """Every text under `node`, as written."""
    parts: list[str] = []
    for child in node.children:
        parts.append(child if isinstance(child, str) else raw_text(child))
    return "".join(parts)


def descendants(node: Node, tag: str) -> list[Node]:
    """The elements with `tag` under `node`, not looking inside a nested table."""
    found: list[Node] = []
    for child in node.children:
        if isinstance(child, Node):
            if child.tag == tag:
                found.append(child)
            elif child.tag != "table":  # a nested table's rows belong to that table
                found.extend(descendants(child, tag))
    return found


def parse(storage: str) -> Node:
    """The tree of a page body in storage format, under a `root` node."""
    # CDATA handling differs between Python patch releases; escaping it up front gives one behaviour.
    source = _CDATA.sub(lambda m: html.escape(m.group(1), quote=False), storage)
    builder = _TreeBuilder()
    builder.feed(source)
    builder.close()
    return builder.root
