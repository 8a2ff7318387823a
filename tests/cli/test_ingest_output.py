"""`brief ingest` renders the pipeline's results: one table row per source, the dry-run note, skipped items."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from briefing.cli.app import app

runner = CliRunner()


def _workspace(tmp_path: Path) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "runbook.md").write_text("# Runbook\n\nRestart the ledger with `make restart`.\n")
    (tmp_path / "docs" / "oncall.md").write_text("# On-call\n\nPages are answered within fifteen minutes.\n")
    config = tmp_path / "brief.toml"
    config.write_text('[workspace]\nname = "o"\n[sources.docs]\ntype = "files"\npath = "docs"\n')
    return config


def _row(output: str, source: str) -> list[str]:
    return next(line.split() for line in output.splitlines() if line.split()[:1] == [source])


@pytest.mark.slow
def test_ingest_prints_one_row_per_source_and_a_rerun_embeds_nothing(tmp_path: Path) -> None:
    config = _workspace(tmp_path)
    first = runner.invoke(app, ["--config", str(config), "ingest"])
    assert first.exit_code == 0, first.output
    assert first.stdout.split("\n", 1)[0].split() == [
        "source", "fetched", "deleted", "documents", "chunks", "embedded", "failures"
    ]  # fmt: skip
    fetched, deleted, documents, chunks, embedded, failures = _row(first.stdout, "docs")[1:]
    assert (fetched, deleted, documents, failures) == ("2", "0", "2", "0")
    assert int(chunks) >= 2 and embedded == chunks

    again = runner.invoke(app, ["--config", str(config), "ingest"])
    assert again.exit_code == 0, again.output
    assert _row(again.stdout, "docs")[5] == "0"  # nothing changed, nothing embedded
    assert "failed and were skipped" not in again.stderr


def test_dry_run_says_nothing_was_written(tmp_path: Path) -> None:
    config = _workspace(tmp_path)
    result = runner.invoke(app, ["--config", str(config), "ingest", "--dry-run"])
    assert result.exit_code == 0, result.output
    assert _row(result.stdout, "docs")[1:] == ["2", "0", "-", "-", "-", "0"]
    assert "dry run: nothing was cached, no cursor moved, nothing was indexed" in result.stdout
    sources = runner.invoke(app, ["--config", str(config), "sources", "--json"])
    assert '"cached_records": 0' in sources.stdout


@pytest.mark.slow
def test_sources_json_summarises_cursors_unless_verbose(tmp_path: Path) -> None:
    import json

    config = _workspace(tmp_path)
    assert runner.invoke(app, ["--config", str(config), "ingest"]).exit_code == 0
    short = json.loads(runner.invoke(app, ["--config", str(config), "sources", "--json"]).stdout)
    assert short["sources"][0]["cursor"] == "files: 2"
    full = json.loads(runner.invoke(app, ["--verbose", "--config", str(config), "sources", "--json"]).stdout)
    assert isinstance(full["sources"][0]["cursor"], dict) and full["sources"][0]["cursor"]
