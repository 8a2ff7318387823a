"""The fields, outline, listing and meetings nodes: answers read from the index, each confirmed there first.

Each starts from the fact answer quoted from the retrieved context: an outline needs it to know which document the
question is about, and a listing replaces only an answer the sources gave. When the index holds nothing of its
kind, the node tries the next kind the question may take (`briefing.question.kind.Wants.kinds`) and in the end
answers as the fact node does: with the quoted answer, or, with an LLM configured, by handing over to the LLM
writer (`declined`). So these kinds answer the same with and without an LLM.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from briefing.ask.nodes import AskDeps, answer_update, extractive_answer, searched_scope
from briefing.ask.reviewed import GIVEN_EVENTS
from briefing.ask.state import AskState
from briefing.question.parse import wants
from briefing.question.timewindow import local_day
from briefing.question.words import ASKS_READY, TRACKER_NOUN

if TYPE_CHECKING:
    from briefing.ask.extractive import ExtractiveAnswer
    from briefing.ask.item_model import Item
    from briefing.ask.listing import Period
    from briefing.question.listings import RecordsAsked
    from briefing.question.model import Question
    from briefing.question.timewindow import TimeWindow
    from briefing.view import View

Found = tuple["ExtractiveAnswer", dict[str, Any]]
Attempt = Callable[[AskState, AskDeps, "ExtractiveAnswer", "View"], Found | None]


def _outline(state: AskState, deps: AskDeps, answer: ExtractiveAnswer, view: View) -> Found | None:
    from briefing.ask.outline import answer_outline

    # A summary of one document reads the whole document, section by section.
    found = answer_outline(state.question.text, answer, state.evidence, view=view, answerer=deps.extractive)
    return (found[0], {"outline": found[1]}) if found is not None else None


def _meetings(state: AskState, deps: AskDeps, answer: ExtractiveAnswer, view: View) -> Found | None:
    from briefing.ask.meetings import answer_agenda, answer_next_meeting

    question = state.question
    asked = wants(question)
    zone = ZoneInfo(deps.settings.workspace.timezone)
    window = question.window
    if asked.agenda is not None and window is not None:
        listed = answer_agenda(
            asked.agenda,
            answer,
            window=(window.start, window.end),
            label=window.label,
            week_of=asked.week_of,
            view=view,
            people=question.people,
            zone=zone,
        )
        if listed is not None:
            return listed[0], {"listing": listed[1]}
    if asked.next_meeting is not None:
        # "When is the next standup?": the calendar's next occurrence, not a sentence about an earlier one.
        upcoming = answer_next_meeting(asked.next_meeting, answer, view=view, zone=zone)
        if upcoming is not None:
            return upcoming, {}
    return None


def _listing(state: AskState, deps: AskDeps, answer: ExtractiveAnswer, view: View) -> Found | None:
    from briefing.ask.listing import answer_listing

    question = state.question
    asked = wants(question)
    window = question.window
    zone = ZoneInfo(deps.settings.workspace.timezone)  # lists name days in the workspace's zone
    if asked.awaiting_review:
        from briefing.ask.awaiting import answer_awaiting

        # "Which PRs are waiting for review?": open pull requests nobody approved, as of now.
        pending_review = answer_awaiting(answer, view, zone=zone)
        if pending_review is not None:
            return pending_review[0], {"listing": pending_review[1]}
    if asked.open_for:
        from briefing.ask.blocking import answer_open

        # "What is blocking 7.0.0?": the items still unresolved with that fix version as of now.
        ready = bool(ASKS_READY.search(question.text))  # "Is 6.4.0 ready to ship?": "No — " and the items
        pending = answer_open(asked.open_for, answer, view, zone=zone, ready=ready)
        if pending is not None:
            return pending[0], {"listing": pending[1]}
    if asked.inventory is not None and asked.by_assignee:
        from briefing.ask.inventory import answer_by_assignee

        # "Who has the most open bugs?": the items as of now, counted by assignee.
        counted = answer_by_assignee(asked.inventory, answer, view, zone=zone)
        if counted is not None:
            return counted[0], {"listing": counted[1]}
    elif asked.inventory is not None:
        from briefing.ask.inventory import answer_inventory

        # "Which critical bugs are still open?": the items whose state as of now has the fields asked.
        picked = answer_inventory(asked.inventory, answer, view, zone=zone)
        if picked is not None:
            return picked[0], {"listing": picked[1]}
    if asked.assigned_to:
        from briefing.ask.blocking import answer_open

        # "What is Dana working on?": the items assigned to them and not resolved, as of now.
        people = question.constraints.people
        person = people[0] if people else asked.assigned_to
        held = answer_open((), answer, view, zone=zone, person=person)
        if held is not None:
            return held[0], {"listing": held[1]}
        if deps.answerer is None:
            from briefing.ask.finished import none_recorded

            # None held: the fact answer says so first, so the person's comments are not read as their open work.
            today = local_day(view.now, zone)
            closest = none_recorded(f"No open items recorded as assigned to {person} as of {today}", answer, view)
            if closest is not None:
                return closest, {"listing": []}
    if asked.finished is not None:
        from briefing.ask.finished import answer_finished

        # "Which tickets did Dana resolve last week?": the items' done transitions and states, not a sentence.
        done = answer_finished(asked.finished, question, answer, view, zone=zone)
        if done is not None:
            return done[0], {"listing": done[1]}
        if deps.answerer is None:
            from briefing.ask.finished import none_finished

            # None finished: the fact answer says so first, so a person's comments are not read as finished work.
            closest = none_finished(asked.finished, question, answer, view)
            if closest is not None:
                return closest, {"listing": []}
    if window is None:
        return None
    records = asked.records
    if records is not None and records.event in GIVEN_EVENTS:
        from briefing.ask.reviewed import answer_reviews

        # "Which PRs did Dana review / comment on last week?": read from the reviews and comments themselves.
        return _in_period(answer_reviews, records, answer, window, asked.week_of, view, question, zone)
    if records is not None and records.by_person:
        from briefing.ask.counted import answer_by_actor

        # "Who merged the most PRs last week?": the period's records counted by who acted.
        return _in_period(answer_by_actor, records, answer, window, asked.week_of, view, question, zone)
    if records is not None and records.event == "moved":
        from briefing.ask.moved import answer_moved

        # "Which tickets moved to In Review last week?": the recorded transitions into that status.
        return _in_period(answer_moved, records, answer, window, asked.week_of, view, question, zone)
    created = records is not None and records.event == "opened" and not records.pulls
    if created and records is not None and TRACKER_NOUN.search(records.kind):
        from briefing.ask.created import answer_created

        # "Which bugs were filed last week?": a tracker's items state the day they were created (no event); a code
        # host's issues, with no type, are read from their events below only when no tracker item was created.
        made = _in_period(answer_created, records, answer, window, asked.week_of, view, question, zone)
        if made is not None:
            return made
    # "Which blog posts came out in July?" lists the documents of that kind dated in the window, not a fact inside
    # one of them; "which PRs were merged" the records whose event falls there.
    listed = answer_listing(
        asked.documents,
        asked.records,
        answer,
        window=(window.start, window.end),
        label=window.label,
        week_of=asked.week_of,
        view=view,
        projects=question.constraints.projects,
        zone=zone,
    )
    if listed is not None:
        return listed[0], {"listing": listed[1]}
    if created and records is not None and not TRACKER_NOUN.search(records.kind):
        from briefing.ask.created import answer_created

        return _in_period(answer_created, records, answer, window, asked.week_of, view, question, zone)
    return None


# A listing of the records of a period (`reviewed.answer_reviews`, `moved.answer_moved`, `created.answer_created`,
# `counted.answer_by_actor`): (records asked, fact answer, period, view, question) -> (answer, keys) or None.
PeriodListing = Callable[
    ["RecordsAsked", "ExtractiveAnswer", "Period", "View", "Question"], "tuple[ExtractiveAnswer, list[str]] | None"
]


def _in_period(
    listed: PeriodListing,
    records: RecordsAsked,
    answer: ExtractiveAnswer,
    window: TimeWindow,
    week_of: str,
    view: View,
    question: Question,
    zone: ZoneInfo,
) -> Found | None:
    """What `listed` lists of the question's window, as the listing node's answer; None when it lists nothing."""
    from briefing.ask.listing import Period

    period = Period.asked((window.start, window.end), window.label, week_of, zone)
    found = listed(records, answer, period, view, question)
    return (found[0], {"listing": found[1]}) if found is not None else None


def _fields(state: AskState, deps: AskDeps, answer: ExtractiveAnswer, view: View) -> Found | None:
    from briefing.ask.fields import answer_fields, items_at, named_items

    # "Who is assigned to PLAT-142?": the named item's own fields as of now, not the best-ranked line's writer.
    wanted = wants(state.question)
    asked = wanted.fields
    if wanted.described:
        from briefing.ask.described import answer_described

        # "Who is doing the ticket about X?": the item retrieval found, read the same way.
        read = answer_described(asked, state.question, answer, state.evidence, view)
        if read is None:
            return None
        described = read[0]
        if asked == ("status",):
            described = _verdict(state.question.text, described, items_at(view, [read[1]]))
        return described, {"fields": list(asked), "item": read[1]}
    found = answer_fields(asked, state.question.constraints.tickets, answer, view)
    if found is not None and asked == ("status",):
        found = _verdict(state.question.text, found, named_items(view, state.question.constraints.tickets))
    return (found, {"fields": list(asked)}) if found is not None else None


def _verdict(question: str, found: ExtractiveAnswer, items: list[Item]) -> ExtractiveAnswer:
    """ "Is PR #57 merged?", "Is the ticket about X still open?": Yes or No first, from the same state as of now."""
    from briefing.ask.item_state import verdict

    headers = [(i.header, i.label.startswith("PR ")) for i in items if i.header is not None]
    said = verdict(question, headers)
    return replace(found, text=f"{said} — {found.text}") if said else found


ATTEMPTS: dict[str, Attempt] = {"outline": _outline, "meetings": _meetings, "listing": _listing, "fields": _fields}


def kind_node(state: AskState, deps: AskDeps, *, kind: str) -> dict[str, Any]:
    """The answer of `kind` when the index confirms it, else of the question's next kinds, else the fact answer."""
    t0 = time.perf_counter()
    question = state.question
    answer = extractive_answer(deps, question, state.evidence, searched=searched_scope(state, deps))
    view = deps.retriever.index.view(question.now)
    kinds = wants(question).kinds
    for name in kinds[kinds.index(kind) :] if kind in kinds else (kind,):
        attempt = ATTEMPTS.get(name)
        found = attempt(state, deps, answer, view) if attempt is not None else None
        if found is not None:
            writer = f"extractive ({name}: read from the index, not written by the LLM)" if deps.answerer else None
            return answer_update(state, deps, found[0], t0, found[1], answerer=writer)
    if deps.answerer is not None:
        return {"declined": True, "trace": {"declined": f"{kind}: nothing of the kind in the index; a fact answer"}}
    return answer_update(state, deps, answer, t0)
