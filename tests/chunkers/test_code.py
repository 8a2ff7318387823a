"""Code chunking: one chunk per symbol with exact 1-based line ranges, checked against golden files."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from briefing.model import Chunk, ChunkLimits, Document, Item
from chunkers.code import chunk_code
from tests.golden_files import check_golden, chunks_to_json

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "code"
SOURCES = {
    "python": "retry.py",
    "go": "statements.go",
    "typescript": "transfers.ts",
    "java": "SettlementBatch.java",
}
ROOMY = ChunkLimits(max_tokens=4000, max_chars=16000)
# Small enough that classes split into members and long functions split at blank lines.
TIGHT = ChunkLimits(max_tokens=80, max_chars=600)


def code_document(path: str, text: str) -> Document:
    item = Item(
        ref=f"git:ledger-api:{path}",
        source_type="git",
        kind="code_file",
        text=text,
        occurred_at=datetime(2026, 6, 10, 12, 50, tzinfo=UTC),
        title=path,
        container="ledger-api",
        metadata={"path": path},
    )
    return Document(
        key=f"git:ledger-api:{path}",
        kind="code_file",
        source_type="git",
        title=f"ledger-api/{path}",
        items=[item],
        container="ledger-api",
        metadata={"path": path},
    )


def chunks_of(language: str, limits: ChunkLimits) -> list[Chunk]:
    name = SOURCES[language]
    return chunk_code(code_document(name, (GOLDEN / language / name).read_text()), limits=limits)


def outline(chunks: list[Chunk]) -> list[tuple[int, int, str | None]]:
    return [(c.metadata["start_line"], c.metadata["end_line"], c.metadata["symbol"]) for c in chunks]


@pytest.mark.parametrize("language", sorted(SOURCES))
def test_golden(language: str, request: pytest.FixtureRequest) -> None:
    got = {"roomy": chunks_to_json(chunks_of(language, ROOMY)), "tight": chunks_to_json(chunks_of(language, TIGHT))}
    check_golden(request, GOLDEN / language / "expected.json", got)


def test_python_symbols_keep_decorators_comments_and_docstrings() -> None:
    assert outline(chunks_of("python", ROOMY)) == [
        (1, 9, None),  # module docstring, imports, constants
        (12, 16, "backoff"),  # starts at the comment above the def
        (19, 31, "RetryPolicy"),  # starts at the decorator
        (34, 41, "call_with_retry"),
        (44, 45, None),
    ]
    tight = outline(chunks_of("python", TIGHT))
    assert (25, 27, "RetryPolicy.delays") in tight
    assert (29, 31, "RetryPolicy.none") in tight  # @staticmethod kept with its method
    assert tight[2] == (19, 23, "RetryPolicy")  # class line and docstring head the class's members


def test_go_braces_in_strings_runes_and_comments_do_not_count() -> None:
    assert outline(chunks_of("go", ROOMY)) == [
        (1, 11, None),  # package comment, imports and the raw-string constant with a `{` inside
        (13, 17, "Statement"),
        (19, 22, "Store"),
        (24, 27, "Statement.Render"),  # method named with its receiver, doc comment kept
        (29, 39, "Total"),  # the '}' rune does not end it early
    ]


def test_typescript_template_literals_regexes_and_class_members() -> None:
    assert outline(chunks_of("typescript", ROOMY)) == [
        (1, 2, None),
        (4, 8, "TransferRequest"),
        (10, 10, None),  # a regex literal with `{8,64}` is not a block
        (12, 16, "idempotencyKey"),  # a `}` inside a template literal does not end it
        (18, 33, "TransferService"),
        (35, 38, "handler"),
    ]
    tight = outline(chunks_of("typescript", TIGHT))
    assert (21, 21, "TransferService.constructor") in tight
    after = tight[tight.index((21, 21, "TransferService.constructor")) + 1]
    assert (after[0], after[2]) == (23, "TransferService.submit")  # the comment above travels with it


def test_java_class_splits_into_methods_with_javadoc_and_annotations() -> None:
    assert outline(chunks_of("java", ROOMY)) == [(1, 4, None), (6, 33, "SettlementBatch")]
    tight = chunks_of("java", TIGHT)
    symbols = [c.metadata["symbol"] for c in tight]
    assert symbols[0] is None and tight[0].metadata["symbol_kind"] == "header"
    run = [c for c in tight if c.metadata["symbol"] == "SettlementBatch.run"]
    assert run[0].metadata["start_line"] == 17  # the javadoc and @Override travel with the method
    assert run[-1].metadata["end_line"] == 26
    describe = [c for c in tight if c.metadata["symbol"] == "SettlementBatch.describe"]
    assert outline(describe) == [(28, 33, "SettlementBatch.describe")]  # the text block's `{` is a string


@pytest.mark.parametrize("language", sorted(SOURCES))
@pytest.mark.parametrize("limits", [ROOMY, TIGHT], ids=["roomy", "tight"])
def test_chunks_fit_cover_every_line_and_carry_provenance(language: str, limits: ChunkLimits) -> None:
    chunks = chunks_of(language, limits)
    lines = (GOLDEN / language / SOURCES[language]).read_text().splitlines()
    covered: set[int] = set()
    for n, chunk in enumerate(chunks):
        assert chunk.chunk_id == f"git:ledger-api:{SOURCES[language]}::{n}"
        assert limits.count_tokens(chunk.text) <= limits.max_tokens and len(chunk.text) <= limits.max_chars
        start, end = chunk.metadata["start_line"], chunk.metadata["end_line"]
        assert chunk.text.endswith("\n".join(lines[start - 1 : end]))
        assert chunk.metadata["language"] == language and chunk.refs == [f"git:ledger-api:{SOURCES[language]}"]
        assert not covered & set(range(start, end + 1)), "chunks overlap"
        covered |= set(range(start, end + 1))
    assert {n for n, line in enumerate(lines, 1) if line.strip()} <= covered


def test_oversized_function_splits_at_blank_lines_with_line_ranges() -> None:
    body = "\n\n".join(f"    step_{n} = compute({n})\n    log(step_{n})" for n in range(40))
    text = f"def long_job():\n{body}\n    return step_39\n"
    chunks = chunk_code(code_document("job.py", text), limits=ChunkLimits(max_tokens=60, max_chars=400))
    assert len(chunks) > 3 and {c.metadata["symbol"] for c in chunks} == {"long_job"}
    for chunk in chunks:
        start, end = chunk.metadata["start_line"], chunk.metadata["end_line"]
        assert text.splitlines()[start - 1].strip() and text.splitlines()[end - 1].strip()
    assert chunks[0].metadata["start_line"] == 1 and chunks[-1].metadata["end_line"] == len(text.splitlines())


def test_line_longer_than_the_budget_is_truncated_and_flagged() -> None:
    text = "x = '" + "a" * 5000 + "'\n"
    chunks = chunk_code(code_document("blob.py", text), limits=ChunkLimits(max_tokens=100, max_chars=400))
    assert len(chunks) == 1 and chunks[0].truncated and len(chunks[0].text) <= 400


def test_python_syntax_error_and_unknown_language_fall_back_to_blank_line_blocks() -> None:
    broken = "def ok():\n    return 1\n\n\ndef broken(:\n    pass\n"
    chunks = chunk_code(code_document("broken.py", broken), limits=ROOMY)
    assert outline(chunks) == [(1, 6, None)]
    yaml = "a: 1\nb: 2\n\nc: 3\n"
    tight = ChunkLimits(max_tokens=12, max_chars=400)
    assert outline(chunk_code(code_document("conf.yaml", yaml), limits=tight)) == [(1, 2, None), (4, 4, None)]
