"""The toy `notes` connector and chunker: one line of the file is one note, one note is one chunk."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime

from briefing.model import JSON, Batch, Chunk, ChunkLimits, Cursor, Document, Item, Normalised, RawRecord, Unit
from briefing.registry import SourceContext


class NotesCursor(Cursor):
    lines: int = 0


class NotesConnector:
    def __init__(self, path: str) -> None:
        self.path = path

    def initial_cursor(self) -> Cursor:
        return NotesCursor()

    def load_cursor(self, data: JSON) -> Cursor:
        return NotesCursor.model_validate(data)

    def fetch(self, cursor: Cursor) -> Iterator[Batch]:
        assert isinstance(cursor, NotesCursor)
        with open(self.path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
        records = [RawRecord(key=str(json.loads(line)["id"]), kind="note", data=json.loads(line)) for line in lines]
        yield Batch(records=records[cursor.lines :], cursor=NotesCursor(lines=len(lines)))

    def normalise(self, records: Sequence[RawRecord]) -> Normalised:
        documents = []
        for record in records:
            note = record.data
            item = Item(
                ref=f"notes:{note['id']}",
                source_type="notes",
                kind="note",
                text=note["text"],
                occurred_at=datetime.fromisoformat(note["at"]),
                author=note["author"],
                title=note["title"],
                container=note["notebook"],
            )
            documents.append(
                Document(
                    key=item.ref,
                    kind="note",
                    source_type="notes",
                    title=item.title,
                    items=[item],
                    container=item.container,
                )
            )
        return Normalised(documents=documents)


def build(ctx: SourceContext) -> NotesConnector:
    return NotesConnector(str(ctx.resolve(ctx.config.path)))


def chunk_note(
    document: Document, *, limits: ChunkLimits, vectors: Mapping[str, Sequence[float]] | None = None
) -> list[Chunk]:
    item = document.items[0]
    text = f"{item.title}\n{item.author}: {item.text}"[: limits.max_chars]
    return [
        Chunk(
            chunk_id=f"{document.key}#0",
            doc_key=document.key,
            source_type="notes",
            kind="note",
            title=item.title,
            text=text,
            refs=[item.ref],
            start=item.occurred_at,
            end=item.occurred_at,
            authors=[item.author or ""],
            container=item.container,
            units=[Unit(ref=item.ref, text=item.text, author=item.author, at=item.occurred_at)],
        )
    ]
