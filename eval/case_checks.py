"""The checks every dev-set checker applies to its cases (DESIGN.md "Evaluation cases").

A checker names how its refs resolve to evidence text (`Resolver`s keyed by ref scheme) and whether a question
may repeat its evidence; this module checks the case shape, the refs, the keywords and the ids, and prints the
problems the same way for every set.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

CATEGORIES = {
    "direct",
    "thread_reply",
    "time_scoped",
    "person",
    "channel",
    "multi_source",
    "changed_state",
    "summary",
    "no_answer",
}
KEYS = {"id", "question", "now", "gold_refs", "answer_keywords", "no_answer", "category"}
COPY_RUN = 6  # words in a row shared with the evidence that count as copying it

# A resolver turns one ref into its evidence text, or into a problem (a str starting with "!").
Resolver = Callable[[str], str]


def missing(reason: str) -> str:
    """What a resolver returns for a ref that does not resolve."""
    return "!" + reason


def from_index(index: Mapping[str, str], where: str) -> Resolver:
    """A resolver over a ref -> text map; `where` names what the ref must be in."""
    return lambda ref: index[ref] if ref in index else missing(f"{ref} is not {where}")


def from_files(root: Path, read: Callable[[Path], str] | None = None) -> Resolver:
    """A resolver for `file:` refs under `root`."""

    def resolve(ref: str) -> str:
        path = root / ref.removeprefix("file:")
        if not path.is_file():
            return missing(f"{ref} does not exist under {root.name}/")
        return read(path) if read else path.read_text(encoding="utf-8")

    return resolve


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9_.\-]+", text.lower())


def copied_run(question: str, evidence: str) -> str | None:
    """The first run of COPY_RUN question words that also occurs in the evidence, if any."""
    q, e = _words(question), f" {' '.join(_words(evidence))} "
    for i in range(len(q) - COPY_RUN + 1):
        run = " ".join(q[i : i + COPY_RUN])
        if f" {run} " in e:
            return run
    return None


def check_case(c: dict[str, Any], resolvers: Mapping[str, Resolver], *, paraphrase: bool = True) -> list[str]:
    """Problems of one case; `resolvers` maps a ref scheme (`slack`, `file`, `github`) to its resolver."""
    cid = c.get("id", "?")
    if set(c) != KEYS:
        return [f"{cid}: keys {sorted(set(c) ^ KEYS)} differ from the contract"]
    problems: list[str] = []
    if c["category"] not in CATEGORIES:
        problems.append(f"{cid}: unknown category {c['category']}")
    if datetime.fromisoformat(c["now"]).tzinfo is None:
        problems.append(f"{cid}: now has no timezone")
    if c["no_answer"] != (c["category"] == "no_answer"):
        problems.append(f"{cid}: no_answer flag does not match category")
    if c["no_answer"] and (c["gold_refs"] or c["answer_keywords"]):
        problems.append(f"{cid}: no_answer case with gold refs or keywords")
    if not c["no_answer"] and not (c["gold_refs"] and c["answer_keywords"]):
        problems.append(f"{cid}: answerable case without gold refs or keywords")
    texts: list[str] = []
    for ref in c["gold_refs"]:
        resolve = resolvers.get(ref.partition(":")[0])
        text = resolve(ref) if resolve else missing(f"unknown ref scheme {ref}")
        if text.startswith("!"):
            problems.append(f"{cid}: {text[1:]}")
        else:
            texts.append(text)
    evidence = " ".join(texts).lower()
    for group in c["answer_keywords"]:
        if any(k != k.lower() for k in group):
            problems.append(f"{cid}: keyword group {group} is not lower-case")
        if texts and not any(k in evidence for k in group):
            problems.append(f"{cid}: none of {group} occurs in the gold evidence")
    copied = copied_run(c["question"], evidence) if paraphrase and texts else None
    if copied:
        problems.append(f"{cid}: question repeats the evidence ({copied!r}); paraphrase it")
    return problems


def check_cases(
    cases: Iterable[dict[str, Any]], resolvers: Mapping[str, Resolver], *, paraphrase: bool = True
) -> list[str]:
    """Every case's problems, plus one per repeated id."""
    problems: list[str] = []
    seen: set[str] = set()
    for c in cases:
        cid = c.get("id", "?")
        if cid in seen:
            problems.append(f"{cid}: duplicate id")
        seen.add(cid)
        problems += check_case(c, resolvers, paraphrase=paraphrase)
    return problems


def split_problems(cases: list[dict[str, Any]]) -> list[str]:
    """Both halves of the split (held out: id ends in an even digit) need answerable and unanswerable cases."""
    problems: list[str] = []
    for held in (False, True):
        side = [c for c in cases if (int(c["id"][-1]) % 2 == 0) == held]
        if not any(c["no_answer"] for c in side) or all(c["no_answer"] for c in side):
            problems.append(f"the {'held-out' if held else 'train'} half lacks answerable or unanswerable cases")
    return problems


def check_split_set(path: Path, resolvers: Mapping[str, Resolver], *, min_cases: int, min_none: int) -> list[str]:
    """The problems of a set split train / held-out: its cases, both halves, and its size."""
    cases = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    problems = check_cases(cases, resolvers) + split_problems(cases)
    n_none = sum(bool(c.get("no_answer")) for c in cases)
    if len(cases) < min_cases or n_none < min_none:
        problems.append(f"{len(cases)} cases, {n_none} no_answer: need at least {min_cases} and {min_none}")
    return problems


def report(problems: list[str]) -> None:
    """Print the problems and exit 1 if there are any, else print ok and exit 0."""
    for problem in problems:
        print(problem)
    print("ok" if not problems else f"{len(problems)} problem(s)")
    sys.exit(1 if problems else 0)
