"""State as of `now`: a ticket asked about before and after each transition reads the state it had then.

Over both JIRA response shapes (Cloud: the recorded fixture issues; Server/Data Center: users by name and key,
a Server sprint string, a version added and a resolution set in the changelog), through the chunker and
`briefing.asof`, and through both index engines and a `View`, where the superseded states are filtered out.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from briefing import registry
from briefing.asof import visible
from briefing.embed import SparseVec
from briefing.index import Filter, Index, content_hash
from briefing.model import Chunk, ChunkLimits, Document, RawRecord
from briefing.settings import QdrantSettings, Settings, WorkspaceSettings
from chunkers.jira import chunk_issue
from connectors.jira.normalise import issue_document, normalise_issues

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "jira"
ROOMY = ChunkLimits(max_tokens=100_000, max_chars=1_000_000, max_items=1000)


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(UTC)


def _state_at(chunks: list[Chunk], now: datetime) -> str:
    """The attribute lines of the one state chunk a reader sees at `now`."""
    seen = [c for c in (visible(c, now) for c in chunks) if c is not None and c.metadata.get("section") == "body"]
    states = [c for c in seen if c.ordinal == 0]
    assert len(states) == 1, f"{len(states)} state chunks visible at {now}"
    return states[0].text.split("\n\n")[1]


def _cloud_issue() -> Document:
    issues = json.loads((FIXTURES / "issues.json").read_text(encoding="utf-8"))
    names = {"customfield_10020": "Sprint", "customfield_10014": "Epic Link"}
    records = [RawRecord(i["key"], "jira_issue", {**i, "names": names}) for i in issues]
    return next(d for d in normalise_issues(records, base_url="https://acme.atlassian.net").documents
                if d.key == "jira:ACME-1")  # fmt: skip


def test_cloud_ticket_before_and_after_each_transition() -> None:
    chunks = chunk_issue(_cloud_issue(), limits=ROOMY)
    created = _state_at(chunks, _at("2026-05-04T09:10:00+00:00"))
    assert "Status: To Do" in created and "Assignee: Unassigned" in created
    started = _state_at(chunks, _at("2026-05-04T09:30:30+00:00"))
    assert "Status: In Progress" in started and "Assignee: Unassigned" in started
    assigned = _state_at(chunks, _at("2026-05-05T12:00:00+00:00"))
    assert "Status: In Progress" in assigned and "Assignee: Alice Chen" in assigned
    assert "In Review" not in assigned and "Updated: 2026-05-06" not in assigned
    today = _state_at(chunks, _at("2026-06-01T00:00:00+00:00"))
    assert "Status: In Review" in today and "Assignee: Alice Chen" in today


def _user(name: str, display: str) -> dict[str, Any]:
    return {"name": name, "key": name, "displayName": display, "emailAddress": f"{name}@example.org"}


def _history(hid: str, when: str, who: dict[str, Any], *items: dict[str, Any]) -> dict[str, Any]:
    return {"id": hid, "author": who, "created": when, "items": list(items)}


def _item(field: str, old: str | None, new: str | None) -> dict[str, Any]:
    return {"field": field, "fieldtype": "jira", "from": None, "fromString": old, "to": None, "toString": new}


SPRINT = "id=7,state=CLOSED,name=Sprint 7"


def _server_issue() -> dict[str, Any]:
    """A Server/Data Center issue as `/rest/api/2/search?expand=changelog` returns it (v2, users by name)."""
    matt, zoe = _user("matzew", "Matthias Wessendorf"), _user("zbraden", "Zoe Braden")
    return {
        "id": "12345",
        "key": "AEROGEAR-42",
        "names": {"customfield_12310940": "Sprint"},
        "fields": {
            "summary": "Run SimplePush on OpenShift",
            "project": {"key": "AEROGEAR"},
            "issuetype": {"name": "Feature Request"},
            "status": {"name": "Closed"},
            "priority": {"name": "Major"},
            "resolution": {"name": "Done"},
            "assignee": zoe,
            "reporter": matt,
            "labels": ["openshift", "push"],
            "components": [{"name": "SimplePush"}],
            "fixVersions": [{"name": "0.8.0"}],
            "versions": [{"name": "0.7.0"}],
            "customfield_12310940": [
                "com.atlassian.greenhopper.service.sprint.Sprint@1f[id=7,state=CLOSED,name=Sprint 7]"
            ],
            "created": "2013-07-10T10:00:00.000+0200",
            "updated": "2013-07-31T16:00:00.000+0200",
            "resolutiondate": "2013-07-25T15:00:00.000+0200",
            "description": "The *SimplePush* server should run on OpenShift.",
            "comment": {"comments": []},
        },
        "changelog": {
            "startAt": 0,
            "maxResults": 5,
            "total": 5,
            "histories": [
                _history(
                    "1", "2013-07-12T09:00:00.000+0200", matt, _item("assignee", "Matthias Wessendorf", "Zoe Braden")
                ),
                _history(
                    "2",
                    "2013-07-15T09:00:00.000+0200",
                    zoe,
                    _item("status", "Open", "In Progress"),
                    _item("labels", "openshift", "openshift push"),
                ),  # fmt: skip
                _history(
                    "3",
                    "2013-07-25T15:00:00.000+0200",
                    zoe,
                    _item("status", "In Progress", "Resolved"),
                    _item("resolution", None, "Done"),
                    _item("Fix Version", None, "0.8.0"),
                ),  # fmt: skip
                _history("4", "2013-07-31T16:00:00.000+0200", matt, _item("status", "Resolved", "Closed")),
                _history(
                    "5",
                    "2013-07-31T16:00:00.000+0200",
                    matt,
                    _item("project", "AGPUSH", "AEROGEAR"),
                    _item("Key", "AGPUSH-9", "AEROGEAR-42"),
                    _item("Workflow", "classic", "simplified"),
                ),  # fmt: skip
            ],
        },
    }


def _server_document(data: dict[str, Any]) -> Document:
    return issue_document(data, base_url="https://issues.example.org")


def test_server_ticket_before_and_after_each_transition() -> None:
    chunks = chunk_issue(_server_document(_server_issue()), limits=ROOMY)
    opened = _state_at(chunks, _at("2013-07-11T00:00:00+00:00"))
    assert "Status: Open" in opened and "Assignee: Matthias Wessendorf" in opened
    assert "Resolution" not in opened and "Fix Version/s" not in opened and "Labels: openshift | " in opened
    working = _state_at(chunks, _at("2013-07-20T00:00:00+00:00"))
    assert (
        "Status: In Progress" in working and "Assignee: Zoe Braden" in working and "Labels: openshift, push" in working
    )
    assert "Resolved" not in working
    # The question of the report: asked on the 25th at 09:00, the ticket was open, not "Closed ... Resolved".
    asked = _state_at(chunks, _at("2013-07-25T09:00:00+00:00"))
    assert "Status: In Progress" in asked and "Closed" not in asked and "Updated: 2013-07-31" not in asked
    resolved = _state_at(chunks, _at("2013-07-26T00:00:00+00:00"))
    assert "Status: Resolved" in resolved and "Resolution: Done | Fix Version/s: 0.8.0" in resolved
    assert "Resolved: 2013-07-25" in resolved and "Affects Version/s: 0.7.0" in resolved
    closed = _state_at(chunks, _at("2014-01-01T00:00:00+00:00"))
    assert "Status: Closed" in closed and "Updated: 2013-07-31" in closed and "Sprint: Sprint 7" in closed


def test_bookkeeping_changes_stay_out_of_the_history_text() -> None:
    chunks = chunk_issue(_server_document(_server_issue()), limits=ROOMY)
    history = "\n".join(c.text for c in chunks if c.metadata["section"] == "history")
    assert "changed status: Resolved -> Closed" in history
    assert "AGPUSH" not in history and "Workflow" not in history and "changed Key" not in history


def test_without_a_changelog_the_state_before_the_last_update_is_not_shown() -> None:
    data = _server_issue()
    del data["changelog"]
    chunks = chunk_issue(issue_document(data, base_url="https://issues.example.org"), limits=ROOMY)
    before = _state_at(chunks, _at("2013-07-25T09:00:00+00:00"))
    # Resolved at 15:00 +02:00 that day: asked at 09:00 UTC, nothing of the later state is known.
    assert "Status" not in before and "Closed" not in before and "State: not recorded before 2013-07-25" in before
    assert "Resolved" not in before
    after = _state_at(chunks, _at("2013-08-01T00:00:00+00:00"))
    assert "Status: Closed" in after


def test_an_empty_changelog_that_cannot_explain_the_resolution_does_not_date_the_state_back() -> None:
    """A server or export that answers `expand=changelog` with no entries for a ticket resolved days after it was
    created: the changelog is evidently incomplete, so the resolved state is not shown before the last update."""
    data = _server_issue()
    data["changelog"] = {"startAt": 0, "maxResults": 0, "total": 0, "histories": []}
    chunks = chunk_issue(issue_document(data, base_url="https://issues.example.org"), limits=ROOMY)
    before = _state_at(chunks, _at("2013-07-12T09:00:00+00:00"))
    assert "Closed" not in before and "Resolved" not in before and "State: not recorded before 2013-07-25" in before
    # The resolution date is still a fact: from then on the resolution shows, the rest stays unknown.
    between = _state_at(chunks, _at("2013-07-27T00:00:00+00:00"))
    assert "Resolution: Done" in between and "Resolved: 2013-07-25" in between and "Status" not in between
    assert "Other fields: not recorded before 2013-07-31" in between and "Assignee" not in between
    assert "Status: Closed" in _state_at(chunks, _at("2013-08-01T00:00:00+00:00"))


# --- through the index and a View ---------------------------------------------------------------------------------

DIM = 4


def _sparse(text: str) -> SparseVec:
    terms = sorted({sum(map(ord, w)) % 997 for w in text.lower().split()})
    return SparseVec(indices=terms, values=[1.0] * len(terms))


@pytest.fixture(params=["edge", "local"])
def index(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Index]:
    settings = Settings(
        workspace=WorkspaceSettings(name="states"),
        qdrant=QdrantSettings(path=tmp_path / "index", engine="local" if request.param == "local" else "edge"),
    )
    idx = Index.open(settings)
    chunks = chunk_issue(_server_document(_server_issue()), limits=ROOMY)
    for chunk in chunks:
        chunk.source_name = "jira"
    idx.ensure(DIM, "m")
    idx.upsert(chunks, np.ones((len(chunks), DIM), dtype=np.float32), [_sparse(c.text) for c in chunks], "m")
    idx.commit()
    yield idx
    idx.close()


@pytest.mark.parametrize(
    ("now", "status"),
    [
        ("2013-07-11T00:00:00+00:00", "Open"),
        ("2013-07-25T09:00:00+00:00", "In Progress"),
        ("2013-07-25T13:00:00+00:00", "Resolved"),  # the resolving entry itself (15:00 +0200): from then on
        ("2013-07-30T00:00:00+00:00", "Resolved"),
        ("2014-01-01T00:00:00+00:00", "Closed"),
    ],
)
@pytest.mark.slow
def test_a_view_reads_the_state_as_of_its_now(index: Index, now: str, status: str) -> None:
    view = index.view(_at(now))
    states = [c for c in view.chunks(Filter(tickets=("AEROGEAR-42",))) if c.metadata["section"] == "body"]
    assert [c.metadata["status_at"] for c in states] == [status]
    found = view.search_sparse(_sparse("Status: Closed"), limit=20, flt=Filter(tickets=("AEROGEAR-42",)))
    assert all(status in h.chunk.text for h in found if h.chunk.metadata["section"] == "body")
    # A count reads stored fields only: the engine itself filters the superseded states out.
    assert view.count(Filter(tickets=("AEROGEAR-42",))) == len(view.chunks(Filter(tickets=("AEROGEAR-42",))))


def test_a_state_whose_interval_changed_is_written_again() -> None:
    """A sync that ends a state's interval rewrites it, even where its text stays the same."""
    chunk = next(c for c in chunk_issue(_server_document(_server_issue()), limits=ROOMY) if c.valid_until)
    moved = replace(chunk, valid_until=chunk.valid_until + timedelta(days=1) if chunk.valid_until else None)
    assert content_hash(moved, "m") != content_hash(chunk, "m")


def test_the_descriptor_declares_the_history_of_its_items() -> None:
    assert "status" in registry.descriptor("jira").history and "fix versions" in registry.descriptor("jira").history


def test_one_moment_later_the_next_state_shows() -> None:
    chunks = chunk_issue(_server_document(_server_issue()), limits=ROOMY)
    resolved_at = _at("2013-07-25T15:00:00+02:00")
    assert "In Progress" in _state_at(chunks, resolved_at - timedelta(milliseconds=1))
    assert "Status: Resolved" in _state_at(chunks, resolved_at)
