"""The GitHub connector's cursor, and the run that moves it forward one repository at a time."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from briefing.model import JSON, Cursor
from connectors.github.code import CodeState


class RepoState(BaseModel):
    """What a 304 on the repository leaves unsaid: its ETag, default branch and web address."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    etag: str = ""
    default_branch: str = ""
    html_url: str = ""


class GithubCursor(Cursor):
    """Per repository: newest `updated_at` stored, release tags held, repository state, code file state."""

    repos: dict[str, datetime] = {}
    releases: dict[str, list[str]] = {}
    meta: dict[str, RepoState] = Field(default_factory=dict)
    code: dict[str, CodeState] = Field(default_factory=dict)
    # Issue and pull request numbers stored per repository, for deletion reconciliation on every sync.
    numbers: dict[str, list[int]] = Field(default_factory=dict)
    # Per repository and number: how many issue comments, and which review comment ids, the stored record holds
    # (a deleted comment changes neither the issue's `updated_at` nor the `since` listing).
    comment_counts: dict[str, dict[int, int]] = Field(default_factory=dict)
    review_comment_ids: dict[str, dict[int, list[int]]] = Field(default_factory=dict)
    # When the whole issue listing was last walked for deletions, per repository.
    reconciled: dict[str, datetime] = Field(default_factory=dict)


BATCH_SIZE = 25


class Run:
    """The cursor's parts while a fetch moves them forward."""

    def __init__(self, cursor: GithubCursor) -> None:
        self.updated = dict(cursor.repos)
        self.releases = {repo: list(tags) for repo, tags in cursor.releases.items()}
        self.meta = dict(cursor.meta)
        self.code = dict(cursor.code)
        self.numbers = {repo: set(numbers) for repo, numbers in cursor.numbers.items()}
        self.comment_counts = {repo: dict(counts) for repo, counts in cursor.comment_counts.items()}
        self.review_ids = {repo: dict(ids) for repo, ids in cursor.review_comment_ids.items()}
        self.reconciled = dict(cursor.reconciled)

    def stored(self, full_name: str, number: int, data: JSON) -> None:
        """Remember what the stored record of one issue or PR holds, for the comment reconciliation."""
        self.numbers.setdefault(full_name, set()).add(number)
        self.comment_counts.setdefault(full_name, {})[number] = len(data.get("comments") or [])
        ids = sorted(c["id"] for c in data.get("review_comments") or [] if isinstance(c.get("id"), int))
        reviews = self.review_ids.setdefault(full_name, {})
        if ids:
            reviews[number] = ids
        else:
            reviews.pop(number, None)

    def forget(self, full_name: str, numbers: set[int]) -> None:
        self.numbers[full_name] = self.numbers.get(full_name, set()) - numbers
        for table in (self.comment_counts, self.review_ids):
            for number in numbers:
                table.get(full_name, {}).pop(number, None)

    def cursor(self) -> GithubCursor:
        return GithubCursor(
            repos=dict(self.updated),
            releases={k: list(v) for k, v in self.releases.items()},
            meta=dict(self.meta),
            code=dict(self.code),
            numbers={k: sorted(v) for k, v in self.numbers.items()},
            comment_counts={k: dict(sorted(v.items())) for k, v in self.comment_counts.items() if v},
            review_comment_ids={k: dict(sorted(v.items())) for k, v in self.review_ids.items() if v},
            reconciled=dict(self.reconciled),
        )
