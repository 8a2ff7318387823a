"""GitHub (and GitHub Enterprise): issues, pull requests with reviews and comments, releases, and code files.

Refs `github:<owner>/<repo>#<number>` (and `/comment-<id>`), `@<sha>`, `:<path>`, `@release:<tag>`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from briefing.sources import ApiSource, DocumentKind, KindLimits, Presentation, SourceDescriptor


class GithubSource(ApiSource):
    type: Literal["github"]
    repos: list[str] = Field(default_factory=list)
    code_paths: list[str] = Field(default_factory=list)
    # An offline export folder (pulls.json, commits.json, tags.json) instead of the API (connectors/github/export.py).
    path: Path | None = None
    # How often an incremental sync also walks the whole issue listing, to find deleted issues and comments (the
    # listings of what changed cannot say what was deleted); 0: on every sync.
    reconcile_hours: float = Field(default=24.0, ge=0)


CONVERSATION_LIMITS = KindLimits(max_chars=1000, max_items=12, gap_hours=4.0, topic_threshold=0.15)
CODE_KIND = DocumentKind(
    "code_file", "chunkers.code:chunk_code", CONVERSATION_LIMITS, config_keys={"max_chars": "doc_max_chars"}
)
COMMIT_WORDS = r"commits?|commit\s+log|git\s+log|git\s+history"

DESCRIPTOR = SourceDescriptor(
    type="github",
    config=GithubSource,
    factory="connectors.github.connector:build",
    family="github",
    container="repository",
    presentation=Presentation(label="GitHub", place="title_or_container", conversational=True),
    kinds=(
        DocumentKind("github_issue", "chunkers.github:chunk_issue", CONVERSATION_LIMITS, topic_split=True),
        CODE_KIND,
        DocumentKind("github_commits", "chunkers.github:chunk_commits", CONVERSATION_LIMITS, topic_split=True),
    ),
    # "merged" and "tag" are GitHub's words for a pull request landing and a release point ("when was X merged",
    # "which tag shipped it"); soft unless the question says "only".
    words=(
        r"github(?:\s+issues?)?|prs?|pull[\s-]requests?|merge[\s-]requests?|code[\s-]reviews?",
        COMMIT_WORDS,
        r"merged|tags?",
    ),
    ref_patterns=(r"github:[\w.-]+/[\w.-]+(?:#\d+(?:/comment-\d+)?|@release:.+|@[0-9a-f]{7,40}|:.+)",),
    supports=frozenset({"since", "deletions", "scopes"}),
    # chunkers.github marks pull requests and puts the item's lifecycle on its body chunk.
    metadata={"pull_request": "is_pull_request", "events": "events", "review_waits": "review_requests"},
    webhook="connectors.github.events:receive",
    # chunkers.github_state replays these from the issue events and reviews; the item's state chunk comes once per
    # interval (open, draft, reviewed, merged or closed, reopened; labels, assignees, milestone).
    history=("state", "draft", "review", "labels", "assignees", "milestone"),
)
