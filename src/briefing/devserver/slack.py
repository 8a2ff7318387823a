"""A local Slack Web API for tests and `brief demo`: auth.test, users.list, conversations.list/history/replies/
members, chat.postMessage, chat.update.

Messages are stored flat per channel (roots, replies, broadcasts), as an export holds them; the server derives
`reply_count`, `latest_reply` and `reply_users` for roots, hides plain replies from the history as Slack does
(broadcasts stay), pages every list with `response_metadata.next_cursor`, and answers `invalid_auth` for any
token but its own. Switches for failure tests: `rate_limit` (how many calls answer HTTP 429 with `Retry-After`
before it recovers) and `broken` (channel ids whose history comes back with one message missing its `ts`).
Every request lands in `log`; every message posted through chat.postMessage also lands in `posted`, and every
edit through chat.update in `updated`; `wait_for` blocks until a condition on the fake holds (a bot's reply).
"""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

JSON = dict[str, Any]
TOKEN = "xoxb-test-token"
APP_TOKEN = "xapp-1-A111-test-token"  # an app-level token: only `apps.connections.open` takes it
# auth.test's team when none is given (exports carry no team URL, so `serve_sample` passes the sample's).
DEFAULT_TEAM: JSON = {"url": "https://acme-eng.slack.com/", "team": "Acme Engineering", "team_id": "T01ACME"}
# Fields an export carries that the Web API no longer returns (`replies` was dropped from history in 2019).
_EXPORT_ONLY = ("replies",)


@dataclass
class Request:
    """One API call as the server saw it."""

    method: str
    params: dict[str, str]


@dataclass
class SlackFake:
    """State and behaviour of the fake; `start()` serves it on 127.0.0.1 and returns the API base URL."""

    users: list[JSON]
    channels: list[JSON]
    messages: dict[str, list[JSON]]
    token: str = TOKEN
    app_token: str = APP_TOKEN
    socket_url: str = ""  # what `apps.connections.open` answers: a Socket Mode server's ws:// URL ("" none)
    team: JSON = field(default_factory=lambda: dict(DEFAULT_TEAM))
    page_size: int = 2  # small, so that paging is exercised with tiny fixtures; Slack's own cap is 1000
    rate_limit: int = 0
    retry_after: int = 0
    broken: set[str] = field(default_factory=set)
    log: list[Request] = field(default_factory=list)
    posted: list[JSON] = field(default_factory=list)
    updated: list[JSON] = field(default_factory=list)
    url: str = ""
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _changed: threading.Condition = field(default_factory=threading.Condition)

    @classmethod
    def from_fixture(cls, path: Path) -> SlackFake:
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(users=data["users"], channels=data["channels"], messages=data["messages"])

    @classmethod
    def from_export(cls, folder: Path, **kwargs: Any) -> SlackFake:
        """Serve an unzipped export: channels.json, users.json and each channel's `<name>/<date>.json` days.

        The app is taken to be a member of every listed channel, so a config without `channels` reads them all.
        """
        channels = json.loads((folder / "channels.json").read_text(encoding="utf-8"))
        users_file = folder / "users.json"
        users = json.loads(users_file.read_text(encoding="utf-8")) if users_file.is_file() else []
        messages: dict[str, list[JSON]] = {}
        for channel in channels:
            channel.setdefault("is_channel", True)
            channel.setdefault("is_private", False)
            channel.setdefault("is_member", True)
            days = sorted((folder / channel["name"]).glob("*.json"))
            flat = [m for day in days for m in json.loads(day.read_text(encoding="utf-8")) if isinstance(m, dict)]
            messages[channel["id"]] = [{k: v for k, v in m.items() if k not in _EXPORT_ONLY} for m in flat]
        return cls(users=users, channels=channels, messages=messages, **kwargs)

    # ---------------------------------------------------------------- changes the tests make at the "source"

    def post(self, channel: str, message: JSON) -> None:
        self.messages.setdefault(channel, []).append(message)

    def edit(self, channel: str, ts: str, text: str, edited_ts: str) -> None:
        message = self._find(channel, ts)
        message["text"] = text
        message["edited"] = {"user": message.get("user", ""), "ts": edited_ts}

    def delete(self, channel: str, ts: str) -> None:
        self.messages[channel] = [m for m in self.messages[channel] if m.get("ts") != ts]

    def _find(self, channel: str, ts: str) -> JSON:
        return next(m for m in self.messages[channel] if m.get("ts") == ts)

    def wait_for(self, condition: Callable[[SlackFake], bool], timeout: float = 60.0) -> bool:
        """Block until `condition(self)` holds after a post or an edit (or `timeout` seconds pass); its last value."""
        with self._changed:
            return self._changed.wait_for(lambda: condition(self), timeout)

    def _notify(self) -> None:
        with self._changed:
            self._changed.notify_all()

    def calls(self, method: str, **params: str) -> list[Request]:
        return [r for r in self.log if r.method == method and all(r.params.get(k) == v for k, v in params.items())]

    # ---------------------------------------------------------------- serving

    def start(self) -> str:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                self._handle()

            def do_POST(self) -> None:  # noqa: N802
                self._handle()

            def log_message(self, format: str, *args: Any) -> None:  # quiet test output
                return

            def _handle(self) -> None:
                url = urlparse(self.path)
                params = {k: v[-1] for k, v in parse_qs(url.query).items()}
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    body = self.rfile.read(length).decode()
                    if self.headers.get("Content-Type", "").startswith("application/json"):
                        params.update({k: str(v) for k, v in json.loads(body).items()})
                    else:
                        params.update({k: v[-1] for k, v in parse_qs(body).items()})
                method = url.path.rsplit("/", 1)[-1]
                status, payload, headers = fake.answer(method, params, self.headers.get("Authorization", ""))
                raw = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(raw)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(raw)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/api/"
        return self.url

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    # ---------------------------------------------------------------- the API

    def answer(self, method: str, params: dict[str, str], authorization: str) -> tuple[int, JSON, dict[str, str]]:
        with self._lock:
            self.log.append(Request(method, params))
            if self.rate_limit:
                self.rate_limit -= 1
                return 429, {"ok": False, "error": "ratelimited"}, {"Retry-After": str(self.retry_after)}
        if method == "apps.connections.open":  # Socket Mode: the app-level token, never the bot token
            if authorization != f"Bearer {self.app_token}":
                return 200, {"ok": False, "error": "invalid_auth"}, {}
            return (
                200,
                {"ok": True, "url": self.socket_url} if self.socket_url else {"ok": False, "error": "not_allowed"},
                {},
            )
        if authorization != f"Bearer {self.token}":
            return 200, {"ok": False, "error": "invalid_auth"}, {}
        handler = {
            "auth.test": self._auth_test,
            "users.list": self._users_list,
            "conversations.list": self._conversations_list,
            "conversations.history": self._history,
            "conversations.replies": self._replies,
            "conversations.members": self._members,
            "chat.postMessage": self._post_message,
            "chat.update": self._update_message,
        }.get(method)
        if handler is None:
            return 404, {"ok": False, "error": "unknown_method"}, {}
        return 200, handler(params), {}

    def _auth_test(self, params: dict[str, str]) -> JSON:
        return {
            "ok": True,
            **self.team,
            "user": "brief",
            "user_id": "U0BRIEF",
            "bot_id": "B0BRIEF",
            "is_enterprise_install": False,
        }

    def _page(self, entries: list[JSON], params: dict[str, str], key: str, **extra: Any) -> JSON:
        start = int(params.get("cursor") or 0)
        size = min(int(params.get("limit") or self.page_size), self.page_size)
        page = entries[start : start + size]
        more = start + size < len(entries)
        return {
            "ok": True,
            key: page,
            **extra,
            **({"has_more": more} if key == "messages" else {}),
            "response_metadata": {"next_cursor": str(start + size) if more else ""},
        }

    def _users_list(self, params: dict[str, str]) -> JSON:
        return self._page(copy.deepcopy(self.users), params, "members", cache_ts=1778000000)

    def _conversations_list(self, params: dict[str, str]) -> JSON:
        types = set((params.get("types") or "public_channel").split(","))

        def kind(c: JSON) -> str:
            if c.get("is_im"):
                return "im"
            if c.get("is_mpim"):
                return "mpim"
            return "private_channel" if c.get("is_private") else "public_channel"

        return self._page([copy.deepcopy(c) for c in self.channels if kind(c) in types], params, "channels")

    def _members(self, params: dict[str, str]) -> JSON:
        """conversations.members: a channel's `members` (the fixture's list; change it to move someone out)."""
        channel = next((c for c in self.channels if c.get("id") == params.get("channel")), None)
        if channel is None:
            return {"ok": False, "error": "channel_not_found"}
        return self._page(list(channel.get("members") or []), params, "members")

    def _with_thread_fields(self, channel: str, message: JSON) -> JSON:
        out = copy.deepcopy(message)
        replies = [m for m in self.messages.get(channel, []) if m.get("thread_ts") == message.get("ts") != m["ts"]]
        if replies:
            out["thread_ts"] = message["ts"]
            out["reply_count"] = len(replies)
            out["reply_users"] = list(dict.fromkeys(r.get("user", "") for r in replies))
            out["reply_users_count"] = len(out["reply_users"])
            out["latest_reply"] = max((r["ts"] for r in replies), key=float)
        return out

    def _history(self, params: dict[str, str]) -> JSON:
        channel = params.get("channel", "")
        if channel not in self.messages:
            return {"ok": False, "error": "channel_not_found"}
        oldest = float(params.get("oldest") or 0)
        latest = float(params.get("latest") or 9e12)
        top = [
            self._with_thread_fields(channel, m)
            for m in self.messages[channel]
            if m.get("thread_ts") in (None, m.get("ts")) or m.get("subtype") == "thread_broadcast"
        ]
        top = [m for m in top if oldest < float(m["ts"]) < latest]
        top.sort(key=lambda m: float(m["ts"]), reverse=True)
        if channel in self.broken and top:
            top[0] = {k: v for k, v in top[0].items() if k != "ts"}
        return self._page(top, params, "messages", pin_count=0)

    def _post_message(self, params: dict[str, str]) -> JSON:
        """As Slack: `channel` is an id, a `#name` or a user id (a DM opens); `text` or `blocks` is required."""
        target = params.get("channel", "")
        if not target:
            return {"ok": False, "error": "channel_not_found"}
        if not (params.get("text") or params.get("blocks") or params.get("attachments")):
            return {"ok": False, "error": "no_text"}
        by_name = {c.get("name"): c["id"] for c in self.channels}
        if target.startswith("#"):
            if target[1:] not in by_name:
                return {"ok": False, "error": "channel_not_found"}
            channel = by_name[target[1:]]
        elif target.startswith(("U", "W", "D")):
            # A user id opens (or a D id names) the DM with that user: D + the user id's tail, in this fake.
            if not any(u.get("id", "")[1:] == target[1:] for u in self.users):
                return {"ok": False, "error": "channel_not_found"}
            channel = "D" + target[1:]
        elif target in self.messages or any(c["id"] == target for c in self.channels):
            channel = target
        else:
            return {"ok": False, "error": "channel_not_found"}
        with self._lock:
            newest = max((float(m["ts"]) for ms in self.messages.values() for m in ms if "ts" in m), default=1.7e9)
            ts = f"{int(newest) + 1}.000100"
            message = {
                "type": "message",
                "user": "U0BRIEF",
                "bot_id": "B0BRIEF",
                "text": params.get("text", ""),
                "ts": ts,
            }
            if params.get("thread_ts"):
                message["thread_ts"] = params["thread_ts"]
            self.messages.setdefault(channel, []).append(message)
            self.posted.append({**params, "channel": channel, "ts": ts})
        self._notify()
        return {"ok": True, "channel": channel, "ts": ts, "message": message}

    def _update_message(self, params: dict[str, str]) -> JSON:
        """As Slack: the app may edit only its own message, found by `channel` id and `ts`; `text` replaces it."""
        channel, ts = params.get("channel", ""), params.get("ts", "")
        if channel not in self.messages:
            return {"ok": False, "error": "channel_not_found"}
        with self._lock:
            message = next((m for m in self.messages[channel] if m.get("ts") == ts), None)
            if message is None:
                return {"ok": False, "error": "message_not_found"}
            if message.get("bot_id") != "B0BRIEF":
                return {"ok": False, "error": "cant_update_message"}
            if not (params.get("text") or params.get("blocks")):
                return {"ok": False, "error": "no_text"}
            message["text"] = params.get("text", "")
            message["edited"] = {"user": "U0BRIEF", "ts": ts}
            self.updated.append({**params, "channel": channel})
        self._notify()
        return {"ok": True, "channel": channel, "ts": ts, "text": message["text"], "message": copy.deepcopy(message)}

    def _replies(self, params: dict[str, str]) -> JSON:
        channel, ts = params.get("channel", ""), params.get("ts", "")
        thread = [m for m in self.messages.get(channel, []) if m.get("ts") == ts or m.get("thread_ts") == ts]
        if not thread:
            return {"ok": False, "error": "thread_not_found"}
        thread = [self._with_thread_fields(channel, m) if m["ts"] == ts else copy.deepcopy(m) for m in thread]
        # Like Slack: `oldest` (exclusive) bounds the replies, and the parent message is always returned.
        oldest = float(params.get("oldest") or 0)
        thread = [m for m in thread if m["ts"] == ts or float(m["ts"]) > oldest]
        thread.sort(key=lambda m: float(m["ts"]))
        return self._page(thread, params, "messages")
