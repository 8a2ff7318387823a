"""Bad input: one line naming the file/setting/value, a distinct exit code, nothing lost."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from briefing.cli.app import app
from briefing.errors import ConfigError, IndexError_, InputError, SourceError
from tests.harness import Workspace

runner = CliRunner()


def config(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "brief.toml"
    path.write_text(body)
    return path


def test_version_and_help() -> None:
    assert runner.invoke(app, ["--version"]).stdout.startswith("brief ")
    result = runner.invoke(app, ["-h"])
    assert result.exit_code == 0 and "ingest" in result.stdout


def test_unknown_source_name(tmp_path: Path) -> None:
    cfg = config(tmp_path, '[sources.docs]\ntype = "files"\npath = "docs"\n')
    result = runner.invoke(app, ["--config", str(cfg), "ingest", "nope"])
    assert result.exit_code == ConfigError.exit_code
    assert "unknown source 'nope'" in result.stderr and "docs" in result.stderr
    assert "Traceback" not in result.output


def test_unknown_config_key(tmp_path: Path) -> None:
    cfg = config(tmp_path, "[retrieval]\ncandidatez = 3\n")
    result = runner.invoke(app, ["--config", str(cfg), "sources"])
    assert result.exit_code == ConfigError.exit_code
    assert "candidatez" in result.stderr and str(cfg) in result.stderr


def test_missing_export_folder_names_path(tmp_path: Path) -> None:
    cfg = config(tmp_path, '[sources.archive]\ntype = "slack_export"\npath = "exports/slack"\n')
    result = runner.invoke(app, ["--config", str(cfg), "ingest"])
    assert result.exit_code == SourceError.exit_code
    assert "exports/slack" in result.stderr


def test_empty_index(tmp_path: Path) -> None:
    cfg = config(tmp_path, '[sources.docs]\ntype = "files"\npath = "docs"\n')
    result = runner.invoke(app, ["--config", str(cfg), "ask", "what happened?"])
    assert result.exit_code == IndexError_.exit_code
    assert "brief ingest" in result.stderr


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A one-file workspace, indexed once: (config, BRIEF_HOME); bad input must fail even where an index exists."""
    root = tmp_path_factory.mktemp("indexed")
    (root / "docs").mkdir()
    (root / "docs" / "runbook.md").write_text("# Runbook\n\nRestart the ledger with `make restart`.\n")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("BRIEF_HOME", str(root / "home"))
        ws = Workspace(root, {"docs": {"type": "files", "path": "docs"}})
        assert ws.run().failure_count == 0 and ws.indexed_refs() == {"file:runbook.md"}
    return ws.config, root / "home"


@pytest.mark.slow
def test_empty_and_oversized_questions(indexed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    cfg, home = indexed
    monkeypatch.setenv("BRIEF_HOME", str(home))
    assert runner.invoke(app, ["--config", str(cfg), "ask", "how do I restart the ledger?"]).exit_code == 0
    for question in ["   ", "why " * 5000]:
        result = runner.invoke(app, ["--config", str(cfg), "ask", question])
        assert result.exit_code == InputError.exit_code, result.output
        assert "question" in result.stderr


def test_bad_now(indexed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    cfg, home = indexed
    monkeypatch.setenv("BRIEF_HOME", str(home))
    result = runner.invoke(app, ["--config", str(cfg), "ask", "what happened?", "--now", "yesterday-ish"])
    assert result.exit_code == InputError.exit_code
    assert "yesterday-ish" in result.stderr


def small_export(target: Path, channel: str = "incidents", days: int = 3) -> list[Path]:
    """A few days of one channel of the sample's Slack export; returns the day files."""
    sample = Path(__file__).resolve().parents[2] / "src/briefing/sample/slack_export"
    channels = [c for c in json.loads((sample / "channels.json").read_text()) if c["name"] == channel]
    (target / channel).mkdir(parents=True)
    (target / "channels.json").write_text(json.dumps(channels))
    shutil.copy(sample / "users.json", target / "users.json")
    for day in sorted((sample / channel).glob("*.json"))[:days]:
        shutil.copy(day, target / channel / day.name)
    return sorted((target / channel).glob("*.json"))


@pytest.mark.slow
def test_corrupt_day_file_is_skipped_and_cache_kept(tmp_path: Path) -> None:
    day = small_export(tmp_path / "export")[0]
    cfg = config(tmp_path, '[workspace]\nname = "c"\n[sources.archive]\ntype = "slack_export"\npath = "export"\n')
    first = runner.invoke(app, ["--config", str(cfg), "ingest"])
    assert first.exit_code == 0, first.output
    cached = json.loads(runner.invoke(app, ["--config", str(cfg), "sources", "--json"]).stdout)["sources"][0]
    assert cached["last_run"]["failures"] == 0 and cached["cached_records"] > 0

    day.write_text("[{ this is not json")
    second = runner.invoke(app, ["--config", str(cfg), "ingest"])
    assert second.exit_code == 0, second.output
    assert day.name in second.stderr  # the bad file is named
    assert "1 item(s) failed and were skipped; everything else was ingested" in second.stderr
    info = json.loads(runner.invoke(app, ["--config", str(cfg), "sources", "--json"]).stdout)["sources"][0]
    assert info["last_run"]["failures"] == 1
    assert info["cached_records"] == cached["cached_records"]  # nothing already cached was lost


@pytest.mark.slow
def test_one_unreadable_source_does_not_stop_the_others(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "runbook.md").write_text("# Runbook\n\nRestart the ledger with `make restart`.\n")
    cfg = config(
        tmp_path,
        '[workspace]\nname = "m"\n'
        '[sources.archive]\ntype = "slack_export"\npath = "missing-export"\n'
        '[sources.docs]\ntype = "files"\npath = "docs"\n',
    )
    result = runner.invoke(app, ["--config", str(cfg), "ingest"])
    assert result.exit_code == SourceError.exit_code
    assert "1 of 2 sources failed" in result.stderr and "missing-export" in result.stderr
    sources = json.loads(runner.invoke(app, ["--config", str(cfg), "sources", "--json"]).stdout)["sources"]
    docs = next(s for s in sources if s["name"] == "docs")
    assert docs["cached_records"] == 1 and docs["last_run"]["chunks"] >= 1


@pytest.mark.slow
def test_a_saved_cursor_that_no_longer_reads_names_the_repair_and_the_others_run(tmp_path: Path) -> None:
    # Any source type: the saved cursor is validated in one place, so a damaged or foreign one is one line.
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "runbook.md").write_text("# Runbook\n\nRestart the ledger with `make restart`.\n")
    (tmp_path / "export").mkdir()
    (tmp_path / "export" / "channels.json").write_text("[]")
    cfg = config(
        tmp_path,
        '[workspace]\nname = "m"\n'
        '[sources.archive]\ntype = "slack_export"\npath = "export"\n'
        '[sources.docs]\ntype = "files"\npath = "docs"\n',
    )
    assert runner.invoke(app, ["--config", str(cfg), "ingest", "docs"]).exit_code == 0
    states = sorted((tmp_path / "brief-home").rglob("state/docs.json"))
    assert len(states) == 1
    state = json.loads(states[0].read_text())
    state["cursor"] = {"files": "not a mapping"}
    states[0].write_text(json.dumps(state))
    archive = states[0].with_name("archive.json")
    archive.write_text(json.dumps({"cursor": {"files": [1, 2, 3]}}))
    result = runner.invoke(app, ["--config", str(cfg), "ingest"])
    assert result.exit_code == SourceError.exit_code
    assert "Traceback" not in result.stderr and "validation error" not in result.stderr
    for name in ("docs", "archive"):
        assert f"source '{name}': the saved cursor is unreadable: run `brief ingest {name} --full`" in result.stderr
    full = runner.invoke(app, ["--config", str(cfg), "ingest", "docs", "--full"])
    assert full.exit_code == 0, full.stderr
    docs = next(
        s
        for s in json.loads(runner.invoke(app, ["--config", str(cfg), "sources", "--json"]).stdout)["sources"]
        if s["name"] == "docs"
    )
    assert docs["cached_records"] == 1
