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


def test_ingest_off_a_terminal_prints_each_sources_progress_as_plain_lines(tmp_path: Path) -> None:
    config = _workspace(tmp_path)
    result = runner.invoke(app, ["--config", str(config), "ingest"])
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert lines[0] == "docs: collecting: 0 items fetched (0 s)"
    assert any(line.startswith("docs: indexing: ") for line in lines)
    done = next(line for line in lines if line.startswith("docs: indexed "))
    chunks = _row(result.stdout, "docs")[4]
    assert done.startswith(f"docs: indexed 2 items as {chunks} chunks, {chunks} embedded (")
    assert "\x1b[" not in result.stderr  # no terminal codes in a log


def test_progress_counts_items_chunks_and_the_time_left() -> None:
    import io

    from rich.console import Console

    from briefing.cli.progress import ProgressDisplay
    from briefing.ingest.progress import SourceProgress

    # A quarter of the items chunked, 100 changed chunks found, 40 embedded in 30 s: ~400 to embed, 270 s left.
    event = SourceProgress(
        "lak", "indexing", items=500, items_total=2000, chunks=120, to_embed=100, embedded=40, seconds=30
    )
    assert event.expected_to_embed() == 400 and event.seconds_left() == 270
    assert event.line() == "lak: indexing: 500 of 2,000 items, 120 chunks, 40 of ~400 embedded, about 4 min left"
    screen = io.StringIO()
    display = ProgressDisplay(Console(file=screen, force_terminal=True, width=160))
    assert display.bar is not None  # a terminal gets a live bar
    with display:
        display(SourceProgress("lak", "collecting", items=2000, seconds=3))
        display(event)
        display.bar.refresh()
        assert "500/2,000 items · 120 chunks · 40/~400 embedded · about 4 min left" in screen.getvalue()
        display(SourceProgress("lak", "done", items=2000, chunks=480, embedded=400, seconds=300))
    assert "lak: indexed 2,000 items as 480 chunks, 400 embedded (5 min)" in screen.getvalue()
