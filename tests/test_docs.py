"""The docs describe the product as it is: one version everywhere, a short README, no development journal."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import briefing

ROOT = Path(__file__).resolve().parents[1]


def _project_version() -> str:
    return str(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"])


def test_the_package_version_is_the_project_version() -> None:
    # Read from the code, not from installed metadata: an editable install keeps the metadata of the day it was made.
    assert briefing.__version__ == _project_version()


def test_brief_version_prints_the_project_version() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-m", "briefing", "--version"], capture_output=True, text=True, timeout=60, env=env, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"brief {_project_version()}"


def test_the_changelog_opens_with_the_project_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    first = next(line for line in text.splitlines() if line.startswith("## ["))
    assert first.startswith(f"## [{_project_version()}]"), first
