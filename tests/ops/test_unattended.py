"""The issue's "done when": schedules installed into a crontab file and run through the very line cron runs,
with the lock, the run log, the metrics file, a watch notification delivered once over SMTP and once to the
Slack API, and `brief doctor` reporting a broken token.

Cron runs a line with `/bin/sh -c` in an almost empty environment; so do these tests (`env -i`), so a line that
relies on the caller's environment (PATH, the token, the working directory) fails here as it would under cron.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families
from typer.testing import CliRunner

from briefing.cli.app import app
from briefing.devserver.slack import TOKEN, SlackFake
from briefing.ops import metrics, runlog
from briefing.ops.lock import LockHeldError, workspace_lock
from briefing.settings import load_settings
from tests.ops.conftest import SMTP_PASSWORD, SMTP_USER, SmtpServer

runner = CliRunner()
MANAGER = "U01ALICE"  # notifications go to her DM, which brief does not ingest


def _config(root: Path, fake: SlackFake, smtp: SmtpServer) -> Path:
    config = root / "brief.toml"
    config.write_text(
        f"""
[workspace]
name = "ops"

[sources.team-slack]
type = "slack"
token_env = "SLACK_TOKEN"
base_url = "{fake.url}"
channels = ["platform-eng", "random"]

[schedule]
tabfile = "crontab"

[delivery.email]
host = "{smtp.host}"
port = {smtp.port}
tls = "starttls"
user_env = "SMTP_USER"
password_env = "SMTP_PASSWORD"
sender = "brief@example.com"
to = ["manager@example.com"]
ca_file = "{smtp.ca_file}"

[delivery.slack]
token_env = "SLACK_TOKEN"
channel = "{MANAGER}"
base_url = "{fake.url}"
""",
        encoding="utf-8",
    )
    return config


def _cli(config: Path, *args: str) -> str:
    result = runner.invoke(app, ["--config", str(config), *args])
    assert result.exit_code == 0, result.output
    return result.output


def _cron_line(tabfile: Path, entry_id: str) -> str:
    for line in tabfile.read_text(encoding="utf-8").splitlines():
        if line.endswith(f"# brief:{entry_id}"):
            fields = line.split(None, 5)
            return fields[5].rsplit(" # brief:", 1)[0].replace(r"\%", "%")
    raise AssertionError(f"no line for {entry_id} in {tabfile}:\n{tabfile.read_text()}")


def _as_cron(line: str, home: Path) -> subprocess.CompletedProcess[str]:
    """Run a crontab line the way cron does: /bin/sh -c, HOME and a minimal PATH, nothing else inherited."""
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "SHELL": "/bin/sh", "LANG": "C.UTF-8"}
    return subprocess.run(["/bin/sh", "-c", line], env=env, cwd=str(home), capture_output=True, text=True, timeout=300)


def _metric(families: dict[str, dict[tuple[tuple[str, str], ...], float]], name: str, **labels: str) -> float:
    wanted = tuple(sorted({"workspace": "ops", **labels}.items()))
    return families.get(name, {}).get(wanted, 0.0)


def _parse(text: str) -> dict[str, dict[tuple[tuple[str, str], ...], float]]:
    found: dict[str, dict[tuple[tuple[str, str], ...], float]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return found


@pytest.mark.slow
def test_scheduled_runs_lock_log_metrics_watch_delivery_and_doctor(
    tmp_path: Path, brief_home: Path, slack_fake: SlackFake, smtp_server: SmtpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _config(tmp_path, slack_fake, smtp_server)
    env_file = tmp_path / "brief.env"
    env_file.write_text(f"SLACK_TOKEN={TOKEN}\nSMTP_USER={SMTP_USER}\nSMTP_PASSWORD={SMTP_PASSWORD}\n")
    env_file.chmod(0o600)
    tabfile = tmp_path / "crontab"
    tabfile.write_text("MAILTO=ops@example.com\n17 3 * * * /usr/local/bin/backup --nightly\n", encoding="utf-8")

    # Two schedules into the crontab file; the user's own lines stay as they were.
    _cli(config, "schedule", "add", "ingest", "--every", "30m", "--id", "ingest-main", "--env-file", str(env_file))
    # The weekday-morning digest, one file a day (pinned to the fixture's week: its messages are from May 2026).
    briefs = tmp_path / "briefs"
    _cli(
        config,
        "schedule",
        "add",
        "digest",
        "--since",
        "2026-05-04",
        "--now",
        "2026-05-12T08:00:00+00:00",
        "--out",
        str(briefs / "{date}.md"),
        "--cron",
        "0 8 * * MON-FRI",
        "--id",
        "morning",
        "--env-file",
        str(env_file),
    )
    tab = tabfile.read_text(encoding="utf-8")
    assert "17 3 * * * /usr/local/bin/backup --nightly" in tab and "MAILTO=ops@example.com" in tab
    assert "*/30 * * * * " in tab and "0 8 * * MON-FRI " in tab
    ingest_line = _cron_line(tabfile, "ingest-main")
    words = shlex.split(ingest_line)
    assert words[words.index("--config") + 1] == str(config.resolve())
    executable = words[words.index("--config") - 1]
    assert Path(executable).is_absolute() and os.access(executable, os.X_OK)
    listed = json.loads(_cli(config, "schedule", "list", "--json"))
    assert [s["id"] for s in listed["schedules"]] == ["ingest-main", "morning"]
    assert len(listed["schedules"][1]["next_runs"]) == 3

    # First cron run: everything is new, nothing is watched yet.
    first = _as_cron(ingest_line, tmp_path)
    assert first.returncode == 0, (brief_home / "logs" / "schedule-ingest-main.out").read_text()
    runs = list(runlog.read_runs(brief_home))
    assert len(runs) == 1
    assert runs[0]["schedule"] == "ingest-main" and runs[0]["status"] == "ok" and runs[0]["command"] == "ingest"
    assert runs[0]["run_id"] and runs[0]["sources"]["team-slack"]["fetched"] > 0
    fetched_first = runs[0]["sources"]["team-slack"]["fetched"]

    # A watch on a query, limited to Slack; the fixture has no outage yet, so nothing is already matching.
    added = json.loads(
        _cli(config, "watch", "add", "--query", "outage OR incident", "--source", "team-slack", "--json")
    )
    assert added["already_matching"] == 0

    # A run that finds the lock held does nothing, says so in one line, and exits with its own code.
    settings = load_settings(config)
    with workspace_lock(settings, "test"):
        locked = _as_cron(ingest_line, tmp_path)
    assert locked.returncode == LockHeldError.exit_code
    output = (brief_home / "logs" / "schedule-ingest-main.out").read_text()
    errors = [line for line in output.splitlines() if "locked" in line]
    assert len(errors) == 1 and "workspace 'ops' is locked" in errors[0]
    assert list(runlog.read_runs(brief_home))[-1]["status"] == "locked"

    # Someone reports an outage in Slack; the next scheduled ingest notifies once per target.
    slack_fake.post(
        "C01PLAT",
        {
            "type": "message",
            "user": "U02BOB",
            "text": "eu-west outage: payments API answers 502",
            "ts": "1778300000.000100",
        },
    )
    second = _as_cron(ingest_line, tmp_path)
    assert second.returncode == 0, (brief_home / "logs" / "schedule-ingest-main.out").read_text()
    assert len(smtp_server.inbox.messages) == 1
    mail = smtp_server.inbox.messages[0]
    body = mail.get_payload(decode=True).decode()
    assert "outage" in mail["Subject"] and "eu-west outage: payments API answers 502" in body
    assert "[1] slack:C01PLAT:1778300000.000100" in body
    assert smtp_server.inbox.envelopes[0].rcpt_tos == ["manager@example.com"]
    posted = [p for p in slack_fake.posted if p["channel"] == "D" + MANAGER[1:]]
    assert len(posted) == 1 and "slack:C01PLAT:1778300000.000100" in posted[0]["text"]
    assert "Bearer" not in json.dumps(list(runlog.read_runs(brief_home))) and TOKEN not in tab

    # Never the same item twice: a third run has nothing new to say.
    third = _as_cron(ingest_line, tmp_path)
    assert third.returncode == 0
    assert len(smtp_server.inbox.messages) == 1
    assert len([p for p in slack_fake.posted if p["channel"] == "D" + MANAGER[1:]]) == 1
    last = list(runlog.read_runs(brief_home))[-1]
    assert last["counts"]["notifications"]["new"] == 0 and last["status"] == "ok"

    # The morning schedule runs through its own line too: a dated digest file that cites the outage message.
    morning = _as_cron(_cron_line(tabfile, "morning"), tmp_path)
    assert morning.returncode == 0, (brief_home / "logs" / "schedule-morning.out").read_text()
    written = list(briefs.glob("*.md"))
    assert [p.name for p in written] == ["2026-05-12.md"]
    assert "outage" in written[0].read_text(encoding="utf-8")

    # The textfile the cron runs wrote, and the long-running exporter, say the same.
    prom = metrics.textfile_path(brief_home, "ops")
    families = _parse(prom.read_text(encoding="utf-8"))
    fetched_total = sum(r["sources"]["team-slack"]["fetched"] for r in runlog.read_runs(brief_home) if r["sources"])
    assert fetched_total > fetched_first
    assert _metric(families, "brief_items_fetched_total", source="team-slack") == fetched_total
    assert _metric(families, "brief_api_calls_total", source="team-slack") > 0
    assert _metric(families, "brief_chunks_embedded_total", source="team-slack") > 0
    assert _metric(families, "brief_runs_total", command="ingest", status="ok") == 3
    assert _metric(families, "brief_runs_total", command="ingest", status="locked") == 1
    assert _metric(families, "brief_notifications_total", target="email", status="delivered") == 1
    assert _metric(families, "brief_notifications_total", target="slack", status="delivered") == 1
    assert _metric(families, "brief_source_up", source="team-slack") == 1
    assert _metric(families, "brief_source_last_success_timestamp_seconds", source="team-slack") > 1.7e9
    server, thread = metrics.serve(brief_home, 0)
    try:
        scraped = urllib.request.urlopen(f"http://127.0.0.1:{server.server_port}/metrics", timeout=10).read().decode()
    finally:
        server.shutdown()
    served = _parse(scraped)
    for name in ("brief_items_fetched_total", "brief_api_calls_total", "brief_notifications_total", "brief_runs_total"):
        assert served[name] == families[name]

    # doctor: with the right token the credentials pass, with a broken one it names the variable, exit code 5.
    monkeypatch.setenv("SLACK_TOKEN", TOKEN)
    report = runner.invoke(app, ["--config", str(config), "doctor", "--json"])
    findings = {f["check"]: f for f in json.loads(report.stdout)["findings"]}
    assert findings["credentials team-slack"]["severity"] == "ok", report.stdout
    assert findings["schedule ingest-main"]["severity"] == "ok", report.stdout
    monkeypatch.setenv("SLACK_TOKEN", "xoxb-revoked")
    broken = runner.invoke(app, ["--config", str(config), "doctor", "--json"])
    assert broken.exit_code == 5, broken.stdout
    finding = {f["check"]: f for f in json.loads(broken.stdout)["findings"]}["credentials team-slack"]
    assert finding["severity"] == "error" and "SLACK_TOKEN" in finding["message"] and finding["fix"]
    assert "xoxb-revoked" not in broken.stdout
