"""The config contract: sources by name, unknown keys and types named with the file, secrets by env name."""

from __future__ import annotations

from pathlib import Path

import pytest

from briefing.errors import AuthError, ConfigError
from briefing.settings import load_settings, secret


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "brief.toml"
    path.write_text(text)
    return path


def test_design_example_config_loads(tmp_path: Path) -> None:
    example = Path(__file__).resolve().parents[1] / "config" / "brief.example.toml"
    settings = load_settings(example)
    assert settings.workspace.name == "platform-team"
    assert settings.sources["slack-archive"].type == "slack_export"
    assert settings.resolve(Path("exports/slack")) == example.parent / "exports" / "slack"


def test_unknown_key_names_key_and_file(tmp_path: Path) -> None:
    path = write(tmp_path, '[sources.docs]\ntype = "files"\npath = "d"\npaht = "x"\n')
    with pytest.raises(ConfigError) as info:
        load_settings(path)
    assert "sources.docs.files.paht" in str(info.value) or "paht" in str(info.value)
    assert str(path) in str(info.value)


def test_an_embedding_round_of_no_chunks_is_refused_naming_the_key(tmp_path: Path) -> None:
    path = write(tmp_path, "[embedding]\nround_chunks = 0\n")
    with pytest.raises(ConfigError) as info:
        load_settings(path)
    message = str(info.value)
    assert "embedding.round_chunks" in message and str(path) in message and "\n" not in message
    assert load_settings(write(tmp_path, "[embedding]\nround_chunks = 32\n")).embedding.round_chunks == 32


def test_unknown_source_type_lists_known_types(tmp_path: Path) -> None:
    path = write(tmp_path, '[sources.x]\ntype = "myspace"\n')
    with pytest.raises(ConfigError) as info:
        load_settings(path)
    assert "myspace" in str(info.value) and "slack_export" in str(info.value)


def test_malformed_toml_is_a_config_error(tmp_path: Path) -> None:
    path = write(tmp_path, "[workspace\nname = 1\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings(path)


def test_missing_explicit_config(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings(tmp_path / "nope.toml")


def test_environment_overrides_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, "[retrieval]\ncandidates = 20\n")
    monkeypatch.setenv("BRIEF_RETRIEVAL__CANDIDATES", "100")
    monkeypatch.setenv("BRIEF_WORKSPACE__NAME", "ops")
    settings = load_settings(path)
    assert settings.retrieval.candidates == 100
    assert settings.workspace.name == "ops"
    # command-line overrides beat the environment
    assert load_settings(path, {"retrieval": {"candidates": 7}}).retrieval.candidates == 7


def test_secret_comes_from_named_variable_and_is_never_echoed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_TOKEN", "xoxb-very-secret")
    assert secret("MY_TOKEN", setting="sources.s.token_env").get_secret_value() == "xoxb-very-secret"
    assert "xoxb" not in repr(secret("MY_TOKEN", setting="sources.s.token_env"))
    monkeypatch.delenv("MY_TOKEN")
    with pytest.raises(AuthError) as info:
        secret("MY_TOKEN", setting="sources.s.token_env")
    assert "MY_TOKEN" in str(info.value) and "sources.s.token_env" in str(info.value)
