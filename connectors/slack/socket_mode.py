"""Slack Socket Mode as an event stream for `brief serve`: the Events API over a WebSocket brief opens itself.

slack-sdk's built-in client asks `apps.connections.open` (with the app-level token, at the source's `base_url`)
for a WebSocket URL, connects, and reconnects on its own when the socket closes or Slack asks it to move (a
`disconnect` message). Each `events_api` envelope carries the payload the Events API would POST; it is read by
`connectors.slack.events.read` and stored through the server's one event path (raw cache, replay check, batch),
and acknowledged only once stored: Slack re-sends an envelope that was not acknowledged, and its event id makes a
second copy a duplicate. Envelopes are handled one at a time in the order they arrived. Other envelopes (slash
commands, interactivity) are acknowledged and dropped.
"""

from __future__ import annotations

import logging
from typing import Any

from briefing.errors import AuthError, SourceError
from briefing.model import CachedRecords, EventReader, OpenStream, StreamContext, WebhookEvent
from briefing.sources import redact
from connectors.slack import events
from connectors.slack.api import DEFAULT_BASE_URL
from connectors.slack.client import make_client

log = logging.getLogger(__name__)


def _reader(payload: Any, config: Any) -> EventReader:
    def read(cache: CachedRecords) -> WebhookEvent | None:
        return events.read(payload, cache, config)

    return read


def open_stream(ctx: StreamContext) -> OpenStream:
    """Connect with the app-level token and deliver each event until the stream returned is closed."""
    from slack_sdk.errors import SlackApiError
    from slack_sdk.socket_mode.builtin import SocketModeClient
    from slack_sdk.socket_mode.request import SocketModeRequest
    from slack_sdk.socket_mode.response import SocketModeResponse

    def on_request(client: Any, request: SocketModeRequest) -> None:
        try:
            stored = ctx.deliver(_reader(request.payload, ctx.config)) if request.type == "events_api" else True
        except Exception as exc:  # not stored: left unacknowledged, so Slack sends it again
            log.error("source %s: a Socket Mode event was not stored: %s", ctx.name, redact(f"{type(exc).__name__}"))
            return
        if not stored:
            return
        try:
            client.send_socket_mode_response(SocketModeResponse(envelope_id=request.envelope_id))
        except Exception as exc:  # the socket closed meanwhile: Slack re-sends the envelope, read as a duplicate
            log.info("source %s: an acknowledgement was lost (%s); Slack sends it again", ctx.name, type(exc).__name__)

    base_url = getattr(ctx.config, "base_url", None) or DEFAULT_BASE_URL
    web = make_client(base_url, ctx.token, ctx.config)
    # One worker: envelopes are stored in the order they came (an edit after the message it edits).
    client = SocketModeClient(app_token=ctx.token, web_client=web, logger=log, concurrency=1)
    client.socket_mode_request_listeners.append(on_request)
    try:
        client.connect()
    except SlackApiError as exc:
        client.close()
        error = exc.response.get("error") if exc.response is not None else None
        raise AuthError(
            f"serve.streams.{ctx.name}: Slack refused apps.connections.open ({error or 'no reason given'}): check "
            "the app-level token (xapp-..., scope connections:write) in the variable token_env names"
        ) from None
    except (OSError, ConnectionError) as exc:
        client.close()
        raise SourceError(
            f"serve.streams.{ctx.name}: the Socket Mode connection failed ({redact(str(exc))}): check "
            f"sources.{ctx.name}.base_url and the network, or retry later"
        ) from None
    return _Open(client)


class _Open:
    """The open Socket Mode client, as `brief serve` holds it."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def connected(self) -> bool:
        return bool(self._client.is_connected())

    def close(self) -> None:
        self._client.close()
