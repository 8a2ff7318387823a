"""Digests and timelines over the sample's JIRA, GitHub and Confluence, served by the local vendor fakes.

The sample is ingested as `brief demo` does it (the real connectors against `briefing.devserver` by base URL).
Each line's status must come from the source's own history: JIRA's changelog (from -> to, who, when), GitHub's
merged/closed fields, Confluence's page versions; and each line must cite the exact change with its link.
"""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from briefing.cli.app import app
from tests.digest.demo_workspace import DemoIndex, build

NOW = "2026-06-15T09:00:00+00:00"
runner = CliRunner()


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoIndex:
    return build(tmp_path_factory.mktemp("demo"))


def brief(index: DemoIndex, monkeypatch: pytest.MonkeyPatch, *args: str) -> dict:
    monkeypatch.setenv("BRIEF_HOME", str(index.home))
    result = runner.invoke(app, ["--config", str(index.config), *args, "--format", "json", "--now", NOW])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def week(demo: DemoIndex, monkeypatch: pytest.MonkeyPatch, *args: str) -> dict[str, dict]:
    out = brief(demo, monkeypatch, "digest", "--since", "2026-06-08", "--until", "2026-06-14", *args)
    return {line["title"]: line for s in out["sections"] for line in s["lines"]}


def line_about(lines: dict[str, dict], fragment: str) -> dict:
    (found,) = [line for title, line in lines.items() if fragment in title]
    return found


def test_jira_lines_state_the_changelog_transitions_and_cite_the_change(demo, monkeypatch) -> None:
    lines = week(demo, monkeypatch, "--source", "jira")
    hotfix = line_about(lines, "PLAT-136")
    assert hotfix["status"] == "To Do → In Progress → Done by Sam Whitfield"
    changes = [c for c in hotfix["citations"] if "#change-" in c["refs"][0]]
    assert changes, "the transition is cited to the changelog entry"
    assert all("changehistory-" in c["url"] and c["refs"][0].startswith("jira:PLAT-136#change-") for c in changes)
    # Moved to In Progress on Mon 8 Jun, before the window's other work on it: still in progress, not "resolved".
    reader = line_about(lines, "PLAT-132")
    assert reader["status"] == "To Do → In Progress by Tomás Herrera"
    assert "(Mon 8 Jun)" in reader["text"]
    # A ticket with no status change in the window keeps the extractive status (no transition is invented).
    pglogical = line_about(lines, "PLAT-139")
    assert "→" not in pglogical["status"]


def test_github_lines_say_merged_or_closed_by_whom_and_link_the_item(demo, monkeypatch) -> None:
    lines = week(demo, monkeypatch, "--source", "github")
    pr = line_about(lines, "#431")
    assert pr["status"] == "merged by sam-whitfield"
    assert "(Wed 10 Jun)" in pr["text"]
    assert pr["citations"][0]["url"] == "https://github.com/kestrelpay/ledger-api/pull/431"
    issue = line_about(lines, "#430")
    assert issue["status"] == "closed"  # the sample's issue records no closer
    assert issue["citations"][0]["url"].endswith("/issues/430")
    # The item's own attribute line ("opened ... | closed ...") is not quoted as the outcome.
    assert "opened 2026-06-09" not in issue["text"]
    # A PR still open (opened in the window, under review): not merged, not closed.
    open_pr = line_about(lines, "#437")
    assert "merged" not in open_pr["status"] and "closed" not in open_pr["status"]


def test_confluence_line_names_the_page_and_its_new_version(demo, monkeypatch) -> None:
    lines = week(demo, monkeypatch, "--source", "confluence")
    (page,) = [line for line in lines.values() if "Roadmap" in line["title"]]
    assert page["title"] == "Q3 2026 Platform Roadmap (draft)", "the page's title, not its space"
    assert page["status"] == "updated to version 5 by Nadia Petrova"
    assert all(c["refs"][0].startswith("confluence:524293") for c in page["citations"])
    assert "/wiki/spaces/ENG/pages/524293/" in page["citations"][0]["url"]


def test_timeline_of_a_pr_is_its_recorded_history_once_each(demo, monkeypatch) -> None:
    out = brief(demo, monkeypatch, "timeline", "kestrelpay/ledger-api#431")
    kinds = [(e["at"], e["kind"]) for e in out["events"]]
    assert ("2026-06-10T12:30:00+00:00", "merged") in kinds, "merged at GitHub's merged_at"
    assert [k for _, k in kinds].count("merged") == 1, "the attribute line does not add a second merge"
    assert kinds[0][1] == "opened" and kinds[0][0] == "2026-06-09T16:00:00+00:00"
    merged = next(e for e in out["events"] if e["kind"] == "merged")
    assert "sam-whitfield" in merged["text"]
    assert merged["citations"][0]["url"] == "https://github.com/kestrelpay/ledger-api/pull/431"


def test_timeline_of_a_ticket_has_its_status_change_from_the_changelog(demo, monkeypatch) -> None:
    out = brief(demo, monkeypatch, "timeline", "PLAT-137")
    status = [e for e in out["events"] if e["kind"] == "status"]
    assert len(status) == 1 and "To Do → In Progress by Tomás Herrera" in status[0]["text"]
    assert status[0]["citations"][0]["refs"] == ["jira:PLAT-137#change-120069"]
    # Across sources: the Slack alert, the PR that fixes it, in time order.
    wheres = [e["where"] for e in out["events"]]
    assert "#incidents" in wheres and any(w.startswith("GitHub") for w in wheres)
    ats = [e["at"] for e in out["events"]]
    assert ats == sorted(ats)


def test_whats_planned_this_week_is_a_forward_window_of_what_is_scheduled(demo, monkeypatch) -> None:
    monkeypatch.setenv("BRIEF_HOME", str(demo.home))
    result = runner.invoke(
        app, ["--config", str(demo.config), "ask", "What's planned this week?", "--json", "--show-trace", "--now", NOW]
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["answer"].startswith("What's planned Mon 2026-06-15 to Sun 2026-06-21")
    window = out["trace"]["briefing"]["window"]
    assert window == ["2026-06-15T09:00:00+00:00", "2026-06-22T00:00:00+00:00"], "from now to the week's end"
    lines = [line for line in out["answer"].splitlines() if line.startswith("- ")]
    assert any('"Q3 planning" — scheduled' in line and "Tue 16 Jun" in line for line in lines)
    # In the order it will happen, and nothing from before now.
    assert "Mon 15 Jun" in lines[0] and "Fri 19 Jun" in lines[-1]
    assert out["citations"] and not any(c["refs"][0].startswith("slack:") for c in out["citations"])
    # The same week asked about the past ("what happened") is not a forward window.
    past = runner.invoke(app, ["--config", str(demo.config), "ask", "What happened this week?", "--json", "--now", NOW])
    assert "scheduled" not in json.loads(past.stdout)["answer"]


def test_a_digest_until_a_later_day_lists_what_is_scheduled_in_time_order(demo, monkeypatch) -> None:
    monkeypatch.setenv("BRIEF_HOME", str(demo.home))
    args = ["--config", str(demo.config), "digest", "--since", "2026-06-15", "--until", "2026-06-19", "--now", NOW]
    result = runner.invoke(app, [*args, "--format", "text"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("What happened and what's planned Mon 2026-06-15 to Fri 2026-06-19")
    out = brief(demo, monkeypatch, "digest", "--since", "2026-06-15", "--until", "2026-06-19")
    lines = [line for s in out["sections"] for line in s["lines"]]
    planning = [line for line in lines if line["title"] == "Q3 planning"]
    assert len(planning) == 1 and planning[0]["status"] == "scheduled"
    assert planning[0]["occurred_at"].startswith("2026-06-16")
    ats = [line["occurred_at"] for line in lines]
    assert ats == sorted(ats), "what is ahead reads in the order it will happen"
    # Without --until the window stops at now: nothing scheduled.
    past = brief(demo, monkeypatch, "digest", "--since", "2026-06-15")
    assert not [line for s in past["sections"] for line in s["lines"] if line["status"] == "scheduled"]


def ask(index: DemoIndex, monkeypatch: pytest.MonkeyPatch, question: str) -> dict:
    monkeypatch.setenv("BRIEF_HOME", str(index.home))
    result = runner.invoke(app, ["--config", str(index.config), "ask", question, "--json", "--now", NOW])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_the_demo_questions_lead_with_what_was_asked(demo, monkeypatch) -> None:
    # "Which pull request": the bug report that describes the same retries (#55) is not a pull request; the ticket
    # comment that names the merged PR is.
    pull = ask(demo, monkeypatch, "Which pull request added jitter to payout-worker?")
    first = pull["answer"].splitlines()[0]
    assert "PR #57" in first and "#55" not in first, pull["answer"]
    # "On call: Lena (swapped ...)": the person on call, by the full name she posts under, not the page's writer.
    oncall = ask(demo, monkeypatch, "Who is on call this week?")
    assert oncall["answer"].startswith("Lena Vogt — "), oncall["answer"]
    # The week's meetings from the calendar, still to come included, not a meeting of another week.
    meetings = ask(demo, monkeypatch, "What meetings do we have this week?")
    assert meetings["answer"].startswith("8 meetings this week, in time order:"), meetings["answer"]


# -- "what happened in <item> last week?": the item's own window ---------------------------------------------------
def _item_lines(out: dict) -> list[str]:
    return [line for line in out["answer"].splitlines() if line.startswith("- ")]


def _cited(out: dict, line: str) -> list[str]:
    """The refs a line of the answer cites, by its [n] marks."""
    by_n = {c["n"]: c["refs"] for c in out["citations"]}
    return [ref for n in re.findall(r"\[(\d+)\]", line) for ref in by_n[int(n)]]


def test_what_happened_in_a_ticket_last_week_tells_its_state_change_and_key_comment(demo, monkeypatch) -> None:
    out = ask(demo, monkeypatch, "What happened in PLAT-137 last week?")
    lines = _item_lines(out)
    moved = [line for line in lines if "To Do → In Progress by Tomás Herrera" in line]
    assert len(moved) == 1 and _cited(out, moved[0]) == ["jira:PLAT-137#change-120069"], out["answer"]
    cause = [line for line in lines if "Cause found: missing index" in line]
    assert len(cause) == 1 and _cited(out, cause[0]) == ["jira:PLAT-137#comment-230047"], out["answer"]
    # Only the ticket's own units: not the Slack alert or the pull request that mention it (neither is linked).
    assert {ref.split("#")[0] for c in out["citations"] for ref in c["refs"]} == {"jira:PLAT-137"}
    assert len(lines) <= 7 and lines.index(moved[0]) < lines.index(cause[0]), "in time order"


def test_what_happened_in_a_pull_request_last_week_is_its_review_and_merge_not_an_empty_window(
    demo, monkeypatch
) -> None:
    # The question names the PR by number; the scope holds its qualified ref, which once matched none of its chunks.
    out = ask(demo, monkeypatch, "What happened in PR #431 last week?")
    assert not out["answer"].startswith("Nothing"), out["answer"]
    lines = _item_lines(out)
    merged = [line for line in lines if "merged by sam-whitfield" in line]
    assert len(merged) == 1 and _cited(out, merged[0]) == ["github:kestrelpay/ledger-api#431"], out["answer"]
    approved = [line for line in lines if "approved by tomas-herrera" in line]
    assert len(approved) == 1 and _cited(out, approved[0])[0].startswith("github:kestrelpay/ledger-api#431/")
    # The other items of the repository active that week (#430, #434, #437) are not in it.
    refs = {ref for c in out["citations"] for ref in c["refs"]}
    assert refs and all(ref.startswith("github:kestrelpay/ledger-api#431") for ref in refs), refs


def test_what_happened_in_an_issue_last_week_tells_the_cause_and_the_close(demo, monkeypatch) -> None:
    out = ask(demo, monkeypatch, "What happened in issue #430 last week?")
    lines = _item_lines(out)
    cause = [line for line in lines if "non-UTC timezone" in line]
    assert len(cause) == 1 and _cited(out, cause[0]) == ["github:kestrelpay/ledger-api#430/comment-771000025"]
    closed = [line for line in lines if ": closed" in line]
    assert len(closed) == 1 and "Wed 10 Jun" in closed[0], out["answer"]
    assert lines.index(cause[0]) < lines.index(closed[0]), "in time order"


def test_a_pull_request_opened_in_the_window_is_told_by_what_its_description_says(demo, monkeypatch) -> None:
    # The opening's record and the description share the item's ref and time; the description is what was opened.
    out = ask(demo, monkeypatch, "What happened in PR #431 last week?")
    opened = [line for line in _item_lines(out) if ", opened by " in line]
    assert len(opened) == 1 and "AT TIME ZONE" in opened[0], out["answer"]
    assert _cited(out, opened[0]) == ["github:kestrelpay/ledger-api#431"], out["answer"]


# -- "which PRs did <person> open / merge in <period>?": the records by whose event it was ---------------------------
def test_which_pull_requests_a_person_opened_in_a_month_lists_their_own_each_cited(demo, monkeypatch) -> None:
    out = ask(demo, monkeypatch, "Which pull requests did aiko-tanaka open in June?")
    assert out["answer"].splitlines()[0].startswith("2 pull requests opened by aiko-tanaka in June"), out["answer"]
    # Her issue #430 is not a pull request; #434 and #437, opened that month by others, are not hers.
    assert [ref for c in out["citations"] for ref in c["refs"]] == [
        "github:kestrelpay/ledger-api#426",
        "github:kestrelpay/ledger-api#431",
    ], out["answer"]


def test_which_pull_requests_a_person_merged_lists_those_they_merged_not_those_they_wrote(demo, monkeypatch) -> None:
    out = ask(demo, monkeypatch, "Which PRs did sam-whitfield merge in June?")
    refs = [ref for c in out["citations"] for ref in c["refs"]]
    assert refs == [f"github:kestrelpay/ledger-api#{n}" for n in (426, 429, 431)], out["answer"]


# -- "what is the status of the ticket about X?": a field of the item the question describes, as of now -------------
@pytest.mark.parametrize(
    ("question", "first"),
    [
        ("What is the status of the ticket about the p99 regression on statements after cutover?", "In Progress"),
        ("What is the status of the p99 regression on statements after the cutover?", "In Progress"),
        ("What priority does the ticket about the migration that fails on PG15 have?", "Highest"),
        ("Is the ticket about the request id in ledger-api logs still open?", "Yes"),
        ("When was the ticket about the flaky settlement batch test resolved?", "resolved on 2026-05-20"),
        ("When was the flaky settlement batch test fixed?", "resolved on 2026-05-20"),
        ("When was PLAT-130 resolved?", "resolved on 2026-06-03"),
    ],
)
def test_a_field_of_a_described_ticket_is_read_from_its_header_as_of_now(
    demo, monkeypatch, question: str, first: str
) -> None:
    out = ask(demo, monkeypatch, question)
    line = out["answer"].splitlines()[0]
    assert first in line and "PLAT-1" in line, out["answer"]
    assert [ref for c in out["citations"] for ref in c["refs"]][0].startswith("jira:PLAT-1"), out["answer"]
