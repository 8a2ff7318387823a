"""A full disk under BRIEF_HOME is named as a full disk (one line, its own exit code), never a crash or "damage".

The free-space check is driven through a patched `shutil.disk_usage` (the standard library's; no tmpfs can be
mounted without root here), and a write failure by an ENOSPC `OSError` raised where the pipeline runs.
"""

from __future__ import annotations

import errno
import shutil
from collections import namedtuple
from pathlib import Path

import pytest
from typer.testing import CliRunner

from briefing.cli.app import app
from briefing.errors import DiskFullError

runner = CliRunner()
Usage = namedtuple("Usage", "total used free")


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "runbook.md").write_text("# Runbook\n\nRestart the pool when connections pile up.\n", encoding="utf-8")
    path = tmp_path / "brief.toml"
    path.write_text('[workspace]\nname = "disk"\n[sources.docs]\ntype = "files"\npath = "docs"\n', encoding="utf-8")
    monkeypatch.setenv("BRIEF_HOME", str(tmp_path / "home"))
    return path


def _one_error_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1, output
    assert "Traceback" not in output
    return lines[0]


def test_ingest_on_a_nearly_full_disk_says_so_and_writes_nothing(
    config: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shutil, "disk_usage", lambda path: Usage(10**9, 10**9 - 300_000, 300_000))
    result = runner.invoke(app, ["--config", str(config), "ingest"])
    assert result.exit_code == DiskFullError.exit_code == 16
    line = _one_error_line(result.output)
    assert "disk" in line and "is full" in line and "damaged" not in line.replace("nothing was changed", "")
    assert not (tmp_path / "home" / "index").exists() and not list((tmp_path / "home").glob("**/*.sqlite*"))


def test_a_write_that_fails_with_enospc_is_a_full_disk_not_a_crash(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from briefing import pipeline

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pipeline, "run", full)
    result = runner.invoke(app, ["--config", str(config), "ingest"])
    assert result.exit_code == 16
    line = _one_error_line(result.output)
    assert "filled up" in line and "No space left on device" in line and "nothing is damaged" in line


@pytest.mark.parametrize("command", [["sources"], ["search", "restart the pool"]])
@pytest.mark.slow
def test_a_store_that_cannot_open_on_a_full_disk_is_a_full_disk_not_damage(
    config: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    """On a full disk a cache or index that will not open is named as starved of space: no advice to rebuild it."""
    assert runner.invoke(app, ["--config", str(config), "ingest"]).exit_code == 0
    for db in (tmp_path / "home").glob("**/raw/*/cache.db"):
        db.write_bytes(b"not a database, as a write cut short by the full disk can leave it" * 64)
    for meta in (tmp_path / "home").glob("**/brief-index.json"):
        meta.write_text("{", encoding="utf-8")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: Usage(10**9, 10**9 - 300_000, 300_000))
    result = runner.invoke(app, ["--config", str(config), *command])
    # `sources` still lists every source, the starved one as "disk full"; `search` stops with the full disk's code.
    assert result.exit_code == (0 if command == ["sources"] else 16), result.output
    assert "is full (292 KB free)" in result.output
    assert "reindex --full" not in result.output and "--full" not in result.output
    assert "damaged" not in result.output.replace("nothing is known to be damaged", "")


@pytest.mark.slow
def test_the_same_store_with_room_on_the_disk_is_reported_damaged(config: Path, tmp_path: Path) -> None:
    assert runner.invoke(app, ["--config", str(config), "ingest"]).exit_code == 0
    for db in (tmp_path / "home").glob("**/raw/*/cache.db"):
        db.write_bytes(b"not a database" * 64)
    result = runner.invoke(app, ["--config", str(config), "sources"])
    assert "damaged" in result.output and "ingest docs --full" in result.output
