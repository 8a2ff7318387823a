"""Evaluation cases (DESIGN.md "Evaluation cases"): one JSON object a line, validated with file and line named."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from briefing.errors import InputError

REQUIRED = ("id", "question", "now", "gold_refs", "answer_keywords", "no_answer", "category")
# `notes` lets case writers say why a case exists (e.g. which near miss it probes); it is never scored.
OPTIONAL = ("notes",)


@dataclass(frozen=True)
class Case:
    id: str
    question: str
    now: str
    gold_refs: tuple[str, ...]
    answer_keywords: tuple[tuple[str, ...], ...]
    no_answer: bool
    category: str

    @property
    def now_dt(self) -> datetime:
        return datetime.fromisoformat(self.now.replace("Z", "+00:00"))


def _text(value: Any, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"'{key}' must be a non-empty string")
    return value.strip()


def _keyword_groups(value: Any) -> tuple[tuple[str, ...], ...]:
    """A list of groups, each a list of alternatives; a bare string is a group of one."""
    if not isinstance(value, list):
        raise ValueError('\'answer_keywords\' must be a list of lists of strings, e.g. [["a", "alt"], ["b"]]')
    groups: list[tuple[str, ...]] = []
    for group in value:
        alternatives = [group] if isinstance(group, str) else group
        if (
            not isinstance(alternatives, list)
            or not alternatives
            or not all(isinstance(a, str) and a.strip() for a in alternatives)
        ):
            raise ValueError(
                '\'answer_keywords\' must be a list of lists of non-empty strings, e.g. [["a", "alt"], ["b"]]'
            )
        groups.append(tuple(a.strip() for a in alternatives))
    return tuple(groups)


def parse_case(data: Any) -> Case:
    """Validate one decoded line; raises ValueError saying what is wrong."""
    if not isinstance(data, dict):
        raise ValueError("each line must be a JSON object")
    missing = [key for key in REQUIRED if key not in data]
    if missing:
        raise ValueError(f"missing key(s) {', '.join(missing)}")
    unknown = sorted(set(data) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(unknown)}")
    now = _text(data["now"], "now")
    try:
        parsed = datetime.fromisoformat(now.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"'now' is not ISO-8601: {now!r}") from None
    if parsed.tzinfo is None:
        raise ValueError(f"'now' must carry a UTC offset, e.g. 2026-06-15T09:00:00+00:00 (got {now!r})")
    refs = data["gold_refs"]
    if not isinstance(refs, list) or not all(isinstance(r, str) and r.strip() for r in refs):
        raise ValueError("'gold_refs' must be a list of native refs (strings)")
    if not isinstance(data["no_answer"], bool):
        raise ValueError("'no_answer' must be true or false")
    return Case(
        id=_text(data["id"], "id"),
        question=_text(data["question"], "question"),
        now=now,
        gold_refs=tuple(dict.fromkeys(r.strip() for r in refs)),
        answer_keywords=_keyword_groups(data["answer_keywords"]),
        no_answer=data["no_answer"],
        category=_text(data["category"], "category"),
    )


def load_cases(path: Path) -> list[Case]:
    """Read a JSONL cases file; blank lines are skipped, any malformed line is an InputError naming it."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise InputError(f"cases file {path} does not exist: pass a JSONL file of evaluation cases") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cases file {path} cannot be read ({exc}): pass a UTF-8 JSONL file") from None
    cases: list[Case] = []
    first_line: dict[str, int] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            case = parse_case(json.loads(line))
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{number}: not valid JSON ({exc.msg} at column {exc.colno})") from None
        except ValueError as exc:
            raise InputError(f"{path}:{number}: {exc}") from None
        if case.id in first_line:
            raise InputError(f"{path}:{number}: duplicate id '{case.id}' (first on line {first_line[case.id]})")
        first_line[case.id] = number
        cases.append(case)
    if not cases:
        raise InputError(f"cases file {path} holds no cases: write one JSON object a line")
    return cases
