"""config/brief.example.toml documents the real defaults: every value it shows outside [sources] is the settings
model's default, and the file itself loads."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from briefing.settings import Settings, load_settings

EXAMPLE = Path(__file__).resolve().parents[1] / "config" / "brief.example.toml"


def shown_values(table: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for key, value in table.items():
        if isinstance(value, dict):
            out.extend(shown_values(value, f"{prefix}{key}."))
        else:
            out.append((f"{prefix}{key}", value))
    return out


def default_at(path: str) -> Any:
    node: Any = Settings()
    for part in path.split("."):
        node = node[part] if isinstance(node, dict) else getattr(node, part)
    return node


@pytest.mark.parametrize(
    ("key", "value"),
    [
        kv
        for section, table in tomllib.loads(EXAMPLE.read_text(encoding="utf-8")).items()
        if section not in {"sources", "workspace"}
        for kv in shown_values(table, f"{section}.")
    ],
)
def test_the_example_shows_the_model_default(key: str, value: Any) -> None:
    assert default_at(key) == value, f"{EXAMPLE.name}: {key} = {value!r}, but the default is {default_at(key)!r}"


def test_the_example_config_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    settings = load_settings(EXAMPLE)
    assert settings.sources
