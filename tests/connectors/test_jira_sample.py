"""The sample workspace's JIRA project (src/briefing/sample/jira) served by the fake and read end to end."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from atlassian import Jira

from briefing.model import ChunkLimits
from chunkers.jira import chunk_issue
from connectors.jira import JiraSource
from connectors.jira.connector import JiraConnector
from tests.fakes.jira_server import JiraFake

SAMPLE = Path(__file__).resolve().parents[2] / "src" / "briefing" / "sample" / "jira"


@pytest.fixture
def sample() -> Iterator[JiraFake]:
    fake = JiraFake.from_dir(SAMPLE)
    fake.start()
    yield fake
    fake.stop()


def test_sample_project_ingests_and_chunks_cleanly(sample: JiraFake) -> None:
    config = JiraSource(type="jira", base_url="https://kestrelpay.atlassian.net", projects=["PLAT"], cloud=True)
    connector = JiraConnector(Jira(sample.url, username="demo", password="demo", cloud=True), config, name="tracker")
    batches = list(connector.fetch(connector.initial_cursor()))
    records = [r for b in batches for r in b.records]
    result = connector.normalise(records)

    assert [f for b in batches for f in b.failures] == [] and result.failures == []
    assert sorted(d.key for d in result.documents) == sorted(f"jira:PLAT-{n}" for n in range(101, 141))
    assert {p.name for p in result.people} >= {"Priya Raman", "Marcus Okafor", "Lena Vogt", "Tomás Herrera"}
    limits = ChunkLimits()
    chunks = [c for d in result.documents for c in chunk_issue(d, limits=limits)]
    assert all(limits.count_tokens(c.text) <= limits.max_tokens and not c.truncated for c in chunks)
    epic = {d.key: d for d in result.documents}["jira:PLAT-101"]
    moved = [i for i in epic.items if i.kind == "change" and "duedate" in i.text]
    assert moved and moved[0].text == "changed duedate: 2026-05-28 -> 2026-06-09" and moved[0].author == "Priya Raman"
