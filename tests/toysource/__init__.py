"""A toy source type, `notes`: a JSON-lines file of team notes. It exists to prove that adding a source type
needs no change to the core: this package, one `registry.register` line, and its data."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from briefing.sources import DocumentKind, KindLimits, Presentation, SourceBase, SourceDescriptor


class NotesSource(SourceBase):
    type: Literal["notes"]
    path: Path


DESCRIPTOR = SourceDescriptor(
    type="notes",
    config=NotesSource,
    factory="tests.toysource.connector:build",
    family="notes",
    container="notebook",
    presentation=Presentation(label="Notes", place="container", conversational=True),
    kinds=(DocumentKind("note", "tests.toysource.connector:chunk_note", KindLimits(max_chars=2000)),),
    words=(r"notes?|notebooks?",),
    ref_patterns=(r"notes:\d+",),
)
