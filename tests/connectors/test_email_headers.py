"""Mail headers as the standard library's modern API reads them: encoded words, display names, unusable dates."""

from __future__ import annotations

import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

from briefing.model import Document
from connectors.email.local import LocalMailConnector
from connectors.email.mime import parse
from tests.harness import SourceRunner

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "email_headers"


def _documents(path: Path) -> dict[str, Document]:
    runner = SourceRunner(LocalMailConnector("inbox", path))
    runner.collect()
    return {d.key: d for d in runner.normalise().documents}


def test_adjacent_encoded_words_are_one_word_and_an_encoded_comma_stays_in_the_name() -> None:
    parsed = parse((FIXTURES / "encoded_words.eml").read_bytes())
    assert parsed.subject == "Smörgåsbord"
    assert parsed.sender == ["The Éric, Himself", "foo@example.com"]
    assert parsed.to == [["Smörgåsbord", "list@example.com"], ["Doe, Jane", "jane@example.com"]]
    assert parsed.date == datetime(2001, 9, 24, 3, 10, 55, tzinfo=UTC)


def test_an_unreadable_date_falls_back_to_the_newest_received_stamp() -> None:
    parsed = parse((FIXTURES / "bad_date_received.eml").read_bytes())
    assert parsed.date == datetime(2001, 9, 24, 3, 10, 55, tzinfo=UTC)


def test_an_unreadable_date_without_received_takes_the_mbox_separator_line(tmp_path: Path) -> None:
    box = tmp_path / "inbox.mbox"
    shutil.copy(FIXTURES / "bad_date.mbox", box)
    item = _documents(box)["email:mbox-date@example.com"].items[0]
    assert item.occurred_at == datetime(2001, 9, 23, 20, 10, 55, tzinfo=UTC)


def test_an_eml_without_any_date_takes_the_file_time_never_the_epoch(tmp_path: Path) -> None:
    folder = tmp_path / "eml"
    folder.mkdir()
    raw = (FIXTURES / "bad_date_received.eml").read_bytes()
    undated = b"\n".join(line for line in raw.split(b"\n") if not line.startswith(b"Received"))
    path = folder / "undated.eml"
    path.write_bytes(undated)
    stamp = datetime(2024, 2, 3, 4, 5, 6, tzinfo=UTC).timestamp()
    os.utime(path, (stamp, stamp))
    item = _documents(folder)["email:bad-date@example.com"].items[0]
    assert item.occurred_at == datetime(2024, 2, 3, 4, 5, 6, tzinfo=UTC)


def test_a_multipart_whose_boundary_never_appears_keeps_its_text() -> None:
    raw = (
        b"From: dana@example.com\nSubject: Rota\nMIME-Version: 1.0\n"
        b'Content-Type: multipart/mixed; boundary="ABC_"\n\n--ABC\nContent-Type: text/plain\n\n'
        b"Sam is on call next week.\n\n--ABC--\n"
    )
    message = parse(raw)
    assert "Sam is on call next week." in message.body
    assert any("boundary" in note for note in message.notes)
