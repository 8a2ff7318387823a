"""GitHub's issue, pull request and release records as Documents, with their people and lifecycle events."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from briefing.model import JSON, Document, Failure, Item, Person, RawRecord

_LINKING = re.compile(r"\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+((?:[\w.-]+/[\w.-]+)?#\d+)", re.IGNORECASE)
_MENTIONED = re.compile(r"(?<![\w/])((?:[\w.-]+/[\w.-]+)?#\d+)\b")


def parse_time(value: str | None) -> datetime | None:
    if not value:
        return None
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)


def linked_issues(text: str, repo: str) -> list[str]:
    """Issues a body closes ("Closes #12", "fixes acme/web#3"), as `owner/repo#n`."""
    found = []
    for target in _LINKING.findall(text or ""):
        full = target if "/" in target.split("#")[0] else f"{repo}{target}"
        if full not in found:
            found.append(full)
    return found


def mentioned_issues(text: str, repo: str) -> list[str]:
    """Every `#n` / `owner/repo#n` reference in a text, as `owner/repo#n`."""
    found = []
    for target in _MENTIONED.findall(text or ""):
        full = target if "/" in target.split("#")[0] else f"{repo}{target}"
        if full not in found:
            found.append(full)
    return found


def login(user: Any, people: dict[str, Person]) -> str | None:
    if not isinstance(user, dict) or not user.get("login"):
        return None
    login = str(user["login"])
    if login not in people:
        people[login] = Person(id=f"github:{login}", name=str(user.get("name") or login), handles=(login,))
    return login


def split_key(key: str) -> tuple[str, str]:
    repo, _, rest = key.partition("#") if "#" in key else key.partition("@release:")
    return repo, rest


def issue_document(record: RawRecord, people: dict[str, Person], failures: list[Failure]) -> Document:
    data = record.data
    issue = data["issue"]
    repo, _ = split_key(record.key)
    number = int(issue["number"])
    ref = f"github:{repo}#{number}"
    pull = data.get("pull") or {}
    is_pr = bool(issue.get("pull_request")) or bool(pull)
    title = str(issue["title"])
    url = str(issue.get("html_url") or pull.get("html_url") or "")
    body = str(issue.get("body") or "")
    author = login(issue.get("user"), people)
    created = parse_time(issue["created_at"])
    assert created is not None
    merged_at = pull.get("merged_at") or (issue.get("pull_request") or {}).get("merged_at")
    state = "merged" if merged_at else str(issue.get("state") or "open")
    milestone = issue.get("milestone") or {}
    timeline = issue_timeline(data.get("events"), data.get("reviews"), people)
    merge = next((e for e in reversed(timeline) if e["event"] == "merged"), None)
    merged_by = login(pull.get("merged_by"), people) or (merge or {}).get("by")
    meta: JSON = {
        "repo": repo,
        "number": number,
        "is_pull_request": is_pr,
        "state": state,
        "state_reason": issue.get("state_reason"),
        "author": author,
        "labels": [str(label["name"]) for label in issue.get("labels") or [] if isinstance(label, dict)],
        "assignees": [a for a in (login(u, people) for u in issue.get("assignees") or []) if a],
        "milestone": milestone.get("title") if isinstance(milestone, dict) else None,
        "created_at": created.isoformat(),
        "updated_at": issue.get("updated_at"),
        "closed_at": issue.get("closed_at"),
        "closed_by": login(issue.get("closed_by"), people),
        "merged_at": merged_at,
        "merged_by": merged_by,
        "draft": pull.get("draft", issue.get("draft")),
        "base": (pull.get("base") or {}).get("ref"),
        "head": (pull.get("head") or {}).get("ref"),
        "linked_issues": linked_issues(body, repo),
        "events": state_events(issue, pull, created, merged_at, author, timeline),
        # The issue events that change its state (chunkers.github_state), when the connector fetched them.
        "timeline": timeline,
        "events_fetched": isinstance(data.get("events"), list),
    }
    common = {"source_type": "github", "title": title, "container": repo}
    items = [
        Item(
            ref=ref,
            kind="pull_request" if is_pr else "issue",
            text=body,
            occurred_at=created,
            author=author,
            url=url,
            metadata={"number": number},
            **common,
        )
    ]
    for comment in data.get("comments") or []:
        try:
            items.append(
                Item(
                    ref=f"{ref}/comment-{comment['id']}",
                    kind="comment",
                    text=str(comment.get("body") or ""),
                    occurred_at=required_at(comment["created_at"]),
                    author=login(comment.get("user"), people),
                    url=str(comment.get("html_url") or url),
                    thread=ref,
                    metadata={"comment_id": comment["id"]},
                    **common,
                )
            )
        except (KeyError, TypeError, ValueError) as exc:
            failures.append(Failure(f"{record.key}/comment", f"malformed comment: {exc}"))
    for review in data.get("reviews") or []:
        try:
            review_state = str(review.get("state") or "COMMENTED")
            if review_state == "PENDING":
                continue
            items.append(
                Item(
                    ref=f"{ref}/comment-{review['id']}",
                    kind="review",
                    text=str(review.get("body") or ""),
                    occurred_at=required_at(review["submitted_at"]),
                    author=login(review.get("user"), people),
                    url=str(review.get("html_url") or url),
                    thread=ref,
                    metadata={"review_id": review["id"], "state": review_state},
                    **common,
                )
            )
        except (KeyError, TypeError, ValueError) as exc:
            failures.append(Failure(f"{record.key}/review", f"malformed review: {exc}"))
    for comment in data.get("review_comments") or []:
        try:
            items.append(
                Item(
                    ref=f"{ref}/comment-{comment['id']}",
                    kind="review_comment",
                    text=str(comment.get("body") or ""),
                    occurred_at=required_at(comment["created_at"]),
                    author=login(comment.get("user"), people),
                    url=str(comment.get("html_url") or url),
                    thread=ref,
                    metadata={
                        "comment_id": comment["id"],
                        "path": comment.get("path"),
                        "line": comment.get("line") or comment.get("original_line"),
                        "in_reply_to": comment.get("in_reply_to_id"),
                        "review_id": comment.get("pull_request_review_id"),
                    },
                    **common,
                )
            )
        except (KeyError, TypeError, ValueError) as exc:
            failures.append(Failure(f"{record.key}/review_comment", f"malformed review comment: {exc}"))
    return Document(
        key=ref,
        kind="github_issue",
        source_type="github",
        title=f"{repo}#{number}: {title}",
        items=items,
        url=url,
        container=repo,
        metadata=meta,
    )


def required_at(value: Any) -> datetime:
    at = parse_time(value) if isinstance(value, str) else None
    if at is None:
        raise ValueError(f"missing or bad timestamp {value!r}")
    return at


def state_events(
    issue: JSON,
    pull: JSON,
    created: datetime,
    merged_at: str | None,
    author: str | None = None,
    timeline: list[JSON] | None = None,
) -> list[JSON]:
    """Opened, then merged or closed (and reopened), with who did it: from the issue events when fetched, else
    from GitHub's own fields (where a reopening is not among them)."""
    events: list[JSON] = [{"event": "opened", "at": created.isoformat(), "by": author}]
    lifecycle = [e for e in timeline or [] if e["event"] in ("merged", "closed", "reopened")]
    if any(e["event"] == "merged" for e in lifecycle):
        lifecycle = [e for e in lifecycle if e["event"] != "closed" or e["at"] != _merged_at(lifecycle)]
    if lifecycle:
        return events + [{"event": e["event"], "at": e["at"], "by": e.get("by")} for e in lifecycle]
    if merged_at:
        by = login(pull.get("merged_by"), {})
        events.append({"event": "merged", "at": required_at(merged_at).isoformat(), "by": by})
    elif issue.get("closed_at"):
        by = login(issue.get("closed_by"), {})
        events.append({"event": "closed", "at": required_at(issue["closed_at"]).isoformat(), "by": by})
    return events


def _merged_at(lifecycle: list[JSON]) -> str | None:
    return next((e["at"] for e in lifecycle if e["event"] == "merged"), None)


# Issue events that change an item's state; the rest (subscribed, mentioned, referenced...) change nothing.
TRACKED_EVENTS = frozenset(
    {
        *("closed", "reopened", "merged", "labeled", "unlabeled", "assigned", "unassigned"),
        *("milestoned", "demilestoned", "review_requested", "review_request_removed", "review_dismissed"),
        *("convert_to_draft", "ready_for_review"),
    }
)
# Issue event -> where the changed value is (the label's name, the assignee's login, ...).
_VALUES = {
    "labeled": ("label", "name"),
    "unlabeled": ("label", "name"),
    "assigned": ("assignee", "login"),
    "unassigned": ("assignee", "login"),
    "milestoned": ("milestone", "title"),
    "demilestoned": ("milestone", "title"),
    "review_requested": ("requested_reviewer", "login"),
    "review_request_removed": ("requested_reviewer", "login"),
}


def issue_timeline(events: Any, reviews: Any, people: dict[str, Person]) -> list[JSON]:
    """The issue events that change an item's state, oldest first: `{event, at, by, value}` (`value`: the label,
    assignee, milestone or reviewer the event is about; for a dismissed review, whose review it was)."""
    authors = {r.get("id"): login(r.get("user"), people) for r in reviews or [] if isinstance(r, dict) and r.get("id")}
    out: list[JSON] = []
    for event in events or []:
        if not isinstance(event, dict) or event.get("event") not in TRACKED_EVENTS:
            continue
        at = parse_time(event.get("created_at")) if isinstance(event.get("created_at"), str) else None
        if at is None:
            continue
        kind = str(event["event"])
        value: Any = None
        if kind in _VALUES:
            holder, key = _VALUES[kind]
            obj = event.get(holder) or (event.get("requested_team") if holder == "requested_reviewer" else None)
            value = obj.get(key) or obj.get("name") if isinstance(obj, dict) else None
        elif kind == "review_dismissed":
            value = authors.get((event.get("dismissed_review") or {}).get("review_id"))
        out.append({"event": kind, "at": at.isoformat(), "by": login(event.get("actor"), people), "value": value})
    out.sort(key=lambda e: str(e["at"]))
    return out


def release_document(record: RawRecord, people: dict[str, Person]) -> Document:
    release = record.data
    repo, tag = split_key(record.key)
    ref = f"github:{repo}@release:{tag}"
    when = required_at(release.get("published_at") or release["created_at"])
    name = str(release.get("name") or tag)
    url = str(release.get("html_url") or "")
    author = login(release.get("author"), people)
    meta = {
        "repo": repo,
        "tag": tag,
        "release": True,
        "draft": bool(release.get("draft")),
        "prerelease": bool(release.get("prerelease")),
        "published_at": when.isoformat(),
        "author": author,
        "state": "published",
        "labels": [],
        "assignees": [],
        "milestone": None,
        "linked_issues": [],
        "events": [{"event": "published", "at": when.isoformat()}],
    }
    item = Item(
        ref=ref,
        source_type="github",
        kind="release",
        text=str(release.get("body") or ""),
        occurred_at=when,
        author=author,
        title=name,
        url=url,
        container=repo,
        metadata={"tag": tag},
    )
    return Document(
        key=ref,
        kind="github_issue",
        source_type="github",
        title=f"{repo} release {tag}: {name}" if name != tag else f"{repo} release {tag}",
        items=[item],
        url=url,
        container=repo,
        metadata=meta,
    )
