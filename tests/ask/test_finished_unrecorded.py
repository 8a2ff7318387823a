"""Who finished what, where the source records nobody who finished it.

A GitHub export states when an issue was closed, not who closed it (`closed_by` is only on a single issue's own
page). Asked "Which issues did Ana close last week?" or "Who closed the most issues last week?", the answer must not
say that nothing was closed, nor credit anyone: it says that the issues closed then record nobody who closed them,
and lists them, each cited. An issue closed by someone the export does name still counts as theirs.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from briefing.ask.extractive import ExtractiveAnswer
from briefing.ask.finished import answer_finished
from briefing.index import Index
from briefing.model import ChunkLimits
from briefing.question.parse import parse, wants
from briefing.settings import QdrantSettings, Settings, WorkspaceSettings
from chunkers.github import chunk_issue
from connectors.github.documents import issue_document
from connectors.github.export_records import record_of
from tests.ask.test_structured import REFUSED, _sparse

REPO = "acme/api"
NOW = "2026-06-15T09:00:00+00:00"  # a Monday: last week is 8 to 14 June
ISSUES = [
    # Closed last week; the export names nobody who closed them.
    {"number": 1, "title": "Retry the ledger export on timeouts", "user": {"login": "ana"},
     "created_at": "2026-06-01T10:00:00Z", "closed_at": "2026-06-09T16:00:00Z", "state": "closed"},
    {"number": 2, "title": "Statements CSV drops the currency column", "user": {"login": "bo"},
     "created_at": "2026-06-02T10:00:00Z", "closed_at": "2026-06-11T08:30:00Z", "state": "closed"},
    # Closed the week before, and one still open.
    {"number": 3, "title": "Webhook signatures use the old secret", "user": {"login": "ana"},
     "created_at": "2026-05-20T10:00:00Z", "closed_at": "2026-06-03T12:00:00Z", "state": "closed"},
    {"number": 4, "title": "Dark mode for the admin console", "user": {"login": "cy"},
     "created_at": "2026-06-05T10:00:00Z", "state": "open"},
]  # fmt: skip


def _index(tmp_path: Path, issues: list[dict[str, object]]) -> Index:
    settings = Settings(workspace=WorkspaceSettings(name="closes"), qdrant=QdrantSettings(path=tmp_path / "index"))
    idx = Index.open(settings)
    chunks = []
    for entry in issues:
        document = issue_document(record_of(REPO, "issues.json", entry, {}), {}, [])
        chunks += chunk_issue(document, limits=ChunkLimits(max_tokens=100_000, max_chars=1_000_000, max_items=1000))
    idx.ensure(4, "m")
    idx.upsert(chunks, np.ones((len(chunks), 4), dtype=np.float32), [_sparse(c.text) for c in chunks], "m")
    idx.commit()
    return idx


@pytest.fixture
def index(tmp_path: Path) -> Iterator[Index]:
    idx = _index(tmp_path, ISSUES)
    yield idx
    idx.close()


def _finished(index: Index, question: str) -> ExtractiveAnswer | None:
    at = datetime.fromisoformat(NOW)
    parsed = parse(question, now=at)
    asked = wants(parsed).finished
    assert asked is not None, question
    found = answer_finished(asked, parsed, REFUSED, index.view(at), zone=ZoneInfo("UTC"))
    return found[0] if found is not None else None


@pytest.mark.parametrize("question", ["Which issues did Ana close last week?", "Who closed the most issues last week?"])
def test_closes_that_record_no_closer_are_said_so_and_listed(index: Index, question: str) -> None:
    found = _finished(index, question)
    assert found is not None and not found.no_answer
    lead, *lines = found.text.splitlines()
    assert "2 issues finished last week" in lead and "records nobody who finished them" in lead, lead
    assert [line.split(" (")[0] for line in lines] == [
        "- acme/api#1: Retry the ledger export on timeouts",
        "- acme/api#2: Statements CSV drops the currency column",
    ]
    assert found.cited == {1: ["github:acme/api#1"], 2: ["github:acme/api#2"]}
    assert "finished the most" not in found.text  # nobody is credited


def test_a_close_whose_closer_is_recorded_is_theirs_alone(tmp_path: Path) -> None:
    issues = [dict(ISSUES[0], closed_by={"login": "bo"}), ISSUES[1]]
    idx = _index(tmp_path, issues)
    try:
        mine = _finished(idx, "Which issues did bo close last week?")
        assert mine is not None
        assert mine.text.splitlines()[0].startswith("1 issue finished by bo last week"), mine.text
        assert "1 more finished last week with nobody recorded as finishing it" in mine.text
        assert "acme/api#1" in mine.text and "- acme/api#2" not in mine.text
        most = _finished(idx, "Who closed the most issues last week?")
        assert most is not None, most
        assert most.text.startswith("bo finished the most: 1 of 2 issues finished last week (1 with nobody recorded)")
    finally:
        idx.close()
