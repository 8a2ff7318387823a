"""Security and failure isolation of the API connectors, through the real pipeline and the real command line.

A local server plays a broken or hostile vendor: a closed port, HTTP 500, a 400 that echoes the request's
Authorization header, a 200 with a garbage body, and a 302 to another host. For every API connector: one line
with the right exit code, the other sources still ingested, the token never sent to the other host and never
printed. Terminal output is neutralised: control sequences and Rich markup from content and paths are inert.
"""

from __future__ import annotations

import io
import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from briefing.cli.app import app
from briefing.cli.common import SafeConsole, escape, neutralise
from briefing.errors import BriefError
from tests.harness import Workspace

TOKEN = "tok-9f8e7d6c5b4a-secret"
API_TYPES = {
    "slack": {"channels": ["general"]},
    "jira": {"projects": ["PROJ"], "cloud": False},
    "github": {"repos": ["acme/api"]},
    "confluence": {"spaces": ["ENG"], "cloud": False},
}


class Vendor:
    """A local server that answers every request the same hostile way; records what reached it."""

    def __init__(self, mode: str, redirect_to: str = "") -> None:
        self.mode = mode
        self.redirect_to = redirect_to
        self.authorizations: list[str] = []
        vendor = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                vendor.answer(self)

            def do_POST(self) -> None:  # noqa: N802
                vendor.answer(self)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def answer(self, handler: BaseHTTPRequestHandler) -> None:
        auth = handler.headers.get("Authorization") or ""
        self.authorizations.append(auth)
        length = int(handler.headers.get("Content-Length") or 0)
        if length:
            handler.rfile.read(length)
        if self.mode == "redirect":
            handler.send_response(302)
            handler.send_header("Location", self.redirect_to + handler.path)
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        status, body = {
            "500": (500, b"internal error"),
            "400": (400, json.dumps({"ok": False, "error": f"bad request with {auth}"}).encode()),
            "garbage": (200, b"\x00\xffnot json at all<html>"),
            "record": (200, json.dumps({"ok": True}).encode()),
        }[self.mode]
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture(autouse=True)
def token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VENDOR_TOKEN", TOKEN)
    monkeypatch.setenv("VENDOR_USER", "robot@example.com")


def _closed_port() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def _table(source_type: str, base_url: str) -> dict[str, Any]:
    table: dict[str, Any] = {"type": source_type, "base_url": base_url, "token_env": "VENDOR_TOKEN"}
    table |= {"max_retries": 0, "timeout_s": 5.0, **API_TYPES[source_type]}
    if source_type in ("jira", "confluence"):
        table["user_env"] = "VENDOR_USER"
    return table


def _workspace(tmp_path: Path, source_type: str, base_url: str) -> Workspace:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    (docs / "notes.md").write_text("# Notes\n\nThe quarterly plan is agreed.\n", encoding="utf-8")
    sources = {"vendor": _table(source_type, base_url), "handbook": {"type": "files", "path": docs}}
    return Workspace(tmp_path / "ws", sources)


@pytest.fixture
def vendors() -> Iterator[list[Vendor]]:
    started: list[Vendor] = []
    yield started
    for vendor in started:
        vendor.stop()


@pytest.mark.parametrize("mode", ["closed", "500", "400", "garbage"])
@pytest.mark.parametrize("source_type", sorted(API_TYPES))
@pytest.mark.slow
def test_a_broken_vendor_is_one_line_and_the_other_sources_go_on(
    tmp_path: Path, vendors: list[Vendor], source_type: str, mode: str
) -> None:
    if mode == "closed":
        url = _closed_port()
    else:
        vendors.append(Vendor(mode))
        url = vendors[0].url
    ws = _workspace(tmp_path, source_type, url)
    summary = ws.run("vendor", "handbook")
    broken = {run.name: run.error for run in summary.sources}
    error = broken["vendor"]
    assert isinstance(error, BriefError), f"{source_type}/{mode}: the vendor source was not reported as failed"
    assert "\n" not in str(error) and "Traceback" not in str(error)
    assert TOKEN not in str(error)
    assert broken["handbook"] is None
    assert "file:notes.md" in ws.indexed_refs()


@pytest.mark.parametrize("source_type", sorted(API_TYPES))
def test_credentials_never_follow_a_redirect_to_another_host(
    tmp_path: Path, vendors: list[Vendor], source_type: str
) -> None:
    elsewhere = Vendor("record")
    vendors.append(elsewhere)
    # 127.0.0.1 and localhost are different hosts to a browser and to this rule.
    target = elsewhere.url.replace("127.0.0.1", "localhost")
    origin = Vendor("redirect", redirect_to=target)
    vendors.append(origin)
    ws = _workspace(tmp_path, source_type, origin.url)
    summary = ws.run("vendor")
    assert origin.authorizations  # the connector did call its configured host
    leaked = [a for a in elsewhere.authorizations if a]
    assert leaked == [], f"{source_type} sent credentials to another host: {leaked}"
    assert summary.sources[0].error is not None  # and the run says it failed, rather than exiting 0


def test_a_token_echoed_by_the_vendor_never_reaches_stderr(tmp_path: Path, vendors: list[Vendor]) -> None:
    vendors.append(Vendor("400"))
    ws = _workspace(tmp_path, "slack", vendors[0].url)
    result = CliRunner().invoke(app, ["--config", str(ws.config), "ingest", "vendor"])
    assert result.exit_code != 0
    assert TOKEN in " ".join(vendors[0].authorizations)  # the server did echo it
    assert TOKEN not in result.output
    assert "[redacted]" in result.output or "HTTP 400" in result.output or "bad request" in result.output
    assert "Traceback" not in result.output


# ------------------------------------------------------------------------------------------------ terminals


HOSTILE = "title\x1b]0;pwned\x07 link\x1b]8;;http://evil/\x1b\\x\x1b]8;;\x1b\\ \x1b[2J\x1b[5mblink\x9b31m \u202eevil"


def test_neutralise_leaves_no_control_character() -> None:
    shown = neutralise(HOSTILE + "\nnext line\ttab")
    assert not any(ord(c) < 32 and c not in "\n\t" for c in shown)
    assert "\x9b" not in shown and "\u202e" not in shown
    assert "\\x1b]0;pwned" in shown and "next line\ttab" in shown


def test_the_console_never_writes_control_sequences_from_content() -> None:
    buffer = io.StringIO()
    console = SafeConsole(file=buffer, force_terminal=True, color_system="standard", width=200)
    console.print(f"[bold]{escape(HOSTILE)}[/] [link=https://ok.example]ok[/link]")
    console.print(HOSTILE, markup=False)
    written = buffer.getvalue()
    assert "\x1b]0;" not in written and "\x1b[2J" not in written and "\x1b[5m" not in written
    assert "\x07" not in written and "\x9b" not in written
    assert "\x1b[1m" in written  # Rich's own styling still works


@pytest.mark.slow
def test_rich_markup_in_file_paths_is_shown_not_interpreted(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "[").mkdir()
    (docs / "[link=http:").mkdir()
    (docs / "[link=http:" / "evil.example]click[").mkdir()
    for name in ("[/bold]crash.md", "[link=http://evil.example]click[/link].md"):
        (docs / name).write_bytes(b"\x00 binary")  # a failure whose reason names the path
    (docs / "fine.md").write_text("# Fine\n\nAll good.\n", encoding="utf-8")
    ws = Workspace(tmp_path / "ws", {"handbook": {"type": "files", "path": docs}})
    runner = CliRunner()
    ingest = runner.invoke(app, ["--config", str(ws.config), "ingest"])
    assert ingest.exit_code == 0, ingest.output
    assert "[/bold]crash.md" in ingest.output
    assert "[link=http:/evil.example]click[/link].md" in ingest.output
    sources = runner.invoke(app, ["--config", str(ws.config), "sources"])
    assert sources.exit_code == 0, sources.output
    assert "[/bold]crash.md" in sources.output
