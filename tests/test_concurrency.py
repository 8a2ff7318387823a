"""Readers never fail because of a writer, across real processes.

An ingest runs in one process and is held mid-write (its progress callback reports over a pipe and waits for the
test's word on stdin); `brief search`, `brief ask` and `brief sources` run meanwhile as separate commands. Then a
reader holds the index open in another process while `brief ingest` runs. Synchronisation is by pipes, never by
sleeping.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from briefing import pipeline
    from briefing.settings import load_settings

    held = []

    def progress(report):
        if report.stage == "indexing" and report.embedded and not held:  # chunks written, not yet published
            held.append(report.embedded)
            print("writing", flush=True)
            sys.stdin.readline()

    settings = load_settings(Path(sys.argv[1]))
    summary = pipeline.run(settings, list(settings.sources), progress=progress)
    print("done", summary.failure_count, len(summary.broken), flush=True)
    """
)

READER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from briefing.index import Filter, Index
    from briefing.settings import load_settings

    with Index.open(load_settings(Path(sys.argv[1]))) as index:
        print("open", index.count(), flush=True)
        sys.stdin.readline()
        print("still", index.count(), len(index.chunks(Filter())), flush=True)
    """
)


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BRIEF_")}
    env["BRIEF_HOME"] = str(home)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT)])
    return env


def _brief(env: dict[str, str], config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "briefing", "--config", str(config), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _workspace(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "runbook.md").write_text(
        "# Database failover runbook\n\nPromote the replica with `pg_ctl promote`, then repoint PgBouncer.\n",
        encoding="utf-8",
    )
    (docs / "oncall.md").write_text(
        "# On-call rota\n\nThe platform team rotates weekly; handover is on Monday at 10:00.\n", encoding="utf-8"
    )
    config = tmp_path / "brief.toml"
    config.write_text('[workspace]\nname = "conc"\n\n[sources.handbook]\ntype = "files"\npath = "docs"\n')
    return config


@pytest.mark.slow
def test_asks_work_during_an_ingest_and_an_ingest_works_during_an_ask(tmp_path: Path) -> None:
    config = _workspace(tmp_path)
    env = _env(tmp_path / "home")
    first = _brief(env, config, "ingest")
    assert first.returncode == 0, first.stderr

    # A new document, then an ingest held after writing it but before publishing.
    (tmp_path / "docs" / "deploys.md").write_text(
        "# Deploy freeze\n\nNo deploys on Fridays after 15:00 without the release manager.\n", encoding="utf-8"
    )
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(config)],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert writer.stdout is not None and writer.stdin is not None
    try:
        assert writer.stdout.readline().strip() == "writing"
        search = _brief(env, config, "search", "database failover", "--json")
        assert search.returncode == 0, search.stderr
        hits = json.loads(search.stdout)["hits"]
        assert hits and hits[0]["refs"] == ["file:runbook.md"]
        # The unpublished document is not visible yet, and nothing failed.
        assert all("file:deploys.md" not in h["refs"] for h in hits)
        ask = _brief(env, config, "ask", "when is the on-call handover?", "--json")
        assert ask.returncode == 0, ask.stderr
        assert any("file:oncall.md" in c["refs"] for c in json.loads(ask.stdout)["citations"])
        sources = _brief(env, config, "sources", "--json")
        assert sources.returncode == 0, sources.stderr
        writer.stdin.write("go\n")
        writer.stdin.flush()
        assert writer.stdout.readline().split() == ["done", "0", "0"]
    finally:
        writer.kill() if writer.poll() is None else None
        writer.wait(timeout=60)
    after = _brief(env, config, "search", "deploys on Fridays", "--json")
    assert after.returncode == 0, after.stderr
    assert json.loads(after.stdout)["hits"][0]["refs"] == ["file:deploys.md"]

    # A reader holds the index open (an ask in progress) while a scheduled ingest runs and publishes.
    reader = subprocess.Popen(
        [sys.executable, "-c", READER, str(config)],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert reader.stdout is not None and reader.stdin is not None
    try:
        opened = reader.stdout.readline().split()
        assert opened[0] == "open" and int(opened[1]) >= 3
        (tmp_path / "docs" / "oncall.md").unlink()
        ingest = _brief(env, config, "ingest")
        assert ingest.returncode == 0, ingest.stderr
        reader.stdin.write("go\n")
        reader.stdin.flush()
        # The open reader moved to what the ingest published (the deleted document is gone), and read it whole.
        still = reader.stdout.readline().split()
        assert still[0] == "still" and int(still[1]) < int(opened[1]) and still[1] == still[2]
    finally:
        reader.kill() if reader.poll() is None else None
        reader.wait(timeout=60)
    gone = _brief(env, config, "search", "on-call handover", "--json")
    assert gone.returncode == 0, gone.stderr
    assert all("file:oncall.md" not in h["refs"] for h in json.loads(gone.stdout)["hits"])
