"""A toy source type, `notes`: a JSON-lines file of team notes. It exists to prove that adding a source type
needs no change to the core: this package, one `registry.register` line, and its data.

`MEMOS` is a second toy type, never ingested, whose chunks carry metadata under its own key names: it shows the
core reading a source's metadata through the roles its descriptor declares (`briefing.registry.meta`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Literal

from briefing.sources import DocumentKind, Flag, KindLimits, Presentation, SourceBase, SourceDescriptor


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


class MemosSource(SourceBase):
    type: Literal["memos"]
    path: Path


MEMOS = replace(
    DESCRIPTOR,
    type="memos",
    config=MemosSource,
    factory=None,
    family="memos",
    kinds=(),
    words=(r"memos?",),
    ref_patterns=(r"memos:\d+",),
    metadata={"thread_root": "reply_to", "cancelled": Flag("state", "withdrawn"), "links": "see_also"},
)
