"""Slack: the Web API (`type = "slack"`) and the official workspace export (`type = "slack_export"`).

Both give the same documents (a channel's top-level messages, one document per thread), chunked by thread,
inactivity gap, size and topic shift, with refs `slack:<channel_id>:<ts>`.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Literal

from pydantic import Field

from briefing.sources import ApiSource, DocumentKind, KindLimits, Presentation, SourceBase, SourceDescriptor


class SlackSource(ApiSource):
    type: Literal["slack"]
    channels: list[str] = Field(default_factory=list)
    include_private: bool = False
    include_dms: bool = False
    rescan_days: int = 14
    # Known threads whose last activity is within this many days are re-polled for late replies.
    thread_horizon_days: int = Field(default=90, ge=0)
    # At most this many such polls (one API call each) per run; the most recently active threads go first.
    thread_polls_per_run: int = Field(default=200, ge=0)


class SlackExportSource(SourceBase):
    type: Literal["slack_export"]
    path: Path
    channels: list[str] = Field(default_factory=list)
    # A day file larger than this is skipped with a reason (a real day is rarely above a few MB).
    max_file_bytes: int = Field(default=50_000_000, gt=0)


# The `[chunking] slack_*` keys size Slack chunks, and only Slack chunks.
_LIMITS = KindLimits(max_chars=1000, max_items=12, gap_hours=4.0, topic_threshold=0.15)
_KEYS = {
    "max_chars": "slack_max_chars",
    "max_items": "slack_max_messages",
    "gap_hours": "slack_gap_hours",
    "topic_threshold": "slack_topic_threshold",
}
_KINDS = (
    DocumentKind(
        "slack_channel",
        "chunkers.slack:chunk_messages",
        _LIMITS,
        topic_split=True,
        config_keys=_KEYS,
        stream=True,
        resumable=True,
    ),
    DocumentKind(
        "slack_thread", "chunkers.slack:chunk_messages", _LIMITS, topic_split=True, threaded=True, config_keys=_KEYS
    ),
)
API = SourceDescriptor(
    type="slack",
    config=SlackSource,
    factory="connectors.slack.api:build",
    family="slack",
    container="channel",
    presentation=Presentation(
        label="Slack", place="container", container_prefix="#", conversational=True, time_of_day=True
    ),
    kinds=_KINDS,
    words=(r"slack",),
    ref_patterns=(r"slack:[A-Z0-9]+:\d+\.\d+",),
    supports=frozenset({"since", "until", "scopes"}),
    container_is_channel=True,
    # A direct message is named `dm-<person>-<person>` (normalise.channel_name), a group DM `mpdm-<a>--<b>-1`.
    unlisted_containers=r"(?:dm|mpdm)-.*",
    # chunkers.slack copies the thread's `thread_ts` (the root message's ts) onto each of its chunks.
    metadata={"thread_root": "thread_ts"},
    webhook="connectors.slack.events:receive",
    stream="connectors.slack.socket_mode:open_stream",
)
EXPORT = replace(
    API,
    type="slack_export",
    config=SlackExportSource,
    factory="connectors.slack.export:build",
    webhook=None,
    stream=None,
)
