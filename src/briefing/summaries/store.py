"""Where the summaries live: a sibling workspace's index (the same engine) and a cache of what was summarised."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from briefing.settings import Settings

SUFFIX = "--summaries"
# 2: a summary's dense vector is its conversation's chunk centroid (`conversation_vectors`), not its text's.
CACHE_VERSION = 3  # 3: a summary carries the readers of the conversation it summarises


def summary_settings(settings: Settings) -> Settings:
    """The settings of the summary index: the same engine, a sibling workspace (its own folder or collection)."""
    workspace = settings.workspace.model_copy(update={"name": settings.workspace.name + SUFFIX})
    qdrant = settings.qdrant
    if qdrant.path:
        qdrant = qdrant.model_copy(update={"path": str(qdrant.path).rstrip("/") + SUFFIX})
    return settings.model_copy(update={"workspace": workspace, "qdrant": qdrant})


def cache_path(settings: Settings) -> Path:
    return settings.workspace_home / "summaries.json"


def available(settings: Settings) -> bool:
    """Summaries are on (`[digest] summaries`) and were computed at ingest (cheap: the cache file, not the index)."""
    return settings.digest.summaries and bool(load_cache(cache_path(settings)))


def load_cache(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != CACHE_VERSION:
        return {}
    docs = data.get("documents")
    return docs if isinstance(docs, dict) else {}


def summary_size(settings: Settings) -> int:
    """Bytes on disk of the summary index and its cache (for the benchmark)."""
    return disk_bytes(cache_path(settings)) + disk_bytes(summary_settings(settings).workspace_home)


def disk_bytes(path: Path) -> int:
    """Bytes a file or folder takes on disk (allocated blocks: the engine's files are sparse)."""
    if path.is_file():
        return path.stat().st_blocks * 512
    return sum(p.stat().st_blocks * 512 for p in path.rglob("*") if p.is_file()) if path.is_dir() else 0
