"""Questions about a field of one named ticket or pull request answer from the item's own fields, cited."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from briefing.ask.fields import read_field, rows
from briefing.ask.item_model import Item
from briefing.model import Unit
from briefing.question.parse import parse, wants
from briefing.service import Brief, parse_now
from briefing.settings import load_settings
from tests.digest.demo_workspace import DemoIndex, build

AT = datetime(2026, 5, 4, tzinfo=UTC)
# A header as the JIRA chunker writes it (the same for Server and Cloud: it renders the normalised fields).
JIRA_HEADER = Unit(
    "jira:PLAT-7",
    "Type: Bug | Status: In Review | Priority: High\nAssignee: Dana Reyes | Reporter: Lee Park\n"
    "Sprint: Sprint 12\nCreated: 2026-05-01 | Updated: 2026-05-03",
    "Lee Park",
    AT,
)
PR_HEADER = Unit(
    "github:acme/api#57",
    'PR #57 "Backoff with jitter" authored by sam, opened 2026-05-02, merged 2026-05-09 by lena | state: merged',
    "sam",
    AT,
)


def _item(header: Unit, *more: Unit, label: str = "PLAT-7") -> Item:
    return Item(header.ref, label, header, (header, *more))


def _sentence(item: Item, field: str) -> str:
    found = read_field(item, field)
    assert found is not None
    return found[0].replace("\x00", "")


def test_header_rows_are_read_by_label() -> None:
    assert rows(JIRA_HEADER.text)["assignee"] == "Dana Reyes"
    assert rows(JIRA_HEADER.text)["status"] == "In Review"
    assert rows(PR_HEADER.text) == {"state": "merged"}


def test_a_ticket_answers_its_assignee_reporter_status_and_sprint_not_the_writer() -> None:
    item = _item(JIRA_HEADER)
    assert _sentence(item, "assignee") == "PLAT-7 is assigned to Dana Reyes"
    assert _sentence(item, "reporter") == "PLAT-7 was reported by Lee Park"
    assert _sentence(item, "status") == "PLAT-7 is In Review"
    assert "Sprint 12" in _sentence(item, "sprint")
    assert read_field(item, "fix_version") is None  # not in the header: the fact path answers


def test_an_unassigned_ticket_says_so() -> None:
    header = Unit("jira:PLAT-8", "Type: Task | Status: To Do\nAssignee: Unassigned | Reporter: Lee Park", None, AT)
    assert _sentence(_item(header, label="PLAT-8"), "assignee") == "PLAT-8 is unassigned"


def test_a_pull_request_answers_its_author_and_merger() -> None:
    item = _item(PR_HEADER, label="PR #57")
    assert _sentence(item, "reporter") == "PR #57 was opened by sam"
    assert _sentence(item, "merger") == "PR #57 was merged by lena on 2026-05-09"
    closed = Unit(
        "github:acme/api#58", 'PR #58 "x" authored by sam, opened 2026-05-02, closed unmerged 2026-05-20', None, AT
    )
    assert "closed without being merged" in _sentence(_item(closed, label="PR #58"), "merger")


def test_reviewers_come_from_review_verdicts_each_cited_by_its_review() -> None:
    changes = Unit("github:acme/api#57/comment-1", "[2026-05-03 10:00] lena requested changes: retry cap?", "lena", AT)
    approve = Unit("github:acme/api#57/comment-2", "[2026-05-08 10:00] lena approved", "lena", AT)
    other = Unit("github:acme/api#57/comment-3", "[2026-05-08 11:00] omar approved", "omar", AT)
    comment = Unit("github:acme/api#57/comment-4", "[2026-05-08 12:00] sam: thanks, merging", "sam", AT)
    item = _item(PR_HEADER, changes, approve, other, comment, label="PR #57")
    sentence, units = read_field(item, "reviewer") or ("", [])
    assert sentence.replace("\x00", "") == "PR #57 was reviewed by lena (approved), omar (approved)"
    assert [u.ref for u in units] == [approve.ref, other.ref]
    assert [u.ref for u in (read_field(item, "changes") or ("", []))[1]] == [changes.ref]
    assert read_field(_item(PR_HEADER, comment, label="PR #57"), "reviewer") is None


def test_where_an_item_stands_is_its_status_then_its_latest_comment_that_says_something() -> None:
    later = datetime(2026, 5, 9, tzinfo=UTC)
    opening = Unit("jira:PLAT-7", "Payouts retry forever when the bank times out.", "Lee Park", AT)
    comment = Unit(
        "jira:PLAT-7/comment-1",
        "[2026-05-06 10:00] Dana Reyes: Fix is up for review, capped at 5.",
        "Dana Reyes",
        datetime(2026, 5, 6, tzinfo=UTC),
    )
    moved = Unit("jira:PLAT-7/history-2", "Status: In Progress → In Review", "Dana Reyes", later)
    thanks = Unit("jira:PLAT-7/comment-3", "Thanks Dana!", "Lee Park", later)
    item = _item(JIRA_HEADER, opening, comment, moved, thanks)
    sentence, units = read_field(item, "standing") or ("", [])
    # The state, then the newest comment that states something: not the state record, not the thanks.
    assert sentence.replace("\x00", "") == (
        'PLAT-7 is In Review; latest, Dana Reyes on Wed 6 May 2026: "Fix is up for review, capped at 5."'
    )
    assert [u.ref for u in units] == [JIRA_HEADER.ref, comment.ref]
    # No comment yet: the state alone; a pull request without a status row: its merge.
    assert _sentence(_item(JIRA_HEADER, opening), "standing") == "PLAT-7 is In Review"
    assert _sentence(_item(PR_HEADER, label="PR #57"), "standing") == "PR #57 was merged by lena on 2026-05-09"
    # A review that only says it commented is no news; one that approves is.
    lowered = Unit("github:acme/api#57/comment-1", "[2026-05-08 10:00] sam: Lowered the cap to 3.", "sam", later)
    commented = Unit(
        "github:acme/api#57/comment-2", "review: commented by lena", "lena", datetime(2026, 5, 9, tzinfo=UTC)
    )
    pull = _item(PR_HEADER, lowered, commented, label="PR #57")
    assert _sentence(pull, "standing").endswith('latest, sam on Sat 9 May 2026: "Lowered the cap to 3."')
    approved = Unit(
        "github:acme/api#57/comment-3", "review: approved by lena", "lena", datetime(2026, 5, 10, tzinfo=UTC)
    )
    assert _sentence(_item(PR_HEADER, lowered, approved, label="PR #57"), "standing").endswith(
        '"review: approved by lena"'
    )


NOW = datetime(2026, 6, 15, 9, tzinfo=UTC)


@pytest.mark.parametrize(
    ("question", "fields"),
    [
        ("Who is assigned to PLAT-120?", ("assignee",)),
        ("Who owns PLAT-120?", ("assignee",)),
        ("Who reported PLAT-120, and what is its status?", ("reporter", "status")),
        ("Which fix version does PLAT-120 carry?", ("fix_version",)),
        ("Who approved PR #57?", ("approver",)),
        ("Which engineers approved PR #57?", ("approver",)),
        ("Which people reviewed PR #57?", ("reviewer",)),
        ("Which people are working on PLAT-120?", ("assignee",)),
        ("Which engineers are handling PLAT-120?", ("assignee",)),
        ("Where does PLAT-120 stand?", ("standing",)),
        ("Where do things stand on PLAT-120?", ("standing",)),
        ("How is PLAT-120 going?", ("standing",)),
        ("How's PLAT-120 coming along?", ("standing",)),
        ("Any updates on PLAT-120?", ("standing",)),
        ("What's the latest on PLAT-120?", ("standing",)),
        ("When will the fix for PLAT-120 be released?", ("fix_version",)),
        ("What version has the fix for PLAT-120?", ("fix_version",)),
        ("Which version will PLAT-120 ship in?", ("fix_version",)),
        ("Who resolved PLAT-120?", ("resolver",)),
        ("Who fixed PLAT-120?", ("fixer",)),
        ("What is PLAT-120 about?", ("about",)),
        ("Who last commented on PLAT-120?", ("last_comment",)),
        ("Who was the last to reply on PR #57?", ("last_comment",)),
        ("When was the last comment on PLAT-120?", ("last_comment",)),
        ("What was the most recent comment on PLAT-120?", ("last_comment",)),
        ("What's PR #57 about?", ("about",)),
        ("Tell me about PLAT-120", ("about",)),
        ("What does PLAT-120 cover?", ("about",)),
        ("Who made the fix for PLAT-120?", ("fixer",)),
        ("Who closed PLAT-120?", ("resolver",)),
        ("When was PLAT-120 created?", ("created",)),
        ("What day was PLAT-120 filed?", ("created",)),
        ("Which components is PLAT-120 in?", ("components",)),
        ("What type of issue is PLAT-120?", ("type",)),
        ("Who reopened PLAT-120?", ("reopened",)),
        ("When was PLAT-120 reopened?", ("reopened",)),
    ],
)
def test_a_field_question_naming_a_key_is_a_fields_question(question: str, fields: tuple[str, ...]) -> None:
    parsed = parse(question, now=NOW)
    assert parsed.kind == "fields"
    assert parsed.extra["wants"].fields == fields


def test_a_role_asked_of_an_item_named_by_description_reads_the_item_retrieval_finds() -> None:
    wanted = parse("Who is assigned the ticket about payout retries?", now=NOW).extra["wants"]
    assert (wanted.kinds[0], wanted.fields, wanted.described) == ("fields", ("assignee",), True)
    wanted = parse("Who fixed the flaky settlement test?", now=NOW).extra["wants"]
    assert (wanted.kinds[0], wanted.fields, wanted.described) == ("fields", ("fixer",), True)
    assert parse("Who is doing the user management mockups?", now=NOW).extra["wants"].fields == ("assignee",)
    assert parse("Which people are doing the mockups?", now=NOW).extra["wants"].fields == ("assignee",)
    # Work done on something asks for people as "who" does, with no field when no item is named by key.
    assert parse("Which engineers worked on the Kafka connector?", now=NOW).answer_type == "person"
    # Not a role: the fact path.
    assert parse("Who is on call this week?", now=NOW).kind == "fact"


@pytest.mark.parametrize(
    ("question", "fields"),
    [
        ("Where does the ticket about payout retries stand?", ("standing",)),
        ("How is the bug about the login redirect going?", ("standing",)),
        ("Where do things stand with the payout retries?", ("standing",)),
        ("Any news on the ticket about payout retries?", ("standing",)),
        ("When will the fix for the login redirect ship?", ("fix_version",)),
        # A release's date, not the version of an item's fix: the fact path.
        ("When will Relay 3.0 be released?", ()),
        ("How did the migration go?", ()),
    ],
)
def test_where_an_item_named_by_description_stands_is_read_from_it(question: str, fields: tuple[str, ...]) -> None:
    wanted = parse(question, now=NOW).extra["wants"]
    assert (wanted.fields, wanted.described) == (fields, bool(fields))


def test_news_of_an_item_in_a_period_is_that_periods_briefing_not_its_state_now() -> None:
    assert parse("Any updates on PLAT-120 this week?", now=NOW).kind == "briefing"
    assert parse("Any updates on PLAT-120?", now=NOW).kind == "fields"


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Which engineer fixed the export timeout?", "person"),
        ("Which person closed the ticket about payout retries?", "person"),
        ("What developer tools do we use?", ""),  # a noun before a noun: tools are asked for
        ("What member benefits do we offer?", ""),
    ],
)
def test_a_question_opening_with_a_people_noun_and_a_verb_asks_for_a_person(question: str, kind: str) -> None:
    assert parse(question, now=NOW).answer_type == kind


@pytest.mark.parametrize(
    "question",
    [
        "Why did PLAT-120 stall?",  # asks no field
        "Who reported PLAT-120, and why did retries spike?",  # one part asks something else
    ],
)
def test_other_questions_keep_their_kind(question: str) -> None:
    assert parse(question, now=NOW).kind != "fields"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoIndex:
    """The sample team's JIRA project and GitHub repositories, ingested through the local vendor stand-ins."""
    return build(tmp_path_factory.mktemp("demo"))


@pytest.fixture
def brief(demo: DemoIndex, monkeypatch: pytest.MonkeyPatch) -> Iterator[Brief]:
    monkeypatch.setenv("BRIEF_HOME", str(demo.home))
    with Brief(load_settings(demo.config)) as opened:
        yield opened


@pytest.mark.slow
def test_who_is_assigned_names_the_assignee_not_the_reporter(brief: Brief) -> None:
    result = brief.ask("Who is assigned to PLAT-120?", now=parse_now("2026-06-15T09:00:00+00:00")).to_json()
    assert result["answer"].startswith("PLAT-120 is assigned to Tomás Herrera")
    assert "Lena Vogt" not in result["answer"]  # the reporter, who wrote the ticket's lines
    assert [c["refs"] for c in result["citations"]] == [["jira:PLAT-120"]]


@pytest.mark.slow
def test_a_statement_before_the_question_does_not_change_what_it_asks(brief: Brief) -> None:
    asked = "I am catching up after my holiday. Who is assigned the ticket about the cutover runbook?"
    answer = brief.ask(asked, now=parse_now("2026-06-01T09:00:00+00:00")).to_json()
    assert answer["answer"].startswith('PLAT-109 ("Cutover runbook") is assigned to Lena Vogt [1]')
    assert [c["refs"] for c in answer["citations"]] == [["jira:PLAT-109"]]


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("The sync stalled on Fargate. Which memory limit fixed it?", "Which memory limit fixed it?"),
        ("Hi! Quick one. Who owns PLAT-120?", "Who owns PLAT-120?"),
        ("What broke? The deploy failed.", "What broke? The deploy failed."),  # the first sentence asks
        ("Upgrade to v0.9.1 first.", "Upgrade to v0.9.1 first."),  # nothing asks
    ],
)
def test_the_sentence_that_asks_is_read_for_the_form_of_the_question(text: str, asks: str) -> None:
    from briefing.question.parts import asked_sentence

    assert asked_sentence(text) == asks


@pytest.mark.slow
@pytest.mark.parametrize("question", ["Who reviewed PR #57?", "Which people reviewed PR #57?"])
def test_who_reviewed_a_pr_names_the_reviewer_cited_by_the_review(brief: Brief, question: str) -> None:
    result = brief.ask(question, now=parse_now("2026-06-15T09:00:00+00:00")).to_json()
    assert "lena-vogt (approved)" in result["answer"]
    refs = [ref for c in result["citations"] for ref in c["refs"]]
    assert refs and all("#57/comment-" in ref for ref in refs)


@pytest.mark.slow
def test_a_field_the_item_does_not_hold_takes_the_fact_path(brief: Brief) -> None:
    result = brief.ask("Which milestone is PLAT-120 in?", now=parse_now("2026-06-15T09:00:00+00:00")).to_json()
    assert "The milestone of" not in result["answer"]


@pytest.mark.slow
def test_the_status_of_a_ticket_is_its_status_field(brief: Brief) -> None:
    result = brief.ask("What is the status of PLAT-101?", now=parse_now("2026-06-15T09:00:00+00:00")).to_json()
    assert result["answer"] == "PLAT-101 is Done [1]."
    assert [c["refs"] for c in result["citations"]] == [["jira:PLAT-101"]]


@pytest.mark.slow
def test_where_a_ticket_stands_is_its_status_and_its_latest_comment(brief: Brief) -> None:
    result = brief.ask("Where does PLAT-101 stand?", now=parse_now("2026-06-15T09:00:00+00:00")).to_json()
    assert result["answer"].startswith("PLAT-101 is Done [1]; latest, ")
    assert result["citations"][0]["refs"] == ["jira:PLAT-101"]
    assert len(result["citations"]) == 2 and result["citations"][1]["refs"][0].startswith("jira:PLAT-101")


@pytest.mark.slow
def test_a_ticket_named_by_description_answers_its_assignee_not_the_writer(brief: Brief) -> None:
    result = brief.ask(
        "Who is assigned the ticket about the cutover runbook?", now=parse_now("2026-06-01T09:00:00+00:00")
    )
    answer = result.to_json()
    assert answer["answer"].startswith('PLAT-109 ("Cutover runbook") is assigned to Lena Vogt [1]')
    assert "Marcus" not in answer["answer"]  # who reported and described it
    assert [c["refs"] for c in answer["citations"]] == [["jira:PLAT-109"]]


@pytest.mark.slow
def test_the_reviewers_of_a_pr_named_by_description(brief: Brief) -> None:
    result = brief.ask(
        "Who reviewed the PR that adds exponential backoff with jitter?", now=parse_now("2026-06-15T09:00:00+00:00")
    )
    answer = result.to_json()
    assert "PR #57" in answer["answer"] and "lena-vogt (approved)" in answer["answer"]
    refs = [ref for c in answer["citations"] for ref in c["refs"]]
    assert refs and all("#57/comment-" in ref for ref in refs)


@pytest.mark.slow
def test_the_tickets_someone_finished_last_week_are_listed_from_the_changelog(brief: Brief) -> None:
    result = brief.ask("Which tickets did Lena finish last week?", now=parse_now("2026-06-01T09:00:00+00:00"))
    answer = result.to_json()
    lines = answer["answer"].splitlines()
    # The payout-worker issue closed that week names nobody who closed it: it is counted aside, not credited.
    unknown = " (1 more finished last week with nobody recorded as finishing it)"
    assert lines[0] == f"3 tickets finished by Lena last week, oldest first{unknown}:"
    assert [line.split(":")[0] for line in lines[1:]] == ["- PLAT-116", "- PLAT-109", "- PLAT-121"]
    refs = [ref for c in answer["citations"] for ref in c["refs"]]
    assert len(refs) == 3 and all("#change-" in ref for ref in refs)  # each cited to its resolving entry


@pytest.mark.slow
def test_what_someone_got_done_or_delivered_is_the_same_listing(brief: Brief) -> None:
    now = parse_now("2026-06-01T09:00:00+00:00")
    listed = brief.ask("Which tickets did Lena finish last week?", now=now).to_json()
    for question in ("What did Lena get done last week?", "What did Lena deliver last week?"):
        answer = brief.ask(question, now=now).to_json()
        lead = answer["answer"].splitlines()[0]
        assert lead.startswith("3 items finished by Lena last week, oldest first (1 more finished"), lead
        assert answer["citations"] == listed["citations"]


@pytest.mark.slow
def test_a_week_someone_finished_nothing_says_so_before_the_closest_lines(brief: Brief) -> None:
    # Lena was on leave in the week of 8 June and resolved nothing: lines of that week are not work she finished.
    answer = brief.ask("Which tickets did Lena finish last week?", now=parse_now("2026-06-15T09:00:00+00:00"))
    first = answer.to_json()["answer"].splitlines()[0]
    assert first.startswith("No tickets recorded as finished by Lena last week"), first


@pytest.mark.slow
def test_someone_with_no_open_items_is_told_so_before_the_closest_lines(brief: Brief) -> None:
    answer = brief.ask("What is Priya Raman working on?", now=parse_now("2026-06-20T09:00:00+00:00")).to_json()
    first = answer["answer"].splitlines()[0]
    assert first.startswith("No open items recorded as assigned to Priya Raman as of 2026-06-20"), first


@pytest.mark.slow
def test_prs_waiting_for_review_are_the_open_unapproved_ones_as_of_now(brief: Brief) -> None:
    answer = brief.ask("Which PRs are waiting for review?", now=parse_now("2026-06-20T09:00:00+00:00")).to_json()
    lines = answer["answer"].splitlines()
    assert lines[0] == "2 open pull requests without an approval as of 2026-06-20, oldest first:"
    assert "#437" in lines[1] and "aiko-tanaka (reviewed)" in lines[1]  # commented on, not approved
    assert "#434" in lines[2] and "no review yet" in lines[2]
    # Before #434 was opened, only #437 waits; merged pull requests (#431 on 10 June) never do.
    earlier = brief.ask("Which PRs are waiting for review?", now=parse_now("2026-06-11T09:00:00+00:00")).to_json()
    assert earlier["answer"].startswith("1 open pull request") and "#434" not in earlier["answer"]
    assert "#431" not in earlier["answer"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "question",
    [
        "Which PRs haven't been reviewed yet?",
        "Which pull requests need approval?",
        "Any open PRs without a review?",
        "What's in the review queue?",
    ],
)
def test_prs_waiting_for_review_asked_in_other_words(brief: Brief, question: str) -> None:
    answer = brief.ask(question, now=parse_now("2026-06-20T09:00:00+00:00")).to_json()["answer"]
    assert answer.startswith("2 open pull requests without an approval as of 2026-06-20"), answer


@pytest.mark.slow
@pytest.mark.parametrize(
    ("now", "verdict", "state"),
    [("2026-05-24T09:00:00+00:00", "No", "open"), ("2026-05-28T09:00:00+00:00", "Yes", "merged")],
)
def test_is_a_pr_merged_is_answered_from_its_state_before_and_after_the_merge(
    brief: Brief, now: str, verdict: str, state: str
) -> None:
    answer = brief.ask("Is PR #57 merged?", now=parse_now(now)).to_json()
    assert answer["answer"] == f"{verdict} — PR #57 is {state} [1]."
    assert [c["refs"] for c in answer["citations"]] == [["github:kestrelpay/payout-worker#57"]]


@pytest.mark.slow
def test_is_a_ticket_still_open_says_no_once_it_is_done(brief: Brief) -> None:
    answer = brief.ask("Is PLAT-101 still open?", now=parse_now("2026-06-15T09:00:00+00:00")).to_json()
    assert answer["answer"] == "No — PLAT-101 is Done [1]."


@pytest.mark.slow
def test_the_tickets_created_last_week_are_listed_from_their_state(brief: Brief) -> None:
    now = parse_now("2026-05-18T09:00:00+00:00")
    bugs = brief.ask("Which bugs were filed last week?", now=now).to_json()
    lines = bugs["answer"].splitlines()
    assert lines[0] == "2 bugs created last week, oldest first:", bugs["answer"]
    assert [line.split(":")[0] for line in lines[1:]] == ["- PLAT-115", "- PLAT-118"]
    assert "reported by Sam Whitfield, created Fri 15 May" in lines[1]
    assert [c["refs"] for c in bugs["citations"]] == [["jira:PLAT-115"], ["jira:PLAT-118"]]
    every = brief.ask("Which tickets were created last week?", now=now).to_json()["answer"]
    assert every.startswith("4 tickets created last week"), every
    lena = brief.ask("Which tickets did Lena file last week?", now=now).to_json()["answer"].splitlines()
    assert lena[0] == "1 ticket reported by Lena last week, oldest first:" and lena[1].startswith("- PLAT-114:")


@pytest.mark.parametrize(
    ("question", "kind", "by"),
    [
        ("Which bugs were logged last week?", "bugs", ""),
        ("What stories were created this month?", "stories", ""),
        ("Which tasks did Lena open yesterday?", "tasks", "Lena"),
        ("Which tickets has Tomás Herrera logged this week?", "tickets", "Tomás Herrera"),
    ],
)
def test_items_created_are_asked_in_a_trackers_words(question: str, kind: str, by: str) -> None:
    records = wants(parse(question, now=AT)).records
    assert records is not None and (records.event, records.kind, records.by) == ("opened", kind, by), records


def test_who_resolved_a_ticket_is_who_moved_it_to_done_else_not_recorded() -> None:
    header = Unit(
        "jira:PLAT-7",
        "Type: Bug | Status: Done | Priority: None\nResolution: Fixed\nAssignee: Dana Reyes | Reporter: Lee Park\n"
        "Created: 2026-05-01 | Updated: 2026-05-08 | Resolved: 2026-05-08",
        "Lee Park",
        AT,
    )
    change = Unit("jira:PLAT-7#change-5", "status: In Review -> Done", "Omar Haddad", AT)
    moved = {"event": "status", "from": "In Review", "to": "Done", "at": "2026-05-08T10:00:00+00:00",
             "by": "Omar Haddad", "ref": "jira:PLAT-7#change-5"}  # fmt: skip
    logged = Item(header.ref, "PLAT-7", header, (header, change), (moved,))
    assert _sentence(logged, "resolver") == "PLAT-7 was resolved by Omar Haddad on 2026-05-08"
    assert read_field(logged, "resolver") == (_sentence(logged, "resolver") + "\x00", [change])
    # No changelog (an export without one): the fact path reads the comment that announces the close.
    unlogged = _item(header)
    assert read_field(unlogged, "resolver") is None
    assert _sentence(_item(JIRA_HEADER), "resolver") == "PLAT-7 is not resolved; its status is In Review"
    assert _sentence(unlogged, "created") == "PLAT-7 was created on 2026-05-01"
    assert _sentence(unlogged, "priority") == "PLAT-7 has no priority set"


def test_a_field_of_a_state_not_recorded_then_says_so() -> None:
    rows_then = "Type: Bug\nReporter: Lee Park\nCreated: 2026-05-01\nState: not recorded before 2026-07-01"
    header = Unit("jira:PLAT-8", rows_then, "Lee Park", AT)
    item = _item(header, label="PLAT-8")
    assert (
        _sentence(item, "priority")
        == "PLAT-8's priority at that time is not recorded (its recorded history starts later)"
    )
    assert _sentence(item, "resolver").startswith("PLAT-8's state at that time is not recorded")
    assert read_field(item, "fix_version") is None  # often stated in comments: the fact path reads them


@pytest.mark.slow
def test_the_tickets_moved_into_a_status_are_listed_from_the_changelog(brief: Brief) -> None:
    now = parse_now("2026-05-25T09:00:00+00:00")
    started = brief.ask("Which tickets moved to In Progress last week?", now=now).to_json()
    lines = started["answer"].splitlines()
    assert lines[0] == "9 tickets moved to In Progress last week, oldest first:", started["answer"]
    assert lines[1] == "- PLAT-115: Fix flaky TestSettlementBatch in CI (from To Do, by Sam Whitfield, Mon 18 May) [1]"
    assert all("#change-" in ref for c in started["citations"] for ref in c["refs"])  # each cited to its change
    done = brief.ask("Which tickets did Lena move to done last week?", now=now).to_json()["answer"].splitlines()
    assert done[0] == "1 ticket moved to Done by Lena last week, oldest first:" and done[1].startswith("- PLAT-122:")
    # Nothing moved to In Review that week: the ordinary answer, no listing.
    review = brief.ask("Which tickets moved to In Review last week?", now=now).to_json()["answer"]
    assert "moved to" not in review.splitlines()[0]


@pytest.mark.parametrize(
    ("question", "status", "by"),
    [
        ("What went to Done yesterday?", "Done", ""),
        ("Which bugs were moved back to To Do this week?", "To Do", ""),
        ("What moved into review this week?", "review", ""),
        ("Which issues were set to Won't Do last week?", "Won't Do", ""),
        ("Which tickets did Tomás Herrera move to Blocked last week?", "Blocked", "Tomás Herrera"),
    ],
)
def test_items_moved_into_a_status_are_asked_in_many_words(question: str, status: str, by: str) -> None:
    records = wants(parse(question, now=AT)).records
    assert records is not None and (records.event, records.status, records.by) == ("moved", status, by), records


@pytest.mark.slow
def test_who_finished_the_most_counts_the_finished_tickets_by_who_moved_them(brief: Brief) -> None:
    result = brief.ask("Who closed the most tickets last week?", now=parse_now("2026-06-01T09:00:00+00:00")).to_json()
    lines = result["answer"].splitlines()
    assert lines[0] == (
        "Lena Vogt finished the most: 3 of 9 tickets finished last week (1 with nobody recorded). By person:"
    ), result["answer"]
    assert lines[1].startswith("- Lena Vogt: 3 (PLAT-1") and len(lines) == 7  # six people finished something
    assert all("#change-" in ref for c in result["citations"] for ref in c["refs"])


def test_who_reopened_a_ticket_and_when_is_its_change_out_of_done() -> None:
    header = Unit("jira:PLAT-7", "Type: Bug | Status: In Progress\nAssignee: Dana Reyes | Reporter: Lee Park", None, AT)
    done = Unit("jira:PLAT-7#change-5", "changed status: In Progress -> Done", "Omar Haddad", AT)
    back = Unit("jira:PLAT-7#change-6", "changed status: Done -> In Progress", "Lee Park", AT)
    events = (
        {"event": "status", "from": "In Progress", "to": "Done", "at": "2026-05-08T10:00:00+00:00",
         "by": "Omar Haddad", "ref": "jira:PLAT-7#change-5"},
        {"event": "status", "from": "Done", "to": "In Progress", "at": "2026-05-11T09:00:00+00:00",
         "by": "Lee Park", "ref": "jira:PLAT-7#change-6"},
    )  # fmt: skip
    item = Item(header.ref, "PLAT-7", header, (header, done, back), events)
    assert read_field(item, "reopened") == ("PLAT-7 was reopened by Lee Park on 2026-05-11\x00", [back])
    never = Item(header.ref, "PLAT-7", header, (header, done), events[:1])
    assert _sentence(never, "reopened") == "PLAT-7 has not been reopened; its status is In Progress"
    assert read_field(_item(header), "reopened") is None  # no changes recorded: the fact path reads the comments


@pytest.mark.slow
def test_who_filed_the_most_counts_the_tickets_created_by_reporter(brief: Brief) -> None:
    answer = brief.ask("Who filed the most bugs last week?", now=parse_now("2026-05-18T09:00:00+00:00")).answer
    assert answer.splitlines() == [
        "Sam Whitfield and Tomás Herrera opened the most: 1 of 2 bugs opened last week:",
        "- Sam Whitfield: 1 (PLAT-115) [1]",
        "- Tomás Herrera: 1 (PLAT-118) [2]",
    ], answer


def test_who_fixed_a_ticket_is_its_assignee_when_resolved_as_fixed_not_who_closed_it() -> None:
    fixed = Unit(
        "jira:PLAT-7",
        "Type: Bug | Status: Closed | Priority: High\nResolution: Fixed\nAssignee: Dana Reyes | Reporter: Lee Park\n"
        "Created: 2026-05-01 | Updated: 2026-05-09 | Resolved: 2026-05-08",
        "Lee Park",
        AT,
    )
    closing = Unit("jira:PLAT-7#comment-9", "Verified the fix in 2.4.1. Closing.", "Omar Haddad", AT)
    item = _item(fixed, closing)
    assert _sentence(item, "fixer") == "PLAT-7 was fixed by Dana Reyes, its assignee (resolution Fixed on 2026-05-08)"
    assert read_field(item, "fixer") == (_sentence(item, "fixer") + "\x00", [fixed])
    wont = Unit("jira:PLAT-8", fixed.text.replace("Fixed", "Won't Fix"), "Lee Park", AT)
    assert (
        _sentence(_item(wont, label="PLAT-8"), "fixer")
        == "PLAT-8 was not fixed: it was resolved as Won't Fix on 2026-05-08"
    )
    assert _sentence(_item(JIRA_HEADER), "fixer") == "PLAT-7 is not resolved; its status is In Review"
    # Fixed with nobody holding it: the fact path reads the comment that links or states the fix.
    nobody = Unit("jira:PLAT-9", fixed.text.replace("Dana Reyes", "Unassigned"), "Lee Park", AT)
    assert read_field(_item(nobody, label="PLAT-9"), "fixer") is None
    assert _sentence(_item(PR_HEADER, label="PR #57"), "fixer") == "PR #57 was written by sam"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "fixed"),
    [
        (
            "Who fixed the flaky TestSettlementBatch in CI?",
            'PLAT-115 ("Fix flaky TestSettlementBatch in CI") was fixed by Sam Whitfield',
        ),
        ("Who fixed PLAT-130?", "PLAT-130 was fixed by Aiko Tanaka, its assignee"),
    ],
)
def test_who_fixed_a_ticket_named_by_description_or_key_names_its_assignee(
    brief: Brief, question: str, fixed: str
) -> None:
    answer = brief.ask(question, now=parse_now("2026-07-01T09:00:00+00:00")).to_json()
    assert answer["answer"].startswith(fixed), answer["answer"]
    assert [c["refs"] for c in answer["citations"]][:1] in ([["jira:PLAT-115"]], [["jira:PLAT-130"]])


def test_what_an_item_is_about_is_its_title_and_description_not_its_rows_or_records() -> None:
    heading = Unit("jira:PLAT-7", "h5. Issue Description", "Lee Park", AT)
    description = Unit(
        "jira:PLAT-7", "When a payout is retried after a 401, the worker sends the transfer twice.", "Lee Park", AT
    )
    comment = Unit("jira:PLAT-7#comment-3", "PLAT-7 relates to PLAT-9", "Dana Reyes", AT)
    item = replace(_item(JIRA_HEADER, heading, description, comment), title="Payout retries send transfers twice")
    assert _sentence(item, "about") == (
        'PLAT-7 ("Payout retries send transfers twice") is about: "When a payout is retried after a 401, the worker '
        'sends the transfer twice."'
    )
    assert read_field(item, "about") == (_sentence(item, "about") + "\x00", [description])
    # A pull request exported with no description: the records quote its title, the branch line says nothing.
    tagged = Unit("github:acme/api#57", 'First tag after PR #57 "Backoff with jitter" was merged: v2.4.0', "sam", AT)
    branch = Unit("github:acme/api#57", "sam/backoff-jitter -> main", "sam", AT)
    pull = replace(_item(PR_HEADER, tagged, branch, label="PR #57"), title="Backoff with jitter")
    assert read_field(pull, "about") == ('PR #57 is titled "Backoff with jitter"\x00', [PR_HEADER])


@pytest.mark.slow
def test_what_a_ticket_named_by_key_is_about_is_read_from_it(brief: Brief) -> None:
    answer = brief.ask("What is PLAT-108 about?", now=parse_now("2026-07-01T09:00:00+00:00")).to_json()
    assert answer["answer"].startswith('PLAT-108 ("Load test Aurora at 2x peak with k6") is about: "k6 load test'), (
        answer["answer"]
    )
    assert [c["refs"] for c in answer["citations"]] == [["jira:PLAT-108"]]
    # A ticket with no description: its title, cited to its fields.
    bare = brief.ask("What is PLAT-130 about?", now=parse_now("2026-07-01T09:00:00+00:00")).to_json()
    assert bare["answer"].startswith('PLAT-130 is titled "Migration 0047 fails on PG15'), bare["answer"]


def test_the_last_comment_is_the_newest_comment_not_a_state_record_nor_the_description() -> None:
    earlier = Unit("jira:PLAT-7#comment-1", "Repro attached; it fails on every retry.", "Lee Park", AT)
    later = Unit("jira:PLAT-7#comment-2", "Thanks!", "Omar Haddad", datetime(2026, 5, 6, 9, tzinfo=UTC))
    moved = Unit("jira:PLAT-7#change-3", "status: In Review -> Done", "Dana Reyes", datetime(2026, 5, 7, tzinfo=UTC))
    item = _item(JIRA_HEADER, earlier, later, moved)
    assert (
        _sentence(item, "last_comment") == 'The last comment on PLAT-7 is by Omar Haddad on Wed 6 May 2026: "Thanks!"'
    )
    assert read_field(item, "last_comment") == (_sentence(item, "last_comment") + "\x00", [later])
    assert _sentence(_item(JIRA_HEADER), "last_comment") == "PLAT-7 has no comments"


@pytest.mark.slow
def test_who_last_commented_on_a_ticket_names_the_writer_of_its_newest_comment(brief: Brief) -> None:
    answer = brief.ask("Who last commented on PLAT-106?", now=parse_now("2026-07-01T09:00:00+00:00")).to_json()
    assert answer["answer"].startswith("The last comment on PLAT-106 is by Marcus Okafor on Thu 21 May 2026"), answer[
        "answer"
    ]
    assert len(answer["citations"]) == 1 and answer["citations"][0]["refs"][0].startswith("jira:PLAT-106#")
