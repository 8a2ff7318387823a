"""Markdown clean-up for the files source: markup goes, code stays byte for byte, the title is a real H1."""

from __future__ import annotations

import pytest

from briefing.model import RawRecord
from connectors.files.documents import file_document
from connectors.files.markdown import clean_markdown, first_h1, looks_like_mdx, split_front_matter


def md_document(content: str, path: str = "guide.md") -> tuple[str, str]:
    record = RawRecord(key=f"file:{path}", kind="file", data={"path": path, "format": "markdown", "content": content})
    doc = file_document(record)
    return doc.title, doc.items[0].text


def test_html_comment_inside_a_fenced_block_is_code() -> None:
    text = "Intro\n\n```html\n<!-- the nav bar -->\n<nav>menu</nav>\n```\n\n<!-- an editor's note -->\nAfter\n"
    assert clean_markdown(text) == "Intro\n\n```html\n<!-- the nav bar -->\n<nav>menu</nav>\n```\n\nAfter\n"


def test_tag_like_lines_in_indented_code_are_kept() -> None:
    text = "Write this:\n\n    <div class='box'>\n      <!-- slot -->\n    </div>\n\nDone.\n"
    assert clean_markdown(text) == text


def test_code_inside_list_items_and_quotes_is_kept() -> None:
    text = "- step one\n\n  ```xml\n  <config/>\n  <!-- x -->\n  ```\n\n> ```\n> <b>bold</b>\n> ```\n"
    assert clean_markdown(text) == text


def test_blank_lines_inside_code_are_kept() -> None:
    text = "```python\ndef a():\n    pass\n\n\n\ndef b():\n    pass\n```\n"
    assert clean_markdown(text) == text


def test_inline_code_keeps_comment_syntax() -> None:
    assert clean_markdown("Write `<!-- todo -->` to leave a note.") == "Write `<!-- todo -->` to leave a note.\n"


def test_script_and_style_are_not_prose() -> None:
    text = (
        "Intro <script>track('x')</script> text.\n\n<style>\n.hero { color: red }\n</style>\n\n"
        "<script type='module'>\nconst token = load();\n</script>\n\nEnd."
    )
    cleaned = clean_markdown(text)
    assert cleaned == "Intro  text.\n\nEnd.\n"


def test_mdx_reads_a_fence_right_after_a_component_as_code() -> None:
    text = (
        "import Tabs from '@theme/Tabs';\n\n<Tabs>\n<TabItem value='py'>\n"
        "```python\n# not a title\nx = 1\n```\n</TabItem>\n</Tabs>\n"
    )
    cleaned = clean_markdown(text, mdx=True)
    assert "```python\n# not a title\nx = 1\n```" in cleaned
    assert "<Tabs>" not in cleaned and "import" not in cleaned


def test_javascript_in_a_fence_does_not_make_a_file_mdx() -> None:
    assert not looks_like_mdx("```js\nimport React from 'react';\n<App />\n```\n")
    assert looks_like_mdx("import Tabs from '@theme/Tabs';\n\n# Install\n")


@pytest.mark.parametrize(
    ("content", "title"),
    [
        ("```bash\n# install the CLI\npip install brief\n```\n\nUsage notes.\n", "guide"),
        ("```bash\n# install the CLI\n```\n\n# Getting started\n\nText.\n", "Getting started"),
        ("Getting started\n===============\n\nText.\n", "Getting started"),
        ("    # indented code, not a heading\n\nText.\n", "guide"),
    ],
)
def test_title_is_the_first_real_h1(content: str, title: str) -> None:
    assert md_document(content)[0] == title


def test_first_h1_ignores_nested_headings() -> None:
    assert first_h1("> # Quoted\n\n- # In a list\n") == ""


@pytest.mark.parametrize("value", ["2026-13-45", "2026-02-30"])
def test_an_impossible_date_in_front_matter_is_a_note_not_a_crash(value: str) -> None:
    front, body, error = split_front_matter(f"---\ntitle: Plan\ndate: {value}\n---\n# Plan\n\nText.\n")
    assert front == {} and body == "# Plan\n\nText.\n"
    assert error is not None and error.startswith("front matter has a value YAML cannot read")


def test_old_mac_line_ends_do_not_shift_code() -> None:
    text = "Intro\r\r```\r<!-- in code -->\r```\r<!-- prose comment -->\rEnd"
    assert clean_markdown(text) == "Intro\n\n```\n<!-- in code -->\n```\n\nEnd\n"


def test_a_tag_yaml_cannot_construct_is_a_note_not_a_crash() -> None:
    front, _, error = split_front_matter("---\ntitle: !!timestamp nope\n---\nText.\n")
    assert front == {} and error is not None


def test_damaged_pdf_that_trips_pypdf_limits_is_unreadable_not_a_crash() -> None:
    from connectors.files.reading import Unreadable, pdf_pages
    from tests.helpers_pdf import make_pdf

    damaged = bytearray(make_pdf([["Quarterly plan", "Ship the migration"], ["Second page"]]))
    # Three bytes changed (found by the fuzz test) make a page reference itself: pypdf's LimitReachedError.
    for at, value in [(34, 247), (203, 46), (445, 205)]:
        damaged[at] = value
    with pytest.raises(Unreadable, match="PDF cannot be parsed"):
        pdf_pages(bytes(damaged))


def test_a_paragraph_between_two_rules_at_the_top_is_content_not_front_matter() -> None:
    text = "---\nThe rollout is paused until the audit ends.\n---\n\n# Rollout\n\nDetails follow.\n"
    doc = file_document(RawRecord("a.md", "file", {"path": "a.md", "format": "markdown", "content": text}))
    assert "The rollout is paused until the audit ends." in doc.items[0].text
    assert "front_matter" not in doc.metadata
    front, _, error = split_front_matter("---\ntitle: Plan\n---\nText.\n")
    assert front == {"title": "Plan"} and error is None
