"""Document chunker: golden files plus the structural promises (fences, tables, paths, limits)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from briefing.model import Chunk, ChunkLimits, Document, Item
from chunkers.documents import chunk_document
from tests.golden_files import check_golden, chunks_to_json, document_from_json

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "documents"
WHEN = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)


def doc(text: str, *, title: str = "Guide", fmt: str = "markdown", key: str = "file:guide.md") -> Document:
    item = Item(
        ref=key,
        source_type="files",
        kind="file",
        text=text,
        occurred_at=WHEN,
        author="dana",
        title=title,
        container="handbook",
        metadata={"path": key.removeprefix("file:"), "format": fmt},
    )
    return Document(key=key, kind="document", source_type="files", title=title, items=[item], container="handbook")


def words(text: str) -> int:
    """A stricter stand-in tokeniser than the default: every word and punctuation mark is a token."""
    return len(re.findall(r"\w+|[^\w\s]", text)) + 2


def fences_balanced(text: str) -> bool:
    return sum(1 for line in text.split("\n") if line.lstrip().startswith("```")) % 2 == 0


def body(chunk: Chunk) -> str:
    return chunk.text.split("\n\n", 1)[1]


def para(n: int, topic: str) -> str:
    return " ".join(f"Sentence {i} about {topic} explains one more detail." for i in range(n))


# -- golden files ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", sorted(p.name for p in GOLDEN.iterdir() if p.is_dir()))
def test_golden(case: str, request: pytest.FixtureRequest) -> None:
    data = json.loads((GOLDEN / case / "input.json").read_text(encoding="utf-8"))
    limits = ChunkLimits(**data["limits"])
    chunks = chunks_to_json(chunk_document(document_from_json(data["document"]), limits=limits))
    check_golden(request, GOLDEN / case / "expected.json", chunks)


# -- behaviour ------------------------------------------------------------------------------------------------


def test_every_chunk_starts_with_its_section_path() -> None:
    text = "Intro paragraph.\n\n## Setup\n\n" + para(12, "setup") + "\n\n### Database\n\n" + para(12, "databases")
    chunks = chunk_document(doc(text), limits=ChunkLimits(max_chars=400))
    assert len(chunks) > 3
    for chunk in chunks:
        first_line = chunk.text.split("\n", 1)[0]
        assert first_line == chunk.metadata["section_path"] == chunk.title
        assert first_line.startswith("Guide")
    assert any(c.text.startswith("Guide > Setup > Database\n\nSentence") for c in chunks)


def test_first_h1_equal_to_the_title_is_not_repeated() -> None:
    chunks = chunk_document(doc("# Guide\n\nHello there.\n\n## Next\n\nMore."), limits=ChunkLimits())
    assert chunks[0].text.startswith("Guide\n\nHello there.")
    assert "Guide > Guide" not in chunks[0].text


def test_code_block_is_never_split_when_it_fits_a_chunk() -> None:
    code = "```python\n" + "\n".join(f"step_{i} = run({i})  # stage {i}" for i in range(14)) + "\n```"
    text = f"## Build\n\n{para(5, 'builds')}\n\n{code}\n\n{para(5, 'releases')}"
    chunks = chunk_document(doc(text), limits=ChunkLimits(max_chars=700, max_tokens=400))
    assert len(chunks) >= 2
    holding = [c for c in chunks if "step_0" in c.text or "step_13" in c.text]
    assert len(holding) == 1 and code in holding[0].text
    assert all(fences_balanced(c.text) for c in chunks)


def test_oversized_code_block_is_cut_at_lines_with_the_fence_reopened() -> None:
    lines = [f"SELECT * FROM orders_{i} WHERE id > {i};" for i in range(60)]
    text = "## Queries\n\n```sql\n" + "\n".join(lines) + "\n```"
    chunks = chunk_document(doc(text), limits=ChunkLimits(max_chars=500))
    assert len(chunks) > 2
    for n, chunk in enumerate(chunks):
        assert fences_balanced(chunk.text)
        assert "```sql" in chunk.text
        assert ("(code continued)" in chunk.text) == (n > 0)
    recovered = [line for c in chunks for line in c.text.split("\n") if line.startswith("SELECT")]
    assert recovered == lines


def test_hash_lines_inside_code_are_not_headings() -> None:
    text = "## Shell\n\n```bash\n# install\npip install brief\n# run\nbrief ingest\n```"
    chunks = chunk_document(doc(text), limits=ChunkLimits())
    assert [c.metadata["section_path"] for c in chunks] == ["Guide > Shell"]
    assert "# install\npip install brief" in chunks[0].text


def test_tables_are_kept_whole() -> None:
    table = "| Service | Owner |\n| --- | --- |\n" + "\n".join(f"| svc-{i} | team-{i} |" for i in range(12))
    text = f"## Owners\n\n{para(6, 'ownership')}\n\n{table}\n\n{para(6, 'on-call')}"
    chunks = chunk_document(doc(text), limits=ChunkLimits(max_chars=600))
    holding = [c for c in chunks if "svc-" in c.text]
    assert len(holding) == 1 and table in holding[0].text


def test_oversized_table_repeats_its_header_on_every_piece() -> None:
    table = "| Service | Owner |\n| --- | --- |\n" + "\n".join(f"| svc-{i} | team-{i} |" for i in range(80))
    chunks = chunk_document(doc(f"## Owners\n\n{table}"), limits=ChunkLimits(max_chars=400))
    assert len(chunks) > 2
    for chunk in chunks:
        assert body(chunk).startswith("| Service | Owner |\n| --- | --- |\n| svc-")
    rows = [line for c in chunks for line in c.text.split("\n") if line.startswith("| svc-")]
    assert rows == [f"| svc-{i} | team-{i} |" for i in range(80)]


def test_list_item_stays_with_its_continuation() -> None:
    items = "\n".join(f"- item {i}: {para(1, f'topic {i}')}" for i in range(6))
    text = f"## Steps\n\n{items}\n\n  Continuation of the last item, still part of item 5.\n\n{para(4, 'after')}"
    chunks = chunk_document(doc(text), limits=ChunkLimits(max_chars=600))
    holding = [c for c in chunks if "Continuation of the last item" in c.text]
    assert len(holding) == 1 and "- item 5:" in holding[0].text


def test_every_chunk_fits_the_token_and_char_limits() -> None:
    text = "\n\n".join(
        [
            "Intro " + para(3, "scope"),
            "## Long section",
            para(40, "limits"),
            "```\n" + "\n".join(f"line {i} " + "x" * 40 for i in range(40)) + "\n```",
            "- " + "averyveryverylongwordwithoutspaces" * 30,
            "## Short",
            "Short body.",
        ]
    )
    limits = ChunkLimits(max_chars=500, max_tokens=90, count_tokens=words)
    chunks = chunk_document(doc(text), limits=limits)
    assert len(chunks) > 5
    for chunk in chunks:
        assert len(chunk.text) <= 500
        assert words(chunk.text) <= 90
        assert fences_balanced(chunk.text)
        assert not chunk.truncated


def test_long_paragraph_is_cut_at_sentence_ends() -> None:
    chunks = chunk_document(doc(para(30, "sentences")), limits=ChunkLimits(max_chars=300))
    assert len(chunks) > 2
    for chunk in chunks:
        assert body(chunk).startswith("Sentence ")
        assert body(chunk).endswith("one more detail.")


def test_plain_text_without_headings_is_split_by_paragraphs() -> None:
    paragraphs = [f"Paragraph {i}. " + para(2, f"subject {i}") for i in range(8)]
    chunks = chunk_document(doc("\n\n".join(paragraphs), fmt="text"), limits=ChunkLimits(max_chars=400))
    assert len(chunks) > 2
    seen: list[str] = []
    for chunk in chunks:
        assert chunk.metadata["section_path"] == "Guide"
        parts = body(chunk).split("\n\n")
        assert all(p in paragraphs for p in parts)
        assert [u.text for u in chunk.units] == parts
        seen.extend(parts)
    assert seen == paragraphs


def test_plain_text_hash_lines_are_not_headings() -> None:
    chunks = chunk_document(doc("# not a heading in a .txt\n\nBody.", fmt="text"), limits=ChunkLimits())
    assert chunks[0].metadata["section_path"] == "Guide"
    assert "# not a heading" in chunks[0].text


def test_small_sibling_sections_merge_and_large_ones_do_not() -> None:
    small = "## A\n\nAlpha.\n\n## B\n\nBeta.\n\n## C\n\nGamma."
    merged = chunk_document(doc(small), limits=ChunkLimits())
    assert len(merged) == 1
    assert merged[0].text == "Guide\n\n## A\n\nAlpha.\n\n## B\n\nBeta.\n\n## C\n\nGamma."
    assert [u.text for u in merged[0].units] == ["Alpha.", "Beta.", "Gamma."]

    # Each section is over 40% of a chunk: together they would fit, but a chunk about both is about neither.
    large = f"## A\n\n{para(20, 'alpha')}\n\n## B\n\n{para(20, 'beta')}"
    limits = ChunkLimits(max_chars=2400, max_tokens=2000)
    assert len(large) < 2400 - 20
    separate = chunk_document(doc(large), limits=limits)
    assert [c.metadata["section_path"] for c in separate] == ["Guide > A", "Guide > B"]


def test_a_subsection_does_not_merge_with_the_next_top_section() -> None:
    text = "## A\n\n### A1\n\nDeep.\n\n## B\n\nTop."
    chunks = chunk_document(doc(text), limits=ChunkLimits())
    assert [c.metadata["section_path"] for c in chunks] == ["Guide > A > A1", "Guide > B"]


def test_chunk_provenance() -> None:
    text = "## Plan\n\nMigrate PROJ-123 first, then OPS-7. Needs UTF-8 and SHA-256; see CVE-2026-1234.\n\nSecond."
    (chunk,) = chunk_document(doc(text, key="file:plans/q3.md"), limits=ChunkLimits())
    assert chunk.chunk_id == "file:plans/q3.md::0"
    assert chunk.doc_key == "file:plans/q3.md"
    assert chunk.refs == ["file:plans/q3.md"]
    assert (chunk.start, chunk.end) == (WHEN, WHEN)
    assert chunk.authors == ["dana"]
    assert chunk.container == "handbook"
    assert chunk.source_type == "files"
    assert chunk.tickets == ["PROJ-123", "OPS-7"]
    assert chunk.metadata == {"section_path": "Guide > Plan", "path": "plans/q3.md", "heading_level": 2}
    assert [(u.ref, u.author, u.at) for u in chunk.units] == [("file:plans/q3.md", "dana", WHEN)] * 2


def test_chunk_ids_are_deterministic_and_sequential() -> None:
    text = "\n\n".join(f"## Part {i}\n\n{para(6, f'part {i}')}" for i in range(5))
    first = chunk_document(doc(text), limits=ChunkLimits(max_chars=400))
    second = chunk_document(doc(text), limits=ChunkLimits(max_chars=400))
    assert [c.chunk_id for c in first] == [f"file:guide.md::{n}" for n in range(len(first))]
    assert [(c.chunk_id, c.text) for c in first] == [(c.chunk_id, c.text) for c in second]


def test_setext_headings_are_sections() -> None:
    text = "Overview\n========\n\nWhat it is.\n\nDetails\n-------\n\nHow it works."
    (chunk,) = chunk_document(doc(text, title="Spec"), limits=ChunkLimits())
    assert chunk.text == "Spec > Overview\n\nWhat it is.\n\n## Details\n\nHow it works."


# -- CommonMark structure -------------------------------------------------------------------------------------


def texts(text: str, title: str = "Guide") -> list[str]:
    return [c.text for c in chunk_document(doc(text, title=title), limits=ChunkLimits())]


def test_a_heading_without_a_body_keeps_its_words() -> None:
    (chunk,) = chunk_document(doc("# Guide\n\nIntro.\n\n## Install\n\nRun it.\n\n## Roadmap\n"), limits=ChunkLimits())
    assert "Roadmap" in chunk.text
    assert "## Roadmap" in [u.text for u in chunk.units]


def test_a_file_of_headings_only_has_chunks() -> None:
    chunks = chunk_document(doc("## Install\n\n## Upgrade\n\n## Uninstall\n"), limits=ChunkLimits())
    joined = "\n".join(c.text for c in chunks)
    assert all(word in joined for word in ("Install", "Upgrade", "Uninstall"))
    assert texts("# Guide\n") == ["Guide\n\n# Guide"]


def test_hash_comment_in_a_fenced_bash_block_is_code() -> None:
    (chunk,) = chunk_document(doc("```bash\n# install\npip install x\n```\n"), limits=ChunkLimits())
    assert chunk.title == "Guide"
    assert chunk.text == "Guide\n\n```bash\n# install\npip install x\n```"


def test_setext_underline_after_a_block_quote_is_a_thematic_break() -> None:
    # "Settings" continues the quote lazily; `---` then cannot underline it.
    assert texts("> quoted line\nSettings\n---\n\nBody.") == ["Guide\n\n> quoted line\nSettings\n\nBody."]


def test_setext_heading_after_indented_code() -> None:
    assert texts("    make all\nBuild\n=====\n\nHow to build.") == ["Guide\n\n    make all\n\n# Build\n\nHow to build."]


def test_multi_line_setext_heading_is_one_heading() -> None:
    assert texts("Release notes\nfor June\n=========\n\nBody text.") == ["Guide > Release notes for June\n\nBody text."]


def test_heading_inside_a_block_quote_is_a_heading() -> None:
    chunks = chunk_document(doc("Intro.\n\n> ## Warning\n> Do not run in prod.\n"), limits=ChunkLimits())
    assert chunks[0].text == "Guide\n\nIntro.\n\n## Warning\n\n> Do not run in prod."
    assert "> ## Warning" not in chunks[0].text


def test_oversized_indented_code_is_cut_at_lines_unchanged() -> None:
    code = "\n".join(f"    step_{i}()  # keeps its <tag> and *stars*" for i in range(60))
    chunks = chunk_document(doc(f"Run:\n\n{code}\n"), limits=ChunkLimits(max_chars=600))
    lines = [line for c in chunks for line in body(c).split("\n") if line.startswith("    step_")]
    assert lines == code.split("\n")
