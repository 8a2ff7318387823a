"""Anthropic's and Gemini's wire formats, replayed: the answer contract through LiteLLM's own provider code.

The response bodies in tests/fixtures/llm/shapes/ come from the providers' SDK test fixtures (source, commit and
licence in the README there): a Messages API reply recorded by Anthropic's Python SDK tests and a
GenerateContentResponse from Google's Gen AI SDK tests. A local server answers each provider's endpoint with that
body, its text replaced by the draft under test, so LiteLLM's real request building and response parsing run.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from briefing.ask.answer import LLMAnswerer
from briefing.ask.lm import build_lm
from briefing.ask.run import run_ask
from briefing.devserver._http import running
from briefing.settings import LLMSettings
from tests.ask.conftest import NOW
from tests.fakes.openai_server import chat_fields
from tests.fakes.replay_llm import FIXTURES

KEY = "provider-test-key-0123456789abcdef"
SHAPES = FIXTURES / "shapes"


def _anthropic(text: str) -> dict[str, Any]:
    body = copy.deepcopy(json.loads((SHAPES / "anthropic_message.json").read_text()))
    body["content"][0]["text"] = text
    return body


def _gemini_as_published(text: str) -> dict[str, Any]:
    body = copy.deepcopy(json.loads((SHAPES / "gemini_generate_content.json").read_text()))
    body["candidates"][0]["content"]["parts"][0]["text"] = text
    return body


def _gemini(text: str) -> dict[str, Any]:
    """The SDK's fixture (a batch-output line) with the `usageMetadata` every online reply carries."""
    body = _gemini_as_published(text)
    body["usageMetadata"] = {"promptTokenCount": 412, "candidatesTokenCount": 31, "totalTokenCount": 443}
    return body


class _Provider(BaseHTTPRequestHandler):
    server: Any

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002  # the stdlib's name
        pass

    def do_POST(self) -> None:  # noqa: N802  # the stdlib's name
        fake = self.server.fake
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        headers = {k.lower(): v for k, v in self.headers.items()}
        fake["seen"].append({"path": self.path, "headers": headers, "body": body})
        data = json.dumps(fake["reply"]).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@contextmanager
def _serving(reply: dict[str, Any]) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    fake: dict[str, Any] = {"reply": reply, "seen": []}
    with running(_Provider, fake) as port:
        yield f"http://127.0.0.1:{port}", fake["seen"]


PROVIDERS = [
    ("anthropic/claude-sonnet-4-5", _anthropic, "/v1/messages", "x-api-key"),
    ("gemini/gemini-1.5-flash", _gemini, ":generateContent", "x-goog-api-key"),
]


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRIEF_TEST_PROVIDER_KEY", KEY)


@pytest.mark.parametrize(("model", "shape", "path", "header"), PROVIDERS, ids=["anthropic", "gemini"])
def test_a_providers_reply_is_held_to_the_contract(make_deps, model: str, shape: Any, path: str, header: str) -> None:  # type: ignore[no-untyped-def]
    draft = "The Aurora cutover moved to June 12 [1]. The migration cost $4.61 million [1]."
    with _serving(shape(chat_fields(answer=draft, sufficient=True))) as (url, seen):
        lm = build_lm(LLMSettings(model=model, api_base=url, api_key_env="BRIEF_TEST_PROVIDER_KEY"))
        result = run_ask(make_deps(answerer=LLMAnswerer(lm)), "when is the Aurora cutover?", now=NOW, k=5)
    (request,) = seen
    assert path in request["path"]  # the provider's own endpoint and wire format
    assert request["headers"].get(header) == KEY  # the key in the provider's header, from the named variable
    assert "when is the Aurora cutover?" in json.dumps(request["body"])
    assert result["answer"].startswith("The Aurora cutover moved to June 12")  # parsed from the provider's shape
    assert "4.61" not in result["answer"]  # the invented figure is dropped whatever the provider
    assert result["citations"]


@pytest.mark.parametrize(("model", "shape", "path", "header"), PROVIDERS, ids=["anthropic", "gemini"])
def test_a_providers_refusal_is_worded_by_brief(make_deps, model: str, shape: Any, path: str, header: str) -> None:  # type: ignore[no-untyped-def]
    restated = "The query engines cannot apply Iceberg deletes that match rows by column value."
    with _serving(shape(chat_fields(answer=restated, sufficient=False))) as (url, _seen):
        lm = build_lm(LLMSettings(model=model, api_base=url, api_key_env="BRIEF_TEST_PROVIDER_KEY"))
        deps = make_deps(answerer=LLMAnswerer(lm))
        result = run_ask(deps, "what did we decide about the ledger database?", now=NOW, k=5)
    assert result["no_answer"] and result["answer"].startswith("The sources do not cover this")
    assert "Iceberg" not in result["answer"]


def test_a_reply_litellm_cannot_parse_leaves_the_extractive_answer(make_deps) -> None:  # type: ignore[no-untyped-def]
    # The Gen AI SDK's fixture as published has no usageMetadata, and LiteLLM refuses such a reply.
    draft = chat_fields(answer="The Aurora cutover moved to June 12 [1].", sufficient=True)
    with _serving(_gemini_as_published(draft)) as (url, _seen):
        lm = build_lm(LLMSettings(model="gemini/gemini-1.5-flash", api_base=url, api_key_env="BRIEF_TEST_PROVIDER_KEY"))
        result = run_ask(make_deps(answerer=LLMAnswerer(lm)), "when is the Aurora cutover?", now=NOW, k=5)
    assert result["trace"]["answerer"].startswith("extractive (LLM error")
    assert "June 12" in result["answer"] and result["citations"]
    assert KEY not in json.dumps(result, default=str)
