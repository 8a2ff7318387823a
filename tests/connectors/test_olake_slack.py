"""The export connector and Slack chunker over a real export (../shared/corpora/olake/slack, read in place)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from briefing.model import ChunkLimits
from chunkers.slack import chunk_messages
from connectors.slack.export import SlackExportConnector

CORPUS = Path(__file__).resolve().parents[3] / "shared/corpora/olake/slack"
NOT_CONTENT = {"channel_join", "channel_leave", "bot_add", "bot_remove"}

pytestmark = pytest.mark.corpus


@pytest.fixture(scope="module")
def corpus() -> Path:
    if not (CORPUS / "channels.json").is_file():
        pytest.skip(f"the OLake Slack corpus is not present at {CORPUS}")
    return CORPUS


def _raw_messages(root: Path) -> list[tuple[str, dict]]:
    """Every message of the export as (channel_id, message), read independently of the connector."""
    out: list[tuple[str, dict]] = []
    for channel in json.loads((root / "channels.json").read_text(encoding="utf-8")):
        for day in sorted((root / channel["name"]).glob("*.json")):
            out += [(channel["id"], m) for m in json.loads(day.read_text(encoding="utf-8"))]
    return out


def _has_content(message: dict) -> bool:
    if message.get("subtype") in NOT_CONTENT:
        return False
    return bool((message.get("text") or "").strip() or message.get("blocks") or message.get("files"))


def test_olake_export_normalises_completely(corpus: Path) -> None:
    connector = SlackExportConnector(corpus)
    batches = list(connector.fetch(connector.initial_cursor()))
    assert [f for b in batches for f in b.failures] == []
    normalised = connector.normalise([r for b in batches for r in b.records])
    assert normalised.failures == []

    raw = _raw_messages(corpus)
    items = {item.ref: item for doc in normalised.documents for item in doc.items}
    expected = {f"slack:{cid}:{m['ts']}" for cid, m in raw if _has_content(m)}
    assert len(expected) > 300
    assert set(items) == expected

    for item in items.values():
        assert item.text.strip()
        assert "<@U" not in item.text and "<#C" not in item.text and "&amp;" not in item.text
        assert item.author and not item.author.startswith("U0"), item.ref

    roots_with_replies = {(cid, m["ts"]) for cid, m in raw if int(m.get("reply_count") or 0) > 0}
    threads = [d for d in normalised.documents if d.kind == "slack_thread"]
    rooted = {(d.metadata["channel_id"], d.metadata["thread_ts"]) for d in threads if not d.metadata["root_missing"]}
    assert rooted == roots_with_replies
    replied_to = {(cid, m["thread_ts"]) for cid, m in raw if m.get("thread_ts") and m["thread_ts"] != m["ts"]}
    assert len(threads) == len(roots_with_replies | replied_to)

    people = {p.id for p in normalised.people}
    assert len(people) == len(json.loads((corpus / "users.json").read_text(encoding="utf-8")))


def test_olake_chunks_cover_every_message_within_limits(corpus: Path) -> None:
    connector = SlackExportConnector(corpus)
    normalised = connector.normalise([r for b in connector.fetch(connector.initial_cursor()) for r in b.records])
    limits = ChunkLimits(max_tokens=256, max_chars=1000, max_items=12)
    chunks = [c for doc in normalised.documents for c in chunk_messages(doc, limits=limits)]
    refs = Counter(r for c in chunks for r in c.refs)
    items = {item.ref for doc in normalised.documents for item in doc.items}
    assert set(refs) == items
    split = {r for r, n in refs.items() if n > 1}
    assert all(len(c.refs) == 1 for c in chunks if set(c.refs) & split)
    assert all(len(c.text) <= 1000 and limits.count_tokens(c.text) <= 256 for c in chunks)
    assert all("<@U" not in c.text for c in chunks)
    assert len({c.chunk_id for c in chunks}) == len(chunks)
