"""`brief serve`: the long-running process of a workspace (webhooks in, batches published, health and metrics)."""

from __future__ import annotations

from typing import Annotated

import typer

from briefing.cli.common import cli_errors, err, load
from briefing.errors import InputError

LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def register(app: typer.Typer) -> None:
    @app.command(name="serve")
    @cli_errors
    def serve_command(
        host: Annotated[str | None, typer.Option(help="The address to listen on ([serve] host).")] = None,
        port: Annotated[int | None, typer.Option(help="The port ([serve] port; 0: any free one).")] = None,
        allow_remote: Annotated[
            bool, typer.Option("--allow-remote", help="Allow a non-loopback --host (put TLS in front of it).")
        ] = False,
    ) -> None:
        """Hold the workspace open: ingest webhook events as they happen, serve /healthz and /metrics.

        Events POSTed to /hooks/<source> (sources listed under [serve.webhooks], each naming the environment
        variable of its signing secret) are checked, and events pushed over a connection brief opens ([serve.streams]:
        Slack Socket Mode) are acknowledged once stored; both are written to the raw cache and published within
        [serve] publish_delay_s; the batch connectors run every [serve] sync_every_s. SIGTERM or Ctrl-C publishes
        what was accepted and exits 0. While it runs it is the workspace's only writer; asks keep working.

        Examples: `brief serve`; `brief serve --port 8780` (then point GitHub at http://HOST:8780/hooks/gh).
        """
        from briefing.serve.process import Server, run_until_signalled

        settings = load()
        bind = host or settings.serve.host
        if bind not in LOOPBACK and not allow_remote:
            raise InputError(
                f"--host {bind} is not a loopback address: webhooks would arrive in clear text; add --allow-remote "
                "only behind a TLS proxy"
            )
        server = Server(settings, host=bind, port=port)

        def ready(running: Server) -> None:
            hooks = ", ".join(f"/hooks/{n}" for n in settings.serve.webhooks) or "none ([serve.webhooks])"
            streams = ", ".join(settings.serve.streams) or "none ([serve.streams])"
            err.print(
                f"brief serve on {running.url} (Ctrl-C stops it): /healthz, /metrics, webhooks: {hooks}, "
                f"event streams: {streams}",
                highlight=False,
            )
            for what, url in (("MCP", running.companions.mcp_url), ("Slack bot", running.companions.slack_url)):
                if url:
                    err.print(f"{what} on {url}", highlight=False)

        try:
            code = run_until_signalled(server, ready)
        except OSError as exc:
            raise InputError(
                f"--port {server.port}: cannot listen on {bind} ({exc.strerror}): choose another"
            ) from None
        raise typer.Exit(code)
