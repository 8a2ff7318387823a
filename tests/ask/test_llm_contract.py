"""The answer contract whatever the model says, replayed over HTTP through the real LiteLLM/DSPy stack.

Each draft below is a misbehaviour a small local model (Qwen2.5-Coder 1.5B) showed when it wrote brief's answers: a
correct answer without [n], a refusal worded as a false restatement of the question, an invented figure hidden
only behind the model's own "not sufficient" flag, and the same figure under a confident flag.
"""

from __future__ import annotations

from typing import Any

import pytest

from briefing.ask.answer import LLMAnswerer
from briefing.ask.lm import build_lm
from briefing.ask.run import run_ask
from briefing.settings import LLMSettings
from tests.ask.conftest import NOW
from tests.fakes.openai_server import Reply, chat_fields, scripted_llm

QUESTION = "when is the Aurora cutover?"


def _ask(make_deps: Any, answer: str, *, sufficient: bool, question: str = QUESTION, **deps: Any) -> dict[str, Any]:
    with scripted_llm(Reply(content=chat_fields(answer=answer, sufficient=sufficient))) as (url, _fake):
        lm = build_lm(LLMSettings(model="openai/scripted-model", api_base=url))
        return run_ask(make_deps(answerer=LLMAnswerer(lm), **deps), question, now=NOW, k=5)


def test_a_correct_draft_without_markers_gets_its_citation_attached(make_deps) -> None:  # type: ignore[no-untyped-def]
    result = _ask(make_deps, "The Aurora cutover moved to June 12 because replica lag was too high.", sufficient=True)
    assert not result["no_answer"]
    assert result["answer"].startswith("The Aurora cutover moved to June 12")
    assert "[" in result["answer"] and result["citations"]
    assert result["trace"]["attached_citations"]


def test_a_refusal_reason_is_never_the_models_text(make_deps) -> None:  # type: ignore[no-untyped-def]
    restated = "The query engines cannot apply Iceberg deletes that match rows by column value."
    result = _ask(make_deps, restated, sufficient=False, question="what did we decide about the ledger database?")
    assert result["no_answer"] and result["citations"] == []
    assert result["answer"].startswith("The sources do not cover this (searched")
    assert "Iceberg" not in result["answer"]


@pytest.mark.parametrize("sufficient", [True, False], ids=["flagged sufficient", "flagged insufficient"])
def test_an_invented_figure_is_never_printed(make_deps, sufficient: bool) -> None:  # type: ignore[no-untyped-def]
    draft = "The Aurora cutover moved to June 12 [1]. The migration cost $4.61 million [1]."
    result = _ask(make_deps, draft, sufficient=sufficient)
    assert "4.61" not in result["answer"]
    if sufficient:  # the grounded sentence stays, the invented one is dropped
        assert "June 12" in result["answer"]
        assert any("4.61" in s for s in result["trace"]["dropped_sentences"])


def test_a_draft_with_nothing_in_the_evidence_becomes_the_extractive_answer(make_deps) -> None:  # type: ignore[no-untyped-def]
    result = _ask(make_deps, "Kubernetes operators were rewritten in Rust last quarter [2].", sufficient=True)
    assert "Rust" not in result["answer"]
    assert result["trace"]["validation"].startswith("extractive answer")
    assert "June 12" in result["answer"]  # what the sources do say


def test_the_reader_is_handed_only_the_validated_answer(make_deps) -> None:  # type: ignore[no-untyped-def]
    tokens: list[str] = []
    draft = "The Aurora cutover moved to June 12 [1]. It cost $4.61 million."
    result = _ask(make_deps, draft, sufficient=True, on_token=tokens.append)
    assert "4.61" not in "".join(tokens)
    assert "".join(tokens).strip() == result["answer"].strip()
