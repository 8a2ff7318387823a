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
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from briefing.errors import ConfigError, SourceError
from briefing.model import JSON, Batch, Cursor, Failure, Normalised, Person, RawRecord
from connectors.github.commits import commit_documents
from connectors.github.documents import issue_document, parse_time, release_document
from connectors.github.export_records import COMMIT_KIND, Timeline, commit_dates, record_of

FILES = ("pulls.json", "issues.json", "commits.json", "tags.json")


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
        dates = commit_dates(read["commits.json"][1]) if "commits.json" in read else {}
        timeline = Timeline(read.get("tags.json", (b"", []))[1], read.get("pulls.json", (b"", []))[1], dates)
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
                    record = record_of(self.repo, name, entry, dates)
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
        at = parse_time(when) if isinstance(when, str) else None
        return at is None or self.since is None or at >= _aware(self.since)

    # -- normalisation ---------------------------------------------------------------------------------------

    def normalise(self, records: Sequence[RawRecord]) -> Normalised:
        out = Normalised()
        people: dict[str, Person] = {}
        commits: list[RawRecord] = []
        for record in records:
            try:
                if record.kind == COMMIT_KIND:
                    commits.append(record)
                elif record.kind == "release":
                    out.documents.append(release_document(record, people))
                else:
                    document = issue_document(record, people, out.failures)
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
        out.documents += commit_documents(commits, people, out.failures)
        out.people = list(people.values())
        return out


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def build_export(name: str, root: Path, repos: Sequence[str], **kwargs: Any) -> GithubExportConnector:
    if len(repos) != 1 or repos[0].count("/") != 1 or not all(repos[0].split("/")):
        raise ConfigError(
            f"source '{name}': a GitHub export (sources.{name}.path) holds one repository: set "
            f'sources.{name}.repos = ["owner/name"]'
        )
    return GithubExportConnector(name, root, repos[0], **kwargs)
