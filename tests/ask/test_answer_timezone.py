"""Answers name days and times in the workspace's time zone ([workspace] timezone), not UTC: a Slack message's day
is its local day there, while a page's date (a day, not an instant) stays the day it names."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from briefing.service import Brief, parse_now
from briefing.settings import load_settings

NOW = parse_now("2026-06-15T09:00:00+00:00")
FAR_EAST = "Pacific/Kiritimati"  # UTC+14: most instants fall on the next local day


def ask(use_sample: Any, monkeypatch: pytest.MonkeyPatch, zone: str, question: str) -> Any:
    monkeypatch.setenv("BRIEF_WORKSPACE__TIMEZONE", zone)
    with Brief(load_settings(use_sample.config)) as brief:
        return brief.ask(question, now=NOW)


def day(at: datetime, zone: str) -> str:
    local = at.astimezone(ZoneInfo(zone))
    return f"{local:%a} {local.day} {local:%b}"


def test_a_messages_day_is_its_day_in_the_workspace_zone(use_sample: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    question = "When was the aurora cutover?"
    in_utc = ask(use_sample, monkeypatch, "UTC", question)
    # A quoted Slack message whose day in UTC+14 is not its UTC day (so the test means something).
    author, channel, at = next(
        (u.author, hit.chunk.container, u.at)
        for hit in in_utc.hits
        for u in hit.chunk.units
        if u.ref.startswith("slack:") and u.at is not None and day(u.at, "UTC") != day(u.at, FAR_EAST)
        and f"{u.author} in #{hit.chunk.container}, {day(u.at, 'UTC')}" in in_utc.answer
    )  # fmt: skip
    in_far_east = ask(use_sample, monkeypatch, FAR_EAST, question)
    assert f"{author} in #{channel}, {day(at, FAR_EAST)}" in in_far_east.answer, in_far_east.answer
    assert f"{author} in #{channel}, {day(at, 'UTC')}" not in in_far_east.answer


def test_a_pages_date_stays_the_day_it_names(use_sample: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    for zone in ("UTC", "America/Los_Angeles", FAR_EAST):
        result = ask(use_sample, monkeypatch, zone, "When is the on-call handover?")
        assert '"On-call rota and swap policy" (Priya Raman, Fri 5 Jun)' in result.answer, (zone, result.answer)
