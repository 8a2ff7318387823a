"""A GitHub export file's entries as the raw records the API connector stores, and the tag and merge timeline."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from briefing.model import JSON, RawRecord
from connectors.github.documents import parse_time

COMMIT_KIND = "github_commit"
WEB = "https://github.com"


def record_of(repo: str, name: str, entry: Any, commit_dates: dict[str, str]) -> RawRecord:
    """One entry of an export file as the raw record the API connector would store for it."""
    if not isinstance(entry, dict):
        raise TypeError(f"expected an object, found {type(entry).__name__}")
    if name in ("pulls.json", "issues.json"):
        return _pull_or_issue(repo, entry, pull=name == "pulls.json")
    if name == "commits.json":
        return _commit(repo, entry)
    return _tag(repo, entry, commit_dates)


def _pull_or_issue(repo: str, entry: JSON, *, pull: bool) -> RawRecord:
    number = entry["number"]
    if not isinstance(number, int) or isinstance(number, bool):
        raise ValueError(f"number {number!r} is not an integer")
    user = entry.get("user")
    if not isinstance(user, dict):
        author = entry.get("author")
        user = {"login": str(author)} if author else None
    merged_at = entry.get("merged_at")
    created = entry.get("created_at") or merged_at or entry.get("closed_at") or entry.get("updated_at")
    checked(created, "created_at (or merged_at)")
    is_pr = pull or bool(entry.get("pull_request"))
    page = "pull" if is_pr else "issues"
    issue: JSON = {
        **{k: v for k, v in entry.items() if k not in ("author", "merge_commit_sha")},
        "number": number,
        "title": str(entry.get("title") or f"#{number}"),
        "user": user,
        "body": entry.get("body") or "",
        "created_at": created,
        "updated_at": entry.get("updated_at") or merged_at or created,
        "state": entry.get("state") or ("closed" if merged_at else "open"),
        "html_url": entry.get("html_url") or f"{WEB}/{repo}/{page}/{number}",
    }
    data: JSON = {"issue": issue, "comments": []}
    if not entry.get("created_at"):
        data["opened_unknown"] = True  # the item's time is its merge or close: no "opened" date to state
    if not is_pr:
        return RawRecord(key=f"{repo}#{number}", kind="issue", data=data)
    issue["pull_request"] = {**(entry.get("pull_request") or {}), "merged_at": merged_at}
    data["pull"] = {
        "merged_at": merged_at,
        "merge_commit_sha": entry.get("merge_commit_sha"),
        "html_url": issue["html_url"],
        **{k: entry[k] for k in ("base", "head", "draft", "merged_by") if k in entry},
    }
    return RawRecord(key=f"{repo}#{number}", kind="pull_request", data=data)


def _commit(repo: str, entry: JSON) -> RawRecord:
    sha = str(entry["sha"])
    if len(sha) < 7 or any(c not in "0123456789abcdef" for c in sha.lower()):
        raise ValueError(f"sha {sha[:60]!r} is not a commit id")
    inner = entry.get("commit") if isinstance(entry.get("commit"), dict) else None
    if inner is not None:  # GET /repos/{owner}/{repo}/commits
        who = inner.get("author") or {}
        login = (entry.get("author") or {}).get("login") if isinstance(entry.get("author"), dict) else None
        data = {
            "sha": sha.lower(),
            "message": str(inner.get("message") or ""),
            "author": str(who.get("name") or login or ""),
            "login": login,
            "email": str(who.get("email") or ""),
            "date": who.get("date"),
            "html_url": entry.get("html_url"),
        }
    else:
        data = {
            "sha": sha.lower(),
            "message": str(entry.get("message") or ""),
            "author": str(entry.get("author") or ""),
            "email": str(entry.get("email") or ""),
            "date": entry.get("date"),
            "html_url": entry.get("html_url"),
        }
    checked(data["date"], "date")
    data["html_url"] = data["html_url"] or f"{WEB}/{repo}/commit/{data['sha']}"
    return RawRecord(key=f"{repo}@{data['sha']}", kind=COMMIT_KIND, data=data)


def _tag(repo: str, entry: JSON, commit_dates: dict[str, str]) -> RawRecord:
    tag = entry.get("tag_name") or entry.get("name")  # releases / flat export, or GET /tags
    if not isinstance(tag, str) or not tag.strip():
        raise ValueError("a tag without tag_name or name")
    listed_commit = entry.get("commit")
    commit: JSON = listed_commit if isinstance(listed_commit, dict) else {}
    sha = str(entry.get("sha") or entry.get("target_commitish") or commit.get("sha") or "")
    when = entry.get("published_at") or entry.get("created_at") or commit_dates.get(sha.lower())
    checked(when, "created_at (GET /tags has none: it is taken from commits.json when the commit is there)")
    data: JSON = {
        "tag_name": tag,
        "name": entry.get("name") if entry.get("tag_name") else tag,
        "body": entry.get("body") or (f"Tag {tag} at commit {sha[:12]}." if sha else f"Tag {tag}."),
        "generated_body": not entry.get("body"),
        "created_at": when,
        "published_at": entry.get("published_at") or when,
        "sha": sha,
        "html_url": entry.get("html_url") or f"{WEB}/{repo}/releases/tag/{tag}",
        "author": entry.get("author") if isinstance(entry.get("author"), dict) else None,
    }
    return RawRecord(key=f"{repo}@release:{tag}", kind="release", data=data)


class Timeline:
    """Tags and merges in time order: which pull requests were merged between two tags (the export has no ancestry).

    A tag without release notes gets `merged_pulls` (merged after the tag before it, up to itself) and a body that
    lists them; a merged pull request gets `next_tag`, the first tag at or after its merge.
    """

    def __init__(self, tags: list[Any], pulls: list[Any], commit_dates: dict[str, str]) -> None:
        self.tags: list[tuple[datetime, str]] = []
        for entry in tags:
            if not isinstance(entry, dict):
                continue
            name = entry.get("tag_name") or entry.get("name")
            listed = entry.get("commit")
            commit: dict[str, Any] = listed if isinstance(listed, dict) else {}
            sha = str(entry.get("sha") or entry.get("target_commitish") or commit.get("sha") or "").lower()
            when = _when(entry.get("published_at") or entry.get("created_at") or commit_dates.get(sha))
            if isinstance(name, str) and name.strip() and when is not None:
                self.tags.append((when, name))
        self.tags.sort()
        self.merges: list[tuple[datetime, int, str, str]] = []
        for entry in pulls:
            if not isinstance(entry, dict) or not isinstance(entry.get("number"), int):
                continue
            pull = entry.get("pull_request")
            when = _when(entry.get("merged_at") or (pull.get("merged_at") if isinstance(pull, dict) else None))
            listed_user = entry.get("user")
            user: dict[str, Any] = listed_user if isinstance(listed_user, dict) else {}
            author = str(entry.get("author") or user.get("login") or "")
            if when is not None:
                self.merges.append((when, entry["number"], str(entry.get("title") or ""), author))
        self.merges.sort()

    def annotate(self, record: RawRecord) -> None:
        if record.kind == "pull_request":
            when = _when(record.data["pull"].get("merged_at"))
            after = next(((at, tag) for at, tag in self.tags if when is not None and at >= when), None)
            if after is not None:
                record.data["pull"]["next_tag"] = {"tag": after[1], "at": after[0].isoformat()}
        elif record.kind == "release":
            tag = str(record.data["tag_name"])
            position = next((n for n, (_, name) in enumerate(self.tags) if name == tag), None)
            if position is None:
                return
            at = self.tags[position][0]
            before = self.tags[position - 1] if position > 0 else None
            merged = [m for m in self.merges if m[0] <= at and (before is None or m[0] > before[0])]
            record.data["merged_pulls"] = [{"number": n, "title": t, "author": a} for _, n, t, a in merged]
            record.data["previous_tag"] = before[1] if before else None
            if merged and record.data.get("generated_body"):
                # One line per pull request, each naming the tag, so that a quoted line answers on its own.
                since = f"after {before[1]} " if before else ""
                lines = [f"- PR #{n} {t}" + (f" (by {a})" if a else "") + f", before {tag}" for _, n, t, a in merged]
                record.data["body"] = (
                    f"{record.data['body']}\n\nPull requests (PRs) merged {since}up to tag {tag}, by merge time "
                    "(the export records no ancestry).\n" + "\n".join(lines)
                )


def _when(value: Any) -> datetime | None:
    try:
        return parse_time(value) if isinstance(value, str) else None
    except ValueError:
        return None


def commit_dates(listed: list[Any]) -> dict[str, str]:
    dates: dict[str, str] = {}
    for entry in listed:
        if not isinstance(entry, dict) or not isinstance(entry.get("sha"), str):
            continue
        inner = entry.get("commit")
        when = (inner.get("author") or {}).get("date") if isinstance(inner, dict) else entry.get("date")
        if isinstance(when, str):
            dates[entry["sha"].lower()] = when
    return dates


def checked(value: Any, what: str) -> datetime:
    at = None
    if isinstance(value, str):
        try:
            at = parse_time(value)
        except ValueError:
            at = None
    if at is None:
        raise ValueError(f"missing or bad {what}: {str(value)[:60]!r}")
    return at
