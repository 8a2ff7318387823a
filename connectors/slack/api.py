"""Slack Web API connector (slack-sdk WebClient): channels, users, history and threads, incrementally.

Per channel the cursor keeps the newest top-level `ts` seen, the top-level messages of the rescan window, and
every thread it knows within the thread horizon. Each run:

- re-reads the rescan window (`rescan_days`), measured back from the channel's own newest message when that is
  older than the clock, so a channel that went quiet still has its last messages re-read: edits replace cached
  messages, and messages missing from the window (or announced by `message_deleted`) go to `Batch.deleted`;
- re-reads in full (`conversations.replies`) every thread whose `latest_reply` or `reply_count` changed;
- re-polls known threads older than the window but within `thread_horizon_days` (counted back from the newer of
  the clock and the channel's newest message) with `oldest` at the last reply seen: one cheap call that finds a
  late reply, after which the thread is re-read in full and reconciled (deleted replies leave the cache). At most
  `thread_polls_per_run` such polls per run, most recently active threads first, and each thread again only
  after a pause that grows with its age, so old threads are polled least often.

The cursor records the run's API calls (`api_calls`, `thread_polls`). One batch per channel: its cursor is
valid once its records are stored.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeGuard, TypeVar

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackClientError

from briefing.errors import AuthError, RateLimitedError, SourceError
from briefing.model import JSON, Batch, Cursor, Failure, Normalised, RawRecord
from briefing.registry import FetchOptions, SourceContext
from briefing.sources import remember_secret, secret
from connectors.slack import SlackSource
from connectors.slack.api_state import ChannelState, SlackCursor, ThreadState, due_polls, last_activity
from connectors.slack.checks import channel_problem, message_problem, user_problem, valid_ts
from connectors.slack.client import make_client
from connectors.slack.normalise import normalise_records

DEFAULT_BASE_URL = "https://slack.com/api/"
_AUTH_ERRORS = {"invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired"}
_PAGE = 200
T = TypeVar("T")


class SlackConnector:
    """Collects one Slack workspace through a WebClient handed in by `build` (or by a test)."""

    def __init__(
        self,
        client: WebClient,
        config: SlackSource,
        *,
        name: str = "slack",
        options: FetchOptions | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.client = client
        self.config = config
        self.name = name
        self.options = options or FetchOptions()
        self.clock = clock
        self.workspace_url: str | None = None
        self.calls = 0
        self.polls = 0
        remember_secret(getattr(client, "token", None))  # a vendor error may echo it back: errors redact it

    def initial_cursor(self) -> SlackCursor:
        return SlackCursor()

    def load_cursor(self, data: JSON) -> SlackCursor:
        return SlackCursor.model_validate(data)

    # ------------------------------------------------------------------------------------------ API

    def _call(self, method: str, **params: Any) -> JSON:
        self.calls += 1
        try:
            response = self.client.api_call(method, http_verb="GET", params=params)
        except SlackApiError as exc:
            status = exc.response.status_code
            error = str(exc.response.get("error", "")) if isinstance(exc.response.data, dict) else ""
            if error in _AUTH_ERRORS or status == 401:
                setting = f"sources.{self.name}.token_env"
                env = self.config.token_env or "(unset)"
                raise AuthError(
                    f"Slack rejected the token from {env} ({setting}): {error or status}; "
                    "export a valid bot or user token there"
                ) from None
            if status == 429:
                raise RateLimitedError(
                    f"Slack kept rate limiting {method} after {self.config.max_retries} retries: run again later"
                ) from None
            raise _ChannelError(error or f"HTTP {status}") from None
        except SlackClientError as exc:
            raise SourceError(f"Slack at {self.client.base_url} could not be reached: {exc}") from None
        data = response.data
        if not isinstance(data, dict):
            raise _ChannelError(f"{method} answered something other than a JSON object")
        return data

    def _pages(self, method: str, key: str, **params: Any) -> Iterator[JSON]:
        cursor = ""
        while True:
            data = self._call(method, limit=_PAGE, **params, **({"cursor": cursor} if cursor else {}))
            items = data.get(key) or []
            if not isinstance(items, list):
                raise _ChannelError(f"{method} answered {key} as a JSON {type(items).__name__}, not a list")
            yield from items
            meta = data.get("response_metadata")
            following: Any = meta.get("next_cursor") if isinstance(meta, dict) else ""
            if not isinstance(following, str) or not following:
                return
            cursor = following

    def _source_call(self, what: str, fn: Callable[[], T]) -> T:
        """A call the whole source depends on (auth.test, users.list, conversations.list): errors end the source."""
        try:
            return fn()
        except _ChannelError as exc:
            raise SourceError(
                f"source '{self.name}': Slack at {self.client.base_url} failed {what} ({exc}): "
                f"check sources.{self.name}.base_url, or retry later"
            ) from None

    # ------------------------------------------------------------------------------------------ fetch

    def fetch(self, cursor: Cursor) -> Iterator[Batch]:
        if not isinstance(cursor, SlackCursor):
            cursor = self.load_cursor(cursor.model_dump())
        auth = self._source_call("auth.test", lambda: self._call("auth.test"))
        url = auth.get("url")
        self.workspace_url = url if isinstance(url, str) and url else None
        states = dict(cursor.channels)

        users: list[JSON] = []
        failures: list[Failure] = []
        for n, user in enumerate(self._source_call("users.list", lambda: list(self._pages("users.list", "members")))):
            problem = user_problem(user)
            if problem is None:
                users.append(user)
            else:
                failures.append(Failure(f"users.list#{n}", problem))
        channels, channel_failures = self._source_call("conversations.list", self._channels)
        failures += channel_failures
        failures += self._members(channels)
        team = {k: auth.get(k) for k in ("url", "team", "team_id") if isinstance(auth.get(k), str)}
        records = [RawRecord("workspace", "workspace", team)]
        records += [RawRecord(f"user/{u['id']}", "user", u) for u in users]
        records += [RawRecord(f"channel/{c['id']}", "channel", c) for c in channels]
        yield Batch(records=records, failures=failures, cursor=self._cursor(states))

        for channel in channels:
            batch, state = self._channel_batch(channel, states.get(channel["id"], ChannelState()))
            if state is not None:
                states[channel["id"]] = state
            batch.cursor = self._cursor(states)
            yield batch

    def _members(self, channels: list[JSON]) -> list[Failure]:
        """Read the members of every non-public conversation into `_members`, on every run (briefing.access:
        someone removed upstream loses access at the next sync); one that cannot be read stays the owner's."""
        failures: list[Failure] = []
        for channel in channels:
            if not any(channel.get(f) for f in ("is_private", "is_im", "is_mpim", "is_group")):
                continue
            try:
                members = self._pages("conversations.members", "members", channel=channel["id"])
                channel["_members"] = sorted({m for m in members if isinstance(m, str)})
            except _ChannelError as exc:
                channel.pop("_members", None)
                failures.append(
                    Failure(f"channel/{channel['id']}", f"members could not be read ({exc}): visible to the owner only")
                )
        return failures

    def _cursor(self, states: dict[str, ChannelState]) -> SlackCursor:
        return SlackCursor(channels=dict(states), api_calls=self.calls, thread_polls=self.polls)

    def _channels(self) -> tuple[list[JSON], list[Failure]]:
        types = ["public_channel"]
        if self.config.include_private:
            types.append("private_channel")
        if self.config.include_dms:
            types += ["im", "mpim"]
        listed = [
            c
            for c in self._pages("conversations.list", "channels", types=",".join(types), exclude_archived="false")
            if channel_problem(c) is None
        ]
        if not self.config.channels:
            return [c for c in listed if c.get("is_member") or c.get("is_im") or c.get("is_mpim")], []
        wanted: list[JSON] = []
        failures: list[Failure] = []
        for ref in self.config.channels:
            ref = ref.lstrip("#")
            match = next((c for c in listed if ref in (c["id"], c.get("name"))), None)
            if match is None:
                failures.append(
                    Failure(f"channel/{ref}", "not found: check the name, or invite the app to the channel")
                )
            elif match not in wanted:
                wanted.append(match)
        return wanted, failures

    def _window(self, newest: str) -> float:
        """Start of the rescan window: `rescan_days` before the clock, or before the channel's newest message."""
        anchor = min(self.clock(), float(newest)) if newest else self.clock()
        return anchor - self.config.rescan_days * 86400

    def _window_start(self, state: ChannelState) -> str:
        """`oldest` for this run: the rescan window (never later than the newest message seen)."""
        if state.newest:
            return f"{self._window(state.newest):.6f}"
        if self.options.since is not None:
            return f"{self.options.since.timestamp():.6f}"
        return "0"

    def _channel_batch(self, channel: JSON, state: ChannelState) -> tuple[Batch, ChannelState | None]:
        cid = channel["id"]
        tag = {"id": cid, "name": channel.get("name") or cid}
        batch = Batch()
        oldest = self._window_start(state)
        params: dict[str, Any] = {"channel": cid, "oldest": oldest}
        if self.options.until is not None:
            params["latest"] = f"{self.options.until.timestamp():.6f}"
        try:
            history = list(self._pages("conversations.history", "messages", **params))
        except _ChannelError as exc:
            batch.failures.append(Failure(f"channel/{cid}", f"history could not be read: {exc}"))
            return batch, None

        seen: list[str] = []
        threads = {ts: t for ts, t in state.threads.items() if float(ts) > float(oldest)}
        deleted: set[str] = set()
        to_read: list[JSON] = []
        broadcasts: set[str] = set()
        for n, message in enumerate(history):
            problem = message_problem(message)
            if problem is not None:
                batch.failures.append(Failure(f"{cid}/history#{n}", problem))
                continue
            ts = message["ts"]
            subtype = message.get("subtype")
            if subtype == "message_deleted" and _valid_ts(message.get("deleted_ts")):
                deleted.add(message["deleted_ts"])
                continue
            if subtype == "message_changed" and isinstance(message.get("message"), dict):
                message = message["message"]  # the edited message, as the history reports the change
                problem = message_problem(message)
                if problem is not None:
                    batch.failures.append(Failure(f"{cid}/history#{n}", problem))
                    continue
                ts = message["ts"]
            batch.records.append(RawRecord(f"{cid}/{ts}", "message", {**message, "_channel": tag}))
            if message.get("thread_ts") in (None, ts):
                seen.append(ts)
            if int(message.get("reply_count") or 0) > 0 and message.get("thread_ts") == ts:
                known = state.threads.get(ts)
                if known is None or (known.latest_reply, len(known.replies)) != (
                    str(message.get("latest_reply") or ""),
                    int(message.get("reply_count") or 0),
                ):
                    to_read.append(message)
                else:
                    threads[ts] = known
            elif subtype == "thread_broadcast":
                broadcasts.add(message["thread_ts"])

        # A broadcast reply reveals activity in a thread whose root may lie outside the window.
        roots_here = {m["ts"] for m in history if isinstance(m, dict) and m.get("ts") in seen}
        for thread_ts in sorted(broadcasts - roots_here - set(threads), key=float):
            to_read.append({"ts": thread_ts})

        # Known threads older than the window: a cheap poll for late replies, within the horizon and budget.
        newest_now = max([state.newest, *seen], key=lambda t: float(t) if t else 0.0)
        horizon = max(self.clock(), float(newest_now or 0)) - self.config.thread_horizon_days * 86400
        reading = {r["ts"] for r in to_read}
        for thread_ts, known in state.threads.items():
            if thread_ts not in threads and thread_ts not in reading and last_activity(thread_ts, known) >= horizon:
                threads[thread_ts] = known
        for thread_ts in self._due_polls(state, reading, float(oldest), horizon):
            known = state.threads[thread_ts]
            outcome, root = self._poll(cid, thread_ts, known, batch)
            if outcome == "changed":
                to_read.append(root or {"ts": thread_ts})
                reading.add(thread_ts)
            elif outcome == "same":
                threads[thread_ts] = known.model_copy(update={"checked": self.clock()})
            elif outcome == "gone":  # the root was deleted, and its thread with it
                deleted.update({thread_ts, *known.replies})
                threads.pop(thread_ts, None)

        for root in to_read:
            thread_ts = root["ts"]
            try:
                replies = list(self._pages("conversations.replies", "messages", channel=cid, ts=thread_ts))
            except _ChannelError as exc:
                batch.failures.append(Failure(f"{cid}/{thread_ts}", f"thread could not be read: {exc}"))
                if thread_ts in state.threads:
                    threads[thread_ts] = state.threads[thread_ts]
                continue
            reply_ts: list[str] = []
            for n, reply in enumerate(replies):
                problem = message_problem(reply)
                if problem is not None:
                    batch.failures.append(Failure(f"{cid}/{thread_ts}#{n}", problem))
                    continue
                rts = reply["ts"]
                if rts == thread_ts and thread_ts in roots_here:
                    continue  # the root is stored from the history
                if rts == thread_ts:
                    batch.records.append(RawRecord(f"{cid}/{rts}", "message", {**reply, "_channel": tag}))
                    continue
                batch.records.append(RawRecord(f"{cid}/{rts}", "message", {**reply, "_channel": tag}))
                reply_ts.append(rts)
            old = state.threads.get(thread_ts)
            if old is not None:
                deleted.update(set(old.replies) - set(reply_ts))
            threads[thread_ts] = ThreadState(
                latest_reply=str(root.get("latest_reply") or (max(reply_ts, key=float) if reply_ts else "")),
                replies=tuple(reply_ts),
                checked=self.clock(),
            )

        # Messages remembered inside the re-read window but absent now were deleted at the source.
        if self.options.until is None:
            for ts in state.messages:
                if float(ts) > float(oldest) and ts not in seen:
                    deleted.add(ts)
                    deleted.update(state.threads.get(ts, ThreadState()).replies)
                    threads.pop(ts, None)
        stored = {r.key for r in batch.records}
        batch.deleted = sorted(k for k in (f"{cid}/{ts}" for ts in deleted) if k not in stored)

        newest = newest_now
        window = self._window(newest)
        keep = tuple(sorted({ts for ts in [*state.messages, *seen] if float(ts) > window} - deleted, key=float))
        return batch, ChannelState(
            newest=newest,
            messages=keep,
            threads={
                ts: t
                for ts, t in threads.items()
                if ts not in deleted and (ts in keep or last_activity(ts, t) >= horizon)
            },
        )

    def _due_polls(self, state: ChannelState, reading: set[str], oldest: float, horizon: float) -> list[str]:
        budget = max(self.config.thread_polls_per_run - self.polls, 0)
        return due_polls(state, reading, oldest, horizon, now=self.clock(), budget=budget)

    def _poll(self, cid: str, thread_ts: str, known: ThreadState, batch: Batch) -> tuple[str, JSON | None]:
        """One `conversations.replies` call from the last reply seen: ("changed", root), ("same"|"gone"|"failed")."""
        self.polls += 1
        try:
            data = self._call(
                "conversations.replies", channel=cid, ts=thread_ts, oldest=known.latest_reply or thread_ts, limit=_PAGE
            )
        except _ChannelError as exc:
            if str(exc) == "thread_not_found":
                return "gone", None
            batch.failures.append(Failure(f"{cid}/{thread_ts}", f"thread could not be polled: {exc}"))
            return "failed", None
        listed = data.get("messages")
        messages = [m for m in listed if message_problem(m) is None] if isinstance(listed, list) else []
        root = next((m for m in messages if m["ts"] == thread_ts), None)
        new = [m for m in messages if m["ts"] != thread_ts and m["ts"] not in known.replies]
        # Slack includes the parent, whose counts also reveal a deleted reply; without it, new replies decide.
        counts_changed = root is not None and (
            int(root.get("reply_count") or 0) != len(known.replies)
            or str(root.get("latest_reply") or "") != known.latest_reply
        )
        return ("changed", root) if new or counts_changed else ("same", None)

    # ------------------------------------------------------------------------------------------ normalise

    def normalise(self, records: Sequence[RawRecord]) -> Normalised:
        return normalise_records(records, workspace_url=self.workspace_url)


class _ChannelError(Exception):
    """An API error that concerns one channel or thread, not the whole source."""


def _valid_ts(ts: Any) -> TypeGuard[str]:
    return valid_ts(ts)


def build(ctx: SourceContext) -> SlackConnector:
    config: SlackSource = ctx.config
    token = secret(config.token_env, setting=f"sources.{ctx.name}.token_env")
    client = make_client(config.base_url or DEFAULT_BASE_URL, token.get_secret_value(), config)
    return SlackConnector(client, config, name=ctx.name, options=ctx.options)
