"""Confluence pages as of `now`: a page's earlier versions fetched once each, and read at the moment asked.

Over recorded Confluence Server responses (tests/fixtures/confluence_versions: perceval's test data, one page at
three versions), served by the local Confluence server and synced by the real connector.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from briefing import registry
from briefing.asof import visible
from briefing.model import Batch, Chunk, ChunkLimits, Document, RawRecord
from briefing.registry import SourceContext
from briefing.settings import source_adapter
from chunkers.versions import stream_versions
from connectors.confluence.connector import ConfluenceConnector, ConfluenceCursor, build
from tests.fakes.confluence_server import FakeConfluence, serve

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "confluence_versions"
SECRET = "secret-token"
# Version 3 as recorded carries no `when`; the test dates it four days after version 2.
V3_WHEN = "2016-06-20T10:00:00.000Z"
VIEW = "{}/pages/viewpage.action?pageId=1"
ROOMY = ChunkLimits(max_tokens=100_000, max_chars=1_000_000, max_items=1000)


def _recorded(n: int) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / f"content_1_v{n}.json").read_text(encoding="utf-8"))
    return data


def _current() -> dict[str, Any]:
    """Version 3 as the current page a search returns: with its date and its space."""
    page = _recorded(3)
    page["version"]["when"] = V3_WHEN
    page["space"] = {"key": "DEV", "name": "Development"}
    page["ancestors"] = []
    page["_links"] = {"webui": "/display/DEV/Steady+State+Project+-+2016-06-17+Goals"}
    return page


@pytest.fixture
def fake() -> Iterator[FakeConfluence]:
    server = FakeConfluence([_current()], {}, user="bot@example.com", token=SECRET)
    server.versions = {"1": {1: _recorded(1), 2: _recorded(2)}}
    with serve(server) as running:
        yield running


def connector(fake: FakeConfluence, monkeypatch: pytest.MonkeyPatch, **config: Any) -> ConfluenceConnector:
    monkeypatch.setenv("CONFLUENCE_USER", "bot@example.com")
    monkeypatch.setenv("CONFLUENCE_TOKEN", SECRET)
    table = {
        "type": "confluence",
        "base_url": fake.base_url,
        "user_env": "CONFLUENCE_USER",
        "token_env": "CONFLUENCE_TOKEN",
        "spaces": ["DEV"],
        **config,
    }
    return build(SourceContext(name="wiki", config=source_adapter().validate_python(table)))


def sync(conn: ConfluenceConnector, cursor: ConfluenceCursor | None = None) -> tuple[list[Batch], ConfluenceCursor]:
    batches = list(conn.fetch(cursor or conn.initial_cursor()))
    last = batches[-1].cursor
    assert isinstance(last, ConfluenceCursor)
    return batches, conn.load_cursor(last.model_dump(mode="json"))


def page_records(batches: list[Batch]) -> dict[str, RawRecord]:
    return {r.key: r for b in batches for r in b.records if not r.key.startswith("access/")}


def historical(fake: FakeConfluence) -> list[str]:
    """The versions asked for, in order."""
    return [p["version"] for _, p in fake.requests if p.get("status") == "historical"]


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(UTC)


def _page(batches: list[Batch], conn: ConfluenceConnector) -> Document:
    out = conn.normalise(list(page_records(batches).values()))
    assert out.failures == []
    (document,) = out.documents
    return document


def _seen(chunks: list[Chunk], now: str) -> list[Chunk]:
    return [c for c in (visible(c, _at(now)) for c in chunks) if c is not None]


def test_the_first_sync_fetches_each_earlier_version_once(
    fake: FakeConfluence, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = connector(fake, monkeypatch)
    batches, cursor = sync(conn)

    assert sorted(page_records(batches)) == ["1", "1@v1", "1@v2"]
    assert historical(fake) == ["1", "2"]
    assert cursor.versions == {"1": [1, 2]}

    fake.requests.clear()
    again, _ = sync(conn, cursor)
    assert historical(fake) == []  # nothing changed: no page and no version is read again
    assert "1@v1" not in page_records(again)


def test_an_edit_fetches_only_the_version_it_replaced_and_old_ones_leave_the_window(
    fake: FakeConfluence, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = connector(fake, monkeypatch, max_versions=3)
    _, cursor = sync(conn)
    page = fake.pages["1"]
    fake.versions["1"][3] = copy.deepcopy(page)
    page["version"] = dict(page["version"], number=4, when="2016-06-24T08:00:00.000Z")
    page["body"] = {"storage": {"value": "<p>CENGN currently follows a 4 week iteration cycle.</p>"}}
    fake.requests.clear()

    batches, cursor = sync(conn, cursor)

    assert historical(fake) == ["3"]  # versions 1 and 2 are cached already; 1 falls out of the kept three
    assert sorted(page_records(batches)) == ["1", "1@v3"]
    assert [k for b in batches for k in b.deleted] == ["1@v1"]
    assert cursor.versions == {"1": [2, 3]}


def test_a_version_the_server_no_longer_keeps_is_skipped_not_failed(
    fake: FakeConfluence, monkeypatch: pytest.MonkeyPatch
) -> None:
    del fake.versions["1"][1]  # history purged
    conn = connector(fake, monkeypatch)
    batches, cursor = sync(conn)

    assert [f for b in batches for f in b.failures] == []
    assert sorted(page_records(batches)) == ["1", "1@v2"]
    assert cursor.versions == {"1": [1, 2]}  # not asked for again
    chunks = list(stream_versions(_page(batches, conn), limits=ROOMY))
    assert _seen(chunks, "2016-06-12T00:00:00+00:00") == []  # its text then is unknown: nothing is shown


def test_the_page_reads_as_it_stood_at_each_now(fake: FakeConfluence, monkeypatch: pytest.MonkeyPatch) -> None:
    conn = connector(fake, monkeypatch)
    batches, _ = sync(conn)
    chunks = list(stream_versions(_page(batches, conn), limits=ROOMY))

    assert _seen(chunks, "2016-06-09T00:00:00+00:00") == []  # before the page was created

    first = _seen(chunks, "2016-06-12T00:00:00+00:00")
    text = "\n".join(c.text for c in first)
    assert "2 week iteration cycle" in text and "LiClipse" not in text and "3 week" not in text
    assert {c.units[0].url.split("#")[0] for c in first} == {f"{VIEW.format(fake.base_url)}&pageVersion=1"}
    assert {u.author for c in first for u in c.units} == {"John Doe"}

    second = _seen(chunks, "2016-06-18T00:00:00+00:00")
    text = "\n".join(c.text for c in second)
    assert "LiClipse" in text and "2 week iteration cycle" in text and "3 week" not in text
    assert {c.units[0].url.split("#")[0] for c in second} == {f"{VIEW.format(fake.base_url)}&pageVersion=2"}
    assert {u.author for c in second for u in c.units} == {"John Smith"}
    assert [e["version"] for e in second[0].metadata["events"] if e["event"] == "updated"] == [2]

    third = _seen(chunks, "2016-06-21T00:00:00+00:00")
    text = "\n".join(c.text for c in third)
    assert "3 week iteration cycle" in text and "2 week" not in text and "LiClipse" not in text
    assert all("pageVersion" not in c.units[0].url for c in third)
    assert {c.chunk_id for c in third} == {"confluence:1::0"}  # the current text keeps the plain ids


def test_the_descriptor_declares_the_history_and_a_bounded_default() -> None:
    assert registry.descriptor("confluence").history
    table = {"type": "confluence", "base_url": "http://127.0.0.1:9/wiki", "token_env": "T"}
    assert source_adapter().validate_python(table).max_versions == 20
