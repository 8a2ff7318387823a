"""Fuzzing the document parsers: Markdown and front matter, the document chunker, PDF text, ADF, Confluence.

Each must return text for any input (never raise), keep code byte for byte, and stay proportional to its
input: output that grows faster than the input is how an exponential blow-up shows before it hangs a run.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from briefing.model import ChunkLimits, Document, Item, RawRecord
from chunkers.documents import chunk_document
from connectors.confluence.storage import storage_to_markdown
from connectors.files.documents import file_document
from connectors.files.markdown import clean_markdown, split_front_matter
from connectors.files.reading import Unreadable, pdf_pages
from connectors.jira.adf import adf_to_text
from tests.fuzz.strategies import DEEP, FAST, MARKDOWN_TOKENS, STORAGE_TOKENS, adf_nodes, tokens_text
from tests.helpers_pdf import make_pdf

BUDGETS = [pytest.param(FAST, id="fast"), pytest.param(DEEP, id="deep", marks=pytest.mark.slow)]
WHEN = datetime(2026, 6, 1, tzinfo=UTC)
LIMITS = ChunkLimits(max_chars=300, max_tokens=80)
markdown_text = tokens_text(MARKDOWN_TOKENS, 80)


def as_document(text: str, fmt: str = "markdown") -> Document:
    item = Item(
        ref="file:f.md", source_type="files", kind="file", text=text, occurred_at=WHEN, metadata={"format": fmt}
    )
    return Document(key="file:f.md", kind="document", source_type="files", title="F", items=[item])


def words(text: str) -> set[str]:
    return set(re.findall(r"[^\W_]+", text))


@pytest.mark.parametrize("budget", BUDGETS)
def test_markdown_clean_up_never_crashes_and_stays_proportional(budget: Any) -> None:
    @budget
    @given(markdown_text, st.booleans() | st.none())
    def check(text: str, mdx: bool | None) -> None:
        out = clean_markdown(text, mdx=mdx)
        assert isinstance(out, str)
        assert len(out) <= 2 * len(text) + 16

    check()


@pytest.mark.parametrize("budget", BUDGETS)
def test_fenced_code_survives_clean_up_and_chunking_byte_for_byte(budget: Any) -> None:
    code_line = tokens_text([t for t in MARKDOWN_TOKENS if "\n" not in t and "\r" not in t and "\f" not in t], 8)
    # A CR is a line break to CommonMark, so a "line" holding one is two lines; a fence line would close the block.
    # tokens_text may join tokens with a newline: each physical line is checked for a fence.
    plain_line = code_line.filter(
        lambda line: "\r" not in line and not any(re.match(r"\s*(`{3,}|~{3,})", part) for part in line.split("\n"))
    )
    code_lines = st.lists(plain_line, max_size=6)
    prose = st.text(st.sampled_from("abc xyz.\n"), max_size=40)

    @budget
    @given(prose, code_lines, prose, st.booleans())
    def check(before: str, lines: list[str], after: str, mdx: bool) -> None:
        block = "\n".join(["```text", *lines, "```"])
        cleaned = clean_markdown(f"{before}\n\n{block}\n\n{after}", mdx=mdx)
        assert block in cleaned
        chunks = chunk_document(as_document(cleaned), limits=ChunkLimits(max_chars=4000, max_tokens=4000))
        assert any(block in chunk.text for chunk in chunks)

    check()


@pytest.mark.parametrize("budget", BUDGETS)
def test_chunker_never_crashes_keeps_limits_and_prose_words(budget: Any) -> None:
    @budget
    @given(markdown_text, st.sampled_from(["markdown", "text"]))
    def check(text: str, fmt: str) -> None:
        chunks = chunk_document(as_document(text, fmt), limits=LIMITS)
        for chunk in chunks:
            assert len(chunk.text) <= LIMITS.max_chars
        if fmt == "text" and "\f" not in text:
            # Plain text has no markup to drop: every word is in some chunk.
            assert words(text) <= words(" ".join(c.text for c in chunks))

    check()


@pytest.mark.parametrize("budget", BUDGETS)
def test_front_matter_never_crashes(budget: Any) -> None:
    values = st.sampled_from(
        [
            "2026-13-45", "2026-02-30", "2026-02-28 25:61:00", "[a, [b, {c: d}]]", "{a: 1, b: [2]}", "&a x", "*a",
            "!!binary x", "!!python/object:os.system x", "!!timestamp nope", "'quoted", '"esc \\x"', "~", "null",
            "1e400", ".inf", "0x1F", "|\n  block", ">\n  folded", "- item", "? key", "<<: *a",
        ]
    )  # fmt: skip
    line = st.tuples(
        st.sampled_from(["title", "date", "authors", "tags", "a", "<<", "- x"]), values | st.text(max_size=8)
    )
    front_matter = st.lists(line.map(lambda kv: f"{kv[0]}: {kv[1]}"), max_size=6).map("\n".join)

    @budget
    @given(front_matter, markdown_text)
    def check(front: str, body: str) -> None:
        meta, rest, error = split_front_matter(f"---\n{front}\n---\n{body}")
        assert isinstance(meta, dict) and isinstance(rest, str)
        assert error is None or isinstance(error, str)
        json.dumps(meta)  # JSON-safe, as the cache stores it
        record = RawRecord(
            "file:f.md", "file", {"path": "f.md", "format": "markdown", "content": f"---\n{front}\n---\n{body}"}
        )
        assert file_document(record).items

    check()


@pytest.mark.parametrize("budget", BUDGETS)
def test_pdf_text_is_extracted_and_chunked(budget: Any) -> None:
    latin = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=40)

    @budget
    @given(st.lists(st.lists(latin, min_size=1, max_size=5), min_size=1, max_size=3))
    def check(pages: list[list[str]]) -> None:
        extracted, _ = pdf_pages(make_pdf(pages))
        assert len(extracted) == len(pages)
        record = RawRecord("file:f.pdf", "file", {"path": "f.pdf", "format": "pdf", "pages": extracted})
        document = file_document(record)
        chunks = chunk_document(document, limits=LIMITS)
        # Every word of the page text (after de-hyphenation) is in some chunk, on the right page.
        assert words(document.items[0].text) <= words(" ".join(c.text for c in chunks))
        assert all(1 <= int(str(c.metadata.get("page", 1))) <= len(pages) for c in chunks)
        assert all(len(c.text) <= LIMITS.max_chars for c in chunks)

    check()


@pytest.mark.parametrize("budget", BUDGETS)
def test_damaged_pdf_is_unreadable_never_a_crash(budget: Any) -> None:
    good = make_pdf([["Quarterly plan", "Ship the migration"], ["Second page"]])

    @budget
    @given(st.lists(st.tuples(st.integers(0, len(good) - 1), st.integers(0, 255)), min_size=1, max_size=8))
    def check(flips: list[tuple[int, int]]) -> None:
        damaged = bytearray(good)
        for at, value in flips:
            damaged[at] = value
        try:
            pages, _ = pdf_pages(bytes(damaged))
        except Unreadable:
            return
        assert all(isinstance(p, str) for p in pages)

    check()


@pytest.mark.parametrize("budget", BUDGETS)
def test_adf_never_crashes_and_stays_proportional(budget: Any) -> None:
    @budget
    @given(adf_nodes())
    def check(node: Any) -> None:
        out = adf_to_text(node)
        assert isinstance(out, str)
        assert len(out) <= 4 * len(json.dumps(node, default=str)) + 64

    check()


@pytest.mark.parametrize("budget", BUDGETS)
def test_confluence_storage_never_crashes_and_stays_proportional(budget: Any) -> None:
    @budget
    @given(tokens_text(STORAGE_TOKENS, 60))
    def check(storage: str) -> None:
        out = storage_to_markdown(storage, {"A1": "Ann"})
        assert isinstance(out, str)
        assert len(out) <= 3 * len(storage) + 64

    check()


def test_deeply_nested_adf_and_storage_still_render() -> None:
    node: dict[str, Any] = {"type": "text", "text": "deep words"}
    for _ in range(3000):
        node = {"type": "blockquote", "content": [node]}
    assert "deep words" in adf_to_text({"type": "doc", "content": [node]})
    storage = "<div>" * 3000 + "<p>deep words</p>" + "</div>" * 3000
    assert "deep words" in storage_to_markdown(storage)


def test_markdown_with_deep_nesting_still_chunks() -> None:
    text = "> " * 2000 + "deep words\n\n" + "- " * 2000 + "listed words\n"
    chunks = chunk_document(as_document(clean_markdown(text)), limits=ChunkLimits())
    joined = " ".join(c.text for c in chunks)
    assert "deep words" in joined and "listed words" in joined
