"""HTML mail's quoted history (Gmail's `gmail_quote`, `blockquote type=cite`, Outlook's reply header) as `>` lines.

The quote containers that mail clients write are turned into plain `>`-quoted text before the page becomes
text, so the plain-text rules decide what stays: history below a top-posted reply goes, an inline answer keeps
the quoted line it answers. A Gmail forward (its `gmail_quote` holds "Forwarded message") is left as content.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_QUOTES = (
    "//div[contains(concat(' ', normalize-space(@class), ' '), ' gmail_quote ')]"
    " | //blockquote[contains(concat(' ', normalize-space(@class), ' '), ' gmail_quote ')]"
    " | //blockquote[@type='cite']"
    " | //div[contains(concat(' ', normalize-space(@class), ' '), ' yahoo_quoted ')]"
    " | //div[contains(concat(' ', normalize-space(@class), ' '), ' moz-cite-prefix ')]"
    " | //div[@id='divRplyFwdMsg' or @id='appendonsend']"
)
_FORWARD = re.compile(r"Forwarded message|Weitergeleitete Nachricht|Message transféré|Begin forwarded message", re.I)


def quote_html(html: str, to_text: Callable[[str], str]) -> str:
    """The page with each outermost quote container replaced by its text, every line prefixed with `> `."""
    if not re.search(r"gmail_quote|type=[\"']?cite|yahoo_quoted|moz-cite-prefix|divRplyFwdMsg|appendonsend", html):
        return html
    try:
        from lxml import etree
        from lxml import html as lxml_html

        root = lxml_html.document_fromstring(html)
    except (ValueError, etree.ParserError):
        return html
    found = root.xpath(_QUOTES)
    outermost = [el for el in found if not any(a in found for a in el.iterancestors())]
    for element in outermost:
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
