"""`brief slack-bot`: answers @-mentions and direct messages in Slack from the workspace's index (slack-bolt).

One question is one `ask` over the same index and answer path as `brief ask`. The bot first posts a placeholder
("searching...") in the thread, then replaces it in place (chat.update) with the cited answer; each `[n]` links to
the cited item's permalink (the unit's URL: a Slack message, a ticket, a page) and the sources follow as a list.

Events arrive over HTTP (Bolt's request verification checks every request's signature with the signing secret)
or over Socket Mode (an app-level token, no public URL). Tokens and secrets are read from the environment variables
`[slack_bot]` names and are never logged. Ingested text quoted in an answer is escaped for Slack (`<`, `>` and
`&`), so a quoted `<!channel>` or a link label cannot notify anyone or disguise a link; a bare `@here` gets a word
joiner after its `@`.

Access scopes: each question is answered as the asking user, found in the people directory by their Slack user id
(an identity `<source>/slack:<user id>` of any configured source), so the evidence is what they may read
(briefing.access); a user the directory does not know gets no answer (fail closed), never the owner's view.
"""

from __future__ import annotations

import logging
import os
import re
import socketserver
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from briefing.errors import AuthError, BriefError, NotConfiguredError
from briefing.settings import Settings, SlackBotSettings
from briefing.sources import redact, remember_secret

if TYPE_CHECKING:
    from slack_bolt import App

    from briefing.mcp_server import BriefTools

log = logging.getLogger("briefing.slack_bot")

PLACEHOLDER = "searching the index..."
EVENTS_PATH = "/slack/events"
MAX_TEXT = 3500  # Slack truncates long messages; answers are far shorter, quoted sources are cut here
HINT = 'Ask me about your team\'s work, e.g. "what did we decide about connection pooling?"'

_MENTION = re.compile(r"<@([UW][A-Z0-9]+)(?:\|[^>]*)?>")
_CHANNEL = re.compile(r"<#[CG][A-Z0-9]+\|([^>]*)>")
_LINK = re.compile(r"<((?:https?|mailto):[^|>]+)(?:\|([^>]*))?>")
_SPECIAL = re.compile(r"<!([a-z]+)(?:\^[^|>]*)?(?:\|([^>]*))?>")
_MARKER = re.compile(r"\[(\d+)\]")


def question_text(text: str, bot_user: str | None) -> str:
    """The question in a Slack message: the bot's mention removed, Slack's link and entity syntax as plain text."""
    text = _MENTION.sub(lambda m: "" if m.group(1) == bot_user else f"@{m.group(1)}", text)
    text = _CHANNEL.sub(lambda m: f"#{m.group(1)}", text)
    text = _LINK.sub(lambda m: m.group(2) or m.group(1), text)
    text = _SPECIAL.sub(lambda m: m.group(2) or f"@{m.group(1)}", text)
    text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return " ".join(text.split())


def slack_escape(text: str) -> str:
    """Text as Slack shows it literally: no control characters, and no mentions, channel pings or links can be
    formed from it."""
    from briefing.ops.safe import neutralise, no_broadcast

    return no_broadcast(neutralise(text)).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _link(url: str | None) -> str | None:
    """A URL usable inside `<url|label>`: http(s) only, without the characters that would end the link."""
    if not url or not url.startswith(("https://", "http://")) or any(c in url for c in "<>| \n"):
        return None
    return url


def render_answer(result: dict[str, Any]) -> str:
    """An `ask` result (its JSON form) as Slack mrkdwn: `[n]` linked to the cited permalink, then the sources."""
    links = {c["n"]: _link(c.get("url")) for c in result.get("citations", [])}
    answer = slack_escape(result.get("answer", ""))
    if len(answer) > MAX_TEXT:
        answer = answer[:MAX_TEXT].rstrip() + "..."

    def marker(match: re.Match[str]) -> str:
        url = links.get(int(match.group(1)))
        return f"<{url}|[{match.group(1)}]>" if url else match.group(0)

    lines = [_MARKER.sub(marker, answer)]
    if result.get("citations") and not result.get("no_answer"):
        lines.append("")
        lines.append("*Sources*")
        for citation in result["citations"]:
            label = slack_escape(", ".join(citation.get("refs") or ()) or f"source {citation['n']}")
            url = links.get(citation["n"])
            lines.append(f"[{citation['n']}] <{url}|{label}>" if url else f"[{citation['n']}] `{label}`")
    return "\n".join(lines)


UNKNOWN_USER = (
    "I can only answer people this workspace's directory knows, and you are not in it yet: ask the owner to ingest "
    "the Slack workspace you are in (or to add you under [people.aliases])."
)


def person_for(settings: Settings, user_id: str) -> str | None:
    """The person id of the Slack user `user_id` in the people directory, or None (then the bot does not answer)."""
    from briefing import people

    if not user_id:
        return None
    keys = {f"{name}/{who}" for name in settings.sources for who in (f"slack:{user_id}", user_id)}
    for record in people.records_for(settings):
        if any(identity.key in keys for identity in record.identities):
            return record.id
    return None


@dataclass(frozen=True)
class Secrets:
    token: str
    signing_secret: str | None
    app_token: str | None


def read_secrets(config: SlackBotSettings) -> Secrets:
    """The bot's token and the secret its mode needs, from the environment; a one-line error naming the variable."""

    def need(name: str, what: str) -> str:
        value = os.environ.get(name, "").strip()
        if not value:
            raise NotConfiguredError(
                f"[slack_bot] {what}: the environment variable {name} is not set: export it (or name another "
                f"variable in [slack_bot] of the config)"
            )
        remember_secret(value)
        return value

    token = need(config.token_env, "token_env")
    if config.mode == "socket":
        return Secrets(token, None, need(config.app_token_env, "app_token_env"))
    return Secrets(token, need(config.signing_secret_env, "signing_secret_env"), None)


class SlackBot:
    """The Bolt app and its two listeners, answering through `tools` (the MCP server's read-only tool bodies)."""

    def __init__(
        self,
        settings: Settings,
        secrets: Secrets,
        *,
        tools: BriefTools | None = None,
        now: str | None = None,
    ) -> None:
        from slack_bolt import App
        from slack_bolt.error import BoltError

        from briefing.mcp_server import BriefTools
        from briefing.safe_http import web_client

        self.settings = settings
        self.config = settings.slack_bot
        self.tools = tools or BriefTools(settings)
        self.now = now
        client = web_client(secrets.token, self.config.base_url)  # no token to another host on a redirect
        try:
            self.app: App = App(
                client=client,
                signing_secret=secrets.signing_secret or "socket-mode",  # Socket Mode requests are not signed
                logger=log,
                # Ack at once and answer on Bolt's worker threads: Slack retries an event not acked within 3 s.
                process_before_response=False,
            )
        except BoltError as exc:
            raise AuthError(
                f"[slack_bot] the bot token was refused ({redact(str(exc))}): check {self.config.token_env}"
            ) from None
        self._seen: dict[str, None] = {}
        self._seen_lock = threading.Lock()
        self.app.event("app_mention")(self._on_mention)
        self.app.event("message")(self._on_message)

    # -- listeners --------------------------------------------------------------------------------------------
    def _first_time(self, body: dict[str, Any], event: dict[str, Any]) -> bool:
        """False for an event already answered: Slack's retries and a replayed signed request carry the same
        event id (and the same message), and a second answer would repeat the work or the leak."""
        keys = {f"event:{body.get('event_id') or ''}", f"msg:{event.get('channel')}:{event.get('ts')}"}
        with self._seen_lock:
            if keys & set(self._seen):
                return False
            for key in keys:
                self._seen[key] = None
            while len(self._seen) > 10_000:
                self._seen.pop(next(iter(self._seen)))
        return True

    def _on_mention(self, body: dict[str, Any], event: dict[str, Any], client: Any, context: Any) -> None:
        if self._first_time(body, event):
            self.answer(client, event, bot_user=context.bot_user_id, thread=True)

    def _on_message(self, body: dict[str, Any], event: dict[str, Any], client: Any, context: Any) -> None:
        # Only direct messages: in channels a mention is answered by `_on_mention`; edits, joins and bots are skipped.
        if event.get("channel_type") != "im" or event.get("subtype") or event.get("bot_id"):
            return
        if self._first_time(body, event):
            self.answer(client, event, bot_user=context.bot_user_id, thread=bool(event.get("thread_ts")))

    def answer(self, client: Any, event: dict[str, Any], *, bot_user: str | None, thread: bool) -> None:
        channel = event["channel"]
        thread_ts = (event.get("thread_ts") or event["ts"]) if thread else None
        question = question_text(event.get("text", ""), bot_user)
        if not question:
            client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=HINT)
            return
        placeholder = client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=PLACEHOLDER)
        # Anywhere but a one-to-one DM others read the answer: it may quote only what every member may read.
        shared = not (event.get("channel_type") == "im" or str(channel).startswith("D"))
        text = self.reply(question, event.get("user", ""), shared=shared)
        client.chat_update(channel=placeholder["channel"], ts=placeholder["ts"], text=text)

    def reply(self, question: str, user_id: str, *, shared: bool = False) -> str:
        """The reply's text for `question` asked by Slack user `user_id`, from what they may read; an error becomes
        one line the user can act on."""
        log.info("question from %s (%d characters)", user_id or "an unknown user", len(question))
        try:
            person = person_for(self.settings, user_id)
            if person is None:
                return UNKNOWN_USER
            result = self.tools.ask(question, k=self.config.k, now=self.now, acting_as=person, shared=shared)
        except BriefError as exc:
            return f"I could not answer: {slack_escape(redact(str(exc)))}"
        except Exception:
            log.exception("answering failed")
            return "I could not answer: an internal error (the bot's log has the details)."
        return render_answer(result)

    # -- serving ----------------------------------------------------------------------------------------------
    def http_server(self, host: str, port: int) -> WSGIServer:
        """A threaded WSGI server with Bolt's handler at /slack/events (call `serve_forever`)."""
        from slack_bolt.adapter.wsgi import SlackRequestHandler

        handler = SlackRequestHandler(self.app, path=EVENTS_PATH)
        return make_server(host, port, handler, server_class=_ThreadingWSGIServer, handler_class=_QuietHandler)

    def serve_socket_mode(self, app_token: str) -> None:
        from slack_bolt.adapter.socket_mode import SocketModeHandler

        SocketModeHandler(self.app, app_token).start()  # type: ignore[no-untyped-call]

    def close(self) -> None:
        self.tools.close()


class _ThreadingWSGIServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    """Access lines go to the bot's logger (at debug), never to stderr with the request's query string."""

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), redact(format % args))


def serve_in_thread(server: WSGIServer) -> Callable[[], None]:
    """Serve `server` on a daemon thread; the returned function stops it (for tests and embedding)."""
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()

    def stop() -> None:
        server.shutdown()
        server.server_close()
        thread.join(10)

    return stop
