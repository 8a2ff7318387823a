"""A model server that redirects: followed within its own origin, refused to any other host, for every provider.

httpx strips only `Authorization` when a redirect leaves the origin: before this guard an Anthropic `x-api-key`,
a Gemini `x-goog-api-key` and the prompt (the evidence) reached whatever host a 307 named. Here the redirect points
from 127.0.0.1 to `localhost` on another port, a second local server that records what reaches it.
"""

from __future__ import annotations

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
from tests.fakes.openai_server import Reply, chat_fields, scripted_llm

KEY = "sk-redirect-test-0123456789abcdef"


class _Recorder(BaseHTTPRequestHandler):
    """The other host: records every request that reaches it and answers 500."""

    server: Any

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002  # the stdlib's name
        pass

    def do_POST(self) -> None:  # noqa: N802  # the stdlib's name
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.fake.append({"headers": dict(self.headers.items()), "body": body.decode(errors="replace")})
        self.send_response(500)
        self.send_header("Content-Length", "0")
        self.end_headers()


class _Redirector(BaseHTTPRequestHandler):
    """The configured server: answers every request with a redirect to `server.fake` (a URL prefix)."""

    server: Any

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002  # the stdlib's name
        pass

    def do_POST(self) -> None:  # noqa: N802  # the stdlib's name
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(307)
        self.send_header("Location", f"{self.server.fake}{self.path}")
        self.send_header("Content-Length", "0")
        self.end_headers()


@contextmanager
def _redirect_to_other_host() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    seen: list[dict[str, Any]] = []
    with running(_Recorder, seen) as other, running(_Redirector, f"http://localhost:{other}") as port:
        yield f"http://127.0.0.1:{port}", seen


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRIEF_TEST_LLM_KEY", KEY)


@pytest.mark.parametrize(
    "model", ["openai/m", "anthropic/claude-m", "gemini/gemini-m", "ollama_chat/m", "hosted_vllm/m"]
)
def test_a_redirect_to_another_host_is_refused_and_nothing_reaches_it(make_deps, model: str) -> None:  # type: ignore[no-untyped-def]
    with _redirect_to_other_host() as (base, seen):
        api_base = f"{base}/v1" if model.startswith(("openai", "hosted_vllm")) else base
        lm = build_lm(LLMSettings(model=model, api_base=api_base, api_key_env="BRIEF_TEST_LLM_KEY"))
        result = run_ask(make_deps(answerer=LLMAnswerer(lm)), "when is the Aurora cutover?", now=NOW, k=5)
    assert seen == []  # no key, no prompt, no evidence went to the other host
    assert result["trace"]["answerer"].startswith("extractive (LLM error")
    assert "June 12" in result["answer"]  # the extractive answer still came
    assert KEY not in json.dumps(result, default=str)


def test_a_redirect_within_the_same_server_is_followed(make_deps) -> None:  # type: ignore[no-untyped-def]
    moved = Reply(status=307, location="/v1/moved/chat/completions")
    reply = Reply(content=chat_fields(answer="The Aurora cutover moved to June 12 [1].", sufficient=True))
    with scripted_llm(moved, reply) as (url, fake):
        lm = build_lm(LLMSettings(model="openai/m", api_base=url))
        result = run_ask(make_deps(answerer=LLMAnswerer(lm)), "when is the Aurora cutover?", now=NOW, k=5)
    assert len(fake.requests) == 2  # the original request, then the same request at the new path
    assert result["answer"].startswith("The Aurora cutover moved to June 12")
    assert not result["trace"]["answerer"].startswith("extractive")
