"""A run stopped by SIGTERM (a scheduler's timeout) logs an "interrupted" line, and the next run embeds only the rest.

The real CLI runs in a subprocess with `BRIEF_TEST_KILL_AT=POINT@N` and `BRIEF_TEST_KILL_SIGNAL=TERM`
(`briefing.killpoint`), so it receives SIGTERM exactly at a step of the sync; the restarted ingest is compared
with an uninterrupted one, chunk by chunk and by the number of chunks it embedded per source.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.test_crash_safety import REPO, SOURCES, make_workspace, snapshot


def _ingest(root: Path, home: Path, kill: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BRIEF_")}
    env["BRIEF_HOME"] = str(home)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), str(REPO), env.get("PYTHONPATH", "")])
    if kill is not None:
        env["BRIEF_TEST_KILL_AT"] = kill
        env["BRIEF_TEST_KILL_SIGNAL"] = "TERM"
    return subprocess.run(
        [sys.executable, "-m", "briefing", "--config", str(root / "brief.toml"), "ingest"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _runs(home: Path) -> list[dict[str, Any]]:
    path = home / "logs" / "runs.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _embedded(run: dict[str, Any]) -> dict[str, int]:
    return {name: int(source["embedded"]) for name, source in run["sources"].items()}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("sigterm")
    root = base / "workspace"
    make_workspace(root)
    home = base / "home"
    done = _ingest(root, home)
    assert done.returncode == 0, done.stderr
    return root, home


# published@1: docs indexed and visible, chat not started; embed@2: chat's vectors computed, not yet written.
@pytest.mark.parametrize(("point", "done_before"), [("published@1", {"docs"}), ("embed@2", {"docs"})])
@pytest.mark.slow
def test_a_sigterm_logs_an_interrupted_run_and_the_restart_embeds_only_what_was_left(
    point: str, done_before: set[str], reference: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, reference_home = reference
    want_embedded = _embedded(_runs(reference_home)[-1])
    assert all(want_embedded[s] > 0 for s in SOURCES)
    home = tmp_path / "home"

    stopped = _ingest(root, home, kill=point)
    assert stopped.returncode == 130, stopped.stderr[-2000:]
    assert f"kill point {point}" in stopped.stderr
    assert "Traceback" not in stopped.stderr
    line = _runs(home)[-1]
    assert line["status"] == "interrupted"
    assert line["command"] == "ingest"
    assert "SIGTERM" in line["error"]

    restarted = _ingest(root, home)
    assert restarted.returncode == 0, restarted.stderr[-2000:]
    run = _runs(home)[-1]
    assert run["status"] == "ok"
    embedded = _embedded(run)
    for source in SOURCES:
        expected = 0 if source in done_before else want_embedded[source]
        assert embedded[source] == expected, f"{source}: re-embedded {embedded[source]}, expected {expected}"

    after, want = snapshot(root, home, monkeypatch), snapshot(root, reference_home, monkeypatch)
    for source in SOURCES:
        assert after.chunks[source] == want.chunks[source], f"{source}: the index differs"
        assert after.points[source] == len(after.chunks[source]), f"{source}: a chunk is stored twice"
