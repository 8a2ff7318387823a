"""`brief serve` as a process: health and metrics over HTTP, the only writer while it runs, a clean SIGTERM exit."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from briefing.errors import BriefError
from briefing.ops.lock import LockHeldError, workspace_lock
from briefing.serve.process import Server
from briefing.settings import load_settings

REPO = Path(__file__).resolve().parents[2]


def _workspace(root: Path) -> Path:
    docs = root / "docs"
    docs.mkdir(parents=True)
    (docs / "runbook.md").write_text("# Runbook\n\nRestart the payments worker with `make bounce`.\n")
    config = root / "brief.toml"
    config.write_text(f'[workspace]\nname = "ops"\n[sources.docs]\ntype = "files"\npath = "{docs}"\n')
    return config


def _get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=30) as response:
        return int(response.status), response.read().decode()


def test_health_and_metrics_answer_while_it_holds_the_workspace(tmp_path: Path) -> None:
    settings = load_settings(_workspace(tmp_path))
    with Server(settings, port=0, background=False) as server:
        status, body = _get(f"{server.url}/healthz")
        assert status == 200
        health = json.loads(body)
        assert health["status"] == "ok" and health["workspace"] == "ops" and health["pending_events"] == 0
        status, text = _get(f"{server.url}/metrics")
        assert status == 200 and "brief_events_pending" in text
        # The only writer: a cron ingest meanwhile does nothing and names the holder.
        with pytest.raises(LockHeldError, match="brief serve"), workspace_lock(settings, "ingest"):
            pass
    with workspace_lock(settings, "ingest"):  # released on stop
        pass


def test_sigterm_stops_it_with_exit_code_0_and_releases_the_lock(tmp_path: Path) -> None:
    config = _workspace(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("BRIEF_")}
    env["BRIEF_HOME"] = os.environ["BRIEF_HOME"]
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), str(REPO)])
    proc = subprocess.Popen(
        [sys.executable, "-m", "briefing", "--config", str(config), "serve", "--port", "0"],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert "brief serve on http://127.0.0.1:" in line, line
        url = line.split(" on ", 1)[1].split(" ", 1)[0]
        assert _get(f"{url}/healthz")[0] == 200
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    settings = load_settings(config)
    try:
        with workspace_lock(settings, "ingest"):
            pass
    except BriefError as exc:  # pragma: no cover - the assertion message
        pytest.fail(f"the lock was not released: {exc}")
