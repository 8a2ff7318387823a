"""`brief slack-bot`: answer @-mentions and direct messages in Slack from the index (briefing.slack_bot)."""

from __future__ import annotations

import os
from enum import StrEnum
from typing import Annotated

import typer

from briefing.cli.common import cli_errors, err, load


class Mode(StrEnum):
    http = "http"
    socket = "socket"


def register(app: typer.Typer) -> None:
    @app.command(name="slack-bot")
    @cli_errors
    def slack_bot_command(
        mode: Annotated[
            Mode | None, typer.Option("--mode", help="http (events POSTed to /slack/events) or socket (Socket Mode).")
        ] = None,
        host: Annotated[str | None, typer.Option(help="HTTP: the address to listen on ([slack_bot] host).")] = None,
        port: Annotated[int | None, typer.Option(help="HTTP: the port to listen on ([slack_bot] port).")] = None,
        now: Annotated[str | None, typer.Option("--now", help="Fix 'now' (ISO-8601; or BRIEF_NOW), for demos.")] = None,
    ) -> None:
        """Answer @-mentions and DMs in Slack with cited answers from the index, threaded, with permalinks.

        The bot token and the signing secret (HTTP) or app token (Socket Mode) come from the environment variables
        that [slack_bot] names (SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET, SLACK_APP_TOKEN by default).

        Examples: `brief slack-bot` (HTTP events on http://127.0.0.1:3000/slack/events, behind your HTTPS proxy);
        `brief slack-bot --mode socket` (no public URL needed).
        """
        from briefing.errors import InputError
        from briefing.service import parse_now
        from briefing.slack_bot import EVENTS_PATH, SlackBot, read_secrets

        settings = load()
        if mode is not None:
            settings.slack_bot.mode = mode.value
        config = settings.slack_bot
        moment = now or os.environ.get("BRIEF_NOW")
        if moment:
            parse_now(moment)  # a bad value is an error now, not in every answer
        secrets = read_secrets(config)
        bot = SlackBot(settings, secrets, now=moment)
        try:
            if config.mode == "socket":
                assert secrets.app_token is not None
                err.print("brief Slack bot connected over Socket Mode (Ctrl-C stops it)", highlight=False)
                bot.serve_socket_mode(secrets.app_token)
                return
            bind, listen = host or config.host, config.port if port is None else port
            try:
                server = bot.http_server(bind, listen)
            except OSError as exc:
                raise InputError(f"--port {listen}: cannot listen on {bind} ({exc.strerror}): choose another") from None
            err.print(
                f"brief Slack bot: events at http://{bind}:{server.server_port}{EVENTS_PATH} (Ctrl-C stops it)",
                highlight=False,
            )
            try:
                server.serve_forever()
            finally:
                server.server_close()
        finally:
            bot.close()
