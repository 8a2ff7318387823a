"""GitHub commits as weekly history documents (`github:<owner>/<repo>/commits/<year>-W<week>`), one item each.

The export's `commits.json` and the `push` webhook store one raw record per commit (`<owner>/<repo>@<sha>`, kind
`github_commit`: sha, message, author, login, email, date, html_url); both normalise here alike.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from briefing.model import JSON, Document, Failure, Item, Person, RawRecord
from connectors.github.documents import login
from connectors.github.export_records import COMMIT_KIND, checked


def commit_documents(
    records: Sequence[RawRecord], people: dict[str, Person], failures: list[Failure]
) -> list[Document]:
    """The commit records grouped by repository and ISO week, in time order; a malformed one is a failure."""
    weeks: dict[tuple[str, str], list[Item]] = defaultdict(list)
    for record in records:
        try:
            item = _commit_item(record)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            failures.append(Failure(record.key, f"malformed GitHub commit record: {type(exc).__name__} {exc}"))
            continue
        year, week, _ = item.occurred_at.isocalendar()
        weeks[(str(item.container), f"{year}-W{week:02d}")].append(item)
    out = []
    for (repo, label), items in sorted(weeks.items()):
        items.sort(key=lambda i: (i.occurred_at, i.ref))
        out.append(
            Document(
                key=f"github:{repo}/commits/{label}",
                kind="github_commits",
                source_type="github",
                title=f"{repo}: commits in {label}",
                items=items,
                container=repo,
                metadata={"repo": repo, "week": label},
            )
        )
    for item in (i for items in weeks.values() for i in items):
        login({"login": item.metadata.get("login")} if item.metadata.get("login") else None, people)
    return out


def pushed_commit(repo: str, commit: Any) -> RawRecord:
    """The record of one commit a `push` webhook lists (its `commits[]` entry), as the export stores it."""
    author = commit.get("author") or {}
    checked(commit.get("timestamp"), "timestamp")
    data: JSON = {
        "sha": str(commit["id"]).lower(),
        "message": str(commit.get("message") or ""),
        "author": str(author.get("name") or author.get("username") or ""),
        "login": author.get("username"),
        "email": str(author.get("email") or ""),
        "date": str(commit["timestamp"]),
        "html_url": commit.get("url"),
    }
    return RawRecord(key=f"{repo}@{data['sha']}", kind=COMMIT_KIND, data=data)


def _commit_item(record: RawRecord) -> Item:
    data = record.data
    repo = record.key.partition("@")[0]
    sha = str(data["sha"])
    message = str(data.get("message") or "").strip()
    subject, _, body = message.partition("\n")
    when = checked(data.get("date"), "date")
    return Item(
        ref=f"github:{repo}@{sha}",
        source_type="github",
        kind="commit",
        text=message or subject,
        occurred_at=when,
        author=str(data.get("author") or "") or None,
        title=subject,
        url=str(data.get("html_url") or ""),
        container=repo,
        metadata={
            "sha": sha,
            "short_sha": sha[:7],
            "subject": subject,
            "body": body.strip(),
            "author_email": str(data.get("email") or ""),
            "login": data.get("login"),
            "files": None,  # an export lists no files or line counts: unknown, not "0 files"
        },
    )
