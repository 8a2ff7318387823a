"""Deterministic constraint extraction: time windows, sources, keys, channels, people, projects, intent."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from briefing.errors import ConfigError
from briefing.model import Person
from briefing.question.constraints import Constraints, Directory, extract

NOW = datetime(2026, 6, 15, 9, 0, tzinfo=UTC)  # a Monday
NOW_ISO = "2026-06-15T09:00"


def window(question: str, **kwargs: object) -> tuple[str, str] | None:
    found = extract(question, now=kwargs.pop("now", NOW), **kwargs)  # type: ignore[arg-type]
    if found.time is None:
        return None
    assert found.time.start.tzinfo is not None and found.time.start.utcoffset().total_seconds() == 0
    return found.time.start.isoformat()[:16], found.time.end.isoformat()[:16]


# (question, expected UTC start, expected UTC end) for NOW in UTC with weeks starting on Monday.
UTC_CASES = [
    ("what happened today", "2026-06-15T00:00", "2026-06-16T00:00"),
    ("what happened yesterday?", "2026-06-14T00:00", "2026-06-15T00:00"),
    ("the day before yesterday", "2026-06-13T00:00", "2026-06-14T00:00"),
    ("tomorrow's meetings", "2026-06-16T00:00", "2026-06-17T00:00"),
    ("what changed this week", "2026-06-15T00:00", "2026-06-22T00:00"),
    ("what happened last week", "2026-06-08T00:00", "2026-06-15T00:00"),
    ("next week", "2026-06-22T00:00", "2026-06-29T00:00"),
    ("the week before last", "2026-06-01T00:00", "2026-06-08T00:00"),
    ("the past 7 days", "2026-06-08T09:00", NOW_ISO),
    ("in the last 3 days", "2026-06-12T09:00", NOW_ISO),
    ("last 2 weeks", "2026-06-01T09:00", NOW_ISO),
    ("past 3 months", "2026-03-15T09:00", NOW_ISO),
    ("the past few days", "2026-06-12T09:00", NOW_ISO),
    ("over the past couple of weeks", "2026-06-01T09:00", NOW_ISO),
    ("in the last week", "2026-06-08T09:00", NOW_ISO),
    ("the last 24 hours", "2026-06-14T09:00", NOW_ISO),
    ("since Monday", "2026-06-08T00:00", NOW_ISO),
    ("what changed since Wednesday", "2026-06-10T00:00", NOW_ISO),
    ("since yesterday", "2026-06-14T00:00", NOW_ISO),
    ("since May 1", "2026-05-01T00:00", NOW_ISO),
    ("since last week", "2026-06-08T00:00", NOW_ISO),
    ("last Friday", "2026-06-12T00:00", "2026-06-13T00:00"),
    ("what did we decide on Tuesday", "2026-06-09T00:00", "2026-06-10T00:00"),
    ("this month", "2026-06-01T00:00", "2026-07-01T00:00"),
    ("last month", "2026-05-01T00:00", "2026-06-01T00:00"),
    ("in June", "2026-06-01T00:00", "2026-07-01T00:00"),
    ("in July", "2025-07-01T00:00", "2025-08-01T00:00"),  # a bare month in the future: last year's
    ("in June 2025", "2025-06-01T00:00", "2025-07-01T00:00"),
    ("what happened in may", "2026-05-01T00:00", "2026-06-01T00:00"),
    ("mid-June", "2026-06-11T00:00", "2026-06-21T00:00"),
    ("what was decided at the end of March", "2026-03-21T00:00", "2026-04-01T00:00"),
    ("plans from the beginning of June", "2026-06-01T00:00", "2026-06-11T00:00"),
    ("what happened on the 20th of last month", "2026-05-20T00:00", "2026-05-21T00:00"),
    ("due on the first of next month", "2026-07-01T00:00", "2026-07-02T00:00"),
    ("May 1", "2026-05-01T00:00", "2026-05-02T00:00"),
    ("on 1 May", "2026-05-01T00:00", "2026-05-02T00:00"),
    ("on 2026-05-01", "2026-05-01T00:00", "2026-05-02T00:00"),
    ("the 1st of May", "2026-05-01T00:00", "2026-05-02T00:00"),
    ("May 1st, 2025", "2025-05-01T00:00", "2025-05-02T00:00"),
    ("Monday, May 4", "2026-05-04T00:00", "2026-05-05T00:00"),
    ("December 24", "2025-12-24T00:00", "2025-12-25T00:00"),
    ("during the week of May 4", "2026-05-04T00:00", "2026-05-11T00:00"),
    ("between May 1 and May 15", "2026-05-01T00:00", "2026-05-16T00:00"),
    ("from May 1 to May 15", "2026-05-01T00:00", "2026-05-16T00:00"),
    ("May 1-15", "2026-05-01T00:00", "2026-05-16T00:00"),
    ("between May 1 and 15", "2026-05-01T00:00", "2026-05-16T00:00"),
    ("from March to May", "2026-03-01T00:00", "2026-06-01T00:00"),
    ("from November to February", "2025-11-01T00:00", "2026-03-01T00:00"),
    ("before May 1", "1970-01-01T00:00", "2026-05-01T00:00"),
    ("after June 10", "2026-06-11T00:00", NOW_ISO),
    ("Q1", "2026-01-01T00:00", "2026-04-01T00:00"),
    ("what shipped in Q3", "2025-07-01T00:00", "2025-10-01T00:00"),  # Q3 2026 has not begun
    ("Q3 2026 plans", "2026-07-01T00:00", "2026-10-01T00:00"),
    ("the second quarter of 2025", "2025-04-01T00:00", "2025-07-01T00:00"),
    ("last quarter", "2026-01-01T00:00", "2026-04-01T00:00"),
    ("this quarter", "2026-04-01T00:00", "2026-07-01T00:00"),
    ("this year", "2026-01-01T00:00", "2027-01-01T00:00"),
    ("last year", "2025-01-01T00:00", "2026-01-01T00:00"),
    ("in 2024", "2024-01-01T00:00", "2025-01-01T00:00"),
    ("year to date", "2026-01-01T00:00", NOW_ISO),
    ("3 days ago", "2026-06-12T00:00", "2026-06-13T00:00"),
    ("two weeks ago", "2026-06-01T00:00", "2026-06-08T00:00"),
    ("a fortnight ago", "2026-06-01T00:00", "2026-06-08T00:00"),
    ("a month ago", "2026-05-01T00:00", "2026-06-01T00:00"),
    ("earlier this week", "2026-06-15T00:00", NOW_ISO),
    ("so far this month", "2026-06-01T00:00", NOW_ISO),
    ("over the weekend", "2026-06-13T00:00", "2026-06-15T00:00"),
    ("anything recently?", "2026-06-01T09:00", NOW_ISO),
    ("12/05/2025", "2025-12-05T00:00", "2025-12-06T00:00"),  # dateparser's fallback, month first
]


@pytest.mark.parametrize(("question", "start", "end"), UTC_CASES, ids=[c[0] for c in UTC_CASES])
def test_time_expressions_resolve_in_utc(question: str, start: str, end: str) -> None:
    assert window(question) == (start, end)


# 03:00 UTC on Monday is 20:00 on Sunday June 14 in Los Angeles (UTC-7 in summer, UTC-8 in winter).
LA_NOW = datetime(2026, 6, 15, 3, 0, tzinfo=UTC)
LA_CASES = [
    ("today", "2026-06-14T07:00", "2026-06-15T07:00"),
    ("yesterday", "2026-06-13T07:00", "2026-06-14T07:00"),
    ("this week", "2026-06-08T07:00", "2026-06-15T07:00"),
    ("last week", "2026-06-01T07:00", "2026-06-08T07:00"),
    ("since Monday", "2026-06-08T07:00", "2026-06-15T03:00"),
    ("over the weekend", "2026-06-13T07:00", "2026-06-15T07:00"),  # local time is still in the weekend
    ("May 1", "2026-05-01T07:00", "2026-05-02T07:00"),
    ("in March", "2026-03-01T08:00", "2026-04-01T07:00"),  # crosses the daylight-saving change
]


@pytest.mark.parametrize(("question", "start", "end"), LA_CASES, ids=[c[0] for c in LA_CASES])
def test_time_expressions_use_the_configured_time_zone(question: str, start: str, end: str) -> None:
    assert window(question, now=LA_NOW, timezone="America/Los_Angeles") == (start, end)


SUNDAY_CASES = [
    ("this week", "2026-06-14T00:00", "2026-06-21T00:00"),
    ("last week", "2026-06-07T00:00", "2026-06-14T00:00"),
    ("two weeks ago", "2026-05-31T00:00", "2026-06-07T00:00"),
    ("earlier this week", "2026-06-14T00:00", NOW_ISO),
]


@pytest.mark.parametrize(("question", "start", "end"), SUNDAY_CASES, ids=[c[0] for c in SUNDAY_CASES])
def test_weeks_follow_the_configured_week_start(question: str, start: str, end: str) -> None:
    assert window(question, week_start="sunday") == (start, end)


@pytest.mark.parametrize(
    "question",
    [
        "may we ship PLAT-123?",
        "May we ship it?",
        "what changed in version 2.1?",
        "status of PR 45",
        "we may need 3 more reviewers",
        "does it scale to 2000 users",
        "is ISO-8601 parsing fixed",
        "what is the SLA in the contract",
        "what now",
        "what is the most recent deploy",
        "a batch of 2000 rows",
        "who owns the March rewrite doc",  # a capitalised month with no preposition is a name
    ],
)
def test_words_that_are_not_dates_give_no_window(question: str) -> None:
    assert window(question) is None


def test_time_span_points_at_the_words_in_the_question() -> None:
    question = "what changed in #help since Monday?"
    found = extract(question, now=NOW)
    assert found.time is not None and found.time.span is not None
    span = found.time.span
    assert (span.text, question[span.start : span.end]) == ("since Monday", "since Monday")
    assert ("time", span) in found.spans


def test_two_time_expressions_cover_both() -> None:
    found = extract("compare yesterday with last Friday", now=NOW)
    assert found.time is not None
    assert (found.time.start, found.time.end) == (datetime(2026, 6, 12, tzinfo=UTC), datetime(2026, 6, 15, tzinfo=UTC))
    assert [s.text for k, s in found.spans if k == "time"] == ["yesterday", "last Friday"]


def test_naive_now_is_taken_as_utc() -> None:
    assert window("yesterday", now=datetime(2026, 6, 15, 9)) == ("2026-06-14T00:00", "2026-06-15T00:00")


def test_unknown_time_zone_or_week_start_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="Mars/Olympus"):
        extract("yesterday", now=NOW, timezone="Mars/Olympus")
    with pytest.raises(ConfigError, match="week_start"):
        extract("yesterday", now=NOW, week_start="someday")


@pytest.mark.parametrize(
    ("question", "sources"),
    [
        ("what did we discuss in Slack", ["slack"]),
        ("anything on slack about the outage", ["slack"]),
        ("open items from JIRA tickets", ["jira"]),
        ("which tickets are blocked", ["jira"]),
        ("which PRs were merged", ["github"]),
        ("pull requests waiting for review", ["github"]),
        ("recent commits to the parser", ["git", "github"]),
        ("emails from the vendor", ["email"]),
        ("anything in my mail about renewal", ["email"]),
        ("meetings about the launch", ["calendar"]),
        ("the calendar for next week", ["calendar"]),
        ("the confluence pages on onboarding", ["confluence"]),
        ("what does the wiki say", ["confluence"]),
        ("is it in the docs", ["confluence", "files"]),
        ("what does the handbook say about leave", ["files"]),
        ("how do we deploy", []),
    ],
)
def test_source_words(question: str, sources: list[str]) -> None:
    found = extract(question, now=NOW)
    assert found.sources == sources
    assert "source" not in found.hard


@pytest.mark.parametrize(
    "question",
    ["only from JIRA: what is blocked", "just in Slack, what did we say", "search Slack only", "JIRA tickets only"],
)
def test_explicit_only_makes_the_source_a_hard_filter(question: str) -> None:
    found = extract(question, now=NOW)
    assert found.hard == {"source"}
    assert found.sources in (["jira"], ["slack"])


def test_only_applies_to_other_kinds_too() -> None:
    found = extract("only last week, what happened in #help?", now=NOW)
    assert found.hard == {"time"}
    assert extract("what happened only in #help", now=NOW).hard == {"channel"}


def test_ticket_keys_without_a_directory_use_a_stoplist() -> None:
    found = extract("is PLAT-123 blocked by OPS-7 or by UTF-8, SHA-256, ISO-8601, CVE-2024-3094?", now=NOW)
    assert found.tickets == ["PLAT-123", "OPS-7"]
    assert [s.text for k, s in found.spans if k == "ticket"] == ["PLAT-123", "OPS-7"]
    assert extract("is plat-9 done", now=NOW).tickets == []


def test_ticket_keys_with_a_directory_follow_known_projects() -> None:
    directory = Directory(projects=["PLAT", "acme/api"], ticket_keys={"PLAT-1", "OPS-2"})
    found = extract("are plat-9, OPS-40 and FOO-12 done? does GPT-4 help?", now=NOW, directory=directory)
    assert found.tickets == ["PLAT-9", "OPS-40"]
    assert found.projects == []  # "plat" inside the key is the ticket, not the project


@pytest.mark.parametrize(
    ("question", "prs"),
    [
        ("what happened to PR #45", ["45"]),
        ("review PR 45 and PR#46", ["45", "46"]),
        ("pull request 47 is stuck", ["47"]),
        ("issue #12 regressed", ["12"]),
        ("see acme/api#7", ["7"]),
        ("is #8 merged", ["8"]),
        ("is PR-9 merged", ["9"]),
        ("what about #help", []),
    ],
)
def test_pr_and_issue_numbers(question: str, prs: list[str]) -> None:
    found = extract(question, now=NOW)
    assert found.prs == prs
    assert found.tickets == []


def test_channels_without_a_directory() -> None:
    assert extract("what's new in #help and #platform-eng?", now=NOW).channels == ["help", "platform-eng"]
    assert extract("anything in the platform-eng channel", now=NOW).channels == ["platform-eng"]
    assert extract("did I post in the wrong channel", now=NOW).channels == []


def test_channels_resolve_to_directory_names() -> None:
    directory = Directory(channels=["platform-eng", "general", "team_infra"])
    assert extract("news in #Platform_Eng", now=NOW, directory=directory).channels == ["platform-eng"]
    assert extract("in the general channel", now=NOW, directory=directory).channels == ["general"]
    assert extract("anything in team_infra today", now=NOW, directory=directory).channels == ["team_infra"]
    # A plain word that happens to be a channel name is not enough on its own.
    assert extract("a general question", now=NOW, directory=directory).channels == []


PEOPLE = Directory(
    people=[
        Person("U1", "Alice Chen", ("alice",), ("alice@acme.io",)),
        Person("U2", "Bob Stone", ("bstone",), ()),
        Person("U3", "Will Turner", ("wturner",), ()),
        Person("U4", "June Park", ("jpark",), ()),
    ],
    channels=["help"],
    projects=["OPS", "acme/api-server", "platform"],
)


@pytest.mark.parametrize(
    ("question", "people"),
    [
        ("what did Alice say about the outage", ["Alice Chen"]),
        ("summarise alice chen's updates", ["Alice Chen"]),
        ("Alice's PR", ["Alice Chen"]),
        ("what did @bstone post", ["Bob Stone"]),
        ("bstone and Bob", ["Bob Stone"]),
        ("mail from ALICE@acme.io", ["Alice Chen"]),
        ("did Bob and Alice agree", ["Bob Stone", "Alice Chen"]),
        ("what did Will say", ["Will Turner"]),
        ("will we ship on time", []),
        ("Will we ship on time", []),
        ("what did June say in June", ["June Park"]),
        ("what did Carol say", []),
    ],
)
def test_people_resolve_through_the_directory(question: str, people: list[str]) -> None:
    assert extract(question, now=NOW, directory=PEOPLE).people == people


@pytest.mark.slow
def test_people_resolve_in_a_mailing_list_sized_directory() -> None:
    """A mailing list's directory holds thousands of names; the ones the question names are still found, case-blind
    and with accents, and an address the question quotes resolves to its person."""
    crowd = [Person(f"P{i}", f"Dev{i} Maintainer{i}", (f"dev{i}",), (f"dev{i}@lists.example",)) for i in range(3000)]
    named = [
        Person("Z1", "Zoë Müller", ("zmuller",), ("zoe@kernel.example",)),
        Person("V1", "Viresh Kumar", ("viresh",), ("viresh.kumar@linaro.example",)),
    ]
    directory = Directory(people=crowd + named)
    assert extract("what did ZOË MÜLLER and dev2999 review?", now=NOW, directory=directory).people == [
        "Zoë Müller",
        "Dev2999 Maintainer2999",
    ]
    assert extract("patches from viresh.kumar@linaro.example", now=NOW, directory=directory).people == ["Viresh Kumar"]
    assert extract("what did Viresh send?", now=NOW, directory=directory).people == ["Viresh Kumar"]


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("What was announced in #help last week?", "what_happened"),
        ("What was discussed in the help channel yesterday?", "what_happened"),
        ("What got released this week?", "what_happened"),
        ("What was released for the Workers component yesterday?", "fact"),
        ("What was decided last week about pooling?", "fact"),
        ("What was announced?", "fact"),
        ("What did Alice Chen work on last week?", "what_happened"),
        ("What has Bob been working on this week?", "what_happened"),
        ("What was Alice doing last week?", "what_happened"),
        ("What was Alice working on last week?", "what_happened"),
        ("What has Bob been busy with this week?", "what_happened"),
        ("What did Alice get up to last week?", "what_happened"),
        ("What has Bob been up to this week?", "what_happened"),
        ("What was Alice doing with the billing rewrite last week?", "fact"),
        ("What did Alice work on for the billing rewrite last week?", "fact"),
        ("What did Bob say last week?", "fact"),
    ],
)
def test_a_question_about_a_period_and_nothing_else_is_what_happened(question: str, intent: str) -> None:
    assert extract(question, now=NOW, directory=PEOPLE).intent == intent


def test_a_month_that_is_a_persons_name_needs_a_real_preposition() -> None:
    found = extract("what did Alice and June discuss", now=NOW, directory=PEOPLE)
    assert found.time is None
    assert found.people == ["Alice Chen", "June Park"]
    dated = extract("what did June say in June", now=NOW, directory=PEOPLE)
    assert dated.time is not None and dated.time.label == "June"


def test_people_need_a_directory() -> None:
    assert extract("what did Alice say", now=NOW).people == []


def test_projects_resolve_through_the_directory() -> None:
    found = extract("OPS incidents and the api-server repo", now=NOW, directory=PEOPLE)
    assert found.projects == ["OPS", "acme/api-server"]
    assert extract("who handles ops", now=NOW, directory=PEOPLE).projects == []


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("what happened in #help last week", "what_happened"),
        ("what changed since Monday", "what_happened"),
        ("what's new with the migration", "what_happened"),
        ("updates on PLAT-123", "what_happened"),
        ("status of the billing rewrite", "what_happened"),
        ("summarize the incident", "summary"),
        ("give me a recap of the sprint", "summary"),
        ("a digest of #help", "summary"),
        ("What were the main points raised in PLAT-7?", "summary"),
        ("What was discussed in the thread about the Kafka lag?", "summary"),
        ("What are the key takeaways from the postmortem?", "summary"),
        ("What's the gist of PR #41?", "summary"),
        ("What was discussed in #general last week?", "what_happened"),
        ("Which API key does the exporter use?", "fact"),
        ("what is the latest on the launch", "latest"),
        ("is the flag still enabled", "latest"),
        ("who owns the deploy pipeline", "who"),
        ("Who approved PR #45?", "who"),
        ("when did we switch to Postgres", "when"),
        ("what database do we use", "fact"),
    ],
)
def test_intent(question: str, intent: str) -> None:
    assert extract(question, now=NOW).intent == intent


def test_every_span_is_the_text_it_points_at() -> None:
    question = "Summarize only Slack: what did @bstone say in #help about PLAT-12 and PR #45 last week?"
    found = extract(question, now=NOW, directory=PEOPLE)
    kinds = [kind for kind, _ in found.spans]
    assert kinds == ["source", "person", "channel", "ticket", "pr", "time"]
    for _, span in found.spans:
        assert question[span.start : span.end] == span.text
    assert found.hard == {"source"}
    assert found.intent == "summary"


def test_to_json_round_trips() -> None:
    question = "what did Alice say in #help about PLAT-12 and PR #45 since Monday, only from Slack?"
    found = extract(question, now=NOW, directory=PEOPLE)
    data = json.loads(json.dumps(found.to_json()))
    assert data["time"]["start"] == "2026-06-08T00:00:00+00:00"
    at = question.index("since Monday")
    assert data["time"]["span"] == {"kind": "time", "text": "since Monday", "start": at, "end": at + 12}
    assert data["hard"] == ["source"]
    at = question.index("PLAT-12")
    assert {"kind": "ticket", "text": "PLAT-12", "start": at, "end": at + 7} in data["spans"]
    assert Constraints.from_json(data) == found


def test_is_empty() -> None:
    assert extract("how do we deploy the service?", now=NOW).is_empty()
    assert extract("", now=NOW).is_empty()
    assert not extract("how did we deploy yesterday?", now=NOW).is_empty()
    assert not extract("PLAT-1", now=NOW).is_empty()


def test_a_very_long_question_is_scanned_quickly_and_safely() -> None:
    question = "what happened last week? " + "lorem ipsum May 3 PLAT-1 #help " * 2000
    found = extract(question, now=NOW)
    assert found.tickets == ["PLAT-1"]
    assert found.time is not None and found.time.start == datetime(2026, 5, 3, tzinfo=UTC)


# -- ranges, ordinal words and weekday phrases (NOW is Monday 15 June 2026) -----------------------------------

RANGE_CASES = [
    ("what happened from 13 to 15 May", "2026-05-13T00:00", "2026-05-16T00:00"),
    ("from the 13th to the 15th of May", "2026-05-13T00:00", "2026-05-16T00:00"),
    ("what happened 1-8 june", "2026-06-01T00:00", "2026-06-09T00:00"),
    ("between 3 and 5 April", "2026-04-03T00:00", "2026-04-06T00:00"),
    ("from the first to the third of March", "2026-03-01T00:00", "2026-03-04T00:00"),
    ("20-25 December", "2025-12-20T00:00", "2025-12-26T00:00"),  # not in the future: last year's
    ("July 13-15 2025", "2025-07-13T00:00", "2025-07-16T00:00"),
    ("May 13th to the 15th", "2026-05-13T00:00", "2026-05-16T00:00"),
    ("what shipped on march first", "2026-03-01T00:00", "2026-03-02T00:00"),
    ("the first of march", "2026-03-01T00:00", "2026-03-02T00:00"),
    ("on March the twenty-first", "2026-03-21T00:00", "2026-03-22T00:00"),
    ("2 thursdays ago", "2026-06-04T00:00", "2026-06-05T00:00"),
    ("two mondays ago", "2026-06-01T00:00", "2026-06-02T00:00"),  # today is a Monday: not today
    ("on Friday of last week", "2026-06-12T00:00", "2026-06-13T00:00"),
    ("last week's Tuesday", "2026-06-09T00:00", "2026-06-10T00:00"),
    ("Wednesday of this week", "2026-06-17T00:00", "2026-06-18T00:00"),
]


@pytest.mark.parametrize(("question", "start", "end"), RANGE_CASES, ids=[c[0] for c in RANGE_CASES])
def test_ranges_and_spelled_out_days(question: str, start: str, end: str) -> None:
    found = extract(question, now=NOW)
    assert window(question) == (start, end)
    assert found.time is not None and not found.time.note


@pytest.mark.parametrize(
    "question",
    [
        "Version: 1.10.30 release notes",
        "what broke in 2.4.12",
        "upgrade to v1.2.2026",
        "we march first to the hall, then present",
    ],
)
def test_versions_and_verbs_are_not_dates(question: str) -> None:
    assert window(question) is None


@pytest.mark.parametrize(
    ("question", "read"),
    [
        ("from the start of the project to 15 May", "15 May"),
        ("from 13 May to the end of term", "13 May"),
        ("between the offsite and 15 May", "15 May"),
    ],
)
def test_a_range_read_in_part_says_so(question: str, read: str) -> None:
    found = extract(question, now=NOW)
    assert found.time is not None and found.time.label == read
    assert read in found.time.note and "may be wider" in found.time.note
    assert found.to_json()["time"]["note"] == found.time.note
    assert Constraints.from_json(found.to_json()).time == found.time


def test_a_fully_read_range_has_no_note() -> None:
    found = extract("what happened between 3 and 5 April", now=NOW)
    assert found.time is not None and found.time.note == ""
    assert "note" not in found.to_json()["time"]


# -- the answer kind ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("What happened in #platform-eng last week?", ("briefing",)),
        ("What's planned this week?", ("briefing",)),
        ("What was announced in #releases last week?", ("briefing",)),
        # Asking to be caught up is asking for the window's briefing, not a fact about "missing" or "highlights".
        ("What did I miss in #releases since Monday?", ("briefing",)),
        ("Give me the highlights from last week.", ("briefing",)),
        ("Anything interesting in #releases this week?", ("briefing",)),
        ("What did people talk about in #releases yesterday?", ("briefing",)),
        ("What's new in #releases this week?", ("briefing",)),
        # "What new <thing> ..." asks for a thing, not for everything new in the window.
        ("What new version of Relay came out this week?", ("fact",)),
        ("What new features shipped last week?", ("fact",)),
        ("What are the main problems users hit with payouts?", ("summary", "fact")),
        ("Summarize the discussions about the Aurora cutover", ("summary", "outline", "fact")),
        ("Summarize the Relay 3.0 release notes.", ("outline", "fact")),
        ("Summarize where the Relay 3.0 upgrade stands now.", ("fact",)),
        ("What meetings do we have this week?", ("meetings", "fact")),
        ("When is the next standup?", ("meetings", "fact")),
        ("When is the next recap?", ("outline", "meetings", "fact")),
        ("Which blog posts came out in July?", ("listing", "fact")),
        ("Which PRs were merged in the first week of June?", ("listing", "fact")),
        ("Which blog posts came out?", ("fact",)),  # no period: nothing to list by date
        ("Who owns PLAT-142?", ("fields", "fact")),  # a named ticket's field: read from its header
        ("Who's assigned to PLAT-142?", ("fields", "fact")),
        ("whos assigned to PLAT-142", ("fields", "fact")),  # chat leaves the apostrophe out
        ("whats new in #releases this week", ("briefing",)),
        ("Anything new in #releases this week?", ("briefing",)),
        ("Who\u2019s reviewing PR #57?", ("fields", "fact")),
        # An item named by what it is about: the item retrieval finds, if its text covers the words, else a fact.
        ("Who owns the payout retry work?", ("fields", "fact")),
        # Other ways to ask who holds an item: its assignee, read from its header.
        ("Who is on PLAT-142?", ("fields", "fact")),
        ("Who picked up the ticket about payout retries?", ("fields", "fact")),
        ("Who has the ticket about payout retries?", ("fields", "fact")),
        ("Who's looking into PLAT-142?", ("fields", "fact")),
        ("What day was PLAT-142 resolved?", ("fields", "fact")),  # the day of its resolution, from its header
        # Being on something else is no role of an item.
        ("Who is on call this week?", ("fact",)),
        ("Who has access to the staging database?", ("fact",)),
    ],
)
def test_the_answer_kinds_a_question_may_take_in_order(question: str, kinds: tuple[str, ...]) -> None:
    from briefing.question.parse import kind_of, parse, wants

    parsed = parse(question, now=NOW, directory=Directory(channels=["platform-eng", "releases"]))
    assert wants(parsed).kinds == kinds
    assert parsed.kind == kinds[0] == kind_of(question, parsed.constraints)


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("What happened in the releases channel this week?", ""),  # "channel" says where, not what about
        ("What happened with the team last week?", ""),
        ("What happened with the Aurora cutover last week?", "aurora cutover"),
        # The opening's question word and auxiliaries are not what it is about.
        ("What has been going on with the Aurora cutover this week?", "aurora cutover"),
        ("What has happened with the load test since Monday?", "load test"),
        ("What's been happening with the load test this week?", "load test"),
        ("What\u2019s been happening with the load test this week?", "load test"),  # a phone's apostrophe
        # Asking to be caught up names no topic; what it is about still does.
        ("What did I miss in #releases last week?", ""),
        ("Give me the highlights from last week.", ""),
        ("What did I miss about the Kafka migration this week?", "kafka migration"),
        ("What happened with the people search last week?", "people search"),
    ],
)
def test_a_briefing_topic_leaves_out_the_words_that_only_say_where(question: str, topic: str) -> None:
    from briefing.question.parse import parse, wants

    parsed = parse(question, now=NOW, directory=Directory(channels=["platform-eng", "releases"]))
    assert parsed.kind == "briefing"
    assert wants(parsed).topic == topic


def test_what_the_kind_detectors_read_rides_with_the_question() -> None:
    from briefing.question.parse import parse, wants

    listing = wants(parse("Which blog posts about Kafka came out in the first week of July?", now=NOW))
    assert listing.documents is not None
    assert (listing.documents.kind, listing.documents.topic) == ("blog posts", "Kafka")
    assert listing.week_of == "first" and listing.records is None
    merged = wants(parse("Which pull requests were merged last month?", now=NOW))
    assert merged.records is not None and (merged.records.event, merged.records.pulls) == ("merged", True)
    agenda = wants(parse("Any meetings about the budget this week?", now=NOW))
    assert agenda.agenda == "the budget this week" and agenda.next_meeting is None
    assert wants(parse("When's our next 1:1 with Marcus?", now=NOW)).next_meeting == "1:1 with Marcus"
    planned = wants(parse("What's planned next week?", now=NOW))
    assert planned.forward and planned.topic == ""


@pytest.mark.parametrize(
    ("question", "event", "by"),
    [
        ("Which pull requests did TWal open in June 2022?", "opened", "TWal"),
        ("What issues has Dana Reyes filed this week?", "opened", "Dana Reyes"),
        ("Which PRs did lee merge last month?", "merged", "lee"),
        ("Which pull requests were merged last month?", "merged", ""),
    ],
)
def test_a_records_listing_names_whose_event_it_asks_for(question: str, event: str, by: str) -> None:
    from briefing.question.parse import parse, wants

    records = wants(parse(question, now=NOW)).records
    assert records is not None and (records.event, records.by) == (event, by)


@pytest.mark.parametrize(
    ("question", "fields"),
    [
        # A field's word in what the item is about is the item's topic, not a second field asked.
        ("Who is working on the ticket about labels inside nested views?", ("assignee",)),
        ("Who reported the bug that breaks the status bar?", ("reporter",)),
        ("What is the status of PLAT-142, the ticket about the login labels?", ("status",)),
        ("Which labels does PLAT-142 about the status bar have?", ("labels",)),
    ],
)
def test_a_role_question_about_an_item_described_by_a_field_word_asks_the_role(
    question: str, fields: tuple[str, ...]
) -> None:
    from briefing.question.parse import parse, wants

    assert wants(parse(question, now=NOW)).fields == fields


def test_a_project_named_with_a_plain_word_needs_the_question_to_say_it_is_a_place() -> None:
    """A docs folder called "release" is a project, but "the newest release" uses the word; "the release folder" or
    "release/" names the folder."""
    folders = Directory(projects=["release", "blog", "acme/api-server"])
    assert extract("What is the newest Fusion release?", now=NOW, directory=folders).projects == []
    assert extract("What does the release folder say about Fusion?", now=NOW, directory=folders).projects == ["release"]
    assert extract("Which page under release/ covers Fusion?", now=NOW, directory=folders).projects == ["release"]
    assert extract("Was it in the blog project or the api-server repo?", now=NOW, directory=folders).projects == [
        "blog",
        "acme/api-server",
    ]


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("Is the export still failing?", "latest"),
        ("How many tickets are still open for 6.3.0?", "latest"),
        ("Why does calling str on a lazy seq still print LazySeq@ even after doall?", "fact"),
        ("If an update moves a document to another partition, does the table still hold one row for it?", "fact"),
        ("How do I still get the old behaviour after the upgrade?", "fact"),
    ],
)
def test_still_asks_for_the_current_state_only_when_it_means_as_of_now(question: str, intent: str) -> None:
    assert extract(question, now=NOW).intent == intent


@pytest.mark.parametrize(
    "question",
    [
        "Where does the Aurora migration stand?",
        "Where are we with the ledger cutover?",
        "Where do things stand on PLAT-7?",
        "How is the ledger cutover going?",
        "How's the Aurora migration coming along?",
        "Any updates on the ledger cutover?",
        "Is there any news about the Aurora migration?",
    ],
)
def test_where_something_stands_asks_for_the_state_as_of_now(question: str) -> None:
    assert extract(question, now=NOW, directory=Directory()).intent == "latest"


def test_how_something_is_going_to_work_and_news_in_a_period_ask_no_state_now() -> None:
    assert extract("How is the cutover going to work?", now=NOW, directory=Directory()).intent != "latest"
    assert extract("Any updates on the cutover this week?", now=NOW, directory=Directory()).intent == "what_happened"


def test_get_up_to_is_what_someone_did_and_up_to_alone_is_until() -> None:
    # "get / been up to" says what someone did; "up to last week" alone bounds the window at its end.
    did = extract("What did Alice get up to last week?", now=NOW, directory=PEOPLE).time
    until = extract("What was released up to last week?", now=NOW, directory=PEOPLE).time
    assert did is not None and until is not None
    assert did.label == "last week" and did.end == until.end
    assert until.start < did.start
