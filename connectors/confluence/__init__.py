"""Confluence (Cloud, Server, Data Center): pages by section, and their comments.

Refs `confluence:<page_id>` and `confluence:<page_id>#comment-<id>`; pages deleted or moved out of the configured
spaces leave the index on the next sync. A page's earlier versions (the newest `max_versions`) are kept, so that it
reads as of `now` (connectors.confluence.versions, chunkers.versions).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from briefing.sources import ApiSource, DocumentKind, KindLimits, Presentation, SourceDescriptor


class ConfluenceSource(ApiSource):
    type: Literal["confluence"]
    spaces: list[str] = Field(default_factory=list)
    cloud: bool | None = None
    overlap_minutes: int = 60
    # How many versions of a page are kept, the current one included (1: the current text only). Earlier ones are
    # fetched once each and read as of `now`: a question asked before an edit sees the text of then.
    max_versions: int = Field(default=20, ge=1)


DOCUMENT_LIMITS = KindLimits(max_chars=1000, max_items=12, gap_hours=4.0, topic_threshold=0.15)

DESCRIPTOR = SourceDescriptor(
    type="confluence",
    config=ConfluenceSource,
    factory="connectors.confluence.connector:build",
    family="confluence",
    container="space",
    presentation=Presentation(label="confluence", place="section", document_word="wiki"),
    kinds=(
        DocumentKind(
            "confluence_page",
            "chunkers.versions:stream_versions",
            DOCUMENT_LIMITS,
            config_keys={"max_chars": "doc_max_chars"},
        ),
    ),
    words=(r"confluence(?:\s+pages?)?|wiki(?:\s+pages?)?", r"docs|documentation|design\s+docs?|runbooks?"),
    ref_patterns=(r"confluence:[^#\s]+(?:#comment-\d+)?",),
    supports=frozenset({"since", "deletions", "scopes"}),
    # chunkers.documents writes each chunk's heading path, and the page's history on its first chunk.
    metadata={"section_path": "section_path", "events": "events"},
    # connectors.confluence.versions keeps a page's earlier versions; chunkers.versions dates each one's chunks.
    history=("text", "title"),
)
