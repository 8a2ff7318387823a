"""The router's tools called directly: parsing, validation against known values, fetching by key."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from briefing.ask.tools import RouterClosed, RouterTools
from briefing.question.constraints import Constraints
from briefing.question.timeexpr import Calendar
from tests.ask.conftest import DIRECTORY, NOW


@pytest.fixture
def tools(make_deps) -> RouterTools:  # type: ignore[no-untyped-def]
    return RouterTools.start(Constraints(), DIRECTORY, Calendar(NOW, "Europe/Berlin"), make_deps().retriever)


def test_time_window_dates_are_inclusive_local_days(tools: RouterTools) -> None:
    tools.set_time_window("2026-06-01", "2026-06-07")
    window = tools.constraints.time
    assert window is not None
    assert window.start.isoformat() == "2026-05-31T22:00:00+00:00"  # Berlin midnight, summer time
    assert window.end.isoformat() == "2026-06-07T22:00:00+00:00"
    assert "time" not in tools.constraints.hard


def test_time_window_phrase_and_hard_filter(tools: RouterTools) -> None:
    result = tools.set_time_window("last week", only=True)
    assert "hard filter" in result
    assert tools.constraints.time is not None
    assert tools.constraints.time.start.isoformat() == "2026-06-07T22:00:00+00:00"
    assert tools.constraints.hard == {"time"}


def test_unreadable_dates_change_nothing(tools: RouterTools) -> None:
    assert "could not read" in tools.set_time_window("whenever the moon is full")
    assert tools.constraints.time is None


def test_sources_reject_unknown_types(tools: RouterTools) -> None:
    assert "unknown source types" in tools.set_sources(["teams"])
    assert tools.constraints.sources == []
    tools.set_sources("jira, wiki")  # a comma-separated string, as small models send
    assert tools.constraints.sources == ["jira"]


def test_people_resolve_by_handle_email_or_unique_first_name(tools: RouterTools) -> None:
    tools.boost_people(["@alice", "bob@nowhere.test", "Carol"])
    assert tools.constraints.people == ["Alice Chen", "Carol Ng"]
    assert "unknown ['bob@nowhere.test']" in tools.steps[-1]["result"]


def test_fetch_pr_by_number_and_thread_by_message_ref(tools: RouterTools) -> None:
    tools.fetch_item("#45")
    tools.fetch_item("slack:C01PLAT:1781000060.000200")  # the reply brings its whole thread
    assert [c.chunk_id for c in tools.fetched] == ["github:acme/ledger#45::0", "slack:C01PLAT/1781000000.000100::0"]
    assert "nothing indexed" in tools.fetch_item("OPS-9")


def test_list_known_kinds(tools: RouterTools) -> None:
    assert tools.list_known("people") == "Alice Chen, Bob Diaz, Carol Ng, Dave Ito"
    assert tools.list_known("tickets") == "PLAT-142"
    assert "unknown kind" in tools.list_known("teams")


def test_tools_refuse_after_the_router_stopped(tools: RouterTools) -> None:
    tools.close()
    with pytest.raises(RouterClosed):
        tools.set_sources(["jira"])
    with pytest.raises(RouterClosed):
        tools.fetch_item("PLAT-142")
    assert tools.fetched == []


def test_search_and_fetch_see_the_index_as_of_now(make_deps) -> None:  # type: ignore[no-untyped-def]
    # 9 June, noon: the PLAT-142 comment (16:00) and PR #45 (10 June) were not written yet.
    now = datetime(2026, 6, 9, 12, tzinfo=UTC)
    tools = RouterTools.start(Constraints(), DIRECTORY, Calendar(now), make_deps().retriever)
    tools.fetch_item("PLAT-142")
    [ticket] = tools.fetched
    assert ticket.chunk_id == "jira:PLAT-142::0"
    assert ticket.refs == ["jira:PLAT-142"]
    assert "write freeze planned" not in ticket.text and ticket.end <= now
    assert "nothing indexed" in tools.fetch_item("#45")
    tools.search("PgBouncer connection pool in front of the ledger database")
    assert tools.searched
    for hit in tools.searched:
        assert hit.chunk.start <= now and hit.chunk.end <= now
        assert all(u.at is None or u.at <= now for u in hit.chunk.units)
    assert "github:acme/ledger#45::0" not in [h.chunk.chunk_id for h in tools.searched]
    # The same tools a day later see both.
    later = RouterTools.start(Constraints(), DIRECTORY, Calendar(now + timedelta(days=2)), make_deps().retriever)
    later.fetch_item("PLAT-142")
    assert later.fetched[0].refs == ["jira:PLAT-142", "jira:PLAT-142#comment-10001"]
    later.search("PgBouncer connection pool")
    assert "github:acme/ledger#45::0" in [h.chunk.chunk_id for h in later.searched]
