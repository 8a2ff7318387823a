"""Refusals that read what a question presupposes: the kind of thing a "which / what" question asks for
("What compression codec ...": a codec), a reference for "which PR", contact details for "what is the phone
number". A careful reader checks that the sources name the thing asked, not only its topic; a question whose
asked thing no source names is refused, naming it, and a two-part question still answers the part the sources
cover.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from briefing import pipeline
from briefing.ask.extractive import ExtractiveAnswerer
from briefing.embed import Embedder
from briefing.question.answer_type import answer_type
from briefing.question.asked import asked_head, asked_of
from briefing.question.shape import value_asked
from briefing.service import Brief
from briefing.settings import AnswerSettings, EmbeddingSettings, load_settings
from tests.ask.chunks import at, doc, slack
from tests.ask.parsed import parsed


@pytest.mark.parametrize(
    ("question", "head"),
    [
        ("Which Okta group was mapped to the admin role of the UI?", ["okta", "group"]),
        ("What compression codec does the writer use by default?", ["compression", "codec"]),
        ("What is the p99 latency of the mobile app's login screen?", ["p99", "latency"]),
        ("What was the outcome of the disaster recovery drill?", ["outcome"]),
        ("What rating out of five does the product have on its reviews page?", ["rating"]),
        ("Which PR fixed the corrupt parquet footer?", ["pr"]),
        # No phrase that names a thing: a verb first, a participle, a filler word, a person, a time.
        ("What did Duke find in the logs?", []),
        ("What was released for the Workers component yesterday?", []),
        ("What open work is the team carrying into this week?", []),
        ("Which merchants generate most of the volume in the early hours?", []),
        ("Who merged the pull request?", []),
        ("When is the next review?", []),
    ],
)
def test_the_thing_a_question_asks_for(question: str, head: list[str]) -> None:
    assert asked_head(question) == head


@pytest.mark.parametrize(
    ("question", "entity"),
    [
        ("What is the p99 latency of the mobile app's login screen?", ["mobile", "app", "login", "screen"]),
        ("What was the outcome of the disaster recovery drill for Aurora?", ["disaster", "recovery", "drill"]),
        ("What is the latest version of the UI?", ["ui"]),
        # What a policy, rule or decision is about is presupposed the same way.
        ("What is our policy on pets in the office?", ["pets"]),
        ("What are the rules about parking at the office?", ["parking"]),
        ("What was the decision on the Kafka upgrade?", ["kafka", "upgrade"]),
        ("Which codec does the writer use?", []),
    ],
)
def test_the_entity_an_asked_attribute_belongs_to(question: str, entity: list[str]) -> None:
    assert asked_of(question) == entity


def _workspace(root: Path) -> Path:
    docs = root / "docs"
    docs.mkdir()
    (docs / "writer.md").write_text(
        "# Parquet writer\n\nThe Parquet writer targets files of 128 MB on S3 and flushes every 10,000 rows; "
        "the writer retries a failed upload three times.\n",
        encoding="utf-8",
    )
    (docs / "helm.md").write_text(
        "# Helm chart\n\nThe Helm chart installs the UI and the workers; set `replicaCount` to scale the workers "
        "and `resources.limits.memory` to size them.\n",
        encoding="utf-8",
    )
    (docs / "oncall.md").write_text(
        "# On-call bridge\n\nThe on-call bridge opens for every Sev1 and Sev2 incident; the incident commander "
        "posts the link in #incidents.\n",
        encoding="utf-8",
    )
    (docs / "office.md").write_text(
        "# Office hours\n\nBring your Helm and deploy questions to office hours, Thursdays at 15:00. "
        "Our office policy on visitors: sign them in at reception.\n",
        encoding="utf-8",
    )
    config = root / "brief.toml"
    config.write_text('[workspace]\nname = "asked"\n\n[sources.handbook]\ntype = "files"\npath = "docs"\n')
    return config


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    root = tmp_path_factory.mktemp("asked-thing")
    patch = pytest.MonkeyPatch()
    patch.setenv("BRIEF_HOME", str(root / "home"))
    config = _workspace(root)
    summary = pipeline.run(load_settings(config), ["handbook"])
    assert summary.broken == [] and summary.failure_count == 0
    yield root, config
    patch.undo()


def _ask(workspace: tuple[Path, Path], question: str, monkeypatch: pytest.MonkeyPatch) -> dict:
    root, config = workspace
    monkeypatch.setenv("BRIEF_HOME", str(root / "home"))  # the module's index (each test gets its own home)
    later = datetime.now(UTC) + timedelta(hours=1)  # the files are dated by their modification time
    with Brief(load_settings(config)) as brief:
        return brief.ask(question, now=later, k=10).to_json(trace=True)


@pytest.mark.slow
def test_a_question_about_a_kind_of_thing_no_source_names_is_refused_naming_it(
    workspace: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every other topic word (Parquet, writer, files, S3) is in the writer's page; "codec" is in no source.
    result = _ask(workspace, "Which codec does the Parquet writer use for the files on S3?", monkeypatch)
    assert result["no_answer"] is True
    assert result["citations"] == []
    assert "no indexed source mentions 'codec'" in result["answer"]
    assert result["trace"]["features"]["head_miss"] == 1.0


@pytest.mark.slow
def test_the_same_kind_of_question_is_answered_when_a_source_names_the_thing(
    workspace: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _ask(workspace, "What file size does the Parquet writer target on S3?", monkeypatch)
    assert result["no_answer"] is False
    assert "128 MB" in result["answer"]
    assert result["trace"]["features"]["head_miss"] == 0.0


@pytest.mark.slow
def test_a_policy_question_about_a_subject_no_source_names_is_refused_naming_it(
    workspace: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The office-hours page has an office policy (on visitors); what this policy is about is in no source.
    result = _ask(workspace, "What is our policy on pets in the office?", monkeypatch)
    assert result["no_answer"] is True
    assert "no indexed source mentions 'pets'" in result["answer"]
    assert result["trace"]["features"]["head_any_absent"] == 1.0


@pytest.mark.slow
def test_a_two_part_question_answers_the_part_the_sources_cover(
    workspace: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    question = "Which codec does the Parquet writer use, and what file size does it target on S3?"
    result = _ask(workspace, question, monkeypatch)
    assert result["no_answer"] is False
    lines = result["answer"].splitlines()
    assert any(line.startswith("Which codec") and "the sources do not say" in line for line in lines)
    assert any(line.startswith("What file size") and "128 MB" in line for line in lines)


FOOTER = slack(
    "slack:CHELP::9",
    "help",
    ("Anirudh", "The sync fails reading one Parquet file: the footer is about 106 MB.", at(5, 12, 9)),
    ("Nayan", "The failure is caused by oversized Parquet footer metadata.", at(5, 12, 10)),
)
# The reference is in the message, after the sentence that answers the question's words.
FOOTER_FIXED = slack(
    "slack:CHELP::10",
    "help",
    (
        "Nayan",
        "The oversized Parquet footer is fixed now: the writer drops statistics of huge values. "
        "You can also check the PR: https://github.com/datazip-inc/olake/pull/951",
        at(5, 20, 10),
    ),
)


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("asked-thing-home"))
    defaults = AnswerSettings()
    yield ExtractiveAnswerer(embedder, min_evidence=defaults.min_evidence, max_sentences=defaults.max_sentences)
    embedder.close()


def test_a_which_pr_question_needs_a_reference_in_the_messages_it_reads(answerer: ExtractiveAnswerer) -> None:
    question = "Which PR fixed the oversized Parquet footer problem?"
    answer = answerer.answer(parsed(question), [FOOTER], scope="slack")
    assert answer.no_answer and "state no issue or PR number" in answer.text
    answered = answerer.answer(parsed(question), [FOOTER, FOOTER_FIXED], scope="slack")
    assert not answered.no_answer
    assert answered.features["value_miss"] == 0.0


BRIDGE = slack(
    "slack:CINC::3",
    "incidents",
    ("Lena", "The on-call bridge for the 2026-05-19 incident opened at 14:20 and closed at 15:10.", at(5, 19, 15)),
)
BRIDGE_NUMBER = slack(
    "slack:CINC::4",
    "incidents",
    ("Lena", "For the record, the on-call bridge dial-in is +49 30 5557 1234, PIN 2211.", at(5, 20, 9)),
)


def test_a_phone_number_question_is_not_answered_by_dates_and_times(answerer: ExtractiveAnswerer) -> None:
    question = "What is the phone number for the on-call bridge?"
    assert value_asked(question, answer_type(question, "fact")) == "phone number"
    answer = answerer.answer(parsed(question), [BRIDGE], scope="slack")
    assert answer.no_answer and "state no phone number" in answer.text
    answered = answerer.answer(parsed(question), [BRIDGE, BRIDGE_NUMBER], scope="slack")
    assert not answered.no_answer and "+49 30 5557 1234" in answered.text


MERGES = doc(
    "github:datazip-inc/olake#1136",
    "datazip-inc/olake#1136: chore: added-regex",
    "saksham-datazip",
    at(8, 21),
    'PR #1136 "chore: added-regex" authored by saksham-datazip, merged 2026-08-21 as f2d6102 | state: merged',
)
OTHER_MERGE = doc(
    "github:datazip-inc/olake:commits:2026-W34",
    "datazip-inc/olake: commits in 2026-W34",
    "Ankit Sharma",
    at(8, 21),
    "[2026-08-21] Ankit Sharma 0a36e1b: Merge branch 'master' into staging",
)


def test_who_merged_a_named_pr_is_read_from_lines_about_that_pr(answerer: ExtractiveAnswerer) -> None:
    # The merge commit of another branch says who merged that branch, not who merged #1136.
    question = "Who clicked merge on PR #1136?"
    answer = answerer.answer(parsed(question), [MERGES, OTHER_MERGE], scope="github")
    assert answer.no_answer and "do not say who merged it" in answer.text
    merged_by = doc(
        "github:datazip-inc/olake#1136-events",
        "datazip-inc/olake#1136: chore: added-regex",
        "github",
        at(8, 21, 11),
        "PR #1136 was merged by Ankit Sharma after two approvals.",
    )
    answered = answerer.answer(parsed(question), [MERGES, OTHER_MERGE, merged_by], scope="github")
    assert not answered.no_answer and "Ankit Sharma" in answered.text


def test_the_person_a_when_question_names_is_not_what_its_date_is_about(answerer: ExtractiveAnswerer) -> None:
    standup = slack(
        "slack:CPLAT::1",
        "platform-eng",
        ("Priya Raman", "First standup at the new 10:00 slot: Aiko on call, Lena on alerts.", at(5, 18, 9)),
    )
    question = "When is Aiko Tanaka taking her summer holiday?"
    answer = answerer.answer(parsed(question, people=["Aiko Tanaka"]), [standup], scope="slack")
    assert answer.no_answer and "state no date" in answer.text
    holiday = slack(
        "slack:CPLAT::2",
        "platform-eng",
        ("Aiko Tanaka", "My summer holiday is from 3 August to 14 August; Lena covers my reviews.", at(6, 1, 9)),
    )
    answered = answerer.answer(parsed(question, people=["Aiko Tanaka"]), [standup, holiday], scope="slack")
    assert not answered.no_answer and "3 August" in answered.text


def test_how_much_memory_is_answered_by_a_size_in_bytes(answerer: ExtractiveAnswerer) -> None:
    # The line that answers never says "memory": the unit says what it measures.
    comparison = doc(
        "blog/dms-comparison.md",
        "OLake Go vs AWS DMS > Resources",
        "anshika",
        at(6, 16),
        "The difference between the two tools is speed and cost, not memory consumption.",
        "OLake Go averaged about 31.76 GB across the full 4 billion rows and DMS about 30 GB, close to a tie.",
    )
    answer = answerer.answer(parsed("How much memory did each tool average in the comparison test?"), [comparison])
    assert not answer.no_answer
    assert answer.features["typed_miss"] == 0.0  # which line leads is the ranking's business, not the refusal's


def test_how_often_is_answered_by_a_frequency_in_words(answerer: ExtractiveAnswerer) -> None:
    advice = slack(
        "slack:CHELP::20",
        "help",
        ("Badal", "There is no fixed schedule for CDC syncs; most teams run them hourly.", at(6, 26)),
    )
    answer = answerer.answer(parsed("How often should CDC syncs be scheduled in production?"), [advice], scope="slack")
    assert not answer.no_answer and answer.features["typed_miss"] == 0.0
    assert "hourly" in answer.text


def test_who_maintains_a_thing_needs_a_line_that_says_who_owns_it(answerer: ExtractiveAnswerer) -> None:
    # The author of a message about the connector (a maintainer asking a user for logs) is not its owner.
    asking = slack(
        "slack:CHELP::1",
        "help",
        ("Duke", "Can you share the full logs of the Kafka connector sync and the worker logs?", at(5, 18, 9)),
    )
    question = "Who maintains the Kafka connector?"
    answer = answerer.answer(parsed(question), [asking])
    assert answer.no_answer and "do not say who maintains or owns it" in answer.text, answer.text
    owner = doc(
        "file:team/ownership.md",
        "Component ownership",
        "files",
        at(5, 2, 10),
        "The Kafka connector is maintained by Mira Kovacs; page her for consumer-group problems.",
    )
    answered = answerer.answer(parsed(question), [asking, owner])
    assert not answered.no_answer and "Mira Kovacs" in answered.text, answered.text
