"""Shared fixtures: every test gets its own BRIEF_HOME and a clean BRIEF_ environment."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
OLAKE = SHARED / "corpora" / "olake"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False, help="rewrite golden files")


@pytest.fixture(autouse=True)
def brief_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(os.environ):
        if name.startswith("BRIEF_"):
            monkeypatch.delenv(name)
    home = tmp_path / "brief-home"
    monkeypatch.setenv("BRIEF_HOME", str(home))
    return home


@pytest.fixture
def olake() -> Path:
    if not OLAKE.is_dir():
        pytest.skip("the olake corpus is not present beside this checkout (../shared/corpora/olake)")
    return OLAKE
