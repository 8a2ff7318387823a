"""Inventory questions: the items whose state as of now has the fields asked, counted and listed from a real index.

JIRA: the Server tickets (a changelog) and the recorded Cloud issues of `test_structured`'s index. GitHub: a pull
request synced by the real connector from the local GitHub server (`test_asof_github_state`), asked before and
after its merge.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from briefing.ask.extractive import ExtractiveAnswer
from briefing.ask.inventory import answer_inventory
from briefing.index import Index
from briefing.model import Document
from briefing.question.parse import parse, wants
from briefing.settings import QdrantSettings, Settings, WorkspaceSettings
from chunkers.github import chunk_issue
from tests.ask.test_structured import REFUSED
from tests.ask.test_structured import index as index  # noqa: F401 (the JIRA index fixture)
from tests.test_asof_github_state import ROOMY, _sparse
from tests.test_asof_github_state import documents as documents  # noqa: F401 (the synced GitHub documents)

CLOUD_NOW = "2026-06-01T00:00:00+00:00"


def _listed(index: Index, question: str, now: str) -> ExtractiveAnswer | None:
    at = datetime.fromisoformat(now)
    parsed = parse(question, now=at)
    asked = wants(parsed).inventory
    assert asked is not None and parsed.kind == "listing", question
    found = answer_inventory(asked, REFUSED, index.view(at), zone=UTC)
    return found[0] if found is not None else None


def test_open_items_of_a_priority_are_listed_with_their_count(index: Index) -> None:
    found = _listed(index, "Which high-priority tickets are still open?", CLOUD_NOW)
    assert found is not None
    lines = found.text.splitlines()
    # ACME-1 is High and in review; ACME-2 is Highest, ACME-3 Low and done, ACME-4 Medium.
    assert lines == [
        "1 open high-priority item as of Mon 1 Jun 2026:",
        "- ACME-1: Export statements as CSV (In Review, assignee Alice Chen) [1]",
    ], found.text
    assert found.cited == {1: ["jira:ACME-1"]}


def test_how_many_counts_only_the_type_asked(index: Index) -> None:
    found = _listed(index, "How many open bugs are there?", CLOUD_NOW)
    assert found is not None
    assert found.text.splitlines()[0] == "1 open bug as of Mon 1 Jun 2026:", found.text
    assert "ACME-2" in found.text and "ACME-4" not in found.text  # a task, not a bug


def test_a_component_named_by_the_question_picks_its_items(index: Index) -> None:
    found = _listed(index, "Which statements-api tickets are unresolved?", CLOUD_NOW)
    assert found is not None
    assert {ref for refs in found.cited.values() for ref in refs} == {"jira:ACME-1", "jira:ACME-2"}, found.text


def test_the_reporter_the_question_names(index: Index) -> None:
    found = _listed(index, "Which tickets reported by Carol Park are still open?", CLOUD_NOW)
    assert found is not None
    assert {ref for refs in found.cited.values() for ref in refs} == {"jira:ACME-1", "jira:ACME-4"}, found.text


def test_what_went_into_a_release_is_its_finished_items_as_of_now(index: Index) -> None:
    # AEROGEAR-42 got fix version 0.8.0 in the entry that resolved it, on 25 July.
    assert _listed(index, "What went into 0.8.0?", "2013-07-20T00:00:00+00:00") is None
    found = _listed(index, "What went into 0.8.0?", "2013-07-29T00:00:00+00:00")
    assert found is not None
    assert found.text.splitlines()[0] == "1 finished item with fix version 0.8.0 as of Mon 29 Jul 2013:", found.text
    assert found.cited == {1: ["jira:AEROGEAR-42"]}


@pytest.mark.parametrize(
    ("question", "other"),
    [
        ("Which open issue is about the CSV export?", "fact"),  # one item asked for: a fact
        ("Which PRs are waiting for review?", "awaiting_review"),
        ("Which open issues does Zoe have?", "assigned_to"),
        ("Which tickets did Zoe finish last week?", "finished"),
        ("Which critical bugs were opened last week?", "fact"),  # a period: not the state as of now
    ],
)
def test_other_questions_are_no_inventory(question: str, other: str) -> None:
    asked = wants(parse(question, now=datetime(2026, 6, 1, tzinfo=UTC)))
    assert asked.inventory is None
    assert other == "fact" or getattr(asked, other)


@pytest.fixture
def pulls(tmp_path: Path, documents: dict[str, Document]) -> Iterator[Index]:  # noqa: F811
    settings = Settings(workspace=WorkspaceSettings(name="pulls"), qdrant=QdrantSettings(path=tmp_path / "index"))
    idx = Index.open(settings)
    chunks = chunk_issue(documents["github:PyGithub/PyGithub#538"], limits=ROOMY)
    for chunk in chunks:
        chunk.source_name = "gh"
    idx.ensure(4, "m")
    idx.upsert(chunks, np.ones((len(chunks), 4), dtype=np.float32), [_sparse(c.text) for c in chunks], "m")
    idx.commit()
    yield idx
    idx.close()


def test_a_pull_request_is_open_until_its_merge(pulls: Index) -> None:
    before = _listed(pulls, "Which pull requests are still open?", "2017-03-21T12:00:00+00:00")
    assert before is not None and before.cited == {1: ["github:PyGithub/PyGithub#538"]}, before
    assert before.text.splitlines()[0] == "1 open pull request as of Tue 21 Mar 2017:"
    assert _listed(pulls, "Which pull requests are still open?", "2017-03-26T00:00:00+00:00") is None
    merged = _listed(pulls, "Which pull requests were merged?", "2017-03-26T00:00:00+00:00")
    assert merged is not None and "(merged)" in merged.text.splitlines()[1], merged.text
    # Asked for bugs, a pull request is none.
    assert _listed(pulls, "Which open bugs are there?", "2017-03-21T12:00:00+00:00") is None
