"""`brief eval` wiring with a scripted stand-in for the ask service: JSON shape, saving, comparing, overrides."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import briefing.service
from briefing.cli.app import app
from briefing.cli.evaluate import parse_sets
from briefing.errors import InputError
from briefing.model import Chunk
from briefing.results import AskResult, Citation
from briefing.retrieve import Hit

CASES = [
    {
        "id": "cutover-date",
        "question": "When did the production cutover happen?",
        "now": "2026-06-15T09:00:00+00:00",
        "gold_refs": ["jira:PLAT-127"],
        "answer_keywords": [["June 9", "06-09"]],
        "no_answer": False,
        "category": "fact",
    },
    {
        "id": "pets",
        "question": "What is the policy on pets in the office?",
        "now": "2026-06-15T09:00:00+00:00",
        "gold_refs": [],
        "answer_keywords": [],
        "no_answer": True,
        "category": "no_answer",
    },
]


class ScriptedBrief:
    """Answers like `Brief.ask`; `good=False` makes it miss everything."""

    good = True
    seen: list[tuple[str, str, int]] = []
    settings: Any = None

    def __init__(self, settings: Any) -> None:
        ScriptedBrief.settings = settings

    def __enter__(self) -> ScriptedBrief:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def ask(self, question: str, *, now: datetime, k: int = 10) -> AskResult:
        ScriptedBrief.seen.append((question, now.isoformat(), k))
        about_cutover = "cutover" in question and self.good
        refs = ["jira:PLAT-127"] if about_cutover else ["slack:C05RANDOM:1.1"]
        chunk = Chunk("c1", "doc", "jira", "test", "title", "...", refs, now, now)
        return AskResult(
            question=question,
            now=now,
            constraints=None,
            hits=[Hit(chunk=chunk, score=0.9)],
            answer="It ran on June 9 [1]" if about_cutover else "The sources do not cover this.",
            citations=[Citation(1, refs)] if about_cutover else [],
            no_answer=not about_cutover,
            timings_ms={"extract": 1.0, "retrieve": 5.0, "rerank": 1.0, "answer": 3.0},
        )


@pytest.fixture
def cases_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(briefing.service, "Brief", ScriptedBrief)
    ScriptedBrief.good = True
    ScriptedBrief.seen = []
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in CASES), encoding="utf-8")
    return path


def test_json_output_has_metrics_and_raw_cases(cases_file: Path) -> None:
    result = CliRunner().invoke(app, ["eval", str(cases_file), "--json", "-k", "5"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["metrics"]["overall"]["recall@10"] == 1.0
    assert data["metrics"]["overall"]["no_answer_accuracy"] == 1.0
    assert data["metrics"]["by_category"]["fact"]["keyword_correctness"] == 1.0
    first = data["cases"][0]
    assert first["id"] == "cutover-date"
    assert first["hits"] == [{"rank": 1, "refs": ["jira:PLAT-127"], "chunk_id": "c1", "score": 0.9}]
    assert first["citations"] == [{"n": 1, "refs": ["jira:PLAT-127"]}]
    assert set(first) >= {"id", "hits", "citations", "answer", "no_answer", "timings_ms", "gold_refs"}
    assert "total" in first["timings_ms"]
    # one untimed warm-up question, then every case with its own `now` and the requested k
    assert ScriptedBrief.seen[1:] == [(c["question"], c["now"], 5) for c in CASES]


def test_save_then_compare_a_worse_run(cases_file: Path, tmp_path: Path) -> None:
    saved = tmp_path / "results" / "base.json"
    report = tmp_path / "report.md"
    result = CliRunner().invoke(app, ["eval", str(cases_file), "--save", str(saved), "--out", str(report)])
    assert result.exit_code == 0, result.output
    document = json.loads(saved.read_text())
    assert document["config"]["retrieval"]["candidates"] == 50
    assert set(document["versions"]) == {"briefing", "qdrant-client", "fastembed", "dspy"}
    assert document["created_at"] and len(document["cases"]) == 2
    assert "| overall |" in report.read_text()

    ScriptedBrief.good = False
    result = CliRunner().invoke(app, ["eval", str(cases_file), "--compare", str(saved), "--json"])
    assert result.exit_code == 0, result.output
    comparison = json.loads(result.stdout)["comparison"]
    assert comparison["cases_compared"] == 2
    assert comparison["metrics"]["recall@10"]["mean_delta"] == -1.0
    assert comparison["changed_cases"][0]["id"] == "cutover-date"


def test_table_output_lists_failures(cases_file: Path) -> None:
    ScriptedBrief.good = False
    result = CliRunner().invoke(app, ["eval", str(cases_file)])
    assert result.exit_code == 0, result.output
    assert "overall" in result.stdout
    assert "cutover-date" in result.stdout
    assert "refused a question the sources answer" in result.stdout


def test_set_overrides_reach_the_settings(cases_file: Path) -> None:
    args = ["eval", str(cases_file), "--set", "retrieval.candidates=100", "--set", "retrieval.sparse=false"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert ScriptedBrief.settings.retrieval.candidates == 100
    assert ScriptedBrief.settings.retrieval.sparse is False


def test_errors_are_one_line_with_exit_codes(cases_file: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(CASES[0]) + "\n{oops\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["eval", str(bad)])
    assert result.exit_code == InputError.exit_code
    assert f"{bad}:2:" in result.output
    result = CliRunner().invoke(app, ["eval", str(cases_file), "--set", "retrieval.nope=1"])
    assert result.exit_code == 2
    assert "unknown key 'retrieval.nope'" in result.output
    result = CliRunner().invoke(app, ["eval", str(cases_file), "--compare", str(tmp_path / "missing.json")])
    assert result.exit_code == InputError.exit_code


def test_parse_sets() -> None:
    assert parse_sets(["a.b=1", "a.c=x y", "d.e.f=true"]) == {"a": {"b": 1, "c": "x y"}, "d": {"e": {"f": True}}}
    with pytest.raises(InputError):
        parse_sets(["candidates=5"])
