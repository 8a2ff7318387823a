"""Shared fixtures: every test gets its own BRIEF_HOME and a clean BRIEF_ environment."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
OLAKE = SHARED / "corpora" / "olake"
# A real OpenAI-compatible model server for `pytest -m live_llm` (read before each test clears the BRIEF_ variables).
LIVE_LLM_API_BASE = os.environ.get("BRIEF_LIVE_LLM_API_BASE", "")
LIVE_LLM_MODEL = os.environ.get("BRIEF_LIVE_LLM_MODEL", "openai/local")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False, help="rewrite golden files")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark by what a test needs, so `-m "not slow and not corpus"` is right without anyone remembering to mark."""
    for item in items:
        needs = set(getattr(item, "fixturenames", ()))
        if needs & {"sample_index", "demo"}:  # the whole sample (or the demo: every source), ingested and indexed
            item.add_marker(pytest.mark.slow)
        if "olake" in needs:  # the real-data corpus beside the checkout
            item.add_marker(pytest.mark.corpus)
        if item.get_closest_marker("live_llm") is not None and not LIVE_LLM_API_BASE:
            item.add_marker(
                pytest.mark.skip(
                    reason="live_llm: no model server configured (set BRIEF_LIVE_LLM_API_BASE to its OpenAI-compatible "
                    "base URL, e.g. http://127.0.0.1:8080/v1, and BRIEF_LIVE_LLM_MODEL to its LiteLLM id)"
                )
            )


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


SAMPLE = Path(__file__).resolve().parents[1] / "src" / "briefing" / "sample"


@dataclass
class SampleIndex:
    """The bundled sample workspace, ingested once per test session."""

    home: Path
    config: Path


@pytest.fixture(scope="session")
def sample_index(tmp_path_factory: pytest.TempPathFactory) -> SampleIndex:
    from briefing import pipeline
    from briefing.settings import load_settings

    root = tmp_path_factory.mktemp("sample")
    home = root / "home"
    workspace = root / "workspace"
    shutil.copytree(SAMPLE, workspace)
    saved = os.environ.get("BRIEF_HOME")
    os.environ["BRIEF_HOME"] = str(home)
    try:
        settings = load_settings(workspace / "brief.toml")
        summary = pipeline.run(settings, list(settings.sources))
        assert summary.broken == [] and summary.failure_count == 0
    finally:
        if saved is None:
            os.environ.pop("BRIEF_HOME", None)
        else:
            os.environ["BRIEF_HOME"] = saved
    return SampleIndex(home=home, config=workspace / "brief.toml")


@pytest.fixture
def use_sample(sample_index: SampleIndex, monkeypatch: pytest.MonkeyPatch) -> SampleIndex:
    """Point BRIEF_HOME at the session's sample index (read-only use, please)."""
    monkeypatch.setenv("BRIEF_HOME", str(sample_index.home))
    return sample_index
