"""The answer stage's answer-type check and place preference, on hand-built chunks.

A question that asks for an amount, a count or a date is refused when the best sentences state none beside the
question's own words (the release-note date line does not answer "How much did we spend on AWS in July?"), and
answered when they do; evidence from a channel the question names is quoted before better-worded lines from
another channel.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from briefing.ask.extractive import ExtractiveAnswerer, typed_near
from briefing.embed import Embedder
from briefing.settings import AnswerSettings, EmbeddingSettings
from tests.ask.chunks import at, doc, slack
from tests.ask.parsed import parsed

RELEASES = doc(
    "release/v0.9.0.md",
    "OLake Go v0.9.0 > What's new",
    "nayan",
    at(7, 28),
    "Released on 28 July 2026. The AWS Glue catalog integration now retries throttled calls.",
    "The S3 writer reuses multipart uploads, which cuts the number of AWS API calls per sync.",
)
BUDGET = slack(
    "slack:CFINOPS::0",
    "finops",
    ("Priya Raman", "The AWS bill for July came in at $14,200, mostly EC2 for the sync workers.", at(8, 3, 9)),
    ("Tom Berg", "Thanks. That is up from June because of the backfill.", at(8, 3, 9, 20)),
)
MEETUP = slack(
    "slack:CGENERAL::0",
    "general",
    ("Advaita", "Hello all! I'm Advaita and I just joined to run community events in Bangalore.", at(6, 30)),
    ("Harsha", "Welcome Advaita! Looking forward to the events.", at(6, 30, 11)),
)


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("answer-types-home"))
    defaults = AnswerSettings()
    yield ExtractiveAnswerer(embedder, min_evidence=defaults.min_evidence, max_sentences=defaults.max_sentences)
    embedder.close()


def test_a_cost_question_over_release_notes_is_refused_with_the_reason(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(parsed("How much did we spend on AWS in July?"), [RELEASES], scope="files, slack")
    assert answer.no_answer and answer.cited == {}
    assert answer.text.startswith("The sources do not cover this (searched files, slack)")
    assert "state no amount" in answer.text
    assert "28 July" not in answer.text


def test_the_same_cost_question_is_answered_when_an_amount_is_stated(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(parsed("How much did we spend on AWS in July?"), [RELEASES, BUDGET], scope="files, slack")
    assert not answer.no_answer
    assert answer.text.splitlines()[0].startswith("$14,200")
    assert BUDGET.refs[0] in answer.cited[1]


JOBS = slack(
    "slack:CJOBS::0",
    "jobs",
    ("Lina Ortiz", "Great news: I just got my first full-time Rust job in Lisbon, starting in March!", at(6, 2, 9)),
    ("Omar Haddad", "Congrats on the new job, that is great news!", at(6, 2, 9, 5)),
)
HIRING = slack(
    "slack:CJOBS::1",
    "jobs",
    ("Lina Ortiz", "Great news: Ferrotech hired me for my first full-time Rust job in Lisbon!", at(6, 2, 9)),
    ("Omar Haddad", "Congrats on the new job, that is great news!", at(6, 2, 9, 5)),
)


def test_which_company_is_refused_when_the_best_lines_name_no_organisation(answerer: ExtractiveAnswerer) -> None:
    """The line says Lina got a job, not where: it does not answer which company hired her."""
    answer = answerer.answer(parsed("Which company hired Lina Ortiz for her Rust job in Lisbon?"), [JOBS])
    assert answer.no_answer, answer.text
    assert "name no organisation" in answer.text


def test_which_company_is_answered_when_a_line_names_one(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(parsed("Which company hired Lina Ortiz for her Rust job in Lisbon?"), [HIRING])
    assert not answer.no_answer, answer.text
    assert "Ferrotech" in answer.text


def test_a_when_question_is_not_answered_by_the_date_a_message_was_sent(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(parsed("When is the community meetup in Bangalore?"), [MEETUP])
    assert answer.no_answer and answer.cited == {}
    assert "state no date" in answer.text
    assert "(the date of the message)" not in answer.text


def test_a_when_was_question_may_be_answered_by_the_announcements_date(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(parsed("When was v0.9.0 released?"), [RELEASES])
    assert not answer.no_answer and answer.features["typed_miss"] == 0.0


def test_a_what_was_asked_question_quotes_the_asking_message(answerer: ExtractiveAnswerer) -> None:
    thread = slack(
        "slack:CHELP::1",
        "help",
        ("Kim", "Does the worker need the Docker socket on Fargate?", at(8, 4, 11)),
        ("Ruth", "Thanks for the logs, we will look at it.", at(8, 4, 12)),
    )
    answer = answerer.answer(parsed("What did Kim ask about the Docker socket on Fargate?"), [thread])
    assert answer.cited[1] == [thread.refs[0]]


def test_a_count_needs_the_counted_thing_beside_the_number(answerer: ExtractiveAnswerer) -> None:
    ev = answerer.candidates([BUDGET])
    answerer.score(parsed("How many customers did we lose in July?"), ev, [BUDGET])
    assert typed_near(parsed("How many customers did we lose in July?"), ev) == 0.0
    assert typed_near(parsed("How much was the AWS bill for July?"), ev) == 1.0
    # A question that asks for no value is not judged by this check.
    assert typed_near(parsed("Why did the AWS bill go up?"), ev) == 1.0


def test_the_channel_the_question_names_is_quoted_first(answerer: ExtractiveAnswerer) -> None:
    discussions = slack(
        "slack:CDISCUSSIONS::0",
        "discussions",
        ("Kim", "Could the UI sign in through our Okta provider?", at(5, 21)),
    )
    help_channel = slack(
        "slack:CHELP::0",
        "help",
        ("Ruth", "Login to the UI with the corporate account failed for me after the upgrade.", at(5, 22)),
    )
    question = "What was asked about signing in to the UI through a corporate identity provider?"
    plain = answerer.answer(parsed(question), [help_channel, discussions])
    placed = answerer.answer(parsed(question, places=["discussions"]), [help_channel, discussions])
    assert placed.cited[1] == [discussions.refs[0]]
    assert "#discussions" in placed.text.splitlines()[0]
    # Without the place, the better-worded #help line leads: the preference is what moved it.
    assert plain.cited[1] == [help_channel.refs[0]]


def test_a_named_version_or_compound_counts_as_present_in_its_usual_spellings() -> None:
    from briefing.ask.extractive import missing_terms

    notes = doc(
        "release/v0.8.0.md",
        "OLake Go (v0.8.0 - v0.8.2)",
        "nayan",
        at(7, 11),
        "Kafka consumers now resume from the committed offset after a failure.",
        "The Helm chart raises the worker's memory request to 4 GiB.",
    )
    # "the 0.8 line" is written v0.8.0 in the notes; a "Helm-deployed sync" is about the Helm chart.
    assert missing_terms(parsed("What did the 0.8 line add for Kafka?"), [notes]) == []
    assert missing_terms(parsed("What was recommended for a Helm-deployed sync that kept crashing?"), [notes]) == []
    # Still missing: a version the notes do not hold (0.9, not a prefix of 0.8.x) and a compound of another name.
    assert missing_terms(parsed("What did the 0.9 line add for Kafka?"), [notes]) == ["0.9"]
    assert missing_terms(parsed("Is a Fargate-deployed worker supported?"), [notes]) == ["Fargate-deployed"]
    assert missing_terms(parsed("What did 1.8 change?"), [notes]) == ["1.8"]
    assert missing_terms(parsed("What did 0.80 change?"), [notes]) == ["0.80"]


def test_an_acronyms_plural_is_present_where_its_singular_is() -> None:
    from briefing.ask.extractive import missing_terms

    pull = doc("github/pr-45", "PR #45: Retry stalled CDC reads", "vikash", at(7, 11), "Merged by nayan.")
    # "PRs" is the plural of what the item calls itself; it does not make the question a near miss.
    assert missing_terms(parsed("Which PRs did vikash merge?"), [pull]) == []
    assert missing_terms(parsed("Which ADRs did vikash write?"), [pull]) == ["ADRs"]


PR_LOG = doc(
    "github/pulls.md",
    "Merged pull requests",
    "export",
    at(8, 17),
    'PR #1074 "fix(mysql): handle zero dates" authored by mihir-datazip, merged 2026-08-17 as 911a540.',
    'PR #1085 "feat: parallel chunk reader" authored by saksham-datazip, merged 2026-08-19 as 3c7d2e1.',
)
REVIEW = slack(
    "slack:CCONTRIB::0",
    "contributing",
    ("Nayan Joshi", "I reviewed #1085 this morning and approved it, nice work on the reader.", at(8, 19, 9)),
    ("saksham", "Thanks! Merging now.", at(8, 19, 9, 30)),
)


@pytest.mark.parametrize("question", ["Who reviewed PR #1085?", "Who merged #1085?", "Who approved PR 1085?"])
def test_who_held_a_role_is_refused_when_the_lines_name_only_the_author(
    answerer: ExtractiveAnswerer, question: str
) -> None:
    answer = answerer.answer(parsed(question), [PR_LOG], scope="github")
    assert answer.no_answer and answer.cited == {}
    assert "do not say who" in answer.text
    assert "saksham" not in answer.text


def test_who_reviewed_is_answered_when_a_line_states_the_review(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(parsed("Who reviewed PR #1085?"), [PR_LOG, REVIEW], scope="github, slack")
    assert not answer.no_answer
    assert "Nayan Joshi" in answer.text.splitlines()[0]
    assert REVIEW.refs[0] in answer.cited[1]


def test_who_wrote_a_pr_is_still_answered_by_its_author_line(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(parsed("Who wrote PR #1085?"), [PR_LOG], scope="github")
    assert not answer.no_answer and "saksham-datazip" in answer.text


def test_who_merged_is_answered_by_a_merge_commits_author(answerer: ExtractiveAnswerer) -> None:
    history = doc(
        "git/staging.md",
        "commits in 2026-W34",
        "git",
        at(8, 21),
        "[2026-08-21] Ankit Sharma 0a36e1b: Merge branch 'master' into staging",
    )
    answer = answerer.answer(parsed("Who merged master into staging on 21 August?"), [history], scope="git")
    assert not answer.no_answer and "Ankit Sharma" in answer.text


def test_a_question_of_two_sentences_is_answered_as_the_question_alone(answerer: ExtractiveAnswerer) -> None:
    """The capital that begins the second sentence ("... stalled. What ...") is not a name no source holds."""
    from briefing.ask.extractive import missing_terms

    question = "How much was the July AWS bill?"
    framed = f"Our costs went up over the summer. {question}"
    assert missing_terms(parsed(framed), [BUDGET]) == []
    alone, both = answerer.answer(parsed(question), [BUDGET]), answerer.answer(parsed(framed), [BUDGET])
    assert not both.no_answer and "$14,200" in both.text
    assert both.cited[1] == alone.cited[1]
    # A name that does begin a sentence is still read when it is written in capitals or with a version.
    assert missing_terms(parsed("The sync stalled. EKS or v9.9 then?"), [BUDGET]) == ["EKS", "v9.9"]


def test_a_refusal_names_the_names_the_closest_sources_lack(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(parsed("How much was the July AWS bill for the Orion gateway?"), [BUDGET], scope="slack")
    assert answer.no_answer
    assert "the closest sources do not name 'Orion'" in answer.text
