"""Real data: over the olake export, `brief ask/search --now T` show and cite nothing written after T.

Reads ../shared/corpora/olake at test time (skipped when absent); nothing of it is copied into the repository.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from tests.cli.test_asof_sample import assert_as_of, run_json, stored_view

pytestmark = pytest.mark.corpus
NOWS = ["2026-06-17T12:00:00+00:00", "2026-07-09T12:00:00+00:00", "2026-08-01T00:00:00+00:00"]
# Before the fix, `ask` showed and cited later messages for both of these at every T (search already passed `now`).
QUESTIONS = ["What changed in the latest OLake release?", "How do I fix a Postgres CDC error?"]


def test_olake_answers_as_of_now(olake: Path, tmp_path: Path) -> None:
    from briefing import pipeline
    from briefing.settings import load_settings

    config = tmp_path / "brief.toml"
    config.write_text(
        '[workspace]\nname = "olake"\n'
        f'[sources.slack]\ntype = "slack_export"\npath = "{olake / "slack"}"\n'
        f'[sources.docs]\ntype = "files"\npath = "{olake / "docs"}"\n'
    )
    settings = load_settings(config)
    assert pipeline.run(settings, ["slack", "docs"]).failure_count == 0
    written, _ = stored_view(config)
    for now_text in NOWS:
        now = datetime.fromisoformat(now_text)
        for question in QUESTIONS:
            for command in ("search", "ask"):
                out = run_json(config, command, question, now_text)
                assert_as_of(out, now, written)
