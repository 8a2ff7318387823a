"""Where the core finds connectors and chunkers: dotted paths, imported lazily.

The core never imports `connectors` or `chunkers` directly (they import only `briefing.model`,
`briefing.settings` and `briefing.errors`); this table is the one place that names them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from briefing.errors import NotConfiguredError
from briefing.model import Chunker, Connector

# source type -> "module:factory"; the factory is `build(ctx: SourceContext) -> Connector`.
CONNECTORS: dict[str, str] = {
    "slack_export": "connectors.slack_export:build",
    "files": "connectors.files:build",
    "slack": "connectors.slack:build",
    "jira": "connectors.jira:build",
    "confluence": "connectors.confluence:build",
    "github": "connectors.github:build",
    "git": "connectors.git:build",
}

# document kind -> "module:function" (a `Chunker`).
CHUNKERS: dict[str, str] = {
    "slack_channel": "chunkers.slack:chunk_messages",
    "slack_thread": "chunkers.slack:chunk_messages",
    "document": "chunkers.documents:chunk_document",
    "jira_issue": "chunkers.jira:chunk_issue",
    "confluence_page": "chunkers.documents:chunk_document",
    "github_issue": "chunkers.github:chunk_issue",
    "git_history": "chunkers.github:chunk_commits",
    "code_file": "chunkers.code:chunk_code",
}


@dataclass(frozen=True)
class FetchOptions:
    """Per-run options from the command line."""

    full: bool = False
    since: datetime | None = None
    until: datetime | None = None
    dry_run: bool = False


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


def connector_for(ctx: SourceContext) -> Connector:
    source_type = ctx.config.type
    dotted = CONNECTORS.get(source_type)
    if dotted is None:
        raise NotConfiguredError(
            f"source '{ctx.name}': type '{source_type}' has no connector in this version of brief yet"
        )
    try:
        factory = _load(dotted)
    except (ImportError, AttributeError):
        raise NotConfiguredError(
            f"source '{ctx.name}': type '{source_type}' has no connector in this version of brief yet"
        ) from None
    connector: Connector = factory(ctx)
    return connector


def chunker_for(kind: str) -> Chunker:
    dotted = CHUNKERS.get(kind)
    if dotted is None:
        raise NotConfiguredError(f"no chunker for document kind '{kind}'")
    chunker: Chunker = _load(dotted)
    return chunker
