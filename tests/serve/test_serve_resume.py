"""A batch re-chunks a long channel only from where it changed, and the index ends as a full reindex leaves it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import chunkers.slack as slack_chunker
from briefing import pipeline
from briefing.devserver.slack import SlackFake
from briefing.index import Filter, Index
from briefing.settings import load_settings
from tests.serve.conftest import fixture, start, write_config
from tests.serve.test_serve_webhooks import _message

TOPICS = [
    "the payments API returns 502 for EU checkouts",
    "lunch order for the team offsite on Friday",
    "the nightly export job to the warehouse ran late",
    "rotating the TLS certificates on the edge proxies",
]


def _ts(n: int) -> str:
    return f"{1596180000 + n * 400}.{n:06d}"


def _chunks(index: Index) -> dict[str, tuple[Any, ...]]:
    fields = ["chunk_id", "hash", "refs", "readers", "tickets"]
    return {
        p.payload["chunk_id"]: tuple(str(p.payload.get(f)) for f in fields)
        for p in index.scroll(Filter(source_names=("team",)), fields=fields)
    }


@pytest.mark.slow
def test_a_batch_rechunks_the_channel_from_its_change_and_equals_a_full_reindex(
    tmp_path: Path, secrets: None, slack_fake: SlackFake
) -> None:
    for n in range(1, 61):  # a channel of 60 top-level messages: many chunks, split on size, topic and silence
        text = f"Update {n}: {TOPICS[(n // 5) % len(TOPICS)]}, see PROJ-{n} for the details of step {n}."
        slack_fake.post("C111", {"type": "message", "user": "U111", "text": text, "ts": _ts(n)})
    config = write_config(tmp_path, slack_fake.url)
    pipeline.run(load_settings(config), ["team"])
    served = start(config, slack_fake)
    try:
        served.slack(_message("Follow-up: EU checkouts are green again after the rollback.", ts=_ts(61)))
        served.publish()
        memo = served.ingestor._memos["team"]
        assert memo.entries, "the channel was not remembered for the next batch"
        served.slack(_message("One more note: the rollback is final.", ts=_ts(62)))  # appended: resumed
        edit = fixture("slack/message_changed.json")
        edit["event"]["message"]["text"] = "Update 20 (edited): the certificates were rotated at 14:00, PROJ-999."
        edit["event"]["previous_message"]["ts"] = _ts(20)
        edit["event_id"] = "EvEdit20"
        assert served.slack(edit)[0] == 200  # an old message in the middle of the channel changed
        served.publish()
        gone = fixture("slack/message_deleted.json")
        gone["event"]["deleted_ts"] = _ts(35)
        gone["event_id"] = "EvGone35"
        assert served.slack(gone)[0] == 200
        served.slack(_message("Much later: a new incident after a long silence.", ts=_ts(62 + 100)))
        served.publish()
        served.publish()  # a batch with nothing new changes nothing
        after_batches = _chunks(served.ingestor.index)
    finally:
        served.server.stop()
    settings = load_settings(config)
    pipeline.run(settings, ["team"], collect_first=False, rebuild=True)
    index = Index.open(settings)
    try:
        reindexed = _chunks(index)
    finally:
        index.close()
    assert len(reindexed) > 8
    assert after_batches == reindexed


@pytest.mark.slow
def test_a_channel_whose_chunking_fails_in_a_batch_keeps_none_of_its_chunks_as_a_reindex(
    tmp_path: Path, secrets: None, slack_fake: SlackFake, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(1, 41):
        text = f"Update {n}: {TOPICS[(n // 5) % len(TOPICS)]}, step {n}."
        slack_fake.post("C111", {"type": "message", "user": "U111", "text": text, "ts": _ts(n)})
    config = write_config(tmp_path, slack_fake.url)
    pipeline.run(load_settings(config), ["team"])
    served = start(config, slack_fake)
    original = slack_chunker.chunk_messages

    def breaks_on_poison(document: Any, **kwargs: Any) -> Any:
        if any("POISON" in item.text for item in document.items):
            raise ValueError("a message this chunker cannot read")
        return original(document, **kwargs)

    try:
        served.slack(_message("A first note after the start.", ts=_ts(41)))
        served.publish()
        before = _chunks(served.ingestor.index)
        assert any(cid.startswith("slack:C111::") for cid in before)
        monkeypatch.setattr(slack_chunker, "chunk_messages", breaks_on_poison)
        served.slack(_message("POISON at the end of the channel.", ts=_ts(42)))
        served.publish()
        after = _chunks(served.ingestor.index)
    finally:
        served.server.stop()
    # Chunking the whole channel fails in a reindex too: none of the channel's top-level chunks is left.
    assert not any(cid.startswith("slack:C111::") for cid in after)
