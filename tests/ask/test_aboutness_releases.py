"""A "Which release added X?" question is answered only by a release line about X (`[answer] aboutness` "release").

Before the release that added Hive Metastore catalogs, the closest line is Fusion v0.1.2's notes, which add a
catalog connection test: a version, a release word, the question's "catalog", and another change. With "release"
among the capped classes the question is refused as a near miss; once v0.1.3's notes say the same change in other
words ("read table metadata from a Hive metastore"), it is answered with that version: the line under v0.1.3's
title leads, not v0.1.2's announcement, which names a version in its own words.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.ask.extractive.aboutness import release_subject, subject_class
from briefing.embed import Embedder
from briefing.question.cues import aboutness_class
from briefing.settings import AnswerSettings, EmbeddingSettings
from tests.ask.chunks import at, doc
from tests.ask.parsed import parsed

V012 = doc(
    "release/v0.1.2.md",
    "Fusion v0.1.2 release notes",
    "ana",
    at(5, 4),
    "Fusion v0.1.2 was released on May 4.",
    "1. **Test catalog connection -** <br/> Added a button on the job form that tests the catalog connection "
    "before the job is saved.",
    "2. **Retry throttled S3 writes -** <br/> Writes to S3 are retried with backoff when S3 answers SlowDown.",
)
V013 = doc(
    "release/v0.1.3.md",
    "Fusion v0.1.3 release notes",
    "ana",
    at(6, 2),
    "Fusion v0.1.3 was released on June 2.",
    "1. **Hive metastore as the catalog -** <br/> Jobs can now read and register table metadata in a Hive "
    "metastore over its thrift URI instead of the REST catalog.",
)
QUESTION = "Which Fusion release added support for Hive Metastore catalogs?"
CAPPED = AnswerSettings.model_validate({"aboutness": ["fix", "release"]})


@pytest.fixture(scope="module")
def embedder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Embedder]:
    made = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("releases-home"))
    yield made
    made.close()


def _answerer(embedder: Embedder, settings: AnswerSettings) -> ExtractiveAnswerer:
    return ExtractiveAnswerer(
        embedder, min_evidence=settings.min_evidence, max_sentences=settings.max_sentences, aboutness=settings.aboutness
    )


def test_release_notes_about_other_changes_refuse_which_release_added_x(embedder: Embedder) -> None:
    answerer = _answerer(embedder, CAPPED)
    refused = answerer.answer(parsed(QUESTION, now=at(5, 10)), [V012], scope="docs")
    assert refused.no_answer
    # The near-miss cap fired; the reason given is the more concrete one, the names no close source holds.
    assert refused.features["subject_release"] == 1.0 and refused.features["subject_miss"] == 1.0
    assert "the closest sources do not name 'Hive' or 'Metastore'" in refused.text
    assert "v0.1.2" not in refused.text.split("\n")[0]


def test_release_notes_that_state_x_in_other_words_answer_with_the_version(embedder: Embedder) -> None:
    answerer = _answerer(embedder, CAPPED)
    answered = answerer.answer(parsed(QUESTION, now=at(6, 10)), [V012, V013], scope="docs")
    assert not answered.no_answer
    first = answered.text.splitlines()[0]
    assert "0.1.3" in first
    assert "0.1.2" not in first
    assert "Hive" in answered.text


def test_release_questions_keep_the_fix_cap_where_release_is_not_capped() -> None:
    question = parsed("Which build fixed the crash when reopening the app?")
    assert subject_class(question, ("fix",)) == "fix"
    assert subject_class(question, ("fix", "release")) == "release"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Which release added Delta Lake output to OLake Go?", "release"),
        ("Which CIDER release added support for the Clojure socket REPL?", "release"),
        ("What version first let users pick a schema?", "release"),
        ("In which build was the crash fixed?", "release"),
        ("Which release supports Hive catalogs?", "release"),
        ("What is the latest OLake Go version?", ""),
        ("Which Cassandra version does OLake Go support as a CDC source?", ""),
        ("Which PR added XML files to the S3 source?", ""),
        ("Summarize what the OLake Go 0.9 releases added.", ""),
    ],
)
def test_each_release_question_form_falls_in_its_class(question: str, expected: str) -> None:
    assert aboutness_class(question) == expected


def test_the_compared_subject_drops_the_template_words() -> None:
    assert (
        release_subject("Which CIDER release added support for the Clojure socket REPL?") == "the Clojure socket REPL"
    )
    assert release_subject("Which build fixed it?") == "Which build fixed it?"
