"""`brief mcp`: serve the workspace's read-only tools over the Model Context Protocol (stdio or streamable HTTP)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from briefing.cli.common import AsOpt, cli_errors, err, load
from briefing.errors import InputError

LOOPBACK = {"127.0.0.1", "localhost", "::1"}


class Transport(StrEnum):
    stdio = "stdio"
    http = "http"


def register(app: typer.Typer) -> None:
    @app.command(name="mcp")
    @cli_errors
    def mcp_command(
        transport: Annotated[Transport, typer.Option("--transport", "-t", help="stdio, or streamable HTTP.")] = (
            Transport.stdio
        ),
        host: Annotated[str, typer.Option(help="HTTP: the address to listen on.")] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="HTTP: the port to listen on.")] = 8765,
        allow_remote: Annotated[
            bool,
            typer.Option("--allow-remote", help="HTTP: allow a non-loopback --host (use TLS in front of it)."),
        ] = False,
        as_person: AsOpt = None,
    ) -> None:
        """Serve search, ask, digest, timeline, get_item, list_sources and list_people to an MCP client.

        Examples: `brief mcp` (stdio, for a client that launches it); `brief mcp -t http --port 8765` (then point
        the client at http://127.0.0.1:8765/mcp with `Authorization: Bearer <BRIEF_HOME/mcp-token>`).
        """
        from briefing.mcp_server import build_server

        if transport is Transport.http and host not in LOOPBACK and not allow_remote:
            raise InputError(
                f"--host {host} is not a loopback address: the bearer token would cross the network in clear "
                "text; add --allow-remote only behind a TLS proxy"
            )
        settings = load(as_person)
        server = build_server(settings)
        if transport is Transport.stdio:
            server.run("stdio")
            return
        import uvicorn

        from briefing.mcp_auth import authenticated_app, ensure_token

        token, path, made = ensure_token(settings.home)
        err.print(
            f"brief MCP server on http://{host}:{port}/mcp (Ctrl-C stops it); every request needs "
            f"Authorization: Bearer <the token in {path}>" + (" (made now)" if made else ""),
            highlight=False,
        )
        uvicorn.run(authenticated_app(server, token, host), host=host, port=port, log_level="warning")
