"""What each document was last chunked from, so a re-ingest chunks only the documents that changed."""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import logging
import pickle
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from briefing import __version__, access, people, registry
from briefing.model import Document
from briefing.settings import Settings
from briefing.store import _atomic_write_json

log = logging.getLogger(__name__)

# Raised when the record's layout or meaning changes: every record written before is then ignored.
RECORD_FORMAT = 1


@functools.cache
def _code_digest() -> str:
    """The code a document's chunks depend on beyond its own content: every package that registers a source type
    or a chunker (descriptors with the kinds' default limits, chunkers), chunk-time annotation and access rules,
    and token counting."""
    from briefing.embed import tokens

    roots = {str(dotted).split(".")[0] for dotted in registry.SOURCES.values() if dotted}
    for descriptor in registry.descriptors():
        roots |= {kind.chunker.split(".")[0] for kind in descriptor.kinds}
    files: list[Path] = []
    for root in sorted(roots):
        spec = importlib.util.find_spec(root)
        for location in (spec.submodule_search_locations or []) if spec is not None else []:
            files += sorted(Path(location).rglob("*.py"))
    files += [Path(__file__).with_name("chunking.py")]
    files += [Path(m.__file__) for m in (access, people, tokens) if m.__file__]
    digest = hashlib.blake2b(digest_size=16)
    for path in files:
        digest.update(str(path.name).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def settings_key(settings: Settings, source: str, model: str, directory: Sequence[Any], audience: Any) -> str:
    """Everything besides a document's own content that its chunks (text, hash, readers) are made from."""
    basis = {
        "format": RECORD_FORMAT,
        "version": __version__,
        "code": _code_digest(),
        "source": source,
        "model": model,
        "chunking": settings.chunking.model_dump(mode="json"),
        "chunking_set": sorted(settings.chunking.model_fields_set),  # a key set overrides its kind's default
        "max_tokens": settings.embedding.max_tokens,
        "directory": repr(directory),
        "audience": repr(audience),
    }
    return hashlib.blake2b(json.dumps(basis, sort_keys=True, default=str).encode(), digest_size=16).hexdigest()


def document_digest(doc: Document) -> str | None:
    """A digest of everything the document holds (None when it cannot be taken: the document is then chunked)."""
    try:
        return hashlib.blake2b(pickle.dumps(doc, protocol=5), digest_size=16).hexdigest()
    except Exception:  # an unpicklable value in metadata only costs a re-chunk
        return None


@dataclass
class Entry:
    """One document's last chunking: its digest, its chunks' ids and content hashes, and what they counted."""

    digest: str
    chunks: dict[str, str] = field(default_factory=dict)
    containers: list[str] = field(default_factory=list)
    tickets: list[str] = field(default_factory=list)
    truncated: int = 0
    over_limit: int = 0

    def still_indexed(self, existing: Mapping[str, Any]) -> bool:
        """Whether the index holds every chunk of this entry with the same content hash."""
        return all(existing.get(cid) == digest for cid, digest in self.chunks.items())


class ChunkRecords:
    """`state/<source>.chunked.json`: each document's `Entry` under the settings key it was chunked with.

    Written atomically after the source's chunks are written and its stale chunks deleted. A document is skipped
    only where its digest and the settings key match and the index still holds its chunks with the recorded
    hashes, so an entry that outlived its chunks (a crash before publishing, a rebuild) is chunked again.
    """

    def __init__(self, path: Path, key: str) -> None:
        self.path = path
        self.key = key
        self.old: dict[str, Entry] = {}
        self.new: dict[str, Entry] = {}
        try:
            data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
            if isinstance(data, dict) and data.get("key") == key:
                self.old = {k: Entry(**v) for k, v in data.get("documents", {}).items()}
        except (OSError, ValueError, TypeError) as exc:  # a damaged record only costs a re-chunk
            log.warning("%s unreadable, every document is chunked again: %s", path.name, exc)
            self.old = {}

    @classmethod
    def for_source(cls, settings: Settings, source: str, key: str) -> ChunkRecords:
        return cls(settings.workspace_home / "state" / f"{source}.chunked.json", key)

    def unchanged(self, doc: Document, digest: str | None, existing: Mapping[str, Any]) -> Entry | None:
        """The document's entry when it can be skipped (carried into the new record), else None."""
        entry = self.old.get(doc.key)
        if digest is None or entry is None or entry.digest != digest or not entry.still_indexed(existing):
            return None
        self.new[doc.key] = entry
        return entry

    def save(self) -> None:
        documents = {k: vars(e) for k, e in self.new.items()}
        _atomic_write_json(self.path, {"key": self.key, "documents": documents})
