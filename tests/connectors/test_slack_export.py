"""The Slack export connector over small hand-written exports in tests/fixtures/slack_export/."""

from __future__ import annotations

import json
import os
import shutil
from datetime import datetime
from pathlib import Path

import pytest

from briefing.errors import MassDeletionError, SourceError
from briefing.model import Batch, Normalised, RawRecord
from briefing.registry import FetchOptions, SourceContext, connector_for
from briefing.settings import source_adapter
from connectors.slack.export import SlackExportConnector, SlackExportCursor
from tests.harness import SourceRunner

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "slack_export"
ROOT_TS = "1778076300.000100"


class Runner(SourceRunner):
    """Collection through the real pipeline: records into the raw cache, deletions applied, then the cursor."""

    def __init__(self, connector: SlackExportConnector) -> None:
        super().__init__(connector)
        self.batches: list[Batch] = []

    def run(self) -> list[Batch]:
        batches = self.collect()
        self.batches += batches
        return batches


@pytest.fixture
def export(tmp_path: Path) -> Path:
    target = tmp_path / "export"
    shutil.copytree(FIXTURES / "acme", target)
    return target


def _items(normalised: Normalised) -> dict[str, object]:
    return {item.ref: item for doc in normalised.documents for item in doc.items}


def _touch(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


def test_first_sync_stores_messages_users_and_channels(export: Path) -> None:
    runner = Runner(SlackExportConnector(export))
    batches = runner.run()

    keys = set(runner.cache)
    assert {"user/U01ALICE", "user/U04DEPLOY", "channel/C01PLAT", "channel/C02RAND", "channel/G01LEADS"} <= keys
    assert f"C01PLAT/{ROOT_TS}" in keys
    assert "C01PLAT/1778145300.000400" in keys  # the late reply from the next day's file
    assert "G01LEADS/1778090000.000100" in keys  # private channel from groups.json
    record = runner.cache[f"C01PLAT/{ROOT_TS}"]
    assert record.kind == "message"
    assert record.data["_channel"] == {"id": "C01PLAT", "name": "platform-eng"}
    assert record.data["text"].startswith("Starting the <https://wiki.acme.example/migration|migration plan>")

    failures = {f.key: f.reason for b in batches for f in b.failures}
    assert "platform-eng/2026-05-08.json" in failures
    assert "JSON" in failures["platform-eng/2026-05-08.json"]
    assert "platform-eng/2026-05-06.json#7" in failures  # the message without ts
    assert "ts" in failures["platform-eng/2026-05-06.json#7"]


def test_messages_become_readable_items(export: Path) -> None:
    runner = Runner(SlackExportConnector(export))
    runner.run()
    items = _items(runner.normalise())

    root = items[f"slack:C01PLAT:{ROOT_TS}"]
    assert root.text == (
        "Starting the migration plan (https://wiki.acme.example/migration) for PLAT-42 today. "
        "@Bob Okafor can you review the cutover steps?"
    )
    assert root.author == "Alice Chen"
    assert root.container == "platform-eng"
    assert root.thread == ROOT_TS
    assert root.occurred_at.isoformat() == "2026-05-06T14:05:00.000100+00:00"
    assert root.url == "https://acme-eng.slack.com/archives/C01PLAT/p1778076300000100"
    assert root.metadata["reply_count"] == 3

    reply = items["slack:C01PLAT:1778076420.000200"]
    assert reply.text == "Looks good & I left comments on PR #17. The rollback step <5 min> is fine."
    assert reply.url.endswith(f"p1778076420000200?thread_ts={ROOT_TS}&cid=C01PLAT")

    edited = items["slack:C01PLAT:1778077200.000400"]
    assert edited.text == "Deploy window moved to Thursday 10:00 UTC @here"
    assert edited.metadata["edited"] == "1778077500.000000"
    assert edited.thread is None

    blocks = items["slack:C01PLAT:1778077800.000500"].text
    assert blocks.splitlines() == [
        "Checklist for @Alice Chen before the cutover, see #random :white_check_mark:",
        "1. freeze writes",
        "2. snapshot the db dashboard (https://grafana.acme.example/d/db)",
        "> never skip the snapshot",
        "```",
        "make migrate ENV=prod",
        "```",
    ]

    bot = items["slack:C01PLAT:1778079600.000600"]
    assert bot.author == "deploybot"
    assert bot.text == "Deployed api v1.4.2 to staging (PLAT-42)"

    shared = items["slack:C01PLAT:1778080200.000700"]
    assert shared.text == "[file: Load test results]"
    assert shared.metadata["files"] == ["Load test results"]

    cake = items["slack:C02RAND:1778104800.000200"].text
    assert cake == (
        "@channel cake in the kitchen :tada: (details in #platform-eng, ask @ghost or mail ops@acme.example)"
    )
    assert all("<@" not in item.text and "<#" not in item.text for item in items.values())
    # Joins are not content.
    assert "slack:C01PLAT:1778076600.000300" not in items
    assert "slack:C02RAND:1778070000.000100" not in items


def test_threads_and_channels_form_documents(export: Path) -> None:
    runner = Runner(SlackExportConnector(export))
    runner.run()
    docs = {doc.key: doc for doc in runner.normalise().documents}

    thread = docs[f"slack:C01PLAT/{ROOT_TS}"]
    assert thread.kind == "slack_thread"
    assert thread.title == "#platform-eng thread: Starting the migration plan for PLAT-42 today. @Bob..."
    assert [i.metadata["ts"] for i in thread.items] == [
        ROOT_TS,
        "1778076420.000200",
        "1778083200.000800",  # the broadcast reply stays in its thread
        "1778145300.000400",  # the late reply from the next day's file
    ]
    assert thread.metadata["root_author"] == "Alice Chen"

    channel = docs["slack:C01PLAT"]
    assert channel.kind == "slack_channel"
    assert channel.title == "#platform-eng"
    assert [i.metadata["ts"] for i in channel.items] == [
        "1778077200.000400",
        "1778077800.000500",
        "1778079600.000600",
        "1778080200.000700",
    ]

    orphan = docs["slack:C01PLAT/1777975200.000100"]
    assert orphan.metadata["root_missing"] is True
    assert [i.ref for i in orphan.items] == ["slack:C01PLAT:1778146200.000900"]
    assert orphan.title == "#platform-eng thread: Answering an old question: yes, the replica lag..."

    assert set(docs) == {
        "slack:C01PLAT",
        f"slack:C01PLAT/{ROOT_TS}",
        "slack:C01PLAT/1777975200.000100",
        "slack:C02RAND",
        "slack:G01LEADS",
    }
    refs = [i.ref for d in docs.values() for i in d.items]
    assert len(refs) == len(set(refs)), "a message must belong to exactly one document"


def test_people_carry_names_handles_and_emails(export: Path) -> None:
    runner = Runner(SlackExportConnector(export))
    runner.run()
    people = {p.id: p for p in runner.normalise().people}
    alice = people["slack:U01ALICE"]
    assert alice.name == "Alice Chen"
    assert alice.handles == ("alice", "alice.c")
    assert alice.emails == ("alice@acme.example",)
    assert people["slack:U03CARA"].name == "Cara Diaz"


def test_rerun_of_unchanged_export_fetches_nothing(export: Path) -> None:
    runner = Runner(SlackExportConnector(export))
    runner.run()
    second = runner.run()
    assert [r for b in second for r in b.records] == []
    assert [k for b in second for k in b.deleted] == []
    # The corrupt file keeps failing until it is fixed; nothing else is reported.
    assert [f.key for b in second for f in b.failures] == ["platform-eng/2026-05-08.json"]


def test_touched_but_identical_file_is_not_re_emitted(export: Path) -> None:
    runner = Runner(SlackExportConnector(export))
    runner.run()
    day = export / "random" / "2026-05-06.json"
    _touch(day, day.read_text(encoding="utf-8"))
    assert [r for b in runner.run() for r in b.records] == []


def test_changed_day_file_replaces_its_messages_and_drops_removed_ones(export: Path) -> None:
    runner = Runner(SlackExportConnector(export))
    runner.run()
    day = export / "platform-eng" / "2026-05-06.json"
    messages = json.loads(day.read_text(encoding="utf-8"))
    edited = next(m for m in messages if m.get("ts") == "1778077200.000400")
    edited["text"] = "Deploy window moved to Friday 09:00 UTC"
    edited["edited"] = {"user": "U03CARA", "ts": "1778150000.000000"}
    messages = [m for m in messages if m.get("ts") != "1778079600.000600"]  # the bot message is gone
    _touch(day, json.dumps(messages))

    batches = runner.run()
    stored = {r.key for b in batches for r in b.records}
    assert "C01PLAT/1778077200.000400" in stored
    assert "C01PLAT/1778145300.000400" not in stored  # the other day file did not change
    assert [k for b in batches for k in b.deleted] == ["C01PLAT/1778079600.000600"]

    items = _items(runner.normalise())
    assert items["slack:C01PLAT:1778077200.000400"].text == "Deploy window moved to Friday 09:00 UTC"
    assert "slack:C01PLAT:1778079600.000600" not in items


def test_message_moved_between_day_files_is_not_deleted(export: Path) -> None:
    runner = Runner(SlackExportConnector(export))
    runner.run()
    first = export / "platform-eng" / "2026-05-06.json"
    second = export / "platform-eng" / "2026-05-07.json"
    messages = json.loads(first.read_text(encoding="utf-8"))
    moved = next(m for m in messages if m.get("ts") == "1778080200.000700")
    _touch(first, json.dumps([m for m in messages if m is not moved]))
    _touch(second, json.dumps([*json.loads(second.read_text(encoding="utf-8")), moved]))
    batches = runner.run()
    assert "C01PLAT/1778080200.000700" not in {k for b in batches for k in b.deleted}
    assert "C01PLAT/1778080200.000700" in runner.cache


def test_removed_day_file_and_channel_disappear(export: Path) -> None:
    runner = Runner(SlackExportConnector(export))
    runner.run()
    (export / "platform-eng" / "2026-05-07.json").unlink()
    shutil.rmtree(export / "eng-leads")
    (export / "groups.json").unlink()

    runner.run()
    items = _items(runner.normalise())
    assert "slack:C01PLAT:1778145300.000400" not in items
    assert "slack:G01LEADS:1778090000.000100" not in items
    assert "channel/G01LEADS" not in runner.cache
    assert f"slack:C01PLAT:{ROOT_TS}" in items


def test_fixed_corrupt_file_is_picked_up_next_run(export: Path) -> None:
    runner = Runner(SlackExportConnector(export))
    runner.run()
    day = export / "platform-eng" / "2026-05-08.json"
    _touch(day, json.dumps([{"type": "message", "user": "U01ALICE", "ts": "1778230000.000100", "text": "fixed"}]))
    batches = runner.run()
    assert [f.key for b in batches for f in b.failures] == []
    assert _items(runner.normalise())["slack:C01PLAT:1778230000.000100"].text == "fixed"


def test_channel_filter_by_name_or_id(export: Path) -> None:
    runner = Runner(SlackExportConnector(export, channels=["#random", "G01LEADS"]))
    runner.run()
    docs = {doc.key for doc in runner.normalise().documents}
    assert docs == {"slack:C02RAND", "slack:G01LEADS"}
    assert not any(key.startswith("C01PLAT/") for key in runner.cache)


def test_narrowing_the_filter_drops_channels_no_longer_wanted(export: Path) -> None:
    runner = Runner(SlackExportConnector(export))
    runner.run()
    runner.connector = SlackExportConnector(export, channels=["random"])
    # Dropping most of a source's records is confirmed explicitly (the deletion guard), then applied.
    with pytest.raises(MassDeletionError, match="--full --allow-deletions"):
        runner.run()
    assert "channel/C01PLAT" in runner.cache
    runner.collect(options=FetchOptions(full=True, allow_deletions=True))
    assert {doc.key for doc in runner.normalise().documents} == {"slack:C02RAND"}
    assert "channel/C01PLAT" not in runner.cache


def test_resume_after_a_crash_mid_run(export: Path) -> None:
    connector = SlackExportConnector(export)
    stream = connector.fetch(connector.initial_cursor())
    cache: dict[str, RawRecord] = {}
    cursor = None
    for batch in stream:  # the process dies after storing the first conversation
        cache.update((r.key, r) for r in batch.records)
        cursor = batch.cursor
        if any(r.kind == "message" for r in batch.records):
            break
    assert isinstance(cursor, SlackExportCursor)
    rest = list(connector.fetch(cursor))
    again = {r.key for b in rest for r in b.records}
    assert not again & {k for k in cache if "/" in k and not k.startswith(("user/", "channel/"))}
    cache.update((r.key, r) for b in rest for r in b.records)
    assert "C02RAND/1778104800.000200" in cache
    assert "G01LEADS/1778090000.000100" in cache


def test_missing_folder_is_a_source_error(tmp_path: Path) -> None:
    connector = SlackExportConnector(tmp_path / "nowhere")
    with pytest.raises(SourceError, match="nowhere.*does not exist"):
        list(connector.fetch(connector.initial_cursor()))


def test_missing_channels_json_is_a_source_error() -> None:
    connector = SlackExportConnector(FIXTURES / "missing_channels")
    with pytest.raises(SourceError, match=r"channels\.json is missing.*unzipped export"):
        list(connector.fetch(connector.initial_cursor()))


def test_malformed_channels_json_is_a_source_error(export: Path) -> None:
    (export / "channels.json").write_text("{not json", encoding="utf-8")
    connector = SlackExportConnector(export)
    with pytest.raises(SourceError, match=r"channels\.json is not a valid channel list"):
        list(connector.fetch(connector.initial_cursor()))


def test_build_resolves_the_configured_path(export: Path) -> None:
    config = source_adapter().validate_python({"type": "slack_export", "path": "export", "channels": ["random"]})
    ctx = SourceContext(name="archive", config=config, resolve=lambda p: export.parent / p)
    connector = connector_for(ctx)
    assert isinstance(connector, SlackExportConnector)
    assert connector.root == export
    records = [r for b in connector.fetch(connector.initial_cursor()) for r in b.records]
    assert {r.data["_channel"]["name"] for r in records if r.kind == "message"} == {"random"}


def _window(since: str, until: str) -> FetchOptions:
    return FetchOptions(since=datetime.fromisoformat(since), until=datetime.fromisoformat(until))


def test_since_and_until_keep_only_messages_in_the_window(export: Path) -> None:
    runner = Runner(SlackExportConnector(export, options=_window("2026-05-06T15:00:00+00:00", "2026-05-07T09:20:00Z")))
    batches = runner.run()

    messages = sorted(r.key for b in batches for r in b.records if r.kind == "message")
    assert messages == [
        "C01PLAT/1778079600.000600",
        "C01PLAT/1778080200.000700",
        "C01PLAT/1778083200.000800",
        "C01PLAT/1778145300.000400",
        "C02RAND/1778104800.000200",
        "G01LEADS/1778090000.000100",
    ]
    # A windowed run is partial: the next plain run still reads every message it left out.
    runner.connector = SlackExportConnector(export)
    later = {r.key for b in runner.run() for r in b.records if r.kind == "message"}
    assert f"C01PLAT/{ROOT_TS}" in later and "C02RAND/1778070000.000100" in later


def test_a_windowed_run_after_a_full_one_deletes_nothing(export: Path) -> None:
    runner = Runner(SlackExportConnector(export))
    runner.run()
    stored = set(runner.cache)

    runner.connector = SlackExportConnector(export, options=_window("2026-05-07T00:00:00Z", "2026-05-07T23:59:59Z"))
    batches = runner.run()

    assert {r.key for b in batches for r in b.records if r.kind == "message"} == {
        "C01PLAT/1778145300.000400",
        "C01PLAT/1778146200.000900",
    }
    assert [k for b in batches for k in b.deleted] == [] and set(runner.cache) == stored
