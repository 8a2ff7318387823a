"""Golden-file helpers for chunker tests: chunks as JSON, checked against (or rewritten into) a golden file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from briefing.model import Chunk


def chunk_to_json(chunk: Chunk) -> dict[str, Any]:
    return {
        "chunk_id": chunk.chunk_id,
        "title": chunk.title,
        "text": chunk.text,
        "refs": chunk.refs,
        "start": chunk.start.isoformat(),
        "end": chunk.end.isoformat(),
        "authors": chunk.authors,
        "url": chunk.url,
        "container": chunk.container,
        "tickets": chunk.tickets,
        "units": [{"ref": u.ref, "author": u.author, "at": u.at.isoformat() if u.at else None} for u in chunk.units],
        "metadata": chunk.metadata,
        "truncated": chunk.truncated,
    }


def check_golden(request: pytest.FixtureRequest, path: Path, got: list[dict[str, Any]]) -> None:
    """Compare with the golden file; rewrite it only when pytest runs with --update-golden (never silently)."""
    if request.config.getoption("--update-golden"):
        path.write_text(json.dumps(got, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    assert got == json.loads(path.read_text(encoding="utf-8"))
