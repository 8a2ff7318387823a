"""Where the core finds sources: one line per source type, naming the descriptor beside its connector.

The core never imports `connectors` or `chunkers` directly and names no source type anywhere else: it learns
about a source only from its `SourceDescriptor` (briefing.sources), loaded lazily from this table. Adding a source
type is its package under `connectors/`, one line here, its sample data and its tests.

Source-specific keys of a chunk's metadata are read through `meta`, by the role the chunk's descriptor gives them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any, overload

from briefing.errors import NotConfiguredError
from briefing.model import Chunk, Chunker, Connector
from briefing.sources import (
    DocumentKind,
    FlagRole,
    RecordsRole,
    RefsRole,
    Role,
    SourceDescriptor,
    TextRole,
    read_flag,
    read_records,
    read_refs,
    read_text,
)

# config type -> "module:DESCRIPTOR"; the order is the one error messages list types in.
SOURCES: dict[str, str] = {
    "slack": "connectors.slack:API",
    "slack_export": "connectors.slack:EXPORT",
    "jira": "connectors.jira:DESCRIPTOR",
    "confluence": "connectors.confluence:DESCRIPTOR",
    "github": "connectors.github:DESCRIPTOR",
    "git": "connectors.git:DESCRIPTOR",
    "email": "connectors.email:MAILBOX",
    "gmail": "connectors.email:GMAIL",
    "calendar": "connectors.calendar:GOOGLE",
    "ics": "connectors.calendar:ICS",
    "files": "connectors.files:DESCRIPTOR",
}


@dataclass(frozen=True)
class FetchOptions:
    """Per-run options from the command line."""

    full: bool = False
    since: datetime | None = None
    until: datetime | None = None
    dry_run: bool = False
    # With `full`: accept a run that deletes more than `[sync] max_deletion_share` of a source's records.
    allow_deletions: bool = False


@dataclass
class SourceContext:
    """Everything a connector factory gets: its configured name, its config table, and helpers."""

    name: str
    config: Any
    resolve: Callable[[Path], Path] = field(default=lambda p: p)
    options: FetchOptions = field(default_factory=FetchOptions)
    now: datetime | None = None


def _load(dotted: str) -> Any:
    module_name, _, attr = dotted.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attr)


@cache
def descriptors() -> tuple[SourceDescriptor, ...]:
    """Every registered source type's descriptor, in registration order."""
    found = []
    for source_type, dotted in SOURCES.items():
        descriptor = _load(dotted)
        if not isinstance(descriptor, SourceDescriptor) or descriptor.type != source_type:
            raise TypeError(f"registry: {dotted} is not the SourceDescriptor of type '{source_type}'")
        found.append(descriptor)
    return tuple(found)


def register(source_type: str, dotted: str | None) -> None:
    """Add (or, with None, remove) a source type at run time, for plugins and tests; the next lookup sees it."""
    if dotted is None:
        SOURCES.pop(source_type, None)
    else:
        SOURCES[source_type] = dotted
    descriptors.cache_clear()
    _kinds.cache_clear()
    _families.cache_clear()


def source_types() -> tuple[str, ...]:
    return tuple(d.type for d in descriptors())


def descriptor(source_type: str) -> SourceDescriptor:
    for found in descriptors():
        if found.type == source_type:
            return found
    raise NotConfiguredError(f"unknown source type '{source_type}' (known: {', '.join(source_types())})")


def families() -> tuple[str, ...]:
    """The source names chunks carry (`Chunk.source_type`), one per family of config types."""
    return tuple(dict.fromkeys(d.family for d in descriptors()))


def family(name: str) -> SourceDescriptor | None:
    """The first descriptor of a chunk's `source_type`, for presentation (None for an unknown family)."""
    return _families().get(name)


@cache
def _families() -> dict[str, SourceDescriptor]:
    table: dict[str, SourceDescriptor] = {}
    for found in descriptors():
        table.setdefault(found.family, found)
    return table


@overload
def meta(chunk: Chunk | Mapping[str, Any], role: TextRole) -> str: ...
@overload
def meta(chunk: Chunk | Mapping[str, Any], role: FlagRole) -> bool: ...
@overload
def meta(chunk: Chunk | Mapping[str, Any], role: RecordsRole) -> list[dict[str, Any]]: ...
@overload
def meta(chunk: Chunk | Mapping[str, Any], role: RefsRole) -> list[str]: ...
def meta(chunk: Chunk | Mapping[str, Any], role: Role) -> str | bool | list[dict[str, Any]] | list[str]:
    """What the chunk's metadata says in `role` (`briefing.sources.ROLES`), read from the key its source declares.

    `chunk` is a Chunk or a stored payload (with `source_type` and `metadata`). A source that declares no key for
    the role, or a chunk whose key is unset, gives the role's empty value: "", False or [].
    """
    metadata: Any
    if isinstance(chunk, Chunk):
        source_type, metadata = chunk.source_type, chunk.metadata
    else:
        source_type, metadata = str(chunk.get("source_type") or ""), chunk.get("metadata")
    found = family(source_type)
    where = found.metadata.get(role) if found is not None else None
    values = metadata if isinstance(metadata, Mapping) else {}
    if role in ("thread_root", "section_path"):
        return read_text(values, where)
    if role in ("events", "review_waits"):
        return read_records(values, where)
    if role == "links":
        return read_refs(values, where)
    return read_flag(values, where)


@cache
def _kinds() -> dict[str, DocumentKind]:
    table: dict[str, DocumentKind] = {}
    for found in descriptors():
        for kind in found.kinds:
            table.setdefault(kind.name, kind)
    return table


def kind(name: str) -> DocumentKind:
    found = _kinds().get(name)
    if found is None:
        raise NotConfiguredError(f"no chunker for document kind '{name}'")
    return found


def connector_for(ctx: SourceContext) -> Connector:
    source_type = ctx.config.type
    dotted = descriptor(source_type).factory
    missing = f"source '{ctx.name}': type '{source_type}' has no connector in this version of brief yet"
    if dotted is None:
        raise NotConfiguredError(missing)
    try:
        factory = _load(dotted)
    except (ImportError, AttributeError):
        raise NotConfiguredError(missing) from None
    connector: Connector = factory(ctx)
    return connector


def chunker_for(kind_name: str) -> Chunker:
    chunker: Chunker = _load(kind(kind_name).chunker)
    return chunker
