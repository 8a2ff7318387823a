"""A channel's own stream in a digest: the reply that comes after a silence joins the question it answers.

Ana asks in #build (after a greeting of her own), Bo asks of the meetup beside her; five hours later Sam answers
Ana by name, in two messages, and Lee posts something else. The reply opens a chunk of its own, yet the digest shows
it on Ana's line (headed by her question, not her greeting), with no line of its own; Lee's post keeps its line.

Through the real pipeline: a Slack export on disk, `pipeline.run`, then `digest.service.run`.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from briefing.digest.model import Line, Scope

DAY = datetime(2026, 8, 11, tzinfo=UTC)
NOW = datetime(2026, 8, 12, 9, 0, tzinfo=UTC)
QUESTION = "After upgrading to quillc 3.2 the build fails with: no reader function for tag Inf. Any idea why?"


def _ts(hour: int, minute: int = 0) -> str:
    return f"{DAY.replace(hour=hour, minute=minute).timestamp():.6f}"


def _messages() -> list[dict[str, str]]:
    said = [
        (9, 0, "U1", "Hi"),
        (9, 1, "U1", QUESTION),
        (9, 3, "U2", "is anyone going to the meetup on Friday?"),
        (14, 30, "U3", "<@U1> it is an outdated dependency somewhere in your tree"),
        (14, 31, "U3", "pin the newer reader directly in your deps file and rebuild"),
        (14, 50, "U5", "the shared build server is out of disk again, cleaning it up now"),
    ]
    return [{"type": "message", "user": u, "ts": _ts(h, m), "text": text} for h, m, u, text in said]


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    from briefing import pipeline
    from briefing.settings import load_settings

    for name in [n for n in os.environ if n.startswith("BRIEF_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("BRIEF_HOME", str(tmp_path / "home"))
    export = tmp_path / "export"
    (export / "build").mkdir(parents=True)
    (export / "channels.json").write_text(json.dumps([{"id": "CBUILD", "name": "build"}]), encoding="utf-8")
    people = [("U1", "Ana Ruiz"), ("U2", "Bo Chen"), ("U3", "Sam Ortiz"), ("U5", "Lee Wong")]
    users = [{"id": uid, "name": name.split()[0].lower(), "real_name": name} for uid, name in people]
    (export / "users.json").write_text(json.dumps(users), encoding="utf-8")
    (export / "build" / "2026-08-11.json").write_text(json.dumps(_messages()), encoding="utf-8")
    config = tmp_path / "brief.toml"
    config.write_text(f'[workspace]\nname = "build"\n[sources.chat]\ntype = "slack_export"\npath = "{export}"\n')
    assert pipeline.run(load_settings(config), ["chat"]).failure_count == 0
    return config


def _lines(config: Path) -> list[Line]:
    from briefing.digest import service
    from briefing.service import Brief
    from briefing.settings import load_settings

    with Brief(load_settings(config)) as brief:
        chunks = brief.index.view(NOW).chunks()
        assert len({c.chunk_id for c in chunks}) > 1  # the silence splits the channel: what this test is about
        digest = service.run(brief, start=DAY, end=NOW, now=NOW, scope=Scope())
    return [line for section in digest.sections for line in section.lines]


def test_the_reply_after_a_silence_is_shown_on_the_question_it_answers(workspace: Path) -> None:
    lines = _lines(workspace)
    (asked,) = [line for line in lines if "Ana Ruiz" in line.people]
    assert asked.text.startswith("After upgrading to quillc 3.2 the build fails"), asked.text  # not "Hi"
    cited = {ref for c in asked.citations for ref in c.refs}
    assert cited & {f"slack:CBUILD:{_ts(14, 30)}", f"slack:CBUILD:{_ts(14, 31)}"}, asked.text
    assert "Sam Ortiz" in asked.people
    # The reply has no line of its own; the unrelated post after it keeps one.
    assert not any(line.text.startswith(("it is an outdated", "pin the newer")) for line in lines)
    assert any(line.text.startswith("the shared build server is out of disk") for line in lines)
