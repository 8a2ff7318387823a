"""A question asking which version or build did something (fixed a bug, shipped a feature) is led by the line that
announces a new version doing it, not by the report or a remark of the same maintainer that shares more words."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from tests.ask.chunks import at, doc, slack
from tests.ask.lines import first_line, open_answerer


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    yield from open_answerer(Path(tmp_path_factory.mktemp("releases-home")))


# The maintainer's remark elsewhere shares the question's words ("fixed that bug"); the announcement in the
# product's own channel names the build.
REMARK = slack(
    "slack:CEDITORS::0",
    "editors",
    (
        "Colm Byrne",
        "@Sara It would be great to get that into the main plugin - I fixed that bug in the Quill snapshot "
        "port yesterday, it was the char counting.",
        at(2, 7, 22),
    ),
)
ANNOUNCEMENT = slack(
    "slack:CQUILL::0",
    "quill",
    ("Dana Ruiz", "The first 2.3.0 snapshot breaks indentation when I paste a form.", at(2, 6, 9)),
    ("Colm Byrne", "I've pushed 2.3.0-snapshot2 fixing that bug /cc @Sara", at(2, 9, 3)),
)
# Another product's release, in its own channel: it names a new version and a fix, but not the product asked about.
OTHER = slack(
    "slack:CLOOM::0",
    "loom",
    (
        "Tomas Kral",
        "Version 4.1.8 released: it fixes the snapshot bug where a pasted form broke the indentation.",
        at(2, 7, 22),
    ),
)
# The report alone, without the announcement.
REPORT = slack("slack:CQUILL::0", "quill", ("Dana Ruiz", ANNOUNCEMENT.units[0].text, at(2, 6, 9)))
QUESTION = "A bug turned up in the first Quill 2.3.0 snapshot; which build fixed it?"


def test_the_announcing_line_leads(answerer: ExtractiveAnswerer) -> None:
    line = first_line(answerer, QUESTION, REMARK, ANNOUNCEMENT, OTHER)
    assert "2.3.0-snapshot2" in line, line


def test_another_products_release_does_not_lead(answerer: ExtractiveAnswerer) -> None:
    line = first_line(answerer, QUESTION, REPORT, OTHER)
    assert "4.1.8" not in line, line


def test_a_question_not_asking_for_a_version_keeps_the_best_line(answerer: ExtractiveAnswerer) -> None:
    line = first_line(
        answerer, "Who fixed the char counting bug of the Quill 2.3.0 snapshot port?", REMARK, ANNOUNCEMENT
    )
    assert "2.3.0-snapshot2" not in line, line


# A release-notes document lists its changes under a title naming the range of releases it covers; its paragraph
# names no version of its own.
NOTES = doc(
    "release/v0.7.0.md",
    "OLake Go (v0.7.0 - v0.7.8)",
    "docs",
    at(6, 29),
    "1. **MySQL chunking optimisation -** <br/> Replaced repeated database lookups during chunk discovery with "
    "range splitting for numeric and string primary keys.",
    "2. **SSH tunnel support for DB2 and MSSQL -** <br/> Added SSH tunnel configuration for the DB2 and MSSQL drivers.",
)


def test_a_release_notes_line_is_answered_with_the_release_its_title_names(answerer: ExtractiveAnswerer) -> None:
    line = first_line(answerer, "Which release added the MySQL chunking optimisation?", NOTES)
    assert line.startswith("v0.7.0 - v0.7.8"), line
    assert "MySQL chunking" in line, line
