"""What the Slack Web API connector remembers per channel and thread between runs, and how often it polls them."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from briefing.model import Cursor


class ThreadState(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    latest_reply: str = ""
    replies: tuple[str, ...] = ()
    checked: float = 0.0  # when this thread was last read or polled (the connector's clock)


class ChannelState(BaseModel):
    """What the last run saw of one channel; only the rescan window is remembered in detail."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    newest: str = ""
    messages: tuple[str, ...] = ()
    threads: dict[str, ThreadState] = Field(default_factory=dict)


class SlackCursor(Cursor):
    channels: dict[str, ChannelState] = Field(default_factory=dict)
    api_calls: int = 0  # Web API calls made by the run that saved this cursor, so far
    thread_polls: int = 0  # of which re-polls of known threads outside the rescan window


def last_activity(thread_ts: str, known: ThreadState) -> float:
    return float(known.latest_reply or thread_ts)


def poll_interval(age_s: float) -> float:
    """How long a thread quiet for `age_s` waits between polls: an eighth of its age, 1 hour to 7 days."""
    return min(max(age_s / 8, 3600.0), 7 * 86400.0)


def due_polls(
    state: ChannelState, reading: set[str], oldest: float, horizon: float, *, now: float, budget: int
) -> list[str]:
    """Known threads outside the window to poll now: due by age, most recent activity first, within budget."""
    due = [
        ts
        for ts, known in state.threads.items()
        if ts not in reading
        and float(ts) <= oldest
        and last_activity(ts, known) >= horizon
        and now - known.checked >= poll_interval(now - last_activity(ts, known))
    ]
    due.sort(key=lambda ts: last_activity(ts, state.threads[ts]), reverse=True)
    return due[:budget]
