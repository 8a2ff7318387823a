"""The Google API client and qdrant-client are optional extras (`google`, `qdrant`): on an install without them the
default commands work, and a config that needs one fails with one line naming the setting and the extra. Run in a
subprocess whose imports of those packages fail, as they do on an install without the extra."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BLOCK = """
import sys
class _NoExtras:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('googleapiclient', 'google_auth_httplib2', 'qdrant_client'):
            raise ModuleNotFoundError(f"No module named '{name}'", name=name)
        return None
sys.meta_path.insert(0, _NoExtras())
from briefing.cli.app import main
sys.argv = ['brief', *sys.argv[1:]]
main()
"""


def brief(config: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", BLOCK, "--config", str(config), *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    return lines[0]


def test_a_gmail_source_without_the_google_extra_is_one_line_naming_it(tmp_path: Path) -> None:
    (tmp_path / "key.json").write_text('{"type": "service_account"}', encoding="utf-8")
    config = tmp_path / "brief.toml"
    config.write_text(
        '[workspace]\nname = "w"\n[sources.mail]\ntype = "gmail"\ncredentials_file = "key.json"\n', encoding="utf-8"
    )
    done = brief(config, "ingest", "mail")
    assert done.returncode == 2
    line = one_line(done)
    assert "sources.mail" in line and "pip install 'brief[google]'" in line


def test_the_local_engine_without_the_qdrant_extra_is_one_line_naming_it(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# Pooling\n\nWe chose pgbouncer for connection pooling.\n", encoding="utf-8")
    config = tmp_path / "brief.toml"
    config.write_text('[workspace]\nname = "w"\n[sources.notes]\ntype = "files"\npath = "notes"\n', encoding="utf-8")
    done = brief(config, "search", "pooling", BRIEF_QDRANT__ENGINE="local")
    assert done.returncode == 2
    line = one_line(done)
    assert "[qdrant] engine = 'local'" in line and "pip install 'brief[qdrant]'" in line


@pytest.mark.slow
def test_the_default_engine_needs_no_qdrant_client(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# Pooling\n\nWe chose pgbouncer for connection pooling.\n", encoding="utf-8")
    config = tmp_path / "brief.toml"
    config.write_text('[workspace]\nname = "w"\n[sources.notes]\ntype = "files"\npath = "notes"\n', encoding="utf-8")
    home = {"BRIEF_HOME": str(tmp_path / "home")}
    assert brief(config, "ingest", **home).returncode == 0
    done = brief(config, "search", "connection pooling", "--json", **home)
    assert done.returncode == 0, done.stderr
    assert "file:a.md" in done.stdout
