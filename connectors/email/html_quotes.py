"""HTML mail's quoted history (Gmail's `gmail_quote`, `blockquote type=cite`, Outlook's reply header) as `>` lines.

The quote containers that mail clients write are turned into plain `>`-quoted text before the page becomes
text, so the plain-text rules decide what stays: history below a top-posted reply goes, an inline answer keeps
the quoted line it answers. A Gmail forward (its `gmail_quote` holds "Forwarded message") is left as content.
Gmail's quote sits in a `div.gmail_quote`; a `blockquote.gmail_quote` alone is Gmail's indent button, the
sender's own text. A plain `<blockquote>` is a quote too (the last outermost one, unless it is all the page
holds), and a rule (`<hr>`) right above a "From:" header block is the plain-text separator that starts history.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

_QUOTES = (
    "//div[contains(concat(' ', normalize-space(@class), ' '), ' gmail_quote ')]"
    " | //blockquote[@type='cite']"
    " | //div[contains(concat(' ', normalize-space(@class), ' '), ' yahoo_quoted ')]"
    " | //div[contains(concat(' ', normalize-space(@class), ' '), ' moz-cite-prefix ')]"
    " | //div[@id='divRplyFwdMsg' or @id='appendonsend']"
)
_RULE = "_" * 32  # Outlook's plain-text separator: a splitter for connectors.email.quotes
_HEADER_AFTER_RULE = re.compile(r"\s*(?:From|Von|De|Fra|Från|Van|Od|Da|От)\s?:", re.IGNORECASE)
_FORWARD = re.compile(r"Forwarded message|Weitergeleitete Nachricht|Message transféré|Begin forwarded message", re.I)


def quote_html(html: str, to_text: Callable[[str], str]) -> str:
    """The page with each outermost quote container replaced by its text, every line prefixed with `> `."""
    if not re.search(
        r"gmail_quote|cite|yahoo_quoted|moz-cite-prefix|divRplyFwdMsg|appendonsend|<blockquote|<hr", html, re.I
    ):
        return html
    try:
        from lxml import etree
        from lxml import html as lxml_html

        root = lxml_html.document_fromstring(html)
    except (ValueError, etree.ParserError):
        return html
    _mark_rules(root, lxml_html)
    found = root.xpath(_QUOTES) + _plain_quote(root)
    outermost = [el for el in found if not any(a in found for a in el.iterancestors())]
    for element in outermost:
        if element.getparent() is None:
            continue  # taken already, as a sibling below an Outlook reply header
        source = lxml_html.tostring(element, encoding="unicode")
        if _FORWARD.search(element.text_content()[:400]):
            continue
        if element.get("id") in {"divRplyFwdMsg", "appendonsend"}:
            # Outlook: the reply header div, then the quoted message as its following siblings.
            for sibling in list(element.itersiblings()):
                source += lxml_html.tostring(sibling, encoding="unicode")
                sibling.getparent().remove(sibling)
        text = to_text(source)
        quoted = "\n".join(f"> {line}".rstrip() for line in text.strip("\n").split("\n"))
        pre = lxml_html.Element("pre")
        pre.text = quoted
        pre.tail = element.tail
        element.getparent().replace(element, pre)
    return str(lxml_html.tostring(root, encoding="unicode"))


def _plain_quote(root: Any) -> list[Any]:
    """The last outermost `<blockquote>` that no mail client class names, when the page has text outside it."""
    plain = root.xpath("//blockquote[not(ancestor::blockquote)][not(contains(@class, 'gmail_quote'))][last()]")
    if not plain:
        return []
    inside = plain[0].text_content().strip()
    return plain if root.text_content().strip() != inside else []


def _mark_rules(root: Any, lxml_html: Any) -> None:
    """Each `<hr>` followed by a "From:" line becomes the separator line plain-text Outlook writes there."""
    for rule in root.xpath("//hr"):
        after = (rule.tail or "") + "".join(s.text_content() for s in rule.itersiblings())
        if _HEADER_AFTER_RULE.match(after[:200]):
            marker = lxml_html.Element("pre")
            marker.text = _RULE
            marker.tail = rule.tail
            rule.getparent().replace(rule, marker)
