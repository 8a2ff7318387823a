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
from briefing.ask.header import rows as row_cells
from briefing.ask.inventory import ItemState, _matching, _unknown, answer_inventory, parent_of
from briefing.index import Index
from briefing.model import Document, Unit
from briefing.question.inventory import inventory_asked
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


@pytest.mark.parametrize(
    "question", ["How many open bugs are there?", "What's the number of open bugs?", "Count the open bugs."]
)
def test_how_many_counts_only_the_type_asked(index: Index, question: str) -> None:
    found = _listed(index, question, CLOUD_NOW)
    assert found is not None
    assert found.text.splitlines()[0] == "1 open bug as of Mon 1 Jun 2026:", found.text
    assert "ACME-2" in found.text and "ACME-4" not in found.text  # a task, not a bug


def test_a_component_named_by_the_question_picks_its_items(index: Index) -> None:
    found = _listed(index, "Which statements-api tickets are unresolved?", CLOUD_NOW)
    assert found is not None
    assert {ref for refs in found.cited.values() for ref in refs} == {"jira:ACME-1", "jira:ACME-2"}, found.text


@pytest.mark.parametrize(
    "question",
    [
        "Which tickets reported by Carol Park are still open?",
        "List the open tickets Carol Park reported.",
        "Which tickets that Carol filed are still open?",
    ],
)
def test_the_reporter_the_question_names(index: Index, question: str) -> None:
    found = _listed(index, question, CLOUD_NOW)
    assert found is not None
    assert {ref for refs in found.cited.values() for ref in refs} == {"jira:ACME-1", "jira:ACME-4"}, found.text


def test_what_went_into_a_release_is_its_finished_items_as_of_now(index: Index) -> None:
    # AEROGEAR-42 got fix version 0.8.0 in the entry that resolved it, on 25 July.
    assert _listed(index, "What went into 0.8.0?", "2013-07-20T00:00:00+00:00") is None
    found = _listed(index, "What went into 0.8.0?", "2013-07-29T00:00:00+00:00")
    assert found is not None
    assert found.text.splitlines()[0] == "1 finished item with fix version 0.8.0 as of Mon 29 Jul 2013:", found.text
    assert found.cited == {1: ["jira:AEROGEAR-42"]}


def test_the_items_under_an_epic_are_those_whose_header_names_it(index: Index) -> None:
    # ACME-1 (a story) has ACME-10 as its parent, ACME-2 (a bug) as its epic link; ACME-3 and ACME-4 have neither.
    found = _listed(index, "Which issues are in epic ACME-10?", CLOUD_NOW)
    assert found is not None
    assert found.text.splitlines()[0] == "2 issues under ACME-10 as of Mon 1 Jun 2026:", found.text
    assert {ref for refs in found.cited.values() for ref in refs} == {"jira:ACME-1", "jira:ACME-2"}, found.text
    bugs = _listed(index, "Which bugs under the epic ACME-10 are still open?", CLOUD_NOW)
    assert bugs is not None
    assert {ref for refs in bugs.cited.values() for ref in refs} == {"jira:ACME-2"}, bugs.text


def test_an_item_nothing_is_under_has_no_listing(index: Index) -> None:
    assert _listed(index, "What are the sub-tasks of ACME-3?", CLOUD_NOW) is None


def _state(key: str, title: str, rows: str) -> ItemState:
    header = Unit(ref=f"jira:{key}", text=rows, author="Lena Vogt", at=datetime(2026, 5, 1, tzinfo=UTC))
    return ItemState(f"jira:{key}", f"{key}: {title}", dict(row_cells(rows)), header, rows)


def test_a_parent_named_by_its_title_is_the_one_whose_title_says_the_question() -> None:
    items = [
        _state("PLAT-7", "Drop support for Windows 8.1 targets", "Type: Epic | Status: Open"),
        _state("PLAT-9", "Drop support for Node 12 builds", "Type: Epic | Status: Open"),
        _state("PLAT-8", "Remove 8.1 from the CI build", "Type: Sub-task | Status: Closed\nEpic: PLAT-7"),
        _state("PLAT-10", "Bump the Node engine field", "Type: Sub-task | Status: Open\nEpic: PLAT-9"),
        _state("PLAT-11", "Drop the Windows 8.1 docs page", "Type: Task | Status: Open"),  # under no parent
    ]
    at = datetime(2026, 6, 1, tzinfo=UTC)
    asked = wants(parse("Which tickets make up the epic for dropping Windows 8.1 support?", now=at)).inventory
    assert asked is not None
    assert parent_of(asked, items) == ("PLAT-7", "Drop support for Windows 8.1 targets")
    # "drop support" alone names both epics as well: no parent, and no listing.
    both = wants(parse("Which tickets are part of the epic to drop support?", now=at)).inventory
    assert both is not None and parent_of(both, items) is None


@pytest.mark.parametrize(
    ("question", "other"),
    [
        ("Which open issue is about the CSV export?", "fact"),  # one item asked for: a fact
        ("Which PRs are waiting for review?", "awaiting_review"),
        ("Which open issues does Zoe have?", "assigned_to"),
        ("Which tickets did Zoe finish last week?", "finished"),
        ("Which critical bugs were opened last week?", "fact"),  # a period: not the state as of now
        ("What was said in ACME-10?", "fact"),  # an item's conversation, not the items under it
        ("Which tickets are linked to ACME-10?", "fact"),  # a link, not a parent
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


def test_items_that_were_reported_name_no_reporter() -> None:
    text = "Which bugs that were reported against the iOS component are still open?"
    asked = inventory_asked(text, parse(text, now=datetime(2026, 6, 15, tzinfo=UTC)).constraints)
    assert asked is not None and (asked.reporter, asked.state) == ("", "open")


@pytest.mark.parametrize(
    "question",
    ["Which tickets are unassigned?", "Which open tickets have no assignee?", "Which tickets is nobody working on?"],
)
def test_open_items_nobody_holds_are_listed(index: Index, question: str) -> None:
    found = _listed(index, question, CLOUD_NOW)
    assert found is not None
    lines = found.text.splitlines()
    assert lines[0].endswith("with no assignee as of Mon 1 Jun 2026:"), found.text
    assert all("assignee" not in line for line in lines[1:]), found.text  # a held item shows its assignee


@pytest.mark.parametrize(
    "question",
    [
        "What are the highest priority open bugs?",
        "Which top-priority bugs are still open?",
        "What are the most urgent open bugs?",
    ],
)
def test_the_highest_priority_is_the_most_urgent_one_the_items_have(question: str) -> None:
    # A Blocker-to-Trivial scheme names no priority "Highest": its most urgent open bugs are the Critical ones.
    items = [
        _state("MOB-1", "Crash on launch", "Type: Bug | Status: Open | Priority: Critical"),
        _state("MOB-2", "Typo in the settings page", "Type: Bug | Status: Open | Priority: Minor"),
        _state(
            "MOB-3", "Blank screen after login", "Type: Bug | Status: Closed | Priority: Blocker\nResolution: Fixed"
        ),
        _state("MOB-4", "Add a dark theme", "Type: Story | Status: Open | Priority: Blocker"),
    ]
    asked = wants(parse(question, now=datetime(2026, 6, 1, tzinfo=UTC))).inventory
    assert asked is not None and asked.priorities == ("highest",)
    found, _, read = _matching(asked, items)
    assert [item.key for item in found] == ["jira:MOB-1"]
    assert read.priorities == ("critical",)


def test_an_item_whose_state_then_is_not_recorded_is_neither_open_nor_unassigned() -> None:
    # The tracker's history of MOB-6 starts after the moment asked about: its state then is unknown, not open.
    items = [
        _state("MOB-5", "Crash on launch", "Type: Bug | Status: Open | Assignee: Unassigned"),
        _state("MOB-6", "Slow sync", "Type: Bug | State: not recorded before 2026-07-01"),
    ]
    at = datetime(2026, 6, 1, tzinfo=UTC)
    for question in ("Which bugs are still open?", "Which bugs are unassigned?"):
        asked = wants(parse(question, now=at)).inventory
        assert asked is not None
        found, _, _ = _matching(asked, items)
        assert [item.key for item in found] == ["jira:MOB-5"], question
        assert _unknown(asked, items) == 1


@pytest.mark.parametrize(
    "question",
    [
        "Who has the most open tickets?",
        "How many open tickets does each person have?",
        "Who is carrying the most work?",
    ],
)
def test_who_holds_the_most_counts_the_open_items_by_assignee(index: Index, question: str) -> None:
    from briefing.ask.inventory import answer_by_assignee

    at = datetime.fromisoformat(CLOUD_NOW)
    parsed = parse(question, now=at)
    asked = wants(parsed)
    assert asked.by_assignee and asked.inventory is not None and asked.inventory.state == "open"
    found = answer_by_assignee(asked.inventory, REFUSED, index.view(at), zone=UTC)
    assert found is not None
    lines = found[0].text.splitlines()
    assert lines[0] == (
        "Alice Chen, Bob Diaz and Zoe Braden hold the most: 1 of 4 open items as of Mon 1 Jun 2026 "
        "(1 with no assignee). By assignee:"
    )
    assert lines[1:] == [
        "- Alice Chen: 1 (ACME-1) [1]",
        "- Bob Diaz: 1 (ACME-4) [2]",
        "- Zoe Braden: 1 (AEROGEAR-43) [3]",
    ]
    assert found[0].cited[3] == ["jira:AEROGEAR-43"]


def test_who_has_the_most_of_something_else_is_no_count_of_items() -> None:
    asked = wants(parse("Who has the most context on the payout migration?", now=datetime.fromisoformat(CLOUD_NOW)))
    assert not asked.by_assignee and asked.inventory is None


def test_open_pull_requests_nobody_is_assigned_are_held_by_their_authors(pulls: Index) -> None:
    from briefing.ask.inventory import answer_by_assignee

    at = datetime.fromisoformat("2017-03-21T12:00:00+00:00")
    asked = wants(parse("Who has the most open PRs?", now=at))
    assert asked.by_assignee and asked.inventory is not None
    found = answer_by_assignee(asked.inventory, REFUSED, pulls.view(at), zone=UTC)
    assert found is not None
    assert found[0].text.splitlines() == [
        "allevin holds the most: 1 of 1 open pull request as of Tue 21 Mar 2017. By author:",
        "- allevin: 1 (PyGithub/PyGithub#538) [1]",
    ]
