"""`brief init`: a first run writes a config that loads, checks each source, and names the secrets to export."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from briefing.cli.app import app
from briefing.settings import load_settings

runner = CliRunner()


def test_non_interactive_init_writes_a_config_that_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CHAT_TOKEN", raising=False)
    (tmp_path / "docs").mkdir()
    config = tmp_path / "brief.toml"
    result = runner.invoke(
        app,
        [
            "init", "--path", str(config), "--non-interactive", "--workspace", "team", "--timezone", "Europe/Berlin",
            "--source", "files:handbook:path=docs",
            "--source", "slack:chat:channels=general|eng,token_env=CHAT_TOKEN",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    settings = load_settings(config)
    assert settings.workspace.name == "team" and settings.workspace.timezone == "Europe/Berlin"
    assert settings.sources["chat"].channels == ["general", "eng"]  # type: ignore[attr-defined]
    assert "handbook (files): ok" in result.output
    assert "chat (slack): export CHAT_TOKEN=..." in result.output


def test_interactive_init_prompts_for_the_required_keys(tmp_path: Path) -> None:
    config = tmp_path / "brief.toml"
    answers = "\n".join(["platform", "UTC", "y", "slack_export", "archive", "exports/slack", "n"]) + "\n"
    result = runner.invoke(app, ["init", "--path", str(config)], input=answers)
    assert result.exit_code == 0, result.output
    settings = load_settings(config)
    assert settings.sources["archive"].type == "slack_export"
    assert "archive (slack_export):" in result.output and "does not exist yet" in result.output


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("slak:x", "unknown source type 'slak'"),
        ("files:docs:pth=docs", "unknown key 'sources.docs.pth' (did you mean 'path'?)"),
        ("files", "write TYPE:NAME"),
    ],
)
def test_a_bad_source_writes_nothing(tmp_path: Path, source: str, message: str) -> None:
    config = tmp_path / "brief.toml"
    result = runner.invoke(app, ["init", "--path", str(config), "--non-interactive", "--source", source])
    assert result.exit_code in {2, 3, 10}
    assert message in " ".join(result.output.split())
    assert not config.exists() and not list(tmp_path.iterdir())


def test_an_existing_config_is_kept_without_force(tmp_path: Path) -> None:
    config = tmp_path / "brief.toml"
    config.write_text("# mine\n", encoding="utf-8")
    result = runner.invoke(app, ["init", "--path", str(config), "--non-interactive"])
    assert result.exit_code == 2
    assert config.read_text(encoding="utf-8") == "# mine\n"
