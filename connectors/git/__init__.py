"""A local git repository: commit history (chunked by topic), tags, and code files on configured paths.

Refs `git:<repo_name>@<sha>`, `git:<repo_name>@tag:<tag>`, `git:<repo_name>:<path>`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from briefing.sources import DocumentKind, KindLimits, Presentation, SourceBase, SourceDescriptor
from connectors.github import CODE_KIND, COMMIT_WORDS


class GitSource(SourceBase):
    type: Literal["git"]
    path: Path
    name: str | None = None
    branches: list[str] = Field(default_factory=list)
    code_paths: list[str] = Field(default_factory=list)


DESCRIPTOR = SourceDescriptor(
    type="git",
    config=GitSource,
    factory="connectors.git.connector:build",
    family="git",
    container="repository",
    presentation=Presentation(label="git", place="title_or_container", conversational=True),
    kinds=(
        DocumentKind(
            "git_history",
            "chunkers.github:chunk_commits",
            KindLimits(max_chars=1000, max_items=12, gap_hours=4.0, topic_threshold=0.15),
            topic_split=True,
        ),
        CODE_KIND,
    ),
    words=(COMMIT_WORDS, r"git"),
    ref_patterns=(r"git:[^@:\s]+(?:@tag:.+|@[0-9a-f]{7,40}|:.+)",),
    supports=frozenset({"since", "until", "deletions"}),
)
