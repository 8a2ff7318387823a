"""MCP over HTTP refuses every request without the bearer token; the token file is the owner's alone."""

from __future__ import annotations

import stat
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from briefing.mcp_auth import authenticated_app, ensure_token
from briefing.mcp_server import build_server
from briefing.settings import Settings, WorkspaceSettings

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, str]]:
    import uvicorn

    settings = Settings(workspace=WorkspaceSettings(name="mcp"), home=tmp_path)
    settings.sources = {}
    token, _, _ = ensure_token(tmp_path)
    app = authenticated_app(build_server(settings), token, "127.0.0.1")
    web = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
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
    yield f"http://127.0.0.1:{port}/mcp", token
    web.should_exit = True
    thread.join(10)


@pytest.mark.slow
def test_every_request_needs_the_token(served: tuple[str, str]) -> None:
    url, token = served
    for auth in [None, "", "Bearer", f"Bearer {token[:-1]}", f"bearer{token}", f"Basic {token}", token]:
        headers = dict(HEADERS) | ({"Authorization": auth} if auth is not None else {})
        for method in ("POST", "GET", "DELETE"):
            response = httpx.request(method, url, headers=headers, json=INITIALIZE, timeout=10)
            assert response.status_code == 401, (auth, method, response.status_code)
            assert token not in response.text
        assert httpx.get(url.replace("/mcp", "/other"), headers=headers, timeout=10).status_code == 401
    good = httpx.post(url, headers=HEADERS | {"Authorization": f"Bearer {token}"}, json=INITIALIZE, timeout=10)
    assert good.status_code == 200 and '"serverInfo"' in good.text


def test_the_token_is_made_once_and_kept_mode_0600(tmp_path: Path) -> None:
    token, path, made = ensure_token(tmp_path)
    assert made and len(token) >= 32 and stat.S_IMODE(path.stat().st_mode) == 0o600
    path.chmod(0o644)  # loosened by someone: tightened again, same token
    again, _, made_again = ensure_token(tmp_path)
    assert again == token and not made_again and stat.S_IMODE(path.stat().st_mode) == 0o600
