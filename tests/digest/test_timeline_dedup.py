"""Timeline dedup: the same event told by two sources is shown once with both citations; different events stay."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from briefing.digest.model import Cited
from briefing.digest.timeline import Event, dedupe

UTC_ZONE = ZoneInfo("UTC")


def event(day: int, hour: int, kind: str, keys: set[str], ref: str, where: str = "#releases") -> Event:
    at = datetime(2026, 6, day, hour, tzinfo=UTC)
    return Event(at, kind, f"{kind} in {where}", where, frozenset(keys), [Cited(0, [ref], f"https://x/{ref}")])


def test_one_merge_announced_in_slack_and_recorded_on_github_is_one_event_with_both_citations() -> None:
    found = dedupe(
        [
            event(10, 12, "merged", {"#431"}, "github:acme/api#431", "GitHub"),
            event(10, 13, "merged", {"#431"}, "slack:C1:1781100000.000100"),
        ],
        UTC_ZONE,
    )
    assert len(found) == 1
    assert [c.refs for c in found[0].citations] == [["github:acme/api#431"], ["slack:C1:1781100000.000100"]]
    assert [c.n for c in found[0].citations] == [1, 2]
    assert found[0].where == "GitHub", "the first report is kept"


def test_different_events_are_all_kept() -> None:
    found = dedupe(
        [
            event(10, 12, "merged", {"#431"}, "a"),
            event(10, 12, "merged", {"#432"}, "b"),  # another PR merged the same day
            event(11, 9, "merged", {"#431"}, "c"),  # the same keys another day (a follow-up merge)
            event(10, 14, "released", {"#431"}, "d"),  # another kind: the release after the merge
            event(10, 15, "merged", set(), "e"),  # no keys: nothing says it is the same event
            event(10, 16, "merged", set(), "f"),
        ],
        UTC_ZONE,
    )
    assert [e.citations[0].refs[0] for e in found] == ["a", "b", "d", "e", "f", "c"]
    assert [c.n for e in found for c in e.citations] == [1, 2, 3, 4, 5, 6]


def test_the_day_is_the_workspace_day() -> None:
    # 23:30 and 00:30 UTC are one day in New York (19:30 and 20:30): the same event there, two days in UTC.
    late = event(10, 23, "released", {"v2.5.1"}, "a")
    early = Event(
        datetime(2026, 6, 11, 0, 30, tzinfo=UTC), "released", "released", "#releases", frozenset({"v2.5.1"}),
        [Cited(0, ["b"], "")],
    )  # fmt: skip
    assert len(dedupe([late, early], ZoneInfo("America/New_York"))) == 1
    late = event(10, 23, "released", {"v2.5.1"}, "a")
    early = Event(
        datetime(2026, 6, 11, 0, 30, tzinfo=UTC), "released", "released", "#releases", frozenset({"v2.5.1"}),
        [Cited(0, ["b"], "")],
    )  # fmt: skip
    assert len(dedupe([late, early], UTC_ZONE)) == 2


def test_an_opening_is_never_merged_away() -> None:
    found = dedupe([event(10, 9, "opened", {"PLAT-1"}, "a"), event(10, 10, "opened", {"PLAT-1"}, "b")], UTC_ZONE)
    assert len(found) == 2
