"""Where a served workspace's events come in: each source's webhook receiver, and each source's event stream.

`[serve.webhooks.<name>]` gives a source a receiver at `/hooks/<name>` and names the variable of its secret (and,
where its descriptor offers more than one, how requests are authenticated); `[serve.streams.<name>]` opens the
connection its vendor pushes events over (Slack Socket Mode) with the token its variable holds. A wrong source
name, a source type without the feature, or an unset variable is one line naming the key.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from typing import Any

from briefing import registry
from briefing.errors import ConfigError
from briefing.model import EventReader, EventStream, OpenStream, StreamContext, Webhook
from briefing.settings import Settings
from briefing.sources import SourceDescriptor, secret

log = logging.getLogger(__name__)
Deliver = Callable[[str, EventReader], bool]


def _load(dotted: str) -> Any:
    module, _, attr = dotted.partition(":")
    return getattr(importlib.import_module(module), attr)


def _descriptor(settings: Settings, key: str, name: str) -> SourceDescriptor:
    if name not in settings.sources:
        known = ", ".join(sorted(settings.sources)) or "none"
        raise ConfigError(f"{key}: there is no source '{name}' in [sources] (configured: {known})")
    return registry.descriptor(settings.sources[name].type)


def receivers(settings: Settings) -> dict[str, tuple[Webhook, str, str]]:
    """Each `[serve.webhooks.NAME]` source's receiver, its secret and its way of authenticating requests."""
    found: dict[str, tuple[Webhook, str, str]] = {}
    for name, hook in settings.serve.webhooks.items():
        key = f"serve.webhooks.{name}"
        described = _descriptor(settings, key, name)
        if described.webhook is None:
            raise ConfigError(f"{key}: {described.type} sources receive no webhooks: remove [{key}]")
        offered = ("default", *described.webhook_auth)
        if hook.auth not in offered:
            raise ConfigError(
                f"{key}.auth: '{hook.auth}' is not offered by {described.type} (one of: {', '.join(offered)})"
            )
        value = secret(hook.secret_env, setting=f"{key}.secret_env").get_secret_value()
        found[name] = (_load(described.webhook), value, hook.auth)
    return found


def check_streams(settings: Settings) -> dict[str, tuple[EventStream, str]]:
    """Each `[serve.streams.NAME]` source's stream opener and its token (nothing is opened yet)."""
    found: dict[str, tuple[EventStream, str]] = {}
    for name, stream in settings.serve.streams.items():
        key = f"serve.streams.{name}"
        described = _descriptor(settings, key, name)
        if described.stream is None:
            raise ConfigError(f"{key}: {described.type} sources push no events over a connection: remove [{key}]")
        token = secret(stream.token_env, setting=f"{key}.token_env").get_secret_value()
        found[name] = (_load(described.stream), token)
    return found


class Streams:
    """The open event streams of a served workspace, by source name."""

    def __init__(self) -> None:
        self.open: dict[str, OpenStream] = {}

    def states(self) -> dict[str, str]:
        """Each stream's state for `/healthz`: "connected" or "reconnecting"."""
        return {name: "connected" if s.connected() else "reconnecting" for name, s in self.open.items()}

    def close(self) -> None:
        while self.open:
            self.open.popitem()[1].close()


def open_streams(settings: Settings, deliver: Deliver) -> Streams:
    """Open every configured stream, each delivering through `deliver(source, reader)`; on a failure, close all."""
    streams = Streams()
    try:
        for name, (opener, token) in check_streams(settings).items():

            def to_source(read: EventReader, name: str = name) -> bool:
                return deliver(name, read)

            streams.open[name] = opener(StreamContext(name, settings.sources[name], token, to_source))
            log.info("source %s: event stream open", name)
    except BaseException:
        streams.close()
        raise
    return streams
