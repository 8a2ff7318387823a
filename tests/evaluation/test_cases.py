"""Loading evaluation cases: valid lines become cases, a malformed line names the file and its line number."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from briefing.errors import InputError
from briefing.evaluation.cases import load_cases

GOOD = {
    "id": "fact-1",
    "question": "When is the cutover?",
    "now": "2026-06-15T09:00:00+00:00",
    "gold_refs": ["slack:C02PLATENG:1781081500.170139"],
    "answer_keywords": [["June 9", "2026-06-09"], ["Tuesday"]],
    "no_answer": False,
    "category": "fact",
}


def write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_valid_cases_load(tmp_path: Path) -> None:
    other = dict(GOOD, id="na-1", gold_refs=[], answer_keywords=["pets"], no_answer=True, category="no_answer")
    cases = load_cases(write(tmp_path, [json.dumps(GOOD), "", json.dumps(other)]))
    assert [c.id for c in cases] == ["fact-1", "na-1"]
    assert cases[0].answer_keywords == (("June 9", "2026-06-09"), ("Tuesday",))
    assert cases[1].answer_keywords == (("pets",),)  # a bare string is a group of one
    assert cases[1].no_answer is True
    assert cases[0].now_dt.isoformat() == "2026-06-15T09:00:00+00:00"


@pytest.mark.parametrize(
    ("bad_line", "message"),
    [
        ('{"id": "x", "question": ', "not valid JSON"),
        (json.dumps({k: v for k, v in GOOD.items() if k != "gold_refs"}), "missing key(s) gold_refs"),
        (json.dumps(dict(GOOD, gold_ref=[])), "unknown key(s) gold_ref"),
        (json.dumps(dict(GOOD, now="next tuesday")), "'now' is not ISO-8601"),
        (json.dumps(dict(GOOD, now="2026-06-15T09:00:00")), "must carry a UTC offset"),
        (json.dumps(dict(GOOD, no_answer="no")), "'no_answer' must be true or false"),
        (json.dumps(dict(GOOD, answer_keywords=[["ok"], []])), "answer_keywords"),
        (json.dumps(dict(GOOD, question="  ")), "'question' must be a non-empty string"),
        (json.dumps(["not", "an", "object"]), "must be a JSON object"),
    ],
)
def test_malformed_line_names_file_and_line(tmp_path: Path, bad_line: str, message: str) -> None:
    path = write(tmp_path, [json.dumps(GOOD), "", bad_line])
    with pytest.raises(InputError) as info:
        load_cases(path)
    assert f"{path}:3:" in str(info.value)
    assert message in str(info.value)


def test_duplicate_ids_are_rejected(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r":2: duplicate id 'fact-1' \(first on line 1\)"):
        load_cases(write(tmp_path, [json.dumps(GOOD), json.dumps(GOOD)]))


def test_missing_and_empty_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        load_cases(tmp_path / "nope.jsonl")
    with pytest.raises(InputError, match="holds no cases"):
        load_cases(write(tmp_path, [""]))
