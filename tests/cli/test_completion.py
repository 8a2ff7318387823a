"""Shell completion offers the configured source names and types for `brief ingest` and `brief reindex`."""

from __future__ import annotations

from pathlib import Path

import click
import typer

from briefing.cli.app import app
from briefing.cli.ingest import complete_source


def context(config: Path | None) -> typer.Context:
    root = click.Context(typer.main.get_command(app), info_name="brief")
    root.params = {"config": config}
    return typer.Context(click.Command("ingest"), parent=root, info_name="ingest")


def test_source_names_and_types_complete(tmp_path: Path) -> None:
    config = tmp_path / "brief.toml"
    config.write_text(
        '[sources.team-slack]\ntype = "slack_export"\npath = "x"\n[sources.handbook]\ntype = "files"\npath = "d"\n'
    )
    assert complete_source(context(config), "") == ["team-slack", "handbook", "files", "slack_export"]
    assert complete_source(context(config), "te") == ["team-slack"]


def test_a_broken_config_completes_nothing_quietly(tmp_path: Path) -> None:
    config = tmp_path / "brief.toml"
    config.write_text("[sources.x]\ntype = 'nope'\n")
    assert complete_source(context(config), "") == []
