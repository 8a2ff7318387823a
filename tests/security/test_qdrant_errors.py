"""`[qdrant] url` pointing at nothing or at a web server that is not Qdrant: one line and exit 9, no traceback."""

from __future__ import annotations

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
from briefing.errors import IndexError_


class _NotFound(BaseHTTPRequestHandler):
    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        body = b"<html>404 Not Found</html>"
        self.send_response(404)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _answer  # noqa: N815

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def web_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _NotFound)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _closed_port() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def _config(tmp_path: Path, url: str) -> Path:
    (tmp_path / "docs").mkdir(exist_ok=True)
    (tmp_path / "docs" / "a.md").write_text("# Plan\n\nThe rollout starts Monday.\n")
    config = tmp_path / "brief.toml"
    config.write_text(
        f'[workspace]\nname = "q"\n[qdrant]\nurl = "{url}"\ntimeout_s = 5\n'
        '[sources.handbook]\ntype = "files"\npath = "docs"\n'
    )
    return config


@pytest.mark.parametrize("server", ["404", "nothing"])
@pytest.mark.parametrize("command", [["search", "rollout"], ["ingest"]])
@pytest.mark.slow
def test_a_bad_qdrant_url_is_one_line_and_exit_9(
    tmp_path: Path, web_server: str, server: str, command: list[str]
) -> None:
    url = web_server if server == "404" else _closed_port()
    result = CliRunner().invoke(app, ["--config", str(_config(tmp_path, url)), *command])
    assert result.exit_code == IndexError_.exit_code, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    error = [line for line in lines if "[qdrant] url" in line]
    assert len(error) == 1 and url in error[0], result.output
    assert "Traceback" not in result.output and "reindex --full" not in result.output
    assert ("HTTP 404" in error[0]) == (server == "404")


def test_doctor_says_the_server_is_down_not_damaged(tmp_path: Path) -> None:
    url = _closed_port()
    result = CliRunner().invoke(app, ["--config", str(_config(tmp_path, url)), "doctor", "--offline", "--json"])
    index = [f for f in json.loads(result.stdout)["findings"] if f["check"] == "index"]
    assert index and index[0]["exit_code"] == IndexError_.exit_code and url in index[0]["message"]
    assert "reindex" not in index[0]["fix"] and "start the Qdrant server" in index[0]["fix"]
