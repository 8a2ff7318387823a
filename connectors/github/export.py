"""An offline GitHub export: a folder of `pulls.json`, `commits.json`, `tags.json` (and `issues.json`) for one repo.

`[sources.NAME] type = "github"` with `path` instead of `base_url`/`token_env` reads such a folder; `repos` names
the one repository it holds (`["owner/name"]`), which every ref carries: `github:<owner>/<repo>#<number>` for
pull requests and issues, `github:<owner>/<repo>@<sha>` for commits, `github:<owner>/<repo>@release:<tag>` for
tags. Each file may be a GitHub REST list (`GET /pulls`, `/issues`, `/commits`, `/releases` or `/tags`) or the
flat shape of a simple export:

- pulls: `number`, `title`, `author`, `merged_at`, `body` (optionally `created_at`, `state`, `merge_commit_sha`);
- commits: `sha`, `date`, `author`, `message` (optionally `email`);
- tags: `tag_name`, `created_at`, `sha`.

Records are stored in the shapes the API connector stores, so both normalise alike (commits become weekly
history documents). An export records no ancestry between tags and merges, so the tag and merge times give the
timeline instead: a tag without release notes lists the pull requests merged after the tag before it and up to
itself, and a merged pull request names the first tag after its merge, both said to be by time. Incremental like
the files source: the cursor keeps each file's sha256 and each record's content hash; an unchanged file is not
parsed, a changed one emits only records whose hash changed, and records gone from a file that was read are
deleted (a changed tags.json re-reads pulls.json, whose records name their next tag). A missing or unreadable file
deletes nothing (its failure says why).
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from briefing.errors import ConfigError, SourceError
from briefing.model import JSON, Batch, Cursor, Document, Failure, Item, Normalised, Person, RawRecord
from connectors.github.connector import _at, _issue_document, _login, _release_document

FILES = ("pulls.json", "issues.json", "commits.json", "tags.json")
COMMIT_KIND = "github_commit"
WEB = "https://github.com"


class ExportFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    sha256: str
    records: dict[str, str] = Field(default_factory=dict)  # record key -> content hash


class GithubExportCursor(Cursor):
    """Per export file: its sha256 and the content hash of every record it produced."""

    files: dict[str, ExportFile] = Field(default_factory=dict)


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:32]


class GithubExportConnector:
    """Reads one repository's export folder; see the module docstring."""

    def __init__(
        self,
        name: str,
        root: Path,
        repo: str,
        *,
        full: bool = False,
        since: datetime | None = None,
        max_file_bytes: int = 50_000_000,
    ) -> None:
        self.name = name
        self.root = root
        self.repo = repo
        self.full = full
        self.since = since
        self.max_file_bytes = max_file_bytes

    def initial_cursor(self) -> GithubExportCursor:
        return GithubExportCursor()

    def load_cursor(self, data: JSON) -> GithubExportCursor:
        return GithubExportCursor.model_validate(data)

    # -- collection ------------------------------------------------------------------------------------------

    def fetch(self, cursor: Cursor) -> Iterator[Batch]:
        if not isinstance(cursor, GithubExportCursor):
            cursor = self.load_cursor(cursor.model_dump())
        if not self.root.is_dir():
            raise SourceError(
                f"source '{self.name}': GitHub export folder {self.root} does not exist (sources.{self.name}.path): "
                "fix the path"
            )
        present = [name for name in FILES if (self.root / name).is_file()]
        if not present:
            raise SourceError(
                f"source '{self.name}': {self.root} holds none of {', '.join(FILES)}: point "
                f"sources.{self.name}.path at the export folder"
            )
        old = {} if self.full else dict(cursor.files)
        state = dict(old)
        batch = Batch()
        read: dict[str, tuple[bytes, list[Any]]] = {}
        for name in present:
            try:
                content = self._read(name, self.root / name)
                listed = json.loads(content)
            except (OSError, ValueError, RecursionError) as exc:
                batch.failures.append(Failure(name, f"unreadable export file: {exc}"))
                continue  # its records stay cached, its state unchanged: retried next run
            if not isinstance(listed, list):
                batch.failures.append(Failure(name, f"expected a JSON list, found {type(listed).__name__}"))
                continue
            read[name] = (content, listed)
        commit_dates = _commit_dates(read["commits.json"][1]) if "commits.json" in read else {}
        timeline = _Timeline(read.get("tags.json", (b"", []))[1], read.get("pulls.json", (b"", []))[1], commit_dates)
        for name, (content, listed) in read.items():
            # A pull request names the first tag after its merge, so a changed tags.json re-reads the pulls.
            context = read["tags.json"][0] if name == "pulls.json" and "tags.json" in read else b""
            digest = hashlib.sha256(content + context).hexdigest()
            previous = old.get(name)
            if previous is not None and previous.sha256 == digest and name != "tags.json":
                continue  # unchanged (tags are re-read: their dates and pull requests come from the other files)
            records: dict[str, RawRecord] = {}
            for n, entry in enumerate(listed):
                try:
                    record = self._record(name, entry, commit_dates)
                    timeline.annotate(record)
                except (KeyError, TypeError, ValueError, AttributeError) as exc:
                    batch.failures.append(
                        Failure(f"{name}#{n}", f"malformed {name.removesuffix('.json')} entry: {exc}")
                    )
                    continue
                if self.since is not None and not self._recent(record):
                    continue
                records[record.key] = record
            hashes = {key: _digest(r.data) for key, r in records.items()}
            known = previous.records if previous is not None else {}
            batch.records += [r for key, r in records.items() if known.get(key) != hashes[key]]
            if self.since is not None:  # a partial read: deletions and state wait for a full one
                continue
            batch.deleted += sorted(set(known) - set(hashes))
            state[name] = ExportFile(sha256=digest, records=hashes)
        if self.since is None:
            for name in [n for n in old if n not in present]:  # the file itself was removed from the export
                batch.deleted += sorted(old[name].records)
                state.pop(name)
        batch.cursor = GithubExportCursor(files=state)
        yield batch

    def _read(self, rel: str, path: Path) -> bytes:
        if not path.resolve(strict=True).is_relative_to(self.root.resolve(strict=True)):
            raise ValueError(f"{rel} is a link to outside the export folder; not followed")
        size = path.stat().st_size
        if size > self.max_file_bytes:
            raise ValueError(f"{size:,} bytes, over {self.max_file_bytes:,}; split the export")
        return path.read_bytes()

    def _recent(self, record: RawRecord) -> bool:
        data = record.data
        when = (
            data.get("date")
            if record.kind == COMMIT_KIND
            else data.get("created_at")
            if record.kind == "release"
            else data["issue"].get("updated_at") or data["issue"].get("created_at")
        )
        at = _at(when) if isinstance(when, str) else None
        return at is None or self.since is None or at >= _aware(self.since)

    def _record(self, name: str, entry: Any, commit_dates: dict[str, str]) -> RawRecord:
        if not isinstance(entry, dict):
            raise TypeError(f"expected an object, found {type(entry).__name__}")
        if name in ("pulls.json", "issues.json"):
            return self._pull_or_issue(entry, pull=name == "pulls.json")
        if name == "commits.json":
            return self._commit(entry)
        return self._tag(entry, commit_dates)

    def _pull_or_issue(self, entry: JSON, *, pull: bool) -> RawRecord:
        number = entry["number"]
        if not isinstance(number, int) or isinstance(number, bool):
            raise ValueError(f"number {number!r} is not an integer")
        user = entry.get("user")
        if not isinstance(user, dict):
            author = entry.get("author")
            user = {"login": str(author)} if author else None
        merged_at = entry.get("merged_at")
        created = entry.get("created_at") or merged_at or entry.get("closed_at") or entry.get("updated_at")
        _checked(created, "created_at (or merged_at)")
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
            "html_url": entry.get("html_url") or f"{WEB}/{self.repo}/{page}/{number}",
        }
        data: JSON = {"issue": issue, "comments": []}
        if not entry.get("created_at"):
            data["opened_unknown"] = True  # the item's time is its merge or close: no "opened" date to state
        if not is_pr:
            return RawRecord(key=f"{self.repo}#{number}", kind="issue", data=data)
        issue["pull_request"] = {**(entry.get("pull_request") or {}), "merged_at": merged_at}
        data["pull"] = {
            "merged_at": merged_at,
            "merge_commit_sha": entry.get("merge_commit_sha"),
            "html_url": issue["html_url"],
            **{k: entry[k] for k in ("base", "head", "draft", "merged_by") if k in entry},
        }
        return RawRecord(key=f"{self.repo}#{number}", kind="pull_request", data=data)

    def _commit(self, entry: JSON) -> RawRecord:
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
        _checked(data["date"], "date")
        data["html_url"] = data["html_url"] or f"{WEB}/{self.repo}/commit/{data['sha']}"
        return RawRecord(key=f"{self.repo}@{data['sha']}", kind=COMMIT_KIND, data=data)

    def _tag(self, entry: JSON, commit_dates: dict[str, str]) -> RawRecord:
        tag = entry.get("tag_name") or entry.get("name")  # releases / flat export, or GET /tags
        if not isinstance(tag, str) or not tag.strip():
            raise ValueError("a tag without tag_name or name")
        listed_commit = entry.get("commit")
        commit: JSON = listed_commit if isinstance(listed_commit, dict) else {}
        sha = str(entry.get("sha") or entry.get("target_commitish") or commit.get("sha") or "")
        when = entry.get("published_at") or entry.get("created_at") or commit_dates.get(sha.lower())
        _checked(when, "created_at (GET /tags has none: it is taken from commits.json when the commit is there)")
        data: JSON = {
            "tag_name": tag,
            "name": entry.get("name") if entry.get("tag_name") else tag,
            "body": entry.get("body") or (f"Tag {tag} at commit {sha[:12]}." if sha else f"Tag {tag}."),
            "generated_body": not entry.get("body"),
            "created_at": when,
            "published_at": entry.get("published_at") or when,
            "sha": sha,
            "html_url": entry.get("html_url") or f"{WEB}/{self.repo}/releases/tag/{tag}",
            "author": entry.get("author") if isinstance(entry.get("author"), dict) else None,
        }
        return RawRecord(key=f"{self.repo}@release:{tag}", kind="release", data=data)

    # -- normalisation ---------------------------------------------------------------------------------------

    def normalise(self, records: Sequence[RawRecord]) -> Normalised:
        out = Normalised()
        people: dict[str, Person] = {}
        weeks: dict[tuple[str, str], list[Item]] = defaultdict(list)
        for record in records:
            try:
                if record.kind == COMMIT_KIND:
                    item = _commit_item(record)
                    year, week, _ = item.occurred_at.isocalendar()
                    weeks[(str(item.container), f"{year}-W{week:02d}")].append(item)
                elif record.kind == "release":
                    out.documents.append(_release_document(record, people))
                else:
                    document = _issue_document(record, people, out.failures)
                    pull = record.data.get("pull") or {}
                    if pull.get("merge_commit_sha"):
                        document.metadata["merge_commit"] = str(pull["merge_commit_sha"])
                    if isinstance(pull.get("next_tag"), dict):
                        document.metadata["next_tag"] = dict(pull["next_tag"])
                    if record.data.get("opened_unknown"):
                        document.metadata["opened_unknown"] = True
                    out.documents.append(document)
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                out.failures.append(Failure(record.key, f"malformed GitHub export record: {type(exc).__name__} {exc}"))
        for (repo, label), items in sorted(weeks.items()):
            items.sort(key=lambda i: (i.occurred_at, i.ref))
            out.documents.append(
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
            _login({"login": item.metadata.get("login")} if item.metadata.get("login") else None, people)
        out.people = list(people.values())
        return out


def _commit_item(record: RawRecord) -> Item:
    data = record.data
    repo = record.key.partition("@")[0]
    sha = str(data["sha"])
    message = str(data.get("message") or "").strip()
    subject, _, body = message.partition("\n")
    when = _checked(data.get("date"), "date")
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


class _Timeline:
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
        return _at(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _commit_dates(listed: list[Any]) -> dict[str, str]:
    dates: dict[str, str] = {}
    for entry in listed:
        if not isinstance(entry, dict) or not isinstance(entry.get("sha"), str):
            continue
        inner = entry.get("commit")
        when = (inner.get("author") or {}).get("date") if isinstance(inner, dict) else entry.get("date")
        if isinstance(when, str):
            dates[entry["sha"].lower()] = when
    return dates


def _checked(value: Any, what: str) -> datetime:
    at = None
    if isinstance(value, str):
        try:
            at = _at(value)
        except ValueError:
            at = None
    if at is None:
        raise ValueError(f"missing or bad {what}: {str(value)[:60]!r}")
    return at


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def build_export(name: str, root: Path, repos: Sequence[str], **kwargs: Any) -> GithubExportConnector:
    if len(repos) != 1 or repos[0].count("/") != 1 or not all(repos[0].split("/")):
        raise ConfigError(
            f"source '{name}': a GitHub export (sources.{name}.path) holds one repository: set "
            f'sources.{name}.repos = ["owner/name"]'
        )
    return GithubExportConnector(name, root, repos[0], **kwargs)
