"""`brief ask/search --json` over the bundled sample workspace: the right evidence, valid citations, refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from briefing.cli.app import app

CASES = {c["id"]: c for c in map(json.loads, (Path(__file__).resolve().parents[2] / "eval/sample_dev.jsonl").open())}
# direct, thread reply, "last week", person, channel and changed-state questions with known evidence
RETRIEVAL_IDS = ["s002", "s004", "s010", "s017", "s024", "s028", "s038", "s043", "s048", "s053", "s056", "s068"]
runner = CliRunner()


def ask(config: Path, question: str, now: str, *extra: str) -> dict:
    result = runner.invoke(app, ["--config", str(config), "ask", question, "--json", "--now", now, *extra])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("case_id", RETRIEVAL_IDS)
def test_ask_returns_gold_evidence_with_valid_citations(use_sample, case_id: str) -> None:
    case = CASES[case_id]
    out = ask(use_sample.config, case["question"], case["now"])
    assert out["question"] == case["question"]
    assert out["now"].startswith(case["now"][:19])
    hit_refs = [set(h["refs"]) for h in out["hits"]]
    assert len(out["hits"]) == 10
    assert any(refs & set(case["gold_refs"]) for refs in hit_refs), f"no gold ref in the top 10 for {case_id}"
    assert not out["no_answer"]
    assert out["citations"], "an answered question cites its evidence"
    context_refs = set().union(*hit_refs)
    for citation in out["citations"]:
        assert set(citation["refs"]) <= context_refs, "citations only point at evidence that was in the context"
        assert f"[{citation['n']}]" in out["answer"]
    for hit in out["hits"]:
        assert {"rank", "score", "chunk_id", "source", "refs", "title", "url", "occurred_at", "authors", "text"} <= set(
            hit
        )


def test_unrelated_question_is_refused_without_citations(use_sample) -> None:
    out = ask(use_sample.config, "Who won the football world cup?", "2026-06-15T09:00:00+00:00")
    assert out["no_answer"] is True
    assert out["citations"] == []
    assert "do not cover" in out["answer"]


def test_last_week_is_resolved_against_now(use_sample) -> None:
    out = ask(use_sample.config, "What happened in #incidents last week?", "2026-05-25T09:00:00+00:00", "--show-trace")
    window = out["constraints"]["time"]
    assert window["start"].startswith("2026-05-18") and window["end"].startswith("2026-05-25")
    assert out["constraints"]["channels"] == ["incidents"]
    # time-first retrieval: the top hits fall inside the window and come from #incidents
    top = out["hits"][:3]
    assert all("2026-05-18" <= h["occurred_at"][:10] < "2026-05-25" for h in top)
    assert any(r.startswith("slack:C03INCIDNT:") for h in top for r in h["refs"])
    assert "trace" in out and out["trace"]["candidates"]


def test_search_json_has_no_answer_fields(use_sample) -> None:
    result = runner.invoke(
        app, ["--config", str(use_sample.config), "search", "Aurora cutover runbook", "--json", "-k", "3"]
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert len(out["hits"]) == 3 and "answer" not in out
    assert any(r.startswith("file:runbooks/") for h in out["hits"] for r in h["refs"])


def test_human_output_shows_answer_and_citations(use_sample) -> None:
    result = runner.invoke(
        app, ["--config", str(use_sample.config), "ask", CASES["s010"]["question"], "--now", CASES["s010"]["now"]]
    )
    assert result.exit_code == 0, result.output
    assert "[1]" in result.stdout and "slack:" in result.stdout


def test_the_trace_says_how_confident_the_answer_is_and_what_lowered_it(use_sample) -> None:
    asked = ["--config", str(use_sample.config), "ask", "Who won the football world cup?", "--show-trace"]
    result = runner.invoke(app, [*asked, "--now", "2026-06-15T09:00:00+00:00"])
    assert result.exit_code == 0, result.output
    trace = result.stderr
    assert "confidence 0." in trace and "(refused below 0.4)" in trace
    assert "the question's topic is in no indexed source" in trace
