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
        "merged_by": login(pull.get("merged_by"), people),
        "draft": pull.get("draft", issue.get("draft")),
        "base": (pull.get("base") or {}).get("ref"),
        "head": (pull.get("head") or {}).get("ref"),
        "linked_issues": linked_issues(body, repo),
        "events": state_events(issue, pull, created, merged_at, author),
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
    issue: JSON, pull: JSON, created: datetime, merged_at: str | None, author: str | None = None
) -> list[JSON]:
    """Opened, then merged or closed, with who did it (GitHub's own fields; a reopening is not among them)."""
    events: list[JSON] = [{"event": "opened", "at": created.isoformat(), "by": author}]
    if merged_at:
        by = login(pull.get("merged_by"), {})
        events.append({"event": "merged", "at": required_at(merged_at).isoformat(), "by": by})
    elif issue.get("closed_at"):
        by = login(issue.get("closed_by"), {})
        events.append({"event": "closed", "at": required_at(issue["closed_at"]).isoformat(), "by": by})
    return events


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
