"""With an LLM, a DSPy module writes each digest line from the line's own evidence; the citation check is unchanged.

DummyLM scripts the model's line; once the line goes over real HTTP (LiteLLM against the local OpenAI-compatible
server in tests/fakes/openai_server.py). A line citing anything outside its group, or nothing, falls back to the
extractive line; so does every line after the model fails.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from dspy.utils import DummyLM

from briefing.ask.lm import build_lm
from briefing.digest.engine import Briefer
from briefing.digest.llm import LineWriter
from briefing.digest.model import Scope
from briefing.index import Index
from briefing.settings import LLMSettings, load_settings
from tests.fakes.openai_server import Reply, chat_fields, refused_url, scripted_llm

START = datetime(2026, 5, 18, tzinfo=UTC)
END = datetime(2026, 5, 25, tzinfo=UTC)
NOW = datetime(2026, 6, 15, 9, tzinfo=UTC)
INCIDENTS = Scope(containers=("incidents",))


@pytest.fixture
def index(use_sample):  # type: ignore[no-untyped-def]
    with Index.open(load_settings(use_sample.config)) as opened:
        yield opened


def digest(index: Index, writer: LineWriter | None, limit: int = 1):  # type: ignore[no-untyped-def]
    return Briefer(index, writer=writer).digest(START, END, now=NOW, scope=INCIDENTS, max_lines=limit)


def test_the_model_writes_the_line_and_its_numbers_become_the_units_cited(index) -> None:  # type: ignore[no-untyped-def]
    plain = digest(index, None)
    (extractive,) = plain.lines()
    writer = LineWriter(DummyLM([{"line": "The retry storm was found and fixed [2]; it began with an alert [1]."}]))
    (line,) = digest(index, writer).lines()
    assert writer.written == 1 and writer.fallbacks == 0
    # Renumbered in reading order: the model's [2] is the line's first citation.
    assert [c.n for c in line.citations] == [1, 2]
    assert line.text.startswith("The retry storm was found and fixed [1]; it began with an alert [2].")
    (conv,) = [c for c in Briefer(index).conversations(START, END, NOW, INCIDENTS) if c.key == line.key]
    group = writer.evidence(conv)
    assert line.citations[0].refs == [group[1].unit.ref] and line.citations[1].refs == [group[0].unit.ref]
    assert line.citations[0].url == group[1].url
    # Everything else about the line (status, title, the conversation) is the engine's.
    assert (line.status, line.title, line.key) == (extractive.status, extractive.title, extractive.key)


@pytest.mark.parametrize(
    "reply",
    ["It was fixed [99].", "It was fixed.", "It was fixed [0]."],
    ids=["outside its group", "uncited", "not a unit"],
)
def test_a_line_citing_outside_its_group_falls_back_to_the_extractive_line(index, reply) -> None:  # type: ignore[no-untyped-def]
    (extractive,) = digest(index, None).lines()
    writer = LineWriter(DummyLM([{"line": reply}]))
    (line,) = digest(index, writer).lines()
    assert writer.fallbacks == 1 and writer.written == 0
    assert line.text == extractive.text and line.citations == extractive.citations


def test_over_http_the_evidence_goes_out_numbered_and_the_line_comes_back_cited(index, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("BRIEF_TEST_LLM_KEY", "sk-test-0123456789abcdefghij")
    reply = chat_fields(line="Payments failed for 51 minutes until the retry storm was stopped [1].")
    with scripted_llm(Reply(content=reply)) as (url, fake):
        settings = LLMSettings(model="openai/scripted-model", api_base=url, api_key_env="BRIEF_TEST_LLM_KEY")
        writer = LineWriter(build_lm(settings))
        (line,) = digest(index, writer).lines()
    assert line.text == "Payments failed for 51 minutes until the retry storm was stopped [1]."
    assert len(line.citations) == 1 and line.citations[0].refs[0].startswith("slack:")
    (request,) = fake.requests
    sent = "\n".join(str(m.get("content")) for m in request["messages"] if m["role"] == "user")
    assert "[1]" in sent and "#incidents" in sent  # the line's group, numbered, with where it happened


def test_a_failing_model_leaves_every_line_extractive_after_one_attempt(index, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("BRIEF_TEST_LLM_KEY", "sk-test-0123456789abcdefghij")
    settings = LLMSettings(
        model="openai/scripted-model", api_base=refused_url(), api_key_env="BRIEF_TEST_LLM_KEY", timeout_s=5
    )
    writer = LineWriter(build_lm(settings))
    plain = digest(index, None, limit=3)
    got = digest(index, writer, limit=3)
    assert [line.text for line in got.lines()] == [line.text for line in plain.lines()]
    assert writer.broken and writer.fallbacks == 3 and writer.errors
