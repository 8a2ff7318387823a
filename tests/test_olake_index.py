"""Real data: every message of the olake Slack export and every docs file ends up indexed with its native ref.

Reads ../shared/corpora/olake at test time (skipped when absent); nothing of it is copied into the repository.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = [pytest.mark.corpus, pytest.mark.slow]  # indexes the whole corpus


def test_every_message_and_file_is_indexed_with_its_ref(olake: Path, tmp_path: Path) -> None:
    from briefing import pipeline
    from briefing.index import Index
    from briefing.settings import load_settings

    config = tmp_path / "brief.toml"
    config.write_text(
        '[workspace]\nname = "olake"\n'
        f'[sources.slack]\ntype = "slack_export"\npath = "{olake / "slack"}"\n'
        f'[sources.docs]\ntype = "files"\npath = "{olake / "docs"}"\n'
    )
    settings = load_settings(config)
    summary = pipeline.run(settings, ["slack", "docs"])
    assert summary.broken == [] and summary.failure_count == 0

    expected: set[str] = set()
    channels = {c["name"]: c["id"] for c in json.loads((olake / "slack" / "channels.json").read_text())}
    # membership and integration events are not content; the connector drops them on purpose
    skipped_subtypes = {"channel_join", "channel_leave", "bot_add", "bot_remove"}
    for name, channel_id in channels.items():
        for day in sorted((olake / "slack" / name).glob("*.json")):
            for message in json.loads(day.read_text()):
                if message.get("subtype") in skipped_subtypes:
                    continue
                if message.get("text") or message.get("blocks") or message.get("files") or message.get("attachments"):
                    expected.add(f"slack:{channel_id}:{message['ts']}")
    docs = olake / "docs"
    expected |= {f"file:{p.relative_to(docs).as_posix()}" for p in docs.rglob("*.md")}

    with Index.open(settings) as index:
        indexed = {ref for point in index.scroll(fields=["refs"]) for ref in point.payload["refs"]}
    assert expected - indexed == set(), "items missing from the index"
    assert indexed - expected == set(), "refs that name no real item"
    assert len([r for r in expected if r.startswith("slack:")]) > 300
