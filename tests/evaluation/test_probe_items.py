"""eval/probe_items.py: role questions made from the sample's own tickets, with the units that answer them; who replied
is asked of items with two repliers or more."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import pytest

from tests.conftest import SampleIndex
from tests.evaluation.scripts import eval_script


@pytest.fixture
def probe_items(monkeypatch: pytest.MonkeyPatch) -> Any:
    return eval_script(monkeypatch, "probe_items", "probe_threads")


@pytest.mark.slow
def test_what_someone_said_is_answered_by_any_of_their_comments(probe_items: Any, use_sample: SampleIndex) -> None:
    from briefing.index import Filter
    from briefing.service import Brief
    from briefing.settings import load_settings

    with Brief(load_settings(use_sample.config)) as brief:
        view = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC))
        cases = probe_items._cases(view, "said")
        assert len(cases) >= 3
        comments: dict[tuple[str, str], dict[str, int]] = {}
        for chunk in view.chunks(Filter()):
            for unit in chunk.units:
                if unit.author and unit.ref != chunk.doc_key and "review:" not in unit.text:
                    comments.setdefault((chunk.doc_key, unit.author), {})[unit.ref] = len(unit.text)
        for key, (question, expected) in cases.items():
            doc_key, author = key.split("|", 1)
            assert question.startswith(f"What did {author} say about the ticket about ")
            said = comments[(doc_key, author)]
            assert max(said[ref] for ref in expected) >= 80  # asked of someone who said something of substance
            assert expected == set(said)  # a short comment of theirs is as right as a long one


@pytest.mark.parametrize(
    ("comment", "cause", "fix"),
    [
        ("[~eharris] Caused by TIMOB-20037, so reopening it.", True, False),
        ("Maybe we removed an API that module developers used, causing this issue.", False, False),
        ("In my tests, removing the team setting didn't resolve the problem.", False, False),
        ("Thanks. As a resolution, I have enabled code signing for device builds.", False, True),
        ("PR (master): https://github.com/acme/app/pull/9577", False, True),
        ("Is this fixed by the new build?", False, False),
    ],
)
def test_a_cause_or_fix_is_a_stated_one(probe_items: Any, comment: str, cause: bool, fix: bool) -> None:
    # The cause and fixed probes ask of items whose comments state one; a question, a doubt or a denial does not.
    assert probe_items.states(comment, "cause") is cause
    assert probe_items.states(comment, "fixed") is fix


def test_cause_questions_copy_no_word_of_the_comment(probe_items: Any) -> None:
    asked = probe_items._asked("fixed", "jira:APP-206", "APP-206: Android: barcode module crashes with 6.2.0")
    assert asked == "What fixed the problem in the ticket about barcode module crashes with 6.2.0?"
    assert "issue about" in probe_items._asked("cause", "github:acme/wire#12", "Remove the AppAck proposal")


def test_a_typed_question_is_contracted_with_typographic_apostrophes(probe_items: Any) -> None:
    assert probe_items.typed("Who is working on the ticket about the 'login' page?") == (
        "Who\u2019s working on the ticket about the \u2019login\u2019 page?"
    )
    assert probe_items.typed("Which release is it fixed in?") == "Which release is it fixed in?"


def test_which_people_asks_the_role_by_a_people_noun(probe_items: Any) -> None:
    assert probe_items.which_people("Who reviewed the patch about the PHY reset?") == (
        "Which people reviewed the patch about the PHY reset?"
    )
    assert probe_items.which_people("What does the pull request that does X change, and who merged it?") == (
        "What does the pull request that does X change, and which people merged it?"
    )
    assert probe_items.which_people("Who is it assigned to?") == "Who is it assigned to?"
    assert probe_items.which_people("Who is working on the ticket about X?") == (
        "Which people are working on the ticket about X?"
    )


@pytest.mark.slow
def test_who_replied_is_asked_of_items_with_two_repliers_besides_the_opener(
    probe_items: Any, use_sample: SampleIndex
) -> None:
    from briefing.index import Filter
    from briefing.service import Brief
    from briefing.settings import load_settings

    with Brief(load_settings(use_sample.config)) as brief:
        view = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC))
        cases = probe_items._cases(view, "replied")
        assert cases
        units = [(c.doc_key, u) for c in view.chunks(Filter()) for u in c.units]
        openers = {key: u.author for key, u in units if u.ref == key}
        for key, (question, expected) in cases.items():
            assert question.startswith(("Who commented on the ", "Who replied to the thread about "))
            repliers = {u.author.split()[0] for k, u in units if k == key and u.author and u.author != openers.get(k)}
            assert len(expected) >= 2 and expected <= repliers


def test_who_replied_is_asked_as_a_role_several_hold(probe_items: Any) -> None:
    asked = probe_items._replied("jira:APP-206", "APP-206: Android: barcode module crashes with 6.2.0")
    assert asked == "Who commented on the ticket about barcode module crashes with 6.2.0?"
    mail = probe_items._replied("email:1@x", "[PATCH v2] net: fix the ring size")
    assert mail.startswith("Who replied to the thread about ")


def _ticket(key: str, title: str, header: str) -> Any:
    from briefing.model import Unit
    from tests.ask.chunks import ticket_chunk

    bare = key.split(":", 1)[1]
    return ticket_chunk(
        bare, title.split(": ", 1)[1], [Unit(key, header, "Lee Park", datetime(2026, 5, 4, tzinfo=UTC))], "PLAT"
    )


def test_who_fixed_is_asked_of_tickets_resolved_as_fixed_and_answered_by_their_assignee(probe_items: Any) -> None:
    rows = "Type: Bug | Status: Closed\nResolution: {}\nAssignee: {} | Reporter: Lee Park"
    chunks = [
        _ticket("jira:PLAT-1", "PLAT-1: iOS: Export drops null rows", rows.format("Fixed", "Dana Reyes")),
        _ticket("jira:PLAT-2", "PLAT-2: Retry storm on 401", rows.format("Won't Fix", "Dana Reyes")),
        _ticket("jira:PLAT-3", "PLAT-3: Slow statements page", rows.format("Done", "Unassigned")),
        _ticket("jira:PLAT-4", "PLAT-4: Cutover runbook", rows.format("Done", "Lena Vogt")),
    ]
    view = SimpleNamespace(chunks=lambda _filter: chunks)
    assert probe_items._cases(view, "fixer") == {
        "jira:PLAT-1": ("Who fixed the ticket about export drops null rows?", {"Dana"}),
        "jira:PLAT-4": ("Who fixed the ticket about cutover runbook?", {"Lena"}),
    }


def test_by_key_names_each_ticket_by_its_key_and_drops_other_items(probe_items: Any) -> None:
    cases = {
        "jira:PLAT-1": ("Who closed the ticket about export drops null rows?", {"Dana"}),
        "github:acme/api#5": ("Who merged the pull request that does retries?", {"sam"}),
    }
    titles = {"jira:PLAT-1": "PLAT-1: iOS: Export drops null rows", "github:acme/api#5": "acme/api#5: Retries"}
    assert probe_items.by_key(cases, titles) == {"jira:PLAT-1": ("Who closed PLAT-1?", {"Dana"})}


def test_what_an_item_is_about_is_asked_of_items_with_a_description(probe_items: Any) -> None:
    rows = "Type: Bug | Status: Closed\nResolution: Fixed\nAssignee: Dana Reyes | Reporter: Lee Park"
    described = _ticket("jira:PLAT-1", "PLAT-1: Export drops null rows", rows)
    described.units.append(
        type(described.units[0])(
            "jira:PLAT-1", "The nightly export drops every row whose currency is null.", "Lee Park", described.start
        )
    )
    bare = _ticket("jira:PLAT-2", "PLAT-2: Retry storm", rows)
    view = SimpleNamespace(chunks=lambda _filter: [described, bare])
    assert probe_items._cases(view, "about") == {"jira:PLAT-1": ("What is PLAT-1 about?", {"jira:PLAT-1"})}


def test_who_last_commented_is_asked_of_items_with_comments_by_their_newest_writer(probe_items: Any) -> None:
    from briefing.model import Unit

    rows = "Type: Bug | Status: Closed\nResolution: Fixed\nAssignee: Dana Reyes | Reporter: Lee Park"
    ticket = _ticket("jira:PLAT-1", "PLAT-1: Export drops null rows", rows)
    at = ticket.start
    ticket.units.append(Unit("jira:PLAT-1#comment-1", "Fixed in 2.4.1, please verify.", "Dana Reyes", at))
    ticket.units.append(Unit("jira:PLAT-1#comment-2", "Verified, closing.", "Omar Haddad", at.replace(day=9)))
    ticket.units.append(Unit("jira:PLAT-1#change-3", "status: Resolved -> Closed", "Dana Reyes", at.replace(day=10)))
    bare = _ticket("jira:PLAT-2", "PLAT-2: Retry storm", rows)
    view = SimpleNamespace(chunks=lambda _filter: [ticket, bare])
    assert probe_items._cases(view, "last") == {"jira:PLAT-1": ("Who last commented on PLAT-1?", {"Omar"})}
