"""The `files` source: scanning, incremental re-scans, deletions, bad files and normalisation."""

from __future__ import annotations

import io
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pypdf import PdfReader, PdfWriter

from briefing.errors import SourceError
from briefing.model import Batch, ChunkLimits, Document
from briefing.registry import FetchOptions, SourceContext, connector_for
from briefing.settings import source_adapter
from chunkers.documents import chunk_document
from connectors.files.connector import FilesConnector, FilesCursor, build
from tests.helpers_pdf import make_pdf

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "files"
DEFAULT_INCLUDE = ["**/*.md", "**/*.mdx", "**/*.markdown", "**/*.txt", "**/*.pdf"]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    shutil.copytree(FIXTURES, folder)
    (folder / "plans").mkdir()
    pdf = make_pdf(
        [["Migration plan", "We move the billing tables first (PROJ-77)."], ["Rollback needs two hours."]],
        title="Billing migration plan",
    )
    (folder / "plans" / "migration.pdf").write_bytes(pdf)
    return folder


def connector(root: Path, name: str = "handbook", **config: object) -> FilesConnector:
    table = {"type": "files", "path": str(root), **config}
    ctx = SourceContext(name=name, config=source_adapter().validate_python(table))
    built = connector_for(ctx)
    assert isinstance(built, FilesConnector)
    return built


def fetch_all(conn: FilesConnector, cursor: FilesCursor | None = None) -> tuple[list[Batch], FilesCursor]:
    batches = list(conn.fetch(cursor if cursor is not None else conn.initial_cursor()))
    last = batches[-1].cursor
    assert isinstance(last, FilesCursor)
    # The runner stores the cursor as JSON and loads it back; do the same so the round trip is tested too.
    return batches, conn.load_cursor(last.model_dump(mode="json"))


def keys(batches: list[Batch]) -> set[str]:
    return {r.key for b in batches for r in b.records}


def test_first_scan_reads_every_supported_file_and_reports_bad_ones(root: Path) -> None:
    conn = connector(root)
    batches, cursor = fetch_all(conn)

    assert keys(batches) == {
        "blog/release-notes.mdx",
        "handbook/onboarding.md",
        "legacy.txt",
        "notes.txt",
        "plans/migration.pdf",
    }
    failures = [f for b in batches for f in b.failures]
    assert [f.key for f in failures] == ["broken.pdf"]
    assert "PDF" in failures[0].reason
    # The empty file is skipped quietly, not an error; data.csv is not a supported type.
    assert conn.skipped == ["empty.md"]
    assert batches[-1].complete is True
    assert set(cursor.files) == keys(batches)

    records = {r.key: r for b in batches for r in b.records}
    onboarding = records["handbook/onboarding.md"].data
    assert onboarding["format"] == "markdown"
    assert onboarding["content"].startswith("---\ntitle:")
    assert len(onboarding["sha256"]) == 64
    assert onboarding["size"] == (root / "handbook/onboarding.md").stat().st_size
    pdf = records["plans/migration.pdf"].data
    assert pdf["format"] == "pdf"
    assert "billing tables" in pdf["pages"][0]
    assert "Rollback" in pdf["pages"][1]


def test_latin1_text_is_decoded_with_a_note(root: Path) -> None:
    batches, _ = fetch_all(connector(root))
    legacy = next(r for b in batches for r in b.records if r.key == "legacy.txt")
    assert legacy.data["content"].startswith("Café budget")
    assert "Renée" in legacy.data["content"]
    assert "UTF-8" in legacy.data["note"]


def test_rescan_reads_only_changed_files(root: Path) -> None:
    conn = connector(root)
    _, cursor = fetch_all(conn)

    again, cursor = fetch_all(conn, cursor)
    assert keys(again) == set()
    assert all(not b.deleted and not b.complete for b in again)

    notes = root / "notes.txt"
    notes.write_text("Meeting notes, 4 June\n\nThe cutover moves to Friday.\n", encoding="utf-8")
    later = notes.stat().st_mtime + 10
    os.utime(notes, (later, later))
    # Touched but identical: a new mtime alone must not re-read the file.
    onboarding = root / "handbook/onboarding.md"
    os.utime(onboarding, (later, later))

    changed, cursor = fetch_all(conn, cursor)
    assert keys(changed) == {"notes.txt"}
    assert "Friday" in next(r for b in changed for r in b.records).data["content"]
    assert cursor.files["handbook/onboarding.md"][0] == later

    # The refreshed mtime was remembered: the next scan does not even hash it.
    quiet, _ = fetch_all(conn, cursor)
    assert keys(quiet) == set()


def test_deleted_and_emptied_files_are_listed_as_deleted(root: Path) -> None:
    conn = connector(root)
    _, cursor = fetch_all(conn)

    (root / "handbook/onboarding.md").unlink()
    (root / "notes.txt").write_text("", encoding="utf-8")
    batches, cursor = fetch_all(conn, cursor)

    deleted = sorted(k for b in batches for k in b.deleted)
    assert deleted == ["handbook/onboarding.md", "notes.txt"]
    assert keys(batches) == set()
    assert "handbook/onboarding.md" not in cursor.files
    assert not any(b.complete for b in batches)


def test_corrupt_pdf_is_retried_on_the_next_scan(root: Path) -> None:
    conn = connector(root)
    _, cursor = fetch_all(conn)
    assert "broken.pdf" not in cursor.files

    again, _ = fetch_all(conn, cursor)
    assert [f.key for b in again for f in b.failures] == ["broken.pdf"]


def test_encrypted_pdf_is_one_failure(root: Path) -> None:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(make_pdf([["Secret salaries"]]))))
    writer.encrypt("hunter2", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    (root / "plans" / "locked.pdf").write_bytes(out.getvalue())

    batches, _ = fetch_all(connector(root))
    failures = {f.key: f.reason for b in batches for f in b.failures}
    assert "password" in failures["plans/locked.pdf"]
    assert "plans/migration.pdf" in keys(batches)


def test_missing_root_names_the_path_and_setting(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    conn = connector(missing, name="handbook")
    with pytest.raises(SourceError) as info:
        list(conn.fetch(conn.initial_cursor()))
    assert str(missing) in str(info.value)
    assert "sources.handbook.path" in str(info.value)


def test_relative_path_resolves_against_the_config_folder(root: Path) -> None:
    config = source_adapter().validate_python({"type": "files", "path": "docs"})
    ctx = SourceContext(name="h", config=config, resolve=lambda p: root.parent / p)
    assert build(ctx).root == root


def test_include_and_exclude_globs(root: Path) -> None:
    conn = connector(root, include=["**/*.md", "*.txt"], exclude=["handbook/**"])
    batches, _ = fetch_all(conn)
    assert keys(batches) == {"legacy.txt", "notes.txt"}


def test_symlinks_outside_the_root_are_not_followed(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Private\n\nNot part of the handbook.\n", encoding="utf-8")
    (root / "linked-out").symlink_to(outside, target_is_directory=True)
    (root / "secret.md").symlink_to(outside / "secret.md")
    (root / "alias.md").symlink_to(root / "handbook" / "onboarding.md")

    found = keys(fetch_all(connector(root))[0])
    assert not any("secret" in k for k in found)
    assert "alias.md" in found


def test_full_option_rereads_everything_in_one_complete_batch(root: Path) -> None:
    _, cursor = fetch_all(connector(root))
    table = source_adapter().validate_python({"type": "files", "path": str(root)})
    full = build(SourceContext(name="h", config=table, options=FetchOptions(full=True)))
    batches, _ = fetch_all(full, cursor)
    assert len(batches) == 1 and batches[0].complete
    assert "notes.txt" in keys(batches)


def documents(root: Path) -> dict[str, Document]:
    conn = connector(root)
    batches, _ = fetch_all(conn)
    normalised = conn.normalise([r for b in batches for r in b.records])
    assert normalised.failures == []
    return {d.key: d for d in normalised.documents}


def test_markdown_front_matter_gives_title_date_authors(root: Path) -> None:
    doc = documents(root)["file:handbook/onboarding.md"]
    item = doc.items[0]
    assert (doc.kind, doc.source_type, doc.container) == ("document", "files", "handbook")
    assert doc.title == "Onboarding guide"
    assert item.ref == "file:handbook/onboarding.md"
    assert item.occurred_at == datetime(2026, 5, 4, tzinfo=UTC)
    assert item.metadata["authors"] == ["dana", "lee"]
    assert item.metadata["front_matter"]["tags"] == ["handbook", "onboarding"]
    assert "title:" not in item.text
    assert "<br/>" not in item.text
    assert "blocked. We track" in item.text


def test_mdx_statements_and_components_are_dropped_but_their_prose_kept(root: Path) -> None:
    doc = documents(root)["file:blog/release-notes.mdx"]
    text = doc.items[0].text
    assert doc.title == "Version 2 is out"  # no front matter title: the first H1
    assert doc.items[0].author == "Priya Raman"
    for markup in ("import ", "export ", "<div", "</div>", "<BlogCTA", "<Faq", "draft: false", "<br/>"):
        assert markup not in text
    assert "**Faster syncs -** Full loads now run in parallel chunks." in text
    assert "Does v2 need a migration?\nNo. Existing state files are read as they are." in text


def test_text_and_pdf_documents(root: Path) -> None:
    docs = documents(root)
    notes = docs["file:notes.txt"]
    assert notes.title == "notes"
    assert notes.container == ""
    mtime = (root / "notes.txt").stat().st_mtime
    assert notes.items[0].occurred_at == datetime.fromtimestamp(mtime, tz=UTC)

    pdf = docs["file:plans/migration.pdf"]
    assert pdf.title == "Billing migration plan"
    assert pdf.metadata["pages"] == 2
    chunks = chunk_document(pdf, limits=ChunkLimits(max_chars=80))
    pages = {c.metadata["page"] for c in chunks}
    assert pages == {1, 2}
    rollback = next(c for c in chunks if "Rollback" in c.text)
    assert rollback.metadata["page"] == 2
    assert "PROJ-77" in next(c for c in chunks if "billing" in c.text).tickets


def test_undated_markdown_takes_the_date_line_near_the_top(tmp_path: Path) -> None:
    from connectors.files.connector import FilesConnector

    (tmp_path / "v1.md").write_text("# Release 1.0 - 1.2\nApril 21, 2026 – June 29, 2026\n\nNew things.\n")
    (tmp_path / "plain.md").write_text(
        "# Notes\n\nWe met on May 1, 2026 and talked for a long while about many things.\n"
    )
    connector = FilesConnector("docs", tmp_path, ["**/*.md"], [])
    records = [r for batch in connector.fetch(connector.initial_cursor()) for r in batch.records]
    docs = {d.key: d for d in connector.normalise(records).documents}
    assert docs["file:v1.md"].items[0].occurred_at.date().isoformat() == "2026-06-29"
    # a date inside prose is not a date line: the file's own time is kept
    assert docs["file:plain.md"].items[0].occurred_at.year >= 2026
    assert docs["file:plain.md"].items[0].occurred_at.date().isoformat() != "2026-05-01"


def _set_mtime(path: Path, when: datetime) -> None:
    os.utime(path, (when.timestamp(), when.timestamp()))


def test_since_and_until_read_only_files_modified_in_the_window(root: Path) -> None:
    old, inside, new = (datetime(2026, 5, d, 12, tzinfo=UTC) for d in (1, 10, 20))
    for path in root.rglob("*"):
        if path.is_file():
            _set_mtime(path, old)
    _set_mtime(root / "notes.txt", inside)
    _set_mtime(root / "plans" / "migration.pdf", new)
    table = source_adapter().validate_python({"type": "files", "path": str(root)})
    window = FetchOptions(since=datetime(2026, 5, 5, tzinfo=UTC), until=datetime(2026, 5, 15, tzinfo=UTC))
    windowed = build(SourceContext(name="h", config=table, options=window))

    batches, cursor = fetch_all(windowed)

    assert keys(batches) == {"notes.txt"}
    assert not any(b.complete for b in batches) and [k for b in batches for k in b.deleted] == []
    # The files left out are read by the next plain scan, from the cursor the windowed scan left.
    later, _ = fetch_all(connector(root), cursor)
    assert "plans/migration.pdf" in keys(later) and "notes.txt" not in keys(later)
