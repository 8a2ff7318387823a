"""YAML front matter parsed with limits: an alias bomb or a huge block is a one-line error, never a hang.

`yaml.safe_load` cannot run code, but it builds shared objects for aliases: a few hundred bytes of nested
`*alias` references describe billions of values, and turning them into JSON (as the raw cache needs) copies each
one. So the block's size, its alias count and depth, and the size of the JSON made from it are all bounded.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

import yaml
from yaml.events import AliasEvent, CollectionStartEvent

MAX_BYTES = 64_000  # a real front matter block is a few hundred bytes
MAX_ALIASES = 100
MAX_DEPTH = 20
MAX_VALUES = 10_000  # scalars and collections in the JSON made from it


class FrontMatterError(ValueError):
    """Front matter that is refused; the message is one line saying why."""


class _LimitedLoader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML ships no types here
    """SafeLoader that counts aliases and nesting while composing, before anything is expanded."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._aliases = 0
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                raise FrontMatterError(f"front matter uses more than {MAX_ALIASES} aliases (an alias bomb?)")
        opens = self.check_event(CollectionStartEvent)
        if opens:
            self._depth += 1
            if self._depth > MAX_DEPTH:
                raise FrontMatterError(f"front matter is nested more than {MAX_DEPTH} levels deep")
        try:
            return super().compose_node(parent, index)
        finally:
            if opens:
                self._depth -= 1


def load(block: str) -> Any:
    """The YAML value of a front matter block, as plain JSON values; raises FrontMatterError or yaml.YAMLError."""
    if len(block.encode("utf-8", errors="replace")) > MAX_BYTES:
        raise FrontMatterError(f"front matter is larger than {MAX_BYTES:,} bytes")
    loader = _LimitedLoader(block)
    try:
        value = loader.get_single_data()
    finally:
        loader.dispose()
    return to_json(value, budget=[MAX_VALUES])


def to_json(value: Any, *, budget: list[int], depth: int = 0) -> Any:
    """YAML values (dates, nested lists and maps) as plain JSON values, counting down a shared value budget."""
    budget[0] -= 1
    if budget[0] < 0:
        raise FrontMatterError(f"front matter expands to more than {MAX_VALUES:,} values (an alias bomb?)")
    if depth > MAX_DEPTH:
        raise FrontMatterError(f"front matter is nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, dict):
        return {str(k): to_json(v, budget=budget, depth=depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [to_json(v, budget=budget, depth=depth + 1) for v in value]
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # JSON has no NaN or infinity
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)
