"""How a briefing's scope reads the directory: channels named without a source, and places as an answer shows them."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from briefing import registry
from briefing.digest.model import Scope

if TYPE_CHECKING:
    from briefing.question.values import Directory


def channel_scope(scope: Scope, directory: Directory) -> Scope:
    """Channels named without a source mean the sources whose containers are channels: a docs folder that happens
    to share a channel's name ("releases") is not that channel."""
    channels = {c.lower() for c in directory.channels}
    if scope.sources or not scope.containers or not all(c.lower() in channels for c in scope.containers):
        return scope
    families = tuple(dict.fromkeys(d.family for d in registry.descriptors() if d.container_is_channel))
    return replace(scope, sources=families)


def places(scope: Scope, directory: Directory) -> list[str]:
    """How the scope's containers read in an answer: "#help" for channels, the name for projects."""
    channels = {c.lower() for c in directory.channels}
    return [f"#{c}" if c.lower() in channels else c for c in scope.containers]
