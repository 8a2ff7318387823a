"""Config validation errors as one line each: the key's full path, what is wrong, and a spelling suggestion."""

from __future__ import annotations

import difflib
from typing import Any

from pydantic import BaseModel, ValidationError

from briefing.settings.source_tables import source_types


class SourceTableError(ValueError):
    """A source table's own validation error, already explained with its full key path."""


def _first(error: ValidationError) -> Any:
    """The error to report: an unknown key before anything else (a typo also makes the real key "missing")."""
    errors = error.errors()
    return next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])


def _keys_of(model: Any, parts: list[str]) -> list[str]:
    """The keys a config table accepts at `parts` (a path of section names), for spelling suggestions."""
    for part in parts:
        field = getattr(model, "model_fields", {}).get(part)
        annotation = getattr(field, "annotation", None)
        if not isinstance(annotation, type) or not issubclass(annotation, BaseModel):
            return []
        model = annotation
    return [name for name, f in getattr(model, "model_fields", {}).items() if not f.exclude]


def _suggest(key: str, known: list[str]) -> str:
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _explain(first: Any, loc: str, known_keys: list[str] | None = None) -> str:
    kind = first["type"]
    known = ", ".join(source_types())
    if kind == "extra_forbidden":
        key = loc.rsplit(".", 1)[-1]
        return f"unknown key '{loc}'{_suggest(key, known_keys or [])}: remove it or check its spelling"
    if kind == "union_tag_invalid":
        tag = first.get("input", {}).get("type") if isinstance(first.get("input"), dict) else None
        return f"unknown source type '{tag}' at '{loc}' (known: {known}){_suggest(str(tag), list(source_types()))}"
    if kind == "union_tag_not_found":
        return f"'{loc}' has no 'type' key (one of: {known})"
    if kind == "missing":
        return f"missing key '{loc}'"
    return f"invalid value at '{loc}': {first['msg']}"


def table_error(error: ValidationError, prefix: str, table: Any) -> SourceTableError:
    """A source table's validation error, explained with its path under `prefix` (`sources.NAME`)."""
    first = _first(error)
    parts = [str(p) for p in first["loc"]]
    if parts and parts[0] in source_types():
        parts = parts[1:]  # the union's tag is not a key the user wrote
    keys: list[str] = []
    if isinstance(table, dict) and table.get("type") in source_types():
        from briefing import registry

        keys = _keys_of(registry.descriptor(str(table["type"])).config, parts[:-1])
    return SourceTableError(_explain(first, ".".join([prefix, *parts]), keys))


def describe(error: ValidationError, where: str, settings_model: Any) -> str:
    """The one line that reports a settings validation error, prefixed with `where` (the config file)."""
    first = _first(error)
    inner = first.get("ctx", {}).get("error")
    if isinstance(inner, SourceTableError):
        return f"{where}: {inner}"
    parts = [str(p) for p in first["loc"]]
    return f"{where}: {_explain(first, '.'.join(parts), _keys_of(settings_model, parts[:-1]))}"
