"""Real model exchanges, replayed: brief's contract holds over what a small local model actually said.

tests/fixtures/llm/ holds request and response bodies recorded between brief and a real model server (the model,
its licence and the server are named in the README there). A local server replays them in the OpenAI chat wire
format to the real LiteLLM/DSPy stack over the bundled sample workspace, and the tests assert what a user would
notice: the router never loops on its own argument names and never loses the deterministic constraints, no
printed sentence is outside the evidence the model was sent, a refusal is worded by brief, and a model that fails
leaves the extractive answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from briefing.service import Brief, parse_now
from briefing.settings import load_settings
from tests.conftest import SampleIndex
from tests.fakes.replay_llm import FIXTURES, load, replaying

pytestmark = pytest.mark.slow
RECORDS = sorted((FIXTURES / "sample").glob("*.json"))
REFUSAL = "The sources do not cover this"


@pytest.fixture
def ask(use_sample: SampleIndex, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Ask a recorded question through brief with `[llm]` pointed at `url` (None: no LLM, the extractive path)."""
    opened: list[Brief] = []

    def run(record: dict[str, Any], url: str | None) -> dict[str, Any]:
        for name in ("MODEL", "API_BASE", "TIMEOUT_S", "ROUTER_TIMEOUT_S"):
            monkeypatch.delenv(f"BRIEF_LLM__{name}", raising=False)
        if url is not None:
            monkeypatch.setenv("BRIEF_LLM__MODEL", record["model"])
            monkeypatch.setenv("BRIEF_LLM__API_BASE", url)
            monkeypatch.setenv("BRIEF_LLM__TIMEOUT_S", "60")
            monkeypatch.setenv("BRIEF_LLM__ROUTER_TIMEOUT_S", "60")
        brief = Brief(load_settings(use_sample.config))
        opened.append(brief)
        return brief.ask(record["question"], now=parse_now(record["now"]), k=10).to_json(trace=True)

    yield run
    for brief in opened:
        brief.close()


def _texts(request: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content") or "") for m in request.get("messages", []) if m.get("role") == "user")


def _sentences(answer: str) -> list[str]:
    bare = re.sub(r"\s*\[\d+\]", "", answer)
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", bare) if len(s.split()) >= 3]


def _outside(sentence: str, evidence: str) -> bool:
    """A sentence with a number the evidence lacks, or with most of its content words absent from it."""
    seen = evidence.lower()
    if any(n not in seen for n in re.findall(r"\d+(?:[.,:]\d+)*", sentence)):
        return True
    words: list[str] = re.findall(r"[a-z][a-z'-]{3,}", sentence.lower())
    return bool(words) and sum(w in seen for w in words) < 0.6 * len(words)


@pytest.mark.parametrize("path", RECORDS, ids=[p.stem for p in RECORDS])
def test_the_contract_holds_over_a_real_models_replies(ask: Any, path: Path) -> None:
    record = load(path)
    with replaying(record) as (url, replay):
        result = ask(record, url)
    trace = result["trace"]
    router_requests = replay.of("router")
    observations = "\n".join(_texts(r) for r in router_requests)
    # 0 loops on the product's own argument names: no rejected-argument error or traceback went back to the model
    assert "not in the tool's args" not in observations and "Traceback" not in observations
    steps = record.get("llm_settings", {}).get("router_max_steps", 4)
    assert len(router_requests) <= 2 * (steps + 2)  # its steps, finish and the plan, each at most twice (2 adapters)
    # the deterministic constraints are the floor whatever the router did
    baseline = ask(record, None)
    for key in ("tickets", "people", "containers"):
        assert set(baseline["constraints"].get(key) or []) <= set(result["constraints"].get(key) or [])
    answer = result["answer"]
    if result["no_answer"]:  # a refusal is brief's sentence, never the model's restatement
        assert answer.startswith(REFUSAL)
        draft = str(trace.get("draft") or "")
        assert not any(s in answer for s in _sentences(draft))
    elif str(trace.get("answerer", "")).startswith("dspy"):  # the model's text was printed: all of it is evidence
        evidence = "\n".join(_texts(r) for r in replay.of("answer"))
        assert [s for s in _sentences(answer) if _outside(s, evidence)] == []
    else:  # the model's draft was not used: the answer is the extractive one, word for word
        assert answer == baseline["answer"]


@pytest.mark.parametrize("path", RECORDS[:2], ids=[p.stem for p in RECORDS[:2]])
def test_a_failing_answer_model_leaves_the_extractive_answer(ask: Any, path: Path) -> None:
    record = load(path)
    with replaying(record, roles=("router",)) as (url, replay):  # the answer model answers 500 every time
        result = ask(record, url)
    assert replay.of("answer")  # it was asked
    assert result["trace"]["answerer"].startswith("extractive (LLM error")
    assert result["answer"] == ask(record, None)["answer"]
    assert "llm_failed" in result["timings_ms"]
