"""`brief config show`: every effective value with its origin, and never a secret's value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from briefing.cli.app import app


def test_values_come_with_their_origin_and_secrets_stay_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "brief.toml"
    config.write_text(
        '[workspace]\nname = "ops"\n[retrieval]\ncandidates = 30\n'
        '[sources.chat]\ntype = "slack"\ntoken_env = "OPS_SLACK_TOKEN"\nchannels = ["general"]\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("OPS_SLACK_TOKEN", "xoxb-very-secret-value")
    monkeypatch.setenv("BRIEF_ANSWER__MIN_EVIDENCE", "0.55")
    result = CliRunner().invoke(app, ["--config", str(config), "config", "show", "--json"])
    assert result.exit_code == 0, result.output
    assert "xoxb-very-secret-value" not in result.output
    rows = {row["key"]: row for row in json.loads(result.stdout)["settings"]}
    assert rows["retrieval.candidates"] == {"key": "retrieval.candidates", "value": 30, "origin": "file"}
    assert rows["answer.min_evidence"]["value"] == 0.55 and rows["answer.min_evidence"]["origin"] == "environment"
    assert rows["retrieval.rrf_k"]["origin"] == "default"
    assert rows["sources.chat.token_env"]["value"] == "OPS_SLACK_TOKEN"
    assert rows["sources.chat.channels"]["value"] == ["general"]
    assert rows["sources.chat.rescan_days"]["origin"] == "default"  # the source's own model's keys are listed
