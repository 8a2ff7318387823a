"""What one point of the index stores: its id, its vectors' names, and the payload a chunk becomes."""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from briefing.model import Chunk, Unit

DENSE = "dense"
SPARSE = "bm25"
_NS = uuid.UUID("6f1c7a52-3b8e-4f4e-9a51-8d1b2f0c9e11")
PAYLOAD_INDEXES = {
    "source_type": "keyword",
    "source_name": "keyword",
    "doc_key": "keyword",
    "doc_id": "keyword",
    "container": "keyword",
    "authors": "keyword",
    "tickets": "keyword",
    "refs": "keyword",
    "start_ts": "float",
    "end_ts": "float",
    "written_ts": "float",
    "valid_until_ts": "float",
    "readers": "keyword",
}


def doc_id(doc_key: str) -> str:
    """The source-agnostic part of a document key: `PLAT-142` for `jira:PLAT-142`."""
    return doc_key.split(":", 1)[1] if ":" in doc_key else doc_key


def point_id(chunk_id: str) -> str:
    return str(uuid.uuid5(_NS, chunk_id))


def content_hash(chunk: Chunk, model: str) -> str:
    """Changes whenever what is embedded (text, model) or what is shown (refs, title, url) changes, and when a
    state's interval does (`valid_until`: the same text may hold over another interval after a new sync)."""
    parts: list[object] = [model, chunk.text, chunk.refs, chunk.title, chunk.url, chunk.container]
    if chunk.valid_until is not None or chunk.written_at is not None:
        parts.append([str(chunk.written_at), str(chunk.valid_until)])
    basis = json.dumps(parts, sort_keys=True)
    return hashlib.sha256(basis.encode()).hexdigest()[:32]


def chunk_to_payload(chunk: Chunk, digest: str) -> dict[str, Any]:
    payload = asdict(chunk)
    payload["doc_id"] = doc_id(chunk.doc_key)
    payload["start"] = chunk.start.isoformat()
    payload["end"] = chunk.end.isoformat()
    payload["start_ts"] = chunk.start.timestamp()
    payload["end_ts"] = chunk.end.timestamp()
    payload["written_at"] = chunk.written_at.isoformat() if chunk.written_at else None
    payload["written_ts"] = (chunk.written_at or chunk.start).timestamp()
    payload["valid_until"] = chunk.valid_until.isoformat() if chunk.valid_until else None
    payload["valid_until_ts"] = chunk.valid_until.timestamp() if chunk.valid_until else None
    payload["units"] = [
        {"ref": u.ref, "text": u.text, "author": u.author, "at": u.at.isoformat() if u.at else None, "url": u.url}
        for u in chunk.units
    ]
    payload["hash"] = digest
    clean: dict[str, Any] = json.loads(json.dumps(payload, default=str))
    return clean


def payload_to_chunk(payload: dict[str, Any]) -> Chunk:
    units = [
        Unit(
            ref=u["ref"],
            text=u["text"],
            author=u.get("author"),
            at=_dt(u["at"]) if u.get("at") else None,
            url=u.get("url") or "",
        )
        for u in payload.get("units", [])
    ]
    return Chunk(
        chunk_id=payload["chunk_id"],
        doc_key=payload["doc_key"],
        source_type=payload["source_type"],
        kind=payload["kind"],
        title=payload.get("title", ""),
        text=payload["text"],
        refs=list(payload.get("refs", [])),
        start=_dt(payload["start"]),
        end=_dt(payload["end"]),
        authors=list(payload.get("authors", [])),
        url=payload.get("url", ""),
        container=payload.get("container", ""),
        tickets=list(payload.get("tickets", [])),
        units=units,
        metadata=dict(payload.get("metadata", {})),
        source_name=payload.get("source_name", ""),
        truncated=bool(payload.get("truncated", False)),
        written_at=_dt(payload["written_at"]) if payload.get("written_at") else None,
        valid_until=_dt(payload["valid_until"]) if payload.get("valid_until") else None,
        readers=list(payload["readers"]) if isinstance(payload.get("readers"), list) else None,
    )


def _dt(value: str) -> datetime:
    parsed = datetime.fromisoformat(value)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


# What decides whether a read keeps a chunk it matched on stored times (`Filter.keep` with a moment and readers
# only) and which document it is in: a lookup that needs no more than that fetches only these fields.
KEEP_FIELDS = ["doc_key", "readers", "start", "written_at", "valid_until", "units[].at"]


def light_chunk(payload: dict[str, Any]) -> Chunk:
    """A chunk built from a point's `KEEP_FIELDS` alone: whether a moment hides it, or all of its units, depends on
    its times, and whom it is for on its readers; its other fields only shape a cut chunk, which is not read."""
    start = _dt(payload["start"])
    return Chunk(
        chunk_id="",
        doc_key=payload["doc_key"],
        source_type="",
        kind="",
        title="",
        text="",
        refs=[],
        start=start,
        end=start,
        units=[Unit(ref="", text="", at=_dt(u["at"]) if u.get("at") else None) for u in payload.get("units", [])],
        written_at=_dt(payload["written_at"]) if payload.get("written_at") else None,
        valid_until=_dt(payload["valid_until"]) if payload.get("valid_until") else None,
        readers=list(payload["readers"]) if isinstance(payload.get("readers"), list) else None,
    )


def kept_doc(payload: dict[str, Any], keep: Any) -> str | None:
    """The document of a point read with `KEEP_FIELDS`, or None when `keep` (a `Filter.keep`) drops its chunk."""
    chunk = light_chunk(payload)
    return chunk.doc_key if keep(chunk) is not None else None
