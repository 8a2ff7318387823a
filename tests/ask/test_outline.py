"""A summary of one document reads the whole document: one cited line per section, in the document's order.

Through the real pipeline (a files source, the index, `Brief.ask`): the release notes below have six sections,
and a question worded like its platform section used to get only the sections closest to its words. Now every
section is quoted once (list sections by their items' heads), each line cites its own section, and a question
about the latest state or a period keeps the ordinary answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from briefing.service import Brief
from tests.harness import ingest_docs

NOW = datetime(2026, 8, 1, 9, 0, tzinfo=UTC)

RELEASE = """---
date: 2026-07-12
author: nayan
---
# Relay 3.0 release notes

**TL;DR:** Relay 3.0 adds a Kafka source, writes to BigQuery, and exposes Prometheus metrics. Upgrades from 2.x
need no migration. Two crash fixes make restarts safe.

## What's new

### Sources

1. **Kafka source -** Relay now reads Kafka topics, one stream per topic, with offsets kept in the state file.
2. **XML files in object storage -** The object storage source reads `.xml` and `.xml.gz` files.

### Platform

1. **Version in startup logs -** The running version is printed when the service starts, so a deployment can be
   checked from its logs.
2. **Faster test startup -** Integration tests share one base image, so containers start in seconds.
3. **Make targets for local work -** New `make` targets start the test databases and build the drivers.

### Destinations

1. **BigQuery destination -** Relay writes to BigQuery tables through the storage write API.
2. **Rolling files for S3 -** Large partitions are written as several size-bounded files.

## Monitoring

The web UI exposes a Prometheus `/metrics` endpoint with sync status, duration, rows written and memory use, so
syncs can be watched from an existing Grafana.

## Bug fixes

1. **Record order under concurrent filters -** Records keep their source order when filters run in parallel.
2. **Last batch flush -** An error in the final flush now stops the commit instead of being overwritten.
3. **TLS certificates inline -** Certificates can be given in the connector config instead of file paths.

## Upgrading:

Upgrading from 2.x needs no migration: stop the service, install 3.0 and start it again; the state file is read
as it is.
"""

OTHER = """---
date: 2026-07-20
author: vaibhav
---
# How Relay checkpoints its progress

## The state file

Relay writes its progress to a state file after every committed batch, so a restart resumes where it stopped.

## Crashes between commit and checkpoint

A crash between the commit and the checkpoint is repaired on restart by reading the committed position back.
"""


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(config, home) of the two documents, ingested once."""
    files = {"relay-3.0.md": RELEASE, "checkpoints.md": OTHER}
    return ingest_docs(tmp_path_factory.mktemp("outline"), "outline", files)


@pytest.fixture
def brief(workspace: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> Iterator[Brief]:
    from briefing.settings import load_settings

    config, home = workspace
    monkeypatch.setenv("BRIEF_HOME", str(home))
    with Brief(load_settings(config)) as b:
        yield b


def _lines(answer: str) -> list[str]:
    return [line for line in answer.splitlines() if line.startswith("- ")]


@pytest.mark.slow
def test_a_summary_of_a_document_quotes_every_section_in_order(brief: Brief) -> None:
    result = brief.ask("Summarize the Relay 3.0 release notes.", now=NOW)
    answer = result.answer
    # The document, its author once and its date; then the lines.
    assert answer.splitlines()[0] == '"Relay 3.0 release notes" (nayan, Sun 12 Jul), section by section:'
    assert "::" not in answer  # a heading's own colon is not doubled
    lines = _lines(answer)
    # Every section, in the document's order: the author's TL;DR first, then new sources, platform, destinations,
    # monitoring, fixes and the upgrade note, though the question names none of them.
    order = [
        "TL;DR: Relay 3.0 adds a Kafka source",
        'Sources: "Kafka source; XML files in object storage"',
        'Platform: "Version in startup logs',
        'Destinations: "BigQuery destination; Rolling files for S3"',
        'Monitoring: "The web UI exposes a Prometheus',
        'Bug fixes: "Record order under concurrent filters; Last batch flush; TLS certificates inline"',
        'Upgrading: "Upgrading from 2.x needs no migration',
    ]
    places = [next((i for i, line in enumerate(lines) if marker in line), -1) for marker in order]
    assert -1 not in places, answer
    assert places == sorted(places), answer
    # One citation per section, each opening its own section of the file.
    urls = [c.url or "" for c in result.citations]
    assert len(urls) == len(set(urls)) == len(lines)
    assert all("#" in url for url in urls[1:]), urls
    assert {ref for c in result.citations for ref in c.refs} == {"file:relay-3.0.md"}
    assert result.trace.get("outline") == "file:relay-3.0.md"


def test_the_items_of_a_list_section_are_shown_by_their_heads(brief: Brief) -> None:
    lines = _lines(brief.ask("Give me an overview of the Relay 3.0 release notes", now=NOW).answer)
    platform = next(line for line in lines if "Platform" in line)
    assert "Version in startup logs; Faster test startup; Make targets for local work" in platform
    # A head, not the item's whole description.
    assert "printed when the service starts" not in platform


def test_questions_about_now_or_a_period_keep_the_ordinary_answer(brief: Brief) -> None:
    for question in ("Summarize where the Relay 3.0 upgrade stands now.", "Summarize the release notes of last week."):
        result = brief.ask(question, now=NOW)
        assert "outline" not in result.trace, question
        assert "section by section" not in result.answer


def test_the_outlined_document_is_the_one_the_answer_leads_with(brief: Brief) -> None:
    # The release notes hold most of the context (three chunks against one), but the best evidence is the
    # checkpoint post's: the answer is not an outline of the release notes.
    result = brief.ask("Summarize how Relay resumes after a crash.", now=NOW)
    assert "section by section" not in result.answer and "outline" not in result.trace
    assert "resumes where it stopped" in result.answer


def test_a_document_too_long_to_read_whole_keeps_the_ordinary_answer(
    brief: Brief, monkeypatch: pytest.MonkeyPatch
) -> None:
    from briefing.ask import outline

    monkeypatch.setattr(outline, "MAX_DOCUMENT_CHUNKS", 2)  # the release notes have 3 chunks
    result = brief.ask("Summarize the Relay 3.0 release notes.", now=NOW)
    assert "outline" not in result.trace and "section by section" not in result.answer
    assert not result.no_answer


def test_past_the_embedding_budget_the_outline_reads_the_cache_only(
    brief: Brief, monkeypatch: pytest.MonkeyPatch
) -> None:
    from briefing.ask import outline

    wanted = brief.ask("Summarize the Relay 3.0 release notes.", now=NOW).answer
    monkeypatch.setattr(outline, "MAX_EMBEDDED", -1)  # nothing may be embedded: every vector from the cache
    # Ingest warmed every sentence, so the cache alone gives the same outline.
    assert brief.ask("Summarize the Relay 3.0 release notes.", now=NOW).answer == wanted
