"""A long channel post (release notes pasted into #announcements) is split over several chunks at ingest; in a
digest it is still one post: one line, headed by how the post begins, counted as one message, and the thread
headline of a report that opens with a pasted log is the words around the log.

Through the real pipeline: a Slack export on disk, `pipeline.run`, then `digest.service.run`.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from briefing.digest.model import Scope

NOW = datetime(2026, 8, 20, 9, 0, tzinfo=UTC)
DAY = datetime(2026, 8, 11, tzinfo=UTC)
START = datetime(2026, 8, 10, tzinfo=UTC)
END = datetime(2026, 8, 17, tzinfo=UTC)


def _ts(hour: int, minute: int = 0) -> str:
    return f"{DAY.replace(hour=hour, minute=minute).timestamp():.6f}"


def _release() -> str:
    items = "\n".join(
        f"• fix: connector {n} retries a dropped connection with backoff instead of failing the sync by @dev{n} in "
        f"#{1000 + n} (https://github.com/acme/relay/pull/{1000 + n})"
        for n in range(40)
    )
    return f"Relay v4.2.0 Released\nRelease: https://github.com/acme/relay/releases/tag/v4.2.0\nWhat's New\n{items}"


def _log() -> str:
    lines = "\n".join(
        f'{{"level":"debug","time":"2026-08-11T09:{n:02d}Z","message":"sent batch {n} to writer, 4194304 bytes"}}'
        for n in range(30)
    )
    return f"```{lines}```\nOur sync fails on the first batch with this error, is there a way to raise the limit?"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The workspace, ingested once for the module: both tests only read it (config, home)."""
    tmp_path = tmp_path_factory.mktemp("posts")
    home = tmp_path / "home"
    with pytest.MonkeyPatch.context() as env:
        for name in [n for n in os.environ if n.startswith("BRIEF_")]:
            env.delenv(name)
        env.setenv("BRIEF_HOME", str(home))
        return _ingest(tmp_path), home


@pytest.fixture
def workspace(built: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> Path:
    config, home = built
    monkeypatch.setenv("BRIEF_HOME", str(home))
    return config


def _ingest(tmp_path: Path) -> Path:
    from briefing import pipeline
    from briefing.settings import load_settings

    export = tmp_path / "export"
    (export / "announcements").mkdir(parents=True)
    (export / "help").mkdir()
    (export / "channels.json").write_text(
        json.dumps([{"id": "CANN", "name": "announcements"}, {"id": "CHELP", "name": "help"}]), encoding="utf-8"
    )
    users = [{"id": "U1", "name": "nayan", "real_name": "Nayan"}, {"id": "U2", "name": "grace", "real_name": "Grace"}]
    (export / "users.json").write_text(json.dumps(users), encoding="utf-8")
    post = {"type": "message", "user": "U1", "ts": _ts(10), "text": _release()}
    (export / "announcements" / "2026-08-11.json").write_text(json.dumps([post]), encoding="utf-8")
    report = {"type": "message", "user": "U2", "ts": _ts(12), "text": _log(), "thread_ts": _ts(12), "reply_count": 1}
    answer = "Raise max_batch_bytes to 8 MB"
    reply = {"type": "message", "user": "U1", "ts": _ts(13), "text": answer, "thread_ts": _ts(12)}
    (export / "help" / "2026-08-11.json").write_text(json.dumps([report, reply]), encoding="utf-8")
    config = tmp_path / "brief.toml"
    config.write_text(f'[workspace]\nname = "posts"\n[sources.chat]\ntype = "slack_export"\npath = "{export}"\n')
    assert os.environ.get("BRIEF_HOME")
    assert pipeline.run(load_settings(config), ["chat"]).failure_count == 0
    return config


def test_a_long_post_split_over_chunks_is_one_line(workspace: Path) -> None:
    from briefing.digest import service
    from briefing.service import Brief
    from briefing.settings import load_settings

    settings = load_settings(workspace)
    with Brief(settings) as brief:
        brief._require_index()
        pieces = [c for c in brief.index.view(NOW).chunks() if c.container == "announcements"]
        assert len(pieces) > 1  # the post is long enough to be split: what this test is about
        digest = service.run(brief, start=START, end=END, now=NOW, scope=Scope())
    lines = [line for section in digest.sections if section.title == "#announcements" for line in section.lines]
    assert len(lines) == 1, [line.text for line in lines]
    assert lines[0].text.startswith("Relay v4.2.0 Released")
    assert "1 message)" in lines[0].text


def test_a_report_that_opens_with_a_log_is_headed_by_its_words(workspace: Path) -> None:
    from briefing.digest import service
    from briefing.service import Brief
    from briefing.settings import load_settings

    with Brief(load_settings(workspace)) as brief:
        digest = service.run(brief, start=START, end=END, now=NOW, scope=Scope())
    (line,) = [line for section in digest.sections if section.title == "#help" for line in section.lines]
    assert line.text.startswith("Our sync fails on the first batch with this error"), line.text
