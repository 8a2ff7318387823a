"""The workspace's vocabulary at answer time: off-topic questions are refused, naming the words no source holds,
on-topic ones are answered, and an incremental ingest (or a deletion) changes what the workspace knows."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from briefing import pipeline
from briefing.ask.vocabulary import Vocabulary
from briefing.service import Brief, parse_now
from briefing.settings import load_settings
from tests.conftest import SampleIndex

pytestmark = pytest.mark.slow
NOW = parse_now("2026-06-15T09:00:00+00:00")


@pytest.fixture
def sample(use_sample: SampleIndex) -> Iterator[Brief]:
    with Brief(load_settings(use_sample.config)) as opened:
        yield opened


def test_a_question_about_something_the_workspace_never_mentions_is_refused_naming_it(sample: Brief) -> None:
    result = sample.ask("How do I knit a wool scarf?", now=NOW, k=10).to_json(trace=True)
    assert result["no_answer"] is True
    assert result["citations"] == []
    # The refusal says what is not covered: the words no indexed source holds.
    assert "no indexed source mentions 'knit' or 'wool' or 'scarf'" in result["answer"]
    assert result["trace"]["features"]["vocab_unknown"] == 1.0


@pytest.mark.parametrize(
    ("question", "now"),
    [
        # The old weights refused this (best sentence similarity 0.21); every topic word of it is in the sources.
        ("What did the pager complain about in #incidents on 6 May, and how was it handled?", NOW),
        # Paraphrased: "switchover" is in no sample document (they say "cutover"), yet the sources answer it.
        ("When is the production switchover to Aurora scheduled?", parse_now("2026-05-25T09:00:00+00:00")),
        # "newest" asks for the latest state, as "latest" does; that no source says it does not matter.
        ("What is the newest api release?", NOW),
    ],
)
def test_an_on_topic_question_is_answered(sample: Brief, question: str, now: datetime) -> None:
    result = sample.ask(question, now=now, k=10).to_json(trace=True)
    assert result["no_answer"] is False
    assert result["citations"]


def _workspace(root: Path) -> Path:
    docs = root / "docs"
    docs.mkdir()
    (docs / "failover.md").write_text(
        "# Database failover runbook\n\nPromote the replica with `pg_ctl promote`, then repoint PgBouncer at the "
        "new primary and check replication lag on the dashboard.\n",
        encoding="utf-8",
    )
    (docs / "oncall.md").write_text(
        "# On-call rota\n\nThe platform team rotates weekly; the handover is on Monday at 10:00 in the team room.\n",
        encoding="utf-8",
    )
    (docs / "deploys.md").write_text(
        "# Deploy freeze\n\nNo deploys on Fridays after 15:00 without the release manager's approval.\n",
        encoding="utf-8",
    )
    config = root / "brief.toml"
    config.write_text('[workspace]\nname = "vocab"\n\n[sources.handbook]\ntype = "files"\npath = "docs"\n')
    return config


def _ingest(config: Path) -> None:
    summary = pipeline.run(load_settings(config), ["handbook"])
    assert summary.broken == [] and summary.failure_count == 0


def test_an_incremental_ingest_and_a_deletion_change_what_the_workspace_knows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BRIEF_HOME", str(tmp_path / "home"))
    config = _workspace(tmp_path)
    _ingest(config)
    question = "Which budget did the Karpenter autoscaler get for the staging cluster?"
    later = datetime.now(UTC) + timedelta(hours=1)  # the files are dated by their modification time
    with Brief(load_settings(config)) as brief:
        before = brief.ask(question, now=later, k=10).to_json(trace=True)
        vocab = Vocabulary(brief.index, brief.embedder).spread(
            ["karpenter", "autoscaler", "replica"], view=brief.index.view(later)
        )
    assert before["no_answer"] is True
    assert "'karpenter'" in before["answer"] or "'autoscaler'" in before["answer"]
    assert vocab["karpenter"].absent and vocab["autoscaler"].absent
    assert not vocab["replica"].absent and vocab["replica"].docs == {"file:failover.md"}

    (tmp_path / "docs" / "autoscaling.md").write_text(
        "# Cluster autoscaling\n\nThe Karpenter autoscaler for the staging cluster got a budget of 40 nodes; "
        "production keeps the managed node groups.\n",
        encoding="utf-8",
    )
    _ingest(config)
    with Brief(load_settings(config)) as brief:
        after = brief.ask(question, now=later, k=10).to_json(trace=True)
        vocab = Vocabulary(brief.index, brief.embedder).spread(
            ["karpenter", "autoscaler"], view=brief.index.view(later)
        )
    assert vocab["karpenter"].docs == {"file:autoscaling.md"}
    assert after["no_answer"] is False
    assert after["trace"]["features"]["vocab_unknown"] == 0
    assert any("file:autoscaling.md" in c["refs"] for c in after["citations"])

    (tmp_path / "docs" / "deploys.md").unlink()
    _ingest(config)
    with Brief(load_settings(config)) as brief:
        vocab = Vocabulary(brief.index, brief.embedder).spread(["freeze", "karpenter"], view=brief.index.view(later))
    assert vocab["freeze"].absent
    assert not vocab["karpenter"].absent
