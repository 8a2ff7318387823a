"""Watches notify once per new matching item, across failed deliveries and crashes; delivery targets."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families
from typer.testing import CliRunner

from briefing.cli.app import app
from briefing.devserver.slack import TOKEN, SlackFake
from briefing.errors import AuthError
from briefing.index import Index
from briefing.ops import metrics, runlog, watch
from briefing.ops.deliver import ChatTarget, DeliveryError, EmailTarget, Message
from briefing.ops.lock import LockHeldError, workspace_lock
from briefing.settings import ChatDelivery, EmailDelivery, load_settings
from tests.harness import Workspace
from tests.ops.conftest import SMTP_PASSWORD, SMTP_USER, SmtpServer

runner = CliRunner()


class Recorder:
    """A delivery target that keeps what it was given, and can be told to fail or to crash the process."""

    def __init__(self, name: str = "recorder") -> None:
        self.name = name
        self.sent: list[Message] = []
        self.fail_next = 0
        self.crash = False

    def send(self, message: Message) -> None:
        if self.crash:
            raise SystemExit("killed while sending")
        if self.fail_next:
            self.fail_next -= 1
            raise DeliveryError("the server is down")
        self.sent.append(message)


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "runbook.md").write_text("# Runbook\n\nRestart the pool when connections pile up.\n")
    ws = Workspace(tmp_path / "ws", {"handbook": {"type": "files", "path": str(docs)}}, name="watching")
    ws.run()
    return ws


def _report(ws: Workspace, text: str, name: str = "postmortem.md") -> None:
    folder = Path(ws.settings.resolve(Path(ws.settings.sources["handbook"].path)))
    (folder / name).write_text(text)


@pytest.mark.slow
def test_each_new_match_is_delivered_once_through_a_failure_and_a_crash(workspace: Workspace) -> None:
    settings = workspace.settings
    query, existing = watch.add_watch(settings, target=None, query="outage OR incident", sources=["handbook"])
    ticket, _ = watch.add_watch(settings, target="plat-7", query=None, sources=[])
    assert existing == 0 and ticket.ticket == "PLAT-7"
    _report(workspace, "# Postmortem\n\nThe outage on Monday came from pool exhaustion; PLAT-7 tracks the fix.\n")
    workspace.run()  # the ingest's own hook delivers to stdout (no [delivery] configured); the state moves on
    _report(workspace, "# Incident 2\n\nA second incident: the cache filled up.\n", "incident-2.md")
    workspace.ingest("handbook")  # one source through the pipeline without the run hook: watches not run yet

    target = Recorder()
    target.fail_next = 1
    first = watch.run_watches(settings, run_id="r1", chosen=[target])
    assert first == {"new": 1, "delivered": 0, "failed": 1, "queued": 1}
    target.crash = True
    with pytest.raises(SystemExit):
        watch.run_watches(settings, run_id="r2", chosen=[target])
    target.crash = False
    second = watch.run_watches(settings, run_id="r3", chosen=[target])
    assert second["delivered"] == 1 and second["new"] == 0 and second["queued"] == 0
    assert watch.run_watches(settings, run_id="r4", chosen=[target])["new"] == 0
    assert len(target.sent) == 1
    sent = target.sent[0]
    assert "A second incident: the cache filled up." in sent.text
    assert "[1] file:incident-2.md" in sent.text and sent.subject.startswith("[brief] watch outage OR incident")


@pytest.mark.slow
def test_a_ticket_watch_cites_the_item_that_mentions_it(workspace: Workspace) -> None:
    settings = workspace.settings
    watch.add_watch(settings, target="PLAT-7", query=None, sources=[])
    _report(workspace, "# Pool\n\nUnrelated notes.\n\nWe track the pool fix in PLAT-7 now.\n", "pool.md")
    workspace.ingest("handbook")
    target = Recorder()
    assert watch.run_watches(settings, run_id="r", chosen=[target])["new"] == 1
    assert "We track the pool fix in PLAT-7 now." in target.sent[0].text and "Unrelated" not in target.sent[0].text


def test_watch_queries_are_words_not_substrings() -> None:
    q = watch.Query.parse('outage OR "connection pool" -test')
    assert q.matches("An OUTAGE in eu-west")
    assert q.matches("the connection pool is full")
    assert not q.matches("outages")  # whole words only
    assert not q.matches("the connection pool test")  # excluded word in that alternative
    with pytest.raises(Exception, match="no words"):
        watch.Query.parse("OR AND")


@pytest.mark.slow
def test_watch_add_rejects_an_unknown_source(workspace: Workspace) -> None:
    result = runner.invoke(app, ["--config", str(workspace.config), "watch", "add", "--query", "x", "--source", "wiki"])
    assert result.exit_code == 10 and "--source 'wiki'" in result.output


def test_email_login_failure_names_the_variables_never_the_password(
    smtp_server: SmtpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SMTP_USER", SMTP_USER)
    monkeypatch.setenv("SMTP_PASSWORD", "wrong-password")
    config = EmailDelivery(
        host=smtp_server.host,
        port=smtp_server.port,
        user_env="SMTP_USER",
        password_env="SMTP_PASSWORD",
        sender="brief@example.com",
        to=["em@example.com"],
        ca_file=smtp_server.ca_file,
    )
    target = EmailTarget(config, lambda p: p, name="email")
    with pytest.raises(AuthError) as info:
        target.send(Message("s", "t", "k"))
    assert "SMTP_PASSWORD" in str(info.value) and "wrong-password" not in str(info.value)
    monkeypatch.setenv("SMTP_PASSWORD", SMTP_PASSWORD)
    target.send(Message("subject \x1b[31mred", "body", "watch-1-file:a.md"))
    mail = smtp_server.inbox.messages[-1]
    assert mail["Subject"] == "subject red" and mail["Message-ID"] == "<watch-1-file-a.md@brief.local>"
    untrusted = EmailDelivery(host=smtp_server.host, port=smtp_server.port, sender="b@x", to=["c@x"])
    with pytest.raises(DeliveryError, match="TLS failed"):
        EmailTarget(untrusted, lambda p: p, name="email").send(Message("s", "t", "k"))


def test_chat_messages_cannot_ping_the_channel_or_carry_escape_codes(
    slack_fake: SlackFake, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHAT_TOKEN", TOKEN)
    target = ChatTarget(ChatDelivery(token_env="CHAT_TOKEN", channel="#platform-eng", base_url=slack_fake.url), "slack")
    target.send(Message("hello", "<!channel> \x1b]8;;http://evil\x07click\x1b]8;;\x07 & <http://x|y>", "k"))
    text = slack_fake.posted[-1]["text"]
    assert "<!channel>" not in text and "&lt;!channel&gt;" in text and "\x1b" not in text and "&amp;" in text
    assert slack_fake.posted[-1]["channel"] == "C01PLAT"
    monkeypatch.setenv("CHAT_TOKEN", "xoxb-wrong")
    with pytest.raises(AuthError, match="CHAT_TOKEN"):
        target.send(Message("s", "t", "k"))
    monkeypatch.setenv("CHAT_TOKEN", TOKEN)
    nowhere = ChatTarget(ChatDelivery(token_env="CHAT_TOKEN", channel="#nope", base_url=slack_fake.url), "slack")
    with pytest.raises(DeliveryError, match="channel_not_found"):
        nowhere.send(Message("s", "t", "k"))


def test_counters_add_up_across_runs_and_gauges_keep_the_last_value(brief_home: Path) -> None:
    metrics.discard()
    metrics.inc("brief_items_fetched", 3, source="a")
    metrics.set_gauge("brief_source_up", 0, source="a")
    metrics.flush(brief_home, "w")
    metrics.inc("brief_items_fetched", 4, source="a")
    metrics.set_gauge("brief_source_up", 1, source="a")
    metrics.observe("brief_stage_seconds", 0.3, stage="ask.answer")
    path = metrics.flush(brief_home, "w")
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(path.read_text())
        for s in family.samples
    }
    assert samples[("brief_items_fetched_total", (("source", "a"), ("workspace", "w")))] == 7
    assert samples[("brief_source_up", (("source", "a"), ("workspace", "w")))] == 1
    stage = (("stage", "ask.answer"), ("workspace", "w"))
    assert samples[("brief_stage_seconds_count", stage)] == 1
    assert samples[("brief_stage_seconds_bucket", (("le", "0.25"), *stage))] == 0
    assert samples[("brief_stage_seconds_bucket", (("le", "0.5"), *stage))] == 1
    assert not list(path.parent.glob("*.prom.*")), "a temporary file was left behind"
    with pytest.raises(ValueError, match="labels"):
        metrics.inc("brief_items_fetched", 1, channel="x")


@pytest.mark.slow
def test_a_held_lock_stops_an_ingest_with_its_own_exit_code_and_one_json_line(workspace: Workspace) -> None:
    with workspace_lock(workspace.settings, "ingest"):
        result = runner.invoke(app, ["--config", str(workspace.config), "--log-format", "json", "ingest"])
    assert result.exit_code == LockHeldError.exit_code
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1
    error = json.loads(lines[0])
    assert error["level"] == "error" and "is locked by `brief ingest`" in error["message"]
    assert list(runlog.read_runs(workspace.settings.home))[-1]["status"] == "locked"


def test_run_logs_rotate_and_are_read_back_in_order(tmp_path: Path) -> None:
    for n in range(30):
        runlog.write_run(tmp_path, {"n": n, "pad": "x" * 100}, max_bytes=1000, backups=50)
    assert len(list((tmp_path / "logs").glob("runs.jsonl.*"))) >= 2
    assert [r["n"] for r in runlog.read_runs(tmp_path)] == list(range(30))


@pytest.mark.slow
def test_questions_refusals_and_stage_latency_are_counted(workspace: Workspace) -> None:
    from datetime import UTC, datetime

    from briefing.service import Brief

    metrics.discard()
    with Brief(workspace.settings) as brief:
        brief.ask("when should the pool be restarted?", now=datetime.now(UTC))
        brief.search("pool", now=datetime.now(UTC))
    text = metrics.textfile_path(workspace.settings.home, "watching").read_text()
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }
    ws = ("workspace", "watching")
    assert samples[("brief_questions_total", (("command", "ask"), ws))] == 1
    assert samples[("brief_questions_total", (("command", "search"), ws))] == 1
    assert samples[("brief_stage_seconds_count", (("stage", "ask.retrieve"), ws))] == 1
    assert ("brief_citations_removed_total", (("command", "ask"), ws)) in samples


def test_doctor_reports_a_broken_config_in_json_with_its_exit_code(tmp_path: Path) -> None:
    bad = tmp_path / "brief.toml"
    bad.write_text("[workspace]\nnmae = 'x'\n")
    result = runner.invoke(app, ["--config", str(bad), "doctor", "--json"])
    assert result.exit_code == 2
    finding = json.loads(result.stdout)["findings"][0]
    assert finding["severity"] == "error" and "nmae" in finding["message"]


def test_doctor_on_a_workspace_never_ingested_says_what_to_run(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    config = tmp_path / "brief.toml"
    config.write_text(f'[workspace]\nname = "fresh"\n[sources.handbook]\ntype = "files"\npath = "{docs}"\n')
    result = runner.invoke(app, ["--config", str(config), "doctor", "--json", "--tabfile", str(tmp_path / "tab")])
    report = json.loads(result.stdout)
    assert result.exit_code == 1, result.stdout
    by_check = {f["check"]: f for f in report["findings"]}
    assert by_check["index"]["severity"] == "warning" and by_check["index"]["fix"] == "run `brief ingest`"
    assert by_check["model"]["severity"] == "ok" and "sha256" in by_check["model"]["message"]
    assert load_settings(config).workspace.name == "fresh"


@pytest.mark.slow
def test_rate_limit_waits_and_api_calls_are_counted_per_source(
    tmp_path: Path, slack_fake: SlackFake, monkeypatch: pytest.MonkeyPatch
) -> None:
    from slack_sdk.http_retry import builtin_handlers

    class Clock:  # the SDK sleeps Retry-After plus jitter; record instead of spending it
        @staticmethod
        def sleep(seconds: float) -> None:
            return None

    monkeypatch.setattr(builtin_handlers, "time", Clock)
    monkeypatch.setenv("SLACK_TOKEN", TOKEN)
    slack_fake.rate_limit, slack_fake.retry_after = 2, 3
    ws = Workspace(
        tmp_path / "ws",
        {"chat": {"type": "slack", "token_env": "SLACK_TOKEN", "base_url": slack_fake.url, "channels": ["random"]}},
        name="limits",
    )
    metrics.discard()
    ws.run()
    text = metrics.textfile_path(ws.settings.home, "limits").read_text()
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }
    labels = (("source", "chat"), ("workspace", "limits"))
    assert samples[("brief_rate_limit_waits_total", labels)] == 2
    assert samples[("brief_rate_limit_wait_seconds_total", labels)] == 6
    assert samples[("brief_api_calls_total", labels)] == len(slack_fake.log)


def test_deliver_sends_a_file_through_the_configured_targets(tmp_path: Path) -> None:
    config = tmp_path / "brief.toml"
    config.write_text('[delivery]\nfile = "out/notes.md"\n')
    digest = tmp_path / "digest.md"
    digest.write_text("Monday: the cutover \x1b[2Jfinished.\n")
    result = runner.invoke(app, ["--config", str(config), "deliver", str(digest), "--subject", "Weekly"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out" / "notes.md").read_text() == "## Weekly\n\nMonday: the cutover finished.\n\n\n"


@pytest.mark.slow
def test_a_target_that_is_down_is_tried_once_per_run_and_keeps_its_queue(workspace: Workspace) -> None:
    settings = workspace.settings
    watch.add_watch(settings, target=None, query="incident", sources=[])
    _report(workspace, "# One\n\nFirst incident today.\n", "one.md")
    _report(workspace, "# Two\n\nSecond incident today.\n", "two.md")
    workspace.ingest("handbook")
    target = Recorder()
    target.fail_next = 5
    assert watch.run_watches(settings, run_id="a", chosen=[target]) == {
        "new": 2,
        "delivered": 0,
        "failed": 1,
        "queued": 2,
    }
    target.fail_next = 0
    assert watch.run_watches(settings, run_id="b", chosen=[target])["delivered"] == 2
    assert sorted(m.text.splitlines()[1].split(": ", 1)[1] for m in target.sent) == [
        "First incident today. [1]",
        "Second incident today. [1]",
    ]


@pytest.mark.slow
def test_a_failed_watch_delivery_logs_the_run_with_the_delivery_error_not_ok(workspace: Workspace) -> None:
    with socket.socket() as probe:  # a port nothing listens on: the SMTP server is down
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with workspace.config.open("a", encoding="utf-8") as config:
        config.write(
            f'[delivery.email]\nhost = "127.0.0.1"\nport = {port}\ntls = "none"\ntimeout_s = 5\n'
            'sender = "brief@example.com"\nto = ["ops@example.com"]\n'
        )
    workspace.settings = load_settings(workspace.config)
    watch.add_watch(workspace.settings, target=None, query="incident", sources=[])
    _report(workspace, "# Incident\n\nAn incident today: the queue backed up at noon.\n", "incident.md")
    workspace.run()
    line = list(runlog.read_runs(workspace.settings.home))[-1]
    assert line["status"] == "partial", line
    assert line["counts"]["notifications"]["failed"] == 1
    assert line["error"].startswith("watch delivery via email")
    assert any(note.startswith("watch delivery via email") for note in line["notes"])


@pytest.mark.slow
def test_an_ingest_exports_the_points_its_index_holds(workspace: Workspace) -> None:
    _report(workspace, "# Second page\n\nThe pool was resized on Friday.\n", "second.md")
    workspace.run()
    path = metrics.textfile_path(workspace.settings.home, workspace.settings.workspace.name)
    samples = {s.name: s.value for family in text_string_to_metric_families(path.read_text()) for s in family.samples}
    with Index.open(workspace.settings) as index:
        held = index.count()
    assert held >= 2
    assert samples["brief_index_points"] == held
