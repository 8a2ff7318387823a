"""Briefing text helpers: ingested text is neutralised, signals and windows read as a manager means them."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from briefing.digest import text as tx
from briefing.digest.window import bound, resolve
from briefing.errors import InputError
from briefing.question.timeexpr import Calendar


def test_terminal_escapes_and_controls_never_reach_the_output() -> None:
    hostile = "ok \x1b[31mred\x1b[0m \x1b]0;title\x07 bell\x07 \u202eevil\nnext line"
    clean = tx.neutral(hostile)
    assert "\x1b" not in clean and "\x07" not in clean and "\u202e" not in clean and "\n" not in clean
    assert "red" in clean and "next line" in clean


def test_signals() -> None:
    assert "resolved" in tx.signals("Found it: the pool was exhausted")
    assert "decided" in tx.signals("Decision: we drop PgBouncer")
    assert "incident" not in tx.signals("Q3 plan one-pager draft")
    # A feature post about monitoring is not an incident; an alert that fired is.
    assert "incident" not in tx.signals("Observability has arrived: metrics for monitoring, dashboards, and alerting.")
    assert "incident" in tx.signals("The pool saturation alert fired at 14:12")
    assert tx.is_filler("Full logs of a new run") and tx.is_filler("thanks!")
    assert not tx.is_filler("Raising the pool size to 60 fixed it")


def test_window_bounds_in_the_workspace_time_zone() -> None:
    cal = Calendar(datetime(2026, 6, 15, 9, tzinfo=UTC), "Europe/Berlin", "monday")
    start, end = resolve("last week", None, cal)
    assert start == datetime(2026, 6, 7, 22, tzinfo=UTC)  # Monday 8 June 00:00 in Berlin
    assert end == cal.now
    assert bound("2026-06-12", cal, option="--until", end=True) == datetime(2026, 6, 12, 22, tzinfo=UTC)
    with pytest.raises(InputError, match="--since 'soonish'"):
        resolve("soonish", None, cal)
    with pytest.raises(InputError, match="window is empty"):
        resolve("2026-06-12", "2026-06-10", cal)


def test_a_digest_reaches_the_terminal_without_escapes_from_ingested_names() -> None:
    """A Slack display name or title holding an OSC title sequence and BEL is printed as text, in md and text."""
    from datetime import UTC, datetime

    from briefing.digest.model import Cited, Digest, Line, Scope, Section
    from briefing.digest.render import render

    at = datetime(2026, 6, 10, 9, tzinfo=UTC)
    hostile = "\x1b]0;owned\x07Mallory\x1b[31m"
    line = Line(
        text=f"{hostile} merged the payout fix [1]",
        occurred_at=at,
        citations=[Cited(1, ["slack:C1:1.0"], "https://example.invalid/1")],
        title=f"#{hostile}",
        key="k",
        status="resolved",
        people=[hostile],
        score=1.0,
        last_at=at,
    )
    digest = Digest(
        start=at, end=at, now=at, scope=Scope(people=(hostile,)), sections=[Section(f"#{hostile}", [line])],
        more=[hostile], searched="", conversations=1,
    )  # fmt: skip
    for fmt in ("md", "text"):
        out = render(digest, fmt)
        assert "Mallory" in out and "merged the payout fix" in out
        assert not any(c in out for c in "\x1b\x07"), (fmt, out)
