"""Hypothesis strategies for the parsers' inputs: JSON shaped like the vendors' records, markup-dense text.

Random characters rarely form markup, so the text strategies draw from tokens that do (markers, tags, fences,
entities) mixed with plain words and arbitrary characters.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

# Fast runs are derandomised (the same examples on every run, so CI cannot flake); the slow ones explore.
FAST = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
# Derandomised too, so CI is repeatable; to explore new inputs locally, set derandomize=False here.
DEEP = settings(
    max_examples=600,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

json_scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=12)
)
json_values: st.SearchStrategy[Any] = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=25,
)


def tokens_text(tokens: list[str], max_size: int = 60) -> st.SearchStrategy[str]:
    """Text made of markup tokens, words and arbitrary characters."""
    piece = st.sampled_from(tokens) | st.text(max_size=4) | st.sampled_from(["word", "Alpha", "x_y", "42", " ", "\n"])
    return st.lists(piece, max_size=max_size).map("".join)


MRKDWN_TOKENS = [
    "*", "_", "~", "`", "```", "<", ">", "|", "&lt;", "&gt;", "&amp;", "<@U1>", "<@U2|bo>", "<#C1|general>",
    "<!here>", "<!subteam^S1|@team>", "<!date^1700000000^{date}|Nov 14>", "<http://x.io/a_b_|*label*>",
    "<mailto:a@b.c|mail>", " * ", "*bold*", "_it_", "~st~", ":smile:", "\n```\n", "\\",
]  # fmt: skip

MARKDOWN_TOKENS = [
    "# ", "## ", "###### ", "\n", "\n\n", "    ", "\t", "> ", "- ", "* ", "1. ", "```", "~~~", "```bash\n",
    "\n```\n", "---", "===", "| a | b |\n|---|---|\n", "| 1 | 2 |", "<!--", "-->", "<div>", "</div>", "<br/>",
    "<script>", "</script>", "<style>", "</style>", "<Tabs>", "</Tabs>", "<Foo bar={1}/>", "{/* c */}", "{",
    "}", "import X from 'y'\n", "export const a = 1\n", ":::note", ":::", "![alt](img.png)", "[link](http://x)",
    "`code`", "**b**", "_i_", "{#anchor}", "&amp;", "\f", "\r\n", "\r", "\\",
]  # fmt: skip

STORAGE_TOKENS = [
    "<p>", "</p>", "<h1>", "</h1>", "<h3>", "</h3>", "<ul>", "</ul>", "<ol>", "</ol>", "<li>", "</li>",
    "<table>", "</table>", "<tr>", "</tr>", "<td>", "</td>", "<th>", "</th>", "<br/>", "<hr/>", "<pre>", "</pre>",
    "<strong>", "</strong>", "<em>", "</em>", "<code>", "</code>", "<a href=\"http://x\">", "</a>",
    "<blockquote>", "</blockquote>", "<ac:structured-macro ac:name=\"code\">", "<ac:structured-macro ac:name=\"info\">",
    "<ac:structured-macro ac:name=\"expand\">", "<ac:structured-macro ac:name=\"jira\">", "</ac:structured-macro>",
    "<ac:parameter ac:name=\"title\">", "<ac:parameter ac:name=\"language\">", "</ac:parameter>",
    "<ac:rich-text-body>", "</ac:rich-text-body>", "<ac:plain-text-body><![CDATA[", "]]></ac:plain-text-body>",
    "<ac:image ac:alt=\"alt\">", "</ac:image>", "<ac:caption>", "</ac:caption>", "<ri:attachment ri:filename=\"f\"/>",
    "<ac:emoticon ac:name=\"smile\" ac:emoji-fallback=\"\U0001f604\"/>", "<ac:link>", "</ac:link>",
    "<ri:user ri:account-id=\"A1\"/>", "<ri:page ri:content-title=\"Page\"/>", "<ac:task-list>", "</ac:task-list>",
    "<ac:task>", "</ac:task>", "<ac:task-status>complete</ac:task-status>", "<ac:task-body>", "</ac:task-body>",
    "<time datetime=\"2026-01-02\"/>", "&amp;", "&nbsp;", "&#x1F600;", "<", ">", "\"", "]]>",
]  # fmt: skip


def adf_nodes() -> st.SearchStrategy[Any]:
    """ADF-shaped nodes: real node types with plausible or arbitrary attrs, marks and content."""
    kinds = st.sampled_from(
        [
            "doc", "paragraph", "text", "heading", "bulletList", "orderedList", "listItem", "taskList", "taskItem",
            "decisionList", "decisionItem", "codeBlock", "blockquote", "panel", "rule", "table", "tableRow",
            "tableCell", "tableHeader", "mediaSingle", "mediaGroup", "media", "caption", "expand", "nestedExpand",
            "mention", "emoji", "hardBreak", "inlineCard", "blockCard", "status", "date", "placeholder",
            "layoutSection", "layoutColumn", "extension", "bodiedExtension", "unknownNode",
        ]
    )  # fmt: skip
    attrs = st.dictionaries(
        st.sampled_from(["level", "order", "language", "title", "text", "id", "alt", "url", "timestamp", "state"]),
        json_scalars,
        max_size=3,
    )
    marks = st.lists(
        st.fixed_dictionaries(
            {"type": st.sampled_from(["code", "link", "strong", "em"])},
            optional={"attrs": st.fixed_dictionaries({"href": json_scalars})},
        )
        | json_scalars,
        max_size=2,
    )
    leaf = st.fixed_dictionaries(
        {"type": kinds}, optional={"text": json_scalars, "attrs": attrs | json_scalars, "marks": marks | json_scalars}
    )
    return st.recursive(
        leaf,
        lambda inner: st.fixed_dictionaries(
            {"type": kinds, "content": st.lists(inner | json_scalars, max_size=4) | json_scalars},
            optional={"attrs": attrs, "text": st.text(max_size=10)},
        ),
        max_leaves=30,
    )


def slack_blocks() -> st.SearchStrategy[Any]:
    """Block Kit shapes (rich text, sections, context) with arbitrary values mixed in."""
    element = st.fixed_dictionaries(
        {
            "type": st.sampled_from(
                ["text", "link", "user", "channel", "usergroup", "broadcast", "emoji", "date", "color", "team", "x"]
            )
        },
        optional={
            "text": json_scalars,
            "url": json_scalars,
            "user_id": json_scalars,
            "channel_id": json_scalars,
            "name": json_scalars,
            "range": json_scalars,
            "fallback": json_scalars,
            "timestamp": json_scalars,
            "value": json_scalars,
        },
    )
    container = st.fixed_dictionaries(
        {
            "type": st.sampled_from(
                ["rich_text_section", "rich_text_list", "rich_text_quote", "rich_text_preformatted", "other"]
            ),
            "elements": st.lists(element | json_values, max_size=4) | json_scalars,
        },
        optional={"indent": json_scalars, "offset": json_scalars, "style": json_scalars},
    )
    text_object = st.fixed_dictionaries(
        {"type": st.sampled_from(["mrkdwn", "plain_text"]), "text": tokens_text(MRKDWN_TOKENS, 12) | json_scalars}
    )
    block = st.fixed_dictionaries(
        {"type": st.sampled_from(["rich_text", "section", "header", "context", "divider", "image"])},
        optional={
            "elements": st.lists(container | text_object | json_values, max_size=3) | json_scalars,
            "text": text_object | json_scalars,
            "fields": st.lists(text_object | json_scalars, max_size=3) | json_scalars,
        },
    )
    return st.lists(block | json_values, max_size=4) | json_scalars
