"""`brief mcp` through the MCP SDK's own client: in process, over stdio (a real subprocess), and over streamable
HTTP on 127.0.0.1. The tools answer from the sample workspace with refs and URLs an agent can cite."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from typer.testing import CliRunner

from briefing.cli.app import app
from briefing.mcp_server import BriefTools, build_server
from briefing.settings import load_settings

NOW = "2026-06-15T09:00:00+00:00"


def call(server: Any, tool: str, arguments: dict[str, Any]) -> Any:
    async def run() -> Any:
        async with Client(server) as client:
            return await client.call_tool(tool, arguments)

    return anyio.run(run)


@pytest.fixture
def server(use_sample: Any) -> Iterator[Any]:
    settings = load_settings(use_sample.config)
    tools = BriefTools(settings)
    yield build_server(settings, tools)
    tools.close()  # the embedded index allows one open client per process


def test_the_tools_are_the_read_only_set(server: Any) -> None:
    async def run() -> Any:
        async with Client(server) as client:
            return await client.list_tools()

    tools = {t.name: t for t in anyio.run(run).tools}
    assert set(tools) == {"search", "ask", "digest", "timeline", "get_item", "list_sources", "list_people"}
    assert all(t.annotations is not None and t.annotations.read_only_hint for t in tools.values())


def test_ask_returns_a_cited_answer_whose_refs_were_in_the_evidence(server: Any) -> None:
    result = call(server, "ask", {"question": "What did we decide about connection pooling?", "now": NOW})
    assert not result.is_error
    out = result.structured_content
    assert not out["no_answer"] and out["citations"]
    evidence = {ref for hit in out["hits"] for ref in hit["refs"]}
    for citation in out["citations"]:
        assert citation["refs"] and set(citation["refs"]) <= evidence
        assert f"[{citation['n']}]" in out["answer"]


def test_get_item_reads_back_a_ref_that_search_returned(server: Any) -> None:
    found = call(server, "search", {"query": "aurora cutover runbook", "k": 3, "now": NOW}).structured_content
    ref = found["hits"][0]["refs"][0]
    item = call(server, "get_item", {"ref": ref, "now": NOW})
    assert not item.is_error
    assert any(ref in chunk["refs"] for chunk in item.structured_content["chunks"])


def test_digest_lists_the_windows_conversations_with_citable_links(server: Any) -> None:
    result = call(server, "digest", {"since": "last week", "now": NOW})
    assert not result.is_error
    out = result.structured_content
    assert out["window"][0].startswith("2026-06-08") and out["conversations"] > 0
    lines = [line for section in out["sections"] for line in section["lines"]]
    assert lines and all(line["citations"] for line in lines)
    cited = [c for line in lines for c in line["citations"]]
    assert all(c["refs"] for c in cited) and any(c["url"] for c in cited)
    narrowed = call(server, "digest", {"since": "last week", "channels": ["incidents"], "now": NOW})
    titles = {section["title"] for section in narrowed.structured_content["sections"]}
    assert titles and all("incidents" in title for title in titles)


def test_timeline_of_a_ticket_is_dated_and_cited(server: Any) -> None:
    result = call(server, "timeline", {"subject": "PLAT-101", "now": NOW})
    assert not result.is_error
    events = result.structured_content["events"]
    assert len(events) >= 2
    stamps = [e["at"] for e in events]
    assert stamps == sorted(stamps)
    assert all(e["citations"] and e["citations"][0]["refs"] for e in events)


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        ("search", {"query": "pooling", "k": 500}, "'k': input should be less than or equal to 50"),
        ("ask", {"question": "   "}, "the question is empty"),
        ("ask", {"question": "pooling?", "now": "last tuesday"}, "is not an ISO-8601 time"),
        ("get_item", {"ref": "no-colon"}, "is not a native ref"),
        ("digest", {"channels": ["no-such-channel"], "now": NOW}, "'no-such-channel' is not a channel or project"),
        ("digest", {"since": "friday", "until": "monday", "now": NOW}, "the window is empty"),
        ("timeline", {"subject": "  "}, "the question is empty"),
        ("get_item", {"ref": "slack:C000:1.0", "now": NOW}, "nothing indexed under 'slack:C000:1.0'"),
    ],
)
def test_bad_input_is_a_tool_error_with_the_cli_message(server: Any, tool: str, arguments: dict, message: str) -> None:
    result = call(server, tool, arguments)
    assert result.is_error
    assert message in result.content[0].text


def test_sources_and_people_are_listed(server: Any, use_sample: Any) -> None:
    sources = call(server, "list_sources", {}).structured_content
    assert {s["name"] for s in sources["sources"]} == set(load_settings(use_sample.config).sources)
    assert all(s["last_sync"] and s["chunks"] > 0 for s in sources["sources"])
    people = call(server, "list_people", {}).structured_content["people"]
    assert any(p["name"] == "Priya Raman" for p in people)


def test_stdio_transport_serves_a_real_subprocess(use_sample: Any) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "briefing", "--config", str(use_sample.config), "mcp"],
        env={**os.environ, "BRIEF_HOME": str(use_sample.home)},
    )
    result = call(params, "search", {"query": "on-call rota", "k": 2, "now": NOW})
    assert not result.is_error
    assert len(result.structured_content["hits"]) == 2


@pytest.fixture
def http_url(server: Any) -> Iterator[str]:
    import uvicorn

    config = uvicorn.Config(server.streamable_http_app(), host="127.0.0.1", port=0, log_level="warning")
    web = uvicorn.Server(config)
    ready = threading.Event()
    original = web.startup

    async def startup(sockets: Any = None) -> None:
        await original(sockets)
        ready.set()

    web.startup = startup  # type: ignore[method-assign]
    thread = threading.Thread(target=web.run, daemon=True)
    thread.start()
    assert ready.wait(30), "the HTTP server did not start"
    port = web.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}/mcp"
    web.should_exit = True
    thread.join(10)


def test_streamable_http_transport_on_loopback(http_url: str) -> None:
    result = call(http_url, "ask", {"question": "Who is on call this week?", "now": NOW})
    assert not result.is_error
    assert result.structured_content["citations"]


def test_a_non_loopback_host_is_refused_without_allow_remote(use_sample: Any) -> None:
    result = CliRunner().invoke(app, ["--config", str(use_sample.config), "mcp", "-t", "http", "--host", "0.0.0.0"])  # noqa: S104
    assert result.exit_code == 10
    assert "not a loopback address" in result.output


def test_tool_schemas_are_strict_ranges_no_extra_arguments_and_typed_outputs(server: Any) -> None:
    async def run() -> Any:
        async with Client(server) as client:
            return await client.list_tools()

    tools = {t.name: t for t in anyio.run(run).tools}
    for tool in tools.values():
        assert tool.input_schema.get("additionalProperties") is False, tool.name
        assert tool.output_schema and tool.output_schema.get("properties"), f"{tool.name}: empty output schema"
    k = tools["search"].input_schema["properties"]["k"]
    assert (k["minimum"], k["maximum"]) == (1, 50)
    assert {"answer", "citations", "no_answer", "hits"} <= set(tools["ask"].output_schema["properties"])
    assert "chunks" in tools["get_item"].output_schema["properties"]


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        ("search", {"query": "pooling", "k": 0}, "'k': input should be greater than or equal to 1"),
        ("search", {"query": "pooling", "k": 51}, "'k': input should be less than or equal to 50"),
        ("ask", {"question": "pooling?", "limit": 3}, "unknown argument 'limit'"),
        ("search", {"query": "pooling", "k": "many"}, "'k': input should be a valid integer"),
        ("get_item", {}, "'ref' is required"),
    ],
)
def test_bad_arguments_are_refused_in_one_line_without_a_pydantic_url(
    server: Any, tool: str, arguments: dict[str, Any], expected: str
) -> None:
    result = call(server, tool, arguments)
    assert result.is_error
    text = result.content[0].text
    assert expected in text
    assert "pydantic" not in text and "http" not in text and "\n" not in text
