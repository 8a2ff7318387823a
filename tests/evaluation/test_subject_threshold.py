"""eval/subject_threshold.py: the fix-question subject cap's threshold is chosen without the corpus it is reported
on, as the largest at which no answerable dev question of the other corpora is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.evaluation.scripts import eval_script


@pytest.fixture
def subject_threshold(monkeypatch: pytest.MonkeyPatch) -> Any:
    return eval_script(monkeypatch, "subject_threshold")


def _row(label: str, case_id: str, no_answer: bool, subject: float) -> dict[str, Any]:
    return {"set": label, "id": case_id, "no_answer": no_answer, "confidence": 0.9, "lead_subject": subject}


def test_the_threshold_stops_below_the_first_answerable_dev_question_of_the_other_corpora(
    subject_threshold: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        # OLake: an answerable dev question whose lead is at 0.41 caps every fold below 0.425.
        _row("olake", "o001", False, 0.41),
        _row("probe_olk", "pb001", True, 0.3),
        _row("probe_olk", "pa001", False, 0.95),
        # TIMOB: its probe near misses are what the fold that leaves it out reports.
        _row("probe_timob", "pb001", True, 0.2),
        _row("probe_timob", "pb002", True, 0.39),
        _row("probe_timob", "pb003", True, 0.5),
        _row("timob", "t002", False, 0.3),  # an answerable question of its held-out half, refused at 0.4
        # A question that is not a fix question carries no similarity and is never counted.
        {"set": "probe_timob", "id": "pb004", "no_answer": True, "confidence": 0.9},
    ]
    path = tmp_path / "features.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    monkeypatch.setattr("sys.argv", ["subject_threshold.py", str(path)])
    subject_threshold.main()
    out = capsys.readouterr().out
    timob = next(line for line in out.splitlines() if line.startswith("timob left out"))
    assert "threshold 0.4 " in timob
    assert "probe near misses refused +2" in timob
    assert "dev answerable lost 1 (held-out half 1)" in timob


def test_only_the_named_classes_count_and_a_class_of_one_corpus_takes_the_others_threshold(
    subject_threshold: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        _row("olake", "o001", False, 0.41),  # a fix question: every fold stops below 0.425
        # An outcome question answerable at 0.3: it stops the folds that fit on TIMOB only when outcome is named.
        {**_row("timob", "t001", False, 0.3), "subject_outcome": 1.0},
        # The mailing list's feedback questions: no other corpus has one, so the fix questions choose the threshold.
        {**_row("probe_mail", "pb001", True, 0.2), "subject_feedback": 1.0},
        {**_row("probe_mail", "pa001", False, 0.39), "subject_feedback": 1.0},
    ]
    path = tmp_path / "features.json"
    path.write_text(json.dumps(rows), encoding="utf-8")

    def mail_line(classes: str) -> str:
        monkeypatch.setattr("sys.argv", ["subject_threshold.py", str(path), "--classes", classes])
        subject_threshold.main()
        return next(line for line in capsys.readouterr().out.splitlines() if line.startswith("mail"))

    assert "threshold 0.4 " in mail_line("fix,feedback")
    assert "probe near misses refused +1, probe answers lost 1" in mail_line("fix,feedback")
    assert "probe near misses refused +0" in mail_line("fix")
    assert "threshold 0.3 " in mail_line("fix,outcome,feedback")
