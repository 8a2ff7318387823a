"""JIRA (Cloud, Server, Data Center): issues with their fields, links, history and comments.

Chunked by ticket parts (body, links, history) and comment topics; refs `jira:<KEY>`, `jira:<KEY>#comment-<id>`,
`jira:<KEY>#change-<id>`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from briefing.sources import ApiSource, DocumentKind, KindLimits, Presentation, SourceDescriptor
from briefing.textrules import PROJECT_KEY


class JiraSource(ApiSource):
    type: Literal["jira"]
    projects: list[str] = Field(default_factory=list)
    jql: str | None = None
    cloud: bool | None = None
    overlap_minutes: int = 60
    # Server/Data Center bodies and comments: wiki markup rendered as plain text (`connectors.jira.wiki`).
    render_wiki: bool = False


DESCRIPTOR = SourceDescriptor(
    type="jira",
    config=JiraSource,
    factory="connectors.jira.connector:build",
    family="jira",
    container="project",
    presentation=Presentation(label="JIRA", place="title", conversational=True),
    kinds=(
        DocumentKind(
            "jira_issue",
            "chunkers.jira:chunk_issue",
            KindLimits(max_chars=1000, max_items=12, gap_hours=4.0, topic_threshold=0.15),
            topic_split=True,
        ),
    ),
    words=(r"jira|tickets?|epics?|sprints?|backlog",),
    ref_patterns=(rf"jira:{PROJECT_KEY.pattern}-\d+(?:#(?:comment|change)-\d+)?",),
    supports=frozenset({"since", "until", "scopes"}),
    # chunkers.jira puts the status changes on its history chunk.
    # chunkers.jira names the linked issues on the links chunk, whose state is read from them as of `now`.
    metadata={"events": "events", "links": "links"},
    # chunkers.jira_state walks these back through the changelog; the state chunk comes once per interval.
    history=(
        "status",
        "assignee",
        "priority",
        "resolution",
        "fix versions",
        "affects versions",
        "components",
        "labels",
        "sprint",
    ),  # fmt: skip
    webhook="connectors.jira.events:receive",
    webhook_auth=("jwt",),
)
