"""A GitHub issue's or pull request's state over time: open, draft, reviewed, merged or closed, labels, assignees.

The item as fetched holds its state now. Its issue events (`issues/{n}/events`: closed, reopened, merged,
labeled, assigned, milestoned, review_requested, convert_to_draft...) say what changed when; undoing the labels,
assignees, milestone and draft flag newest first gives the values at the item's opening, and replaying every
event and review forward gives the state in each interval between two changes. Without events (an older raw
cache, an export), the lifecycle comes from GitHub's own dates (`merged_at`, `closed_at`) and the reviews; the
labels, assignees and milestone are then the crawl-time ones, as GitHub says nothing of their history.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from briefing.model import Document, Item

# Verdicts that hold until the same reviewer gives another; a plain comment-review leaves a verdict standing.
_VERDICTS = {"APPROVED": "approved", "CHANGES_REQUESTED": "changes requested"}


@dataclass(frozen=True)
class GithubState:
    """The item's state from `start` until `until` (None: still so); `by` began it (None: the opening)."""

    start: datetime
    until: datetime | None
    status: str  # open, closed or merged
    draft: bool
    labels: tuple[str, ...]
    assignees: tuple[str, ...]
    milestone: str | None
    verdicts: Mapping[str, str]  # reviewer -> approved / changes requested / dismissed
    reviewed_by: tuple[str, ...]  # reviewers who commented in a review, without a verdict
    requested: tuple[str, ...]
    # reviewer -> when their pending review request was made (the review-wait watch reads it)
    requested_at: Mapping[str, datetime]
    # reviewer -> the ref and time of the review that gave their standing (what a verdict line cites)
    review_refs: Mapping[str, tuple[str, datetime]]
    closed_at: datetime | None = None
    closed_by: str | None = None
    reopened: bool = False
    tag: str | None = None  # the first tag cut after the merge, once it was (an export's timeline)
    by: str | None = None
    events: tuple[Mapping[str, Any], ...] = field(default_factory=tuple)


@dataclass
class _Working:
    status: str
    draft: bool
    labels: list[str]
    assignees: list[str]
    milestone: str | None
    verdicts: dict[str, str] = field(default_factory=dict)
    reviewed_by: list[str] = field(default_factory=list)
    requested: list[str] = field(default_factory=list)
    requested_at: dict[str, datetime] = field(default_factory=dict)
    review_refs: dict[str, tuple[str, datetime]] = field(default_factory=dict)
    closed_at: datetime | None = None
    closed_by: str | None = None
    reopened: bool = False
    tag: str | None = None


def states(document: Document) -> list[GithubState]:
    """The item's states in time order, covering [opened, forever); the last one is the crawl-time state."""
    meta = document.metadata
    opened = _parse(meta.get("created_at"))
    body = next((i for i in document.items if i.kind in ("issue", "pull_request")), None)
    if opened is None:
        opened = body.occurred_at if body is not None else min(i.occurred_at for i in document.items)
    timeline = [e for e in meta.get("timeline") or [] if isinstance(e, Mapping) and _parse(e.get("at"))]
    timeline.sort(key=lambda e: str(e["at"]))
    has_events = bool(meta.get("events_fetched"))
    work = _initial(meta, timeline if has_events else [])
    changes: list[tuple[datetime, str, Any, str | None]] = []  # (when, what, detail, who)
    for event in timeline if has_events else []:
        changes.append((_at(event), "event", event, _str(event.get("by"))))
    if not has_events or not any(e.get("event") in ("merged", "closed") for e in timeline):
        # No lifecycle events: GitHub's own merge and close dates (a reopening in between is not known).
        merged, closed = _parse(meta.get("merged_at")), _parse(meta.get("closed_at"))
        if merged is not None:
            changes.append((merged, "event", {"event": "merged"}, _str(meta.get("merged_by"))))
        elif closed is not None:
            changes.append((closed, "event", {"event": "closed"}, _str(meta.get("closed_by"))))
    tag = meta.get("next_tag")
    if isinstance(tag, Mapping) and tag.get("tag") and (tagged := _parse(tag.get("at"))) is not None:
        changes.append((tagged, "event", {"event": "tagged", "value": tag["tag"]}, None))
    for item in document.items:
        if item.kind == "review":
            changes.append((item.occurred_at, "review", item, item.author))
    changes.sort(key=lambda c: (c[0], 0 if c[1] == "event" else 1))
    out: list[GithubState] = []
    start, by = opened, None
    lifecycle = list(meta.get("events") or [])
    for when, what, detail, who in changes:
        when = max(when, opened)
        if when > start:  # changes at one moment make one state
            out.append(_frozen(work, start, when, by, lifecycle))
            start, by = when, who
        if what == "event":
            _apply(work, detail, when, who)
        else:
            _review(work, detail)
    out.append(_frozen(work, start, None, by, lifecycle))
    return out


def _initial(meta: Mapping[str, Any], timeline: Sequence[Mapping[str, Any]]) -> _Working:
    """The values at the opening: the crawl-time labels, assignees, milestone and draft flag, events undone."""
    labels = list(meta.get("labels") or [])
    assignees = list(meta.get("assignees") or [])
    milestone = _str(meta.get("milestone"))
    draft = bool(meta.get("draft"))
    for event in reversed(timeline):
        kind, value = event.get("event"), _str(event.get("value"))
        if kind == "labeled" and value in labels:
            labels.remove(value)
        elif kind == "unlabeled" and value and value not in labels:
            labels.append(value)
        elif kind == "assigned" and value in assignees:
            assignees.remove(value)
        elif kind == "unassigned" and value and value not in assignees:
            assignees.append(value)
        elif kind == "milestoned":
            milestone = None
        elif kind == "demilestoned":
            milestone = value
        elif kind == "convert_to_draft":
            draft = False
        elif kind == "ready_for_review":
            draft = True
    if not timeline:
        draft = False  # the draft flag's history is unknown: only the crawl-time state says it
    return _Working("open", draft, labels, assignees, milestone)


def _apply(work: _Working, event: Mapping[str, Any], when: datetime, who: str | None) -> None:
    kind, value = event.get("event"), _str(event.get("value"))
    if kind == "merged":
        work.status, work.closed_at, work.closed_by = "merged", when, who
    elif kind == "closed" and work.status != "merged":
        work.status, work.closed_at, work.closed_by = "closed", when, who
    elif kind == "reopened":
        work.status, work.closed_at, work.closed_by, work.reopened = "open", None, None, True
    elif kind == "labeled" and value and value not in work.labels:
        work.labels.append(value)
    elif kind == "unlabeled" and value in work.labels:
        work.labels.remove(value)
    elif kind == "assigned" and value and value not in work.assignees:
        work.assignees.append(value)
    elif kind == "unassigned" and value in work.assignees:
        work.assignees.remove(value)
    elif kind == "milestoned":
        work.milestone = value
    elif kind == "demilestoned":
        work.milestone = None
    elif kind == "review_requested" and value and value not in work.requested:
        work.requested.append(value)
        work.requested_at[value] = when
    elif kind == "review_request_removed" and value in work.requested:
        work.requested.remove(value)
        work.requested_at.pop(value, None)
    elif kind == "review_dismissed" and value:
        work.verdicts[value] = "dismissed"
    elif kind == "tagged":
        work.tag = value
    elif kind == "convert_to_draft":
        work.draft = True
    elif kind == "ready_for_review":
        work.draft = False


def _review(work: _Working, item: Item) -> None:
    who = item.author or "someone"
    state = str(item.metadata.get("state") or "COMMENTED")
    if who in work.requested:
        work.requested.remove(who)  # GitHub takes the request back once the reviewer reviews
        work.requested_at.pop(who, None)
    if state in _VERDICTS or state == "DISMISSED":
        work.verdicts[who] = _VERDICTS.get(state, "dismissed")
        work.review_refs[who] = (item.ref, item.occurred_at)
    elif who not in work.verdicts:
        if who not in work.reviewed_by:
            work.reviewed_by.append(who)
        work.review_refs[who] = (item.ref, item.occurred_at)


def _frozen(
    work: _Working, start: datetime, until: datetime | None, by: str | None, lifecycle: list[Any]
) -> GithubState:
    events = tuple(
        e for e in lifecycle if isinstance(e, Mapping) and (until is None or (_parse(e.get("at")) or start) < until)
    )
    return GithubState(
        start=start,
        until=until,
        status=work.status,
        draft=work.draft and work.status == "open",
        labels=tuple(work.labels),
        assignees=tuple(work.assignees),
        milestone=work.milestone,
        verdicts=dict(work.verdicts),
        reviewed_by=tuple(work.reviewed_by),
        requested=tuple(work.requested),
        requested_at=dict(work.requested_at),
        review_refs=dict(work.review_refs),
        closed_at=work.closed_at,
        closed_by=work.closed_by,
        reopened=work.reopened,
        tag=work.tag,
        by=by,
        events=events,
    )


def review_line(state: GithubState) -> str | None:
    """The review state no single review states: "review: requested from ana", "review: none yet"."""
    if state.status != "open" or state.verdicts or state.reviewed_by:
        return None
    return f"review: requested from {', '.join(state.requested)}" if state.requested else "review: none yet"


def verdict_lines(state: GithubState) -> list[tuple[str, str, str, datetime]]:
    """One line per reviewer, "review: approved by ana", with the reviewer and the ref and time of the review
    that gave it (a line cites the review itself)."""
    out: list[tuple[str, str, str, datetime]] = []
    standing = [*state.verdicts.items(), *((who, "commented") for who in state.reviewed_by)]
    for who, verdict in standing:
        ref, at = state.review_refs.get(who, ("", state.start))
        out.append((f"review: {verdict} by {who}", who, ref, at))
    return out


def _at(event: Mapping[str, Any]) -> datetime:
    at = _parse(event.get("at"))
    assert at is not None
    return at


def _str(value: Any) -> str | None:
    return str(value) if value else None


def _parse(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
