"""A PDF is dated by its own info dictionary, not by the file's mtime.

A checkout or a copy gives every file the time it was written to disk; the sample's Q3 plan (made 12 June) was then
dated after every question asked of it, and "as of" hid it from all of them.
"""

from __future__ import annotations

import io
import os
from datetime import UTC, datetime
from pathlib import Path

from pypdf import PdfReader, PdfWriter

from connectors.files.connector import FilesConnector
from tests.helpers_pdf import make_pdf

CHECKOUT = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)


def _pdf(path: Path, info: dict[str, str]) -> None:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(make_pdf([["Q3 plan", "Decommission the old hosts."]]))))
    writer.add_metadata(info)
    out = io.BytesIO()
    writer.write(out)
    path.write_bytes(out.getvalue())
    os.utime(path, (CHECKOUT.timestamp(), CHECKOUT.timestamp()))


def _dates(folder: Path) -> dict[str, datetime]:
    connector = FilesConnector("docs", folder, ["**/*.pdf"], [])
    records = [r for batch in connector.fetch(connector.initial_cursor()) for r in batch.records]
    return {d.key: d.items[0].occurred_at for d in connector.normalise(records).documents}


def test_a_pdf_takes_its_creation_date_then_its_modification_date(tmp_path: Path) -> None:
    _pdf(tmp_path / "made.pdf", {"/Title": "Plan", "/CreationDate": "D:20260612100000Z", "/ModDate": "D:20260620Z"})
    _pdf(tmp_path / "edited.pdf", {"/ModDate": "D:20260620083000+02'00'"})
    _pdf(tmp_path / "undated.pdf", {"/Title": "Plan"})
    dates = _dates(tmp_path)
    assert dates["file:made.pdf"] == datetime(2026, 6, 12, 10, 0, tzinfo=UTC)
    assert dates["file:edited.pdf"] == datetime(2026, 6, 20, 6, 30, tzinfo=UTC)
    # Without a date in the file, the file's own time is all there is.
    assert dates["file:undated.pdf"] == CHECKOUT


def test_a_malformed_pdf_date_falls_back_to_the_files_time(tmp_path: Path) -> None:
    _pdf(tmp_path / "odd.pdf", {"/CreationDate": "last Tuesday"})
    assert _dates(tmp_path)["file:odd.pdf"] == CHECKOUT
