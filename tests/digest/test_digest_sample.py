"""Briefings over the bundled sample workspace with a fixed `now`: the right conversations, outcomes and links.

The golden files are reviewed snapshots; the assertions beside them say what a manager would check (the
incident's root cause is there and cited to the message that found it, no citation falls outside the window,
the links open the exact message), so a golden file rewritten carelessly still fails here.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from briefing.cli.app import app
from tests.golden_files import check_golden

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "digest"
NOW = "2026-06-15T09:00:00+00:00"
runner = CliRunner()


def brief(config: Path, *args: str) -> str:
    result = runner.invoke(app, ["--config", str(config), *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def digest_json(config: Path, *args: str) -> dict:
    out = json.loads(brief(config, "digest", "--format", "json", "--now", NOW, *args))
    out.pop("timings_ms")
    return out


def ask(config: Path, question: str, now: str = NOW) -> dict:
    return json.loads(brief(config, "ask", question, "--json", "--show-trace", "--now", now))


def refs_of(section_lines: list[dict]) -> list[str]:
    return [ref for line in section_lines for c in line["citations"] for ref in c["refs"]]


def slack_time(ref: str) -> datetime:
    from briefing.model import utc

    return utc(ref.rsplit(":", 1)[1])


def all_lines(out: dict) -> list[dict]:
    return [line for s in out["sections"] for line in s["lines"]]


def test_week_of_the_incident_golden_and_reviewed(use_sample, request: pytest.FixtureRequest) -> None:
    out = digest_json(use_sample.config, "--since", "2026-05-18", "--until", "2026-05-24")
    check_golden(request, GOLDEN / "week-2026-05-18.json", out)

    assert out["window"] == ["2026-05-18T00:00:00+00:00", "2026-05-25T00:00:00+00:00"]
    titles = [s["title"] for s in out["sections"]]
    assert {"#incidents", "#platform-eng", "#releases", "#random"} <= set(titles)
    assert len(titles) == len(set(titles)), "one section per channel or folder"
    lines = all_lines(out)
    # The incident: its line says it was resolved and quotes the message that found the retry storm.
    incident = next(line for line in lines if "retry storm" in line["text"])
    assert incident["status"] == "resolved"
    assert any("1779201480.600898" in r for c in incident["citations"] for r in c["refs"])
    # The decision to switch to RDS Proxy is a "decided" line, cited to the announcement.
    decision = next(line for line in lines if "RDS Proxy" in line["text"] and line["status"] == "decided")
    assert decision["citations"]
    # Every Slack citation is a message written inside the week, and each opens that message.
    start, end = (datetime.fromisoformat(t) for t in out["window"])
    for line in lines:
        for cited in line["citations"]:
            (ref,) = cited["refs"]
            if ref.startswith("slack:"):
                assert start <= slack_time(ref) < end, ref
                assert cited["url"].split("?")[0].endswith("p" + ref.rsplit(":", 1)[1].replace(".", ""))
    # Numbered in reading order, each marker in its line's text.
    numbers = [c["n"] for line in lines for c in line["citations"]]
    assert numbers == list(range(1, len(numbers) + 1))
    for line in lines:
        for cited in line["citations"]:
            assert f"[{cited['n']}]" in line["text"]
    # Ranked: the incident channel leads, small talk comes last.
    assert titles.index("#incidents") < titles.index("#random")


def test_channel_week_markdown_golden(use_sample, request: pytest.FixtureRequest) -> None:
    text = brief(
        use_sample.config, "digest", "--since", "2026-06-08", "--until", "2026-06-14", "--channel", "#releases",
        "--now", NOW,
    )  # fmt: skip
    path = GOLDEN / "releases-2026-06-08.md"
    if request.config.getoption("--update-golden"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")
    assert text.startswith("# What happened Mon 2026-06-08 to Sun 2026-06-14 (in #releases)")
    # The hotfix line says it was released and links the deploybot message; the next release is still open.
    hotfix = next(line for line in text.splitlines() if "v2.5.1" in line and line.startswith("- "))
    assert "released" in hotfix and "deploybot" in hotfix
    assert re.search(r"\[\[\d+\]\]\(https://kestrelpay\.slack\.com/archives/C04RELEASE/p\d+", hotfix)
    assert "#platform-eng" not in text, "a channel digest shows that channel only"


def test_json_contract(use_sample) -> None:
    out = digest_json(use_sample.config, "--since", "2026-06-01", "--until", "2026-06-07", "--limit", "5")
    assert {"window", "scope", "sections", "more"} <= set(out)
    assert len(out["window"]) == 2 and all(datetime.fromisoformat(t).tzinfo for t in out["window"])
    assert sum(len(s["lines"]) for s in out["sections"]) == 5
    assert len(out["more"]) == out["conversations"] - 5 > 0, "what does not fit is listed by title"
    for section in out["sections"]:
        assert set(section) == {"title", "lines"}
        for line in section["lines"]:
            assert {"text", "occurred_at", "citations"} <= set(line)
            datetime.fromisoformat(line["occurred_at"])
            for cited in line["citations"]:
                assert set(cited) == {"n", "refs", "url"} and cited["refs"]


def test_empty_window_is_an_answer_not_a_refusal(use_sample) -> None:
    text = brief(
        use_sample.config, "digest", "--since", "2026-05-30", "--until", "2026-05-31", "--channel", "random",
        "--format", "text", "--now", NOW,
    )  # fmt: skip
    assert "Nothing in #random between Sat 2026-05-30 and Sun 2026-05-31" in text
    out = ask(use_sample.config, "What happened in #random on 30 May?")
    assert out["no_answer"] is False
    assert out["answer"].startswith("Nothing in #random on Sat 2026-05-30 (searched:")
    assert out["citations"] == []
    assert "do not cover" not in out["answer"]


def test_a_week_start_in_another_time_zone(use_sample, monkeypatch: pytest.MonkeyPatch) -> None:
    # Honolulu is UTC-10: its Monday 00:00 is 10:00 UTC, so Monday-morning UTC messages belong to the week before.
    jonah_welcome = "slack:C02PLATENG:1780305600.612921"  # Mon 1 Jun 09:20 UTC = Sun 31 May in Honolulu
    oncall_marcus = "slack:C02PLATENG:1779702600.082879"  # Mon 25 May 09:50 UTC = Sun 24 May in Honolulu
    now = "2026-06-01T12:00:00+00:00"  # Monday 02:00 in Honolulu
    question = "What happened in #platform-eng last week?"
    utc = ask(use_sample.config, question, now)
    utc_refs = {r for c in utc["citations"] for r in c["refs"]}
    assert oncall_marcus in utc_refs and jonah_welcome not in utc_refs

    monkeypatch.setenv("BRIEF_WORKSPACE__TIMEZONE", "Pacific/Honolulu")
    local = ask(use_sample.config, question, now)
    window = local["trace"]["briefing"]["window"]
    assert window == ["2026-05-25T10:00:00+00:00", "2026-06-01T10:00:00+00:00"]
    local_refs = {r for c in local["citations"] for r in c["refs"]}
    assert jonah_welcome in local_refs and oncall_marcus not in local_refs
    start, end = (datetime.fromisoformat(t) for t in window)
    assert all(start <= slack_time(r) < end for r in local_refs if r.startswith("slack:"))


def test_a_digest_limited_to_one_person(use_sample) -> None:
    everyone = digest_json(use_sample.config, "--since", "2026-05-18", "--until", "2026-05-24")
    lena = digest_json(use_sample.config, "--since", "2026-05-18", "--until", "2026-05-24", "--person", "lena")
    assert lena["scope"]["people"] == ["Lena Vogt"]
    lines = all_lines(lena)
    assert lines and all("Lena Vogt" in line["people"] for line in lines)
    assert 0 < lena["conversations"] < everyone["conversations"]
    assert not any(s["title"] == "#general" for s in lena["sections"]), "Lena posted nothing in #general that week"
    # Every conversation of the week Lena took part in is there.
    took_part = [line for line in all_lines(everyone) if "Lena Vogt" in line["people"]]
    assert len(took_part) == len(lines)


def test_unknown_person_or_channel_is_one_line_with_exit_code(use_sample) -> None:
    result = runner.invoke(app, ["--config", str(use_sample.config), "digest", "--person", "nobody", "--now", NOW])
    assert result.exit_code == 10
    assert "--person 'nobody'" in result.output and "Lena Vogt" in result.output
    result = runner.invoke(app, ["--config", str(use_sample.config), "digest", "--since", "whenever", "--now", NOW])
    assert result.exit_code == 10 and "--since 'whenever'" in result.output


def test_ask_routes_what_happened_to_the_briefing(use_sample) -> None:
    out = ask(use_sample.config, "What happened in #incidents last week?", "2026-05-25T09:00:00+00:00")
    assert out["trace"]["answerer"].startswith("briefing engine")
    assert out["no_answer"] is False
    cited = {r for c in out["citations"] for r in c["refs"]}
    assert "slack:C03INCIDNT:1779201480.600898" in cited, "the root-cause message of the incident"
    assert all(r.startswith("slack:C03INCIDNT:") for r in cited), "scoped to the channel asked about"
    hit_refs = {r for h in out["hits"] for r in h["refs"]}
    assert cited <= hit_refs
    # A question about a fact still goes to retrieval.
    fact = ask(use_sample.config, "What pool size did PgBouncer use?")
    assert "briefing" not in fact["trace"]


def test_ask_what_was_announced_in_a_channel_last_week_is_a_briefing(use_sample) -> None:
    """ "What was announced / discussed in #x last week?" names a period and a place and nothing else: it is briefed
    like "what happened", every conversation of the week in that channel, not answered from the best-matching line."""
    out = ask(use_sample.config, "What was discussed in #incidents last week?", "2026-05-25T09:00:00+00:00")
    assert out["trace"]["answerer"].startswith("briefing engine"), out["answer"]
    cited = {r for c in out["citations"] for r in c["refs"]}
    assert "slack:C03INCIDNT:1779201480.600898" in cited, "the root-cause message of the incident"
    assert all(r.startswith("slack:C03INCIDNT:") for r in cited), "scoped to the channel asked about"
    # "What did Lena work on last week?" is the week's conversations she took part in.
    lena = ask(use_sample.config, "What did Lena Vogt work on last week?", "2026-05-25T09:00:00+00:00")
    assert lena["trace"]["answerer"].startswith("briefing engine"), lena["answer"]
    assert "(by Lena Vogt)" in lena["answer"].splitlines()[0], lena["answer"]
    # A topic makes it a question again: "What was decided last week about X" is looked up, not briefed.
    fact = ask(use_sample.config, "What was decided last week about pooling database connections?", NOW)
    assert "briefing" not in fact["trace"]


def test_the_ask_answer_stays_inside_now(use_sample) -> None:
    # Mid-week: the incident thread exists, its later replies do not yet.
    now = "2026-05-19T14:30:00+00:00"
    out = ask(use_sample.config, "what's new in #incidents today?", now)
    limit = datetime.fromisoformat(now)
    cited = [r for c in out["citations"] for r in c["refs"]]
    assert cited and all(slack_time(r) <= limit for r in cited)


def test_timeline_of_a_ticket(use_sample, request: pytest.FixtureRequest) -> None:
    out = json.loads(brief(use_sample.config, "timeline", "PLAT-137", "--format", "json", "--now", NOW))
    check_golden(request, GOLDEN / "timeline-PLAT-137.json", out)
    events = out["events"]
    times = [e["at"] for e in events]
    assert times == sorted(times)
    kinds = [e["kind"] for e in events]
    assert kinds[0] == "incident" and "resolved" in kinds
    resolved = next(e for e in events if e["kind"] == "resolved")
    assert "290 ms" in resolved["text"]
    assert all(e["citations"] for e in events)
    assert all(datetime.fromisoformat(t) <= datetime.fromisoformat(NOW) for t in times)
