"""Golden files for chunker tests: one serialiser for chunks and documents, one check (or explicit rewrite).

Every field of a chunk is written, so a golden file notices any change in what a chunker produces.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from briefing.model import Chunk, Document, Item


def to_json(value: Any) -> Any:
    """Dataclasses (chunks, units, documents, items) as plain JSON values; datetimes in ISO-8601."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: to_json(getattr(value, f.name))
            for f in dataclasses.fields(value)
            # Readers are the core's (briefing.access, after chunking): no chunker sets them, and a document
            # whose source recorded none is written as before.
            # Likewise `valid_until`: only a state that a later one superseded has it.
            if not (f.name in ("readers", "valid_until") and getattr(value, f.name) is None)
        }
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_json(v) for v in value]
    return value


def chunks_to_json(chunks: list[Chunk]) -> list[dict[str, Any]]:
    return [to_json(chunk) for chunk in chunks]


def document_from_json(data: dict[str, Any]) -> Document:
    """A document written by `to_json` (a golden input), read back."""
    items = [Item(**{**i, "occurred_at": datetime.fromisoformat(i["occurred_at"])}) for i in data["items"]]
    return Document(**{**data, "items": items})


def check_golden(request: pytest.FixtureRequest, path: Path, got: Any) -> None:
    """Compare with the golden file; rewrite it only when pytest runs with --update-golden (never silently)."""
    if request.config.getoption("--update-golden"):
        path.write_text(json.dumps(got, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    assert got == json.loads(path.read_text(encoding="utf-8"))
