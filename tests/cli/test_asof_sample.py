"""`brief ask/search --now T --json` over the sample: nothing written after T is shown, scored or cited."""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

import pytest
from typer.testing import CliRunner

from briefing.cli.app import app
from tests.conftest import SampleIndex

pytestmark = pytest.mark.slow
runner = CliRunner()
# Wednesdays and a Friday in the middle of the sample's weeks, when threads and tickets are still growing.
NOWS = [
    "2026-05-13T12:00:00+00:00",
    "2026-05-20T15:00:00+00:00",
    "2026-05-29T12:00:00+00:00",
    "2026-06-10T12:00:00+00:00",
]
QUESTIONS = ["What happened this week?", "When is the production cutover to Aurora?"]
_LINE_TIME = re.compile(r"\[(\d{4}-\d\d-\d\d \d\d:\d\d) UTC\]")


def stored_view(config: Any) -> tuple[dict[str, datetime], dict[str, list[str]]]:
    """When each unit ref was written (its earliest unit), and each chunk's refs as indexed today."""
    from briefing.index import Index, payload_to_chunk
    from briefing.settings import load_settings

    written: dict[str, datetime] = {}
    refs: dict[str, list[str]] = {}
    with Index.open(load_settings(config)) as index:
        for record in index.scroll():
            chunk = payload_to_chunk(record.payload)
            refs[chunk.chunk_id] = chunk.refs
            for unit in chunk.units:
                if unit.at is not None:
                    written[unit.ref] = min(unit.at, written.get(unit.ref, unit.at))
    return written, refs


def run_json(config: Any, command: str, question: str, now: str) -> dict[str, Any]:
    result = runner.invoke(app, ["--config", str(config), command, question, "--json", "--now", now])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def assert_as_of(out: dict[str, Any], now: datetime, written: dict[str, datetime]) -> None:
    assert out["hits"]
    for hit in out["hits"]:
        assert datetime.fromisoformat(hit["occurred_at"]) <= now, hit["chunk_id"]
        late = [r for r in hit["refs"] if written.get(r, now) > now]
        assert not late, f"{hit['chunk_id']} shows refs written after {now}: {late}"
        lines = [datetime.fromisoformat(t + "+00:00") for t in _LINE_TIME.findall(hit["text"])]
        assert all(t <= now for t in lines), f"{hit['chunk_id']} shows lines written after {now}"
    for citation in out.get("citations", []):
        assert all(written.get(r, now) <= now for r in citation["refs"]), citation


def test_ask_and_search_never_show_what_was_written_after_now(use_sample: SampleIndex) -> None:
    written, stored = stored_view(use_sample.config)
    cut = 0
    for now_text in NOWS:
        now = datetime.fromisoformat(now_text)
        for question in QUESTIONS:
            for command in ("search", "ask"):
                out = run_json(use_sample.config, command, question, now_text)
                assert_as_of(out, now, written)
                cut += sum(set(h["refs"]) < set(stored[h["chunk_id"]]) for h in out["hits"])
    # Some of those hits were chunks that grew after `now`, shown cut to their earlier units.
    assert cut > 0
