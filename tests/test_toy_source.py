"""Adding a source type touches no core file: a toy `notes` source (tests/toysource) is registered with one line,
passes the architecture checks, is ingested, searched, asked about and cited through the real command line, and
its metadata is read by the roles its descriptor declares."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from briefing import registry
from briefing.cli.app import app
from briefing.model import Chunk
from tests import test_architecture as architecture

NOTES = [
    {
        "id": 1,
        "at": "2026-03-02T10:00:00+00:00",
        "author": "Dana Reyes",
        "notebook": "ops",
        "title": "Backup drill",
        "text": "The quarterly backup restore drill finished in 42 minutes; the target is under one hour.",
    },
    {
        "id": 2,
        "at": "2026-03-03T15:30:00+00:00",
        "author": "Omar Haddad",
        "notebook": "hiring",
        "title": "Interview loop",
        "text": "We agreed to add a system design interview to the backend loop starting in April.",
    },
    {
        "id": 3,
        "at": "2026-03-20T09:00:00+00:00",
        "author": "Dana Reyes",
        "notebook": "ops",
        "title": "Pager rota",
        "text": "From next week the pager rotation moves from weekly to fortnightly shifts.",
    },
]
runner = CliRunner()


@pytest.fixture
def notes_workspace(tmp_path: Path) -> Iterator[Path]:
    registry.register("notes", "tests.toysource:DESCRIPTOR")
    (tmp_path / "notes.jsonl").write_text("\n".join(json.dumps(n) for n in NOTES), encoding="utf-8")
    config = tmp_path / "brief.toml"
    config.write_text('[workspace]\nname = "toy"\n\n[sources.team-notes]\ntype = "notes"\npath = "notes.jsonl"\n')
    yield config
    registry.register("notes", None)


def brief(config: Path, *args: str) -> dict:
    result = runner.invoke(app, ["--config", str(config), *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout) if "--json" in args else {}


@pytest.mark.slow
def test_a_registered_toy_source_is_ingested_searched_and_cited(notes_workspace: Path) -> None:
    brief(notes_workspace, "ingest")
    found = brief(notes_workspace, "search", "backup restore drill", "--json", "--now", "2026-04-01T00:00:00+00:00")
    assert found["hits"][0]["refs"] == ["notes:1"]
    assert found["hits"][0]["source"] == "notes"

    asked = brief(
        notes_workspace,
        "ask",
        "How long did the backup restore drill take?",
        "--json",
        "--now",
        "2026-04-01T00:00:00+00:00",
    )
    assert not asked["no_answer"]
    assert "42 minutes" in asked["answer"]
    assert any(c["refs"] == ["notes:1"] for c in asked["citations"])
    # The descriptor's own words and label reach the question parser and the answer.
    assert asked["constraints"].get("sources", []) == []
    in_notes = brief(
        notes_workspace,
        "ask",
        "What do the notes say about the pager rotation?",
        "--json",
        "--now",
        "2026-04-01T00:00:00+00:00",
    )
    assert in_notes["constraints"]["sources"] == ["notes"]
    assert any(c["refs"] == ["notes:3"] for c in in_notes["citations"])
    assert "Dana Reyes in #" not in in_notes["answer"] and "Dana Reyes in ops" in in_notes["answer"]


@pytest.mark.slow
def test_a_note_written_after_now_is_not_visible(notes_workspace: Path) -> None:
    brief(notes_workspace, "ingest")
    found = brief(notes_workspace, "search", "pager rotation shifts", "--json", "--now", "2026-03-10T00:00:00+00:00")
    assert all("notes:3" not in h["refs"] for h in found["hits"])


@pytest.mark.slow
def test_an_option_the_source_does_not_support_is_named_in_one_line(notes_workspace: Path) -> None:
    result = runner.invoke(app, ["--config", str(notes_workspace), "ingest", "--until", "2026-03-10"])
    assert result.exit_code == 0, result.output
    notes = [line for line in result.stderr.splitlines() if "--until" in line]
    assert notes == [
        "note team-notes: --until is not supported by notes sources and was ignored (it collects everything new)"
    ]
    assert "--since" not in result.stderr


@pytest.fixture
def notes_registered() -> Iterator[None]:
    registry.register("notes", "tests.toysource:DESCRIPTOR")
    yield
    registry.register("notes", None)


@pytest.mark.slow
def test_a_source_named_notes_passes_the_architecture_checks(notes_registered: None) -> None:
    """Its package imports only the contracts; its descriptor is complete; the core compares no value with "notes"
    or "notes:" and reads no metadata key it does not declare (everyday words such as "note" in the core's
    regular expressions and messages are no comparison)."""
    descriptors = registry.descriptors()
    assert "notes" in registry.families()
    known = architecture.modules(architecture.CORE, architecture.ROOT / "tests" / "toysource")
    assert architecture.contract_breaches(architecture.import_graph(known), ["tests.toysource"]) == []
    assert architecture.descriptor_problems(descriptors) == []
    assert architecture.compared_names(descriptors) == []
    assert architecture.undeclared_metadata_reads(descriptors) == []


def _chunk(source_type: str, metadata: dict[str, object]) -> Chunk:
    at = datetime(2026, 3, 2, tzinfo=UTC)
    return Chunk("k::0", "k", source_type, "kind", "title", "text", ["k"], at, at, metadata=metadata)


@pytest.fixture
def memos_registered(notes_registered: None) -> Iterator[None]:
    registry.register("memos", "tests.toysource:MEMOS")
    yield
    registry.register("memos", None)


def test_metadata_is_read_by_role_from_the_key_each_source_declares(memos_registered: None) -> None:
    memo = _chunk("memos", {"reply_to": "17", "state": "Withdrawn", "see_also": ["notes:1", {"key": "notes:2"}]})
    thread = _chunk("slack", {"thread_ts": "1781081500.170139", "reply_to": "17"})
    assert registry.meta(memo, "thread_root") == "17"
    assert registry.meta(thread, "thread_root") == "1781081500.170139"
    # A flag read off a value, in any case; a refs role takes each entry's ref (an object's `key`).
    assert registry.meta(memo, "cancelled") is True
    assert registry.meta(_chunk("memos", {"state": "open"}), "cancelled") is False
    assert registry.meta(memo, "links") == ["notes:1", "notes:2"]
    # The same key means nothing for a source that does not declare it, nor a role a source does not declare.
    assert registry.meta(_chunk("notes", {"reply_to": "17"}), "thread_root") == ""
    assert registry.meta(memo, "all_day") is False
    assert registry.meta(memo, "events") == []
    assert registry.meta(_chunk("no-such-family", {"thread_ts": "1"}), "thread_root") == ""


def test_metadata_is_read_from_a_stored_payload_as_from_a_chunk(memos_registered: None) -> None:
    payload = {"source_type": "memos", "metadata": {"reply_to": "17", "state": "WITHDRAWN"}}
    assert registry.meta(payload, "thread_root") == "17"
    assert registry.meta(payload, "cancelled") is True
    assert registry.meta({"source_type": "memos"}, "thread_root") == ""
