"""MCP tools return ingested text quieted: no control character, and no Slack mention, broadcast or disguised link
that an agent quoting a result into Slack would turn into a notification.

Through the MCP SDK's client against the real server; the tools' body returns what a hostile workspace holds (a
message and a display name carrying an OSC title sequence, BEL, `<!channel>`, `<!here>` and `<@U..>`).
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp import Client

from briefing.mcp_server import BriefTools, build_server
from briefing.ops.safe import quiet
from briefing.settings import Settings

HOSTILE = "Deploy \x1b]0;pwned\x07now <!channel> <!here|here> <@U0EVIL|alice> <#C01|ops> \x1b[2J@everyone \x9bdone"
NAME = "Alice \x1b]0;title\x07Chen <!here>"


class HostileTools(BriefTools):
    """The tools' body with what a hostile workspace's index returns."""

    def search(self, query: str, k: int = 10, now: str | None = None) -> dict[str, Any]:
        hit = {
            "rank": 1, "score": 1.0, "chunk_id": "c1", "source": "slack", "refs": ["slack:C01:1781000000.000100"],
            "title": f"#ops {HOSTILE}", "url": "https://acme.slack.com/archives/C01/p1781000000000100",
            "occurred_at": "2026-06-01T09:00:00+00:00", "authors": [NAME], "text": HOSTILE,
        }  # fmt: skip
        return {"question": query, "now": now or "", "constraints": {}, "hits": [hit], "timings_ms": {}}

    def list_people(self) -> dict[str, Any]:
        return {"people": [{"id": "person:alice", "name": NAME, "handles": ["@alice"], "emails": ["a@acme.example"]}]}


def _call(tool: str, arguments: dict[str, Any]) -> Any:
    server = build_server(Settings(), HostileTools(Settings()))

    async def run() -> Any:
        async with Client(server) as client:
            return await client.call_tool(tool, arguments)

    return anyio.run(run)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _assert_quiet(text: str) -> None:
    assert not any((ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F for c in text), repr(text)
    for entity in ("<!channel>", "<!here", "<@U0EVIL", "<#C01", "@channel", "@here", "@everyone", "@alice"):
        assert entity not in text, (entity, text)


def test_search_results_carry_no_controls_and_no_mention_syntax() -> None:
    result = _call("search", {"query": "deploy"})
    assert not result.is_error
    strings = _strings(result.structured_content) + [c.text for c in result.content if hasattr(c, "text")]
    for text in strings:
        _assert_quiet(text)
    hit = result.structured_content["hits"][0]
    # Still readable: the words and who was mentioned stay, as plain text.
    assert "Deploy" in hit["text"] and "channel" in hit["text"] and "alice" in hit["text"] and "#ops" in hit["text"]
    assert hit["refs"] == ["slack:C01:1781000000.000100"] and hit["url"].startswith("https://acme.slack.com/")


def test_a_display_name_is_quieted_and_an_address_kept() -> None:
    result = _call("list_people", {})
    person = result.structured_content["people"][0]
    _assert_quiet(person["name"])
    assert person["name"].startswith("Alice") and person["emails"] == ["a@acme.example"]


def test_quiet_is_idempotent_and_leaves_plain_text_alone() -> None:
    plain = "Ship v0.8.0 on Friday, mail ops@acme.example, see https://x.example/a?b=1 (issue #12)."
    assert quiet(plain) == plain
    once = quiet(HOSTILE)
    assert quiet(once) == once
