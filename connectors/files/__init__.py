"""Local files: Markdown/MDX (with front matter), plain text and PDF under a configured root, by heading section.

Refs `file:<path relative to the root>`; files that vanish leave the index on the next sync.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from briefing.sources import DocumentKind, KindLimits, Presentation, SourceBase, SourceDescriptor


class FilesSource(SourceBase):
    type: Literal["files"]
    path: Path
    include: list[str] = Field(default_factory=lambda: ["**/*.md", "**/*.mdx", "**/*.markdown", "**/*.txt", "**/*.pdf"])
    exclude: list[str] = Field(default_factory=list)
    base_url: str | None = None
    # A larger file is skipped with a reason (a 50 MB log would take minutes to chunk into tens of thousands).
    max_file_bytes: int = Field(default=20_000_000, gt=0)


DESCRIPTOR = SourceDescriptor(
    type="files",
    config=FilesSource,
    factory="connectors.files.connector:build",
    family="files",
    container="folder",
    presentation=Presentation(label="files", place="section", dates_only=True),
    kinds=(
        DocumentKind(
            "document",
            "chunkers.documents:stream_document",
            KindLimits(max_chars=1000, max_items=12, gap_hours=4.0, topic_threshold=0.15),
            config_keys={"max_chars": "doc_max_chars"},
        ),
    ),
    words=(r"docs|documentation|design\s+docs?|runbooks?", r"handbook|readmes?|markdown", r"files?"),
    noun_words=(r"files?",),
    ref_patterns=(r"file:.+",),
    supports=frozenset({"since", "until", "deletions"}),
    # chunkers.documents writes each chunk's heading path.
    metadata={"section_path": "section_path"},
)
