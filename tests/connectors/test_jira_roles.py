"""JIRA project roles are read, so a project's non-secured issues are readable by its role members only.

JIRA lists a project's roles as absolute URLs (Server `.../rest/api/2/project/K/role/ID`, Cloud `.../rest/api/3/
...`); atlassian-python-api prefixes its base URL to any path it is given, so following that URL asked for
`http://h/http://h/rest/...` and every project was the owner's only. Against the local JIRA server in both shapes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from briefing.access import assign
from briefing.index import Filter
from briefing.model import ChunkLimits
from chunkers.jira import chunk_issue
from connectors.jira.access import role_path
from connectors.jira.normalise import normalise_issues
from tests.connectors.test_jira import FIXTURES, PAT, TOKEN, USER, Runner
from tests.fakes.jira_server import JiraFake

ROOMY = ChunkLimits(max_tokens=100_000, max_chars=1_000_000, max_items=1000)
MEMBER = {"accountId": "acc-dev1", "displayName": "Devon Member"}
VIEWER = {"accountId": "acc-view1", "displayName": "Vera Viewer"}


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[JiraFake]:
    server = JiraFake.from_dir(FIXTURES)
    server.roles = {"ACME": {"Developers": [MEMBER], "Viewers": [VIEWER]}}
    monkeypatch.setenv("JIRA_USER", USER)
    monkeypatch.setenv("JIRA_TOKEN", TOKEN)
    monkeypatch.setenv("JIRA_PAT", PAT)
    server.start()
    yield server
    server.stop()


def _ingest(fake: JiraFake, shape: str) -> tuple[Runner, dict[str, str]]:
    """Collect as Server (PAT, API 2) or Cloud (account e-mail and token, API 3); text each reader may see."""
    runner = Runner()
    config: dict[str, Any] = {"cloud": True} if shape == "cloud" else {"cloud": False, "user_env": None}
    if shape == "server":
        fake.credentials = f"Bearer {PAT}"
        config["token_env"] = "JIRA_PAT"
    runner.collect(runner.connector(fake, **config))
    documents = normalise_issues(list(runner.cache.values()), base_url=fake.url).documents
    chunks = [c for d in documents for c in chunk_issue(d, limits=ROOMY)]
    assign(chunks, documents, "jira", [], None)

    def seen_by(account: str) -> str:
        flt = Filter(readers=(f"jira/jira:{account}",))
        return "\n".join(kept.text for c in chunks if (kept := flt.keep(c)) is not None)

    return runner, {a: seen_by(a) for a in ("acc-dev1", "acc-view1", "acc-stranger")}


@pytest.mark.parametrize("shape", ["server", "cloud"])
def test_role_members_read_the_projects_issues_and_a_non_member_does_not(fake: JiraFake, shape: str) -> None:
    runner, seen = _ingest(fake, shape)

    assert runner.failures == []  # no "project roles could not be read: HTTP 404"
    for member in ("acc-dev1", "acc-view1"):
        assert "Export statements as CSV" in seen[member] and "Reconcile statement totals" in seen[member]
    assert seen["acc-stranger"] == ""
    version = "3" if shape == "cloud" else "2"
    role_reads = [r.path for r in fake.log if "/role/" in r.path]
    assert sorted(role_reads) == [f"/rest/api/{version}/project/ACME/role/{i}" for i in ("10000", "10001")]


def test_a_role_listed_on_another_host_is_read_from_the_configured_one(fake: JiraFake) -> None:
    fake.role_origin = "http://gateway.invalid/jira"
    runner, seen = _ingest(fake, "cloud")

    assert runner.failures == []
    assert "Export statements as CSV" in seen["acc-dev1"] and seen["acc-stranger"] == ""


def test_an_unrecognised_role_url_fails_closed_naming_it(fake: JiraFake) -> None:
    with pytest.raises(ValueError, match="unrecognised role URL"):
        role_path("ACME", "http://h/rest/api/2/somewhere/else")
    assert role_path("ACME", "https://acme.atlassian.net/rest/api/3/project/ACME/role/10360") == (
        "project/ACME/role/10360"
    )
