"""The readers `brief serve` can host beside its writer: the MCP tools over authenticated HTTP and the Slack bot.

Both read the index as any other reader does (the published generations, through their own `Brief` service), so
they see each batch once it is published, and keep their models warm for the process's life. Each runs on its
own port and thread; `start` returns the functions that stop them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from briefing.errors import ConfigError, InputError
from briefing.settings import Settings


@dataclass
class Companions:
    """What runs beside the writer, and where (ports are known once each listens)."""

    mcp_url: str | None = None
    slack_url: str | None = None
    stops: list[Callable[[], None]] = field(default_factory=list)

    def stop(self) -> None:
        while self.stops:
            self.stops.pop()()


def _mcp(settings: Settings, host: str, port: int, companions: Companions) -> None:
    import uvicorn

    from briefing.mcp_auth import authenticated_app, ensure_token
    from briefing.mcp_server import BriefTools, build_server

    tools = BriefTools(settings)
    token, _, _ = ensure_token(settings.home)
    config = uvicorn.Config(
        authenticated_app(build_server(settings, tools), token, host), host=host, port=port, log_level="warning"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="brief-serve-mcp", daemon=True)
    thread.start()
    while not server.started:  # uvicorn says when it listens; a failed bind ends the thread instead
        if not thread.is_alive():
            tools.close()
            raise InputError(f"serve.mcp_port: cannot listen on {host}:{port}: choose another port")
        time.sleep(0.01)
    bound: Any = server.servers[0].sockets[0].getsockname()
    companions.mcp_url = f"http://{host}:{bound[1]}/mcp"

    def stop() -> None:
        server.should_exit = True
        thread.join()
        tools.close()

    companions.stops.append(stop)


def _slack_bot(settings: Settings, companions: Companions) -> None:
    from briefing.slack_bot import EVENTS_PATH, SlackBot, read_secrets, serve_in_thread

    config = settings.slack_bot
    bot = SlackBot(settings, read_secrets(config))
    try:
        server = bot.http_server(config.host, config.port)
    except OSError as exc:
        bot.close()
        raise InputError(f"slack_bot.port: cannot listen on {config.host}:{config.port} ({exc.strerror})") from None
    stop_http = serve_in_thread(server)
    companions.slack_url = f"http://{config.host}:{server.server_port}{EVENTS_PATH}"

    def stop() -> None:
        stop_http()
        bot.close()

    companions.stops.append(stop)


def start(settings: Settings, host: str) -> Companions:
    """Start what `[serve] mcp_port` and `[serve] slack_bot` ask for; on a failure, stop what started."""
    companions = Companions()
    try:
        if settings.serve.mcp_port is not None:
            _mcp(settings, host, settings.serve.mcp_port, companions)
        if settings.serve.slack_bot:
            if settings.slack_bot.mode != "http":
                raise ConfigError(
                    'serve.slack_bot runs the bot\'s HTTP mode only: set slack_bot.mode = "http", or run '
                    "`brief slack-bot --mode socket` on its own"
                )
            _slack_bot(settings, companions)
    except BaseException:
        companions.stop()
        raise
    return companions
