"""A JIRA comment restricted to a project role or a group (`visibility`) is read only by who may read it.

Over a Server-shaped issue (`/rest/api/2/search`: a comment's `visibility` is `{"type": "role", "value":
"Developers"}` or `{"type": "group", ...}`) and the project's role record: the restricted comment gets its own
chunk whose readers are the role's members (a group, which is not expanded, allows only the workspace owner),
and the open comments around it stay readable by everyone who may read the issue.
"""

from __future__ import annotations

from typing import Any

from briefing.access import assign
from briefing.index import Filter
from briefing.model import ChunkLimits, RawRecord
from chunkers.jira import chunk_issue
from connectors.jira.access import ACCESS_KIND
from connectors.jira.normalise import normalise_issues

ROOMY = ChunkLimits(max_tokens=100_000, max_chars=1_000_000, max_items=1000)


def _comment(cid: str, when: str, body: str, visibility: dict[str, str] | None = None) -> dict[str, Any]:
    author = {"name": "zbraden", "key": "zbraden", "displayName": "Zoe Braden"}
    out: dict[str, Any] = {"id": cid, "author": author, "body": body, "created": when, "updated": when}
    return {**out, "visibility": visibility} if visibility else out


def _records() -> list[RawRecord]:
    issue = {
        "id": "1",
        "key": "AEROGEAR-9",
        "fields": {
            "summary": "Push server outage",
            "project": {"key": "AEROGEAR"},
            "issuetype": {"name": "Bug"},
            "status": {"name": "Open"},
            "created": "2013-07-01T10:00:00.000+0200",
            "updated": "2013-07-03T10:00:00.000+0200",
            "description": "The push server is down.",
            "comment": {
                "comments": [
                    _comment("101", "2013-07-01T11:00:00.000+0200", "Restarted it, watching."),
                    _comment("102", "2013-07-01T12:00:00.000+0200", "Root cause: leaked admin password in logs.",
                             {"type": "role", "value": "Developers"}),
                    _comment("103", "2013-07-01T13:00:00.000+0200", "Customer contacted about the rotation.",
                             {"type": "group", "value": "jira-administrators"}),
                    _comment("104", "2013-07-02T09:00:00.000+0200", "Back up since this morning."),
                ]
            },
        },
    }  # fmt: skip
    access = {
        "project": "AEROGEAR",
        "members": ["dev1", "user1"],
        "people": [],
        "roles": {"Developers": ["dev1"], "Users": ["dev1", "user1"]},
    }
    return [RawRecord("AEROGEAR-9", "jira_issue", issue), RawRecord("access/project/AEROGEAR", ACCESS_KIND, access)]


def test_a_role_restricted_comment_is_read_only_by_the_role() -> None:
    [document] = normalise_issues(_records(), base_url="https://issues.example.org").documents
    chunks = chunk_issue(document, limits=ROOMY)
    assign(chunks, [document], "jira", [], None)
    comments = [c for c in chunks if c.metadata["section"] == "comments"]

    def seen_by(reader: str) -> str:
        flt = Filter(readers=(reader,))
        return "\n".join(kept.text for c in comments if (kept := flt.keep(c)) is not None)

    user, dev = seen_by("jira/jira:user1"), seen_by("jira/jira:dev1")
    assert "Restarted it" in user and "Back up since" in user
    assert "admin password" not in user and "Customer contacted" not in user
    assert "admin password" in dev and "Restarted it" in dev
    assert "Customer contacted" not in dev  # a group is not expanded: the owner only
    restricted = next(c for c in comments if "admin password" in c.text)
    assert restricted.readers == ["jira/jira:dev1"] and "Restarted" not in restricted.text
