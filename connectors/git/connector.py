"""Local git repositories: commits, tags and (optionally) code files of a clone, read with the git CLI.

No network: only plumbing-style `git` commands on the local clone. Incremental by the last commit seen per
branch (`last..branch`); a rewritten branch (the last commit is no longer an ancestor) is re-read in full.
Raw records: `<sha>` per commit, `tag:<name>` per tag, `file:<path>` per code file.

`--since`/`--until` read the commits authored in the window, over each branch's whole history, without moving
the branch heads in the cursor (the next plain run still reads what lies outside the window) or deleting.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import Field

from briefing.errors import SourceError
from briefing.model import JSON, Batch, Cursor, Failure, Normalised, RawRecord
from briefing.registry import FetchOptions, SourceContext
from connectors.git import GitSource
from connectors.git.cli import GitFailed, run_git
from connectors.git.documents import normalise
from connectors.git.log import LOG_FORMAT, TAG_FIELDS, TAG_FORMAT, parse_commit, parse_time, split_log

log = logging.getLogger(__name__)

BATCH_SIZE = 500
MAX_FILE_BYTES = 256 * 1024
MAX_TAG_COMMITS = 50

CODE_EXTENSIONS = frozenset(
    ".py .pyi .go .ts .tsx .mts .cts .js .jsx .mjs .cjs .java .kt .kts .c .h .cc .cpp .hpp .cs .rs .rb .php"
    " .scala .swift .sql .sh .tf .proto .graphql .yaml .yml .toml .md".split()
)


class GitCursor(Cursor):
    """Last commit seen per branch; tag name -> tag object; code file path -> blob sha."""

    heads: dict[str, str] = Field(default_factory=dict)
    tags: dict[str, str] = Field(default_factory=dict)
    files: dict[str, str] = Field(default_factory=dict)


@dataclass(frozen=True)
class _Branch:
    name: str
    head: str


class GitConnector:
    """Reads one local clone through the `git` command line."""

    def __init__(
        self,
        path: Path,
        *,
        name: str,
        repo_name: str,
        branches: Sequence[str] = (),
        code_paths: Sequence[str] = (),
        options: FetchOptions | None = None,
    ) -> None:
        self.path = path
        self.options = options or FetchOptions()
        self.name = name
        self.repo_name = repo_name
        self.branches = list(branches)
        self.code_paths = [p.strip("/") for p in code_paths if p.strip("/")]

    # -- Connector protocol -------------------------------------------------------------------------------

    def initial_cursor(self) -> GitCursor:
        return GitCursor()

    def load_cursor(self, data: JSON) -> GitCursor:
        return GitCursor.model_validate(data)

    def fetch(self, cursor: Cursor) -> Iterator[Batch]:
        assert isinstance(cursor, GitCursor)
        self._check_repository()
        try:
            yield from self._fetch(cursor)
        except GitFailed as exc:
            # The clone changed under us or is damaged; nothing partial is lost, the cursor did not move.
            raise SourceError(f"source '{self.name}' ({self.path}): {exc}; check the clone with `git fsck`") from None

    def _fetch(self, cursor: GitCursor) -> Iterator[Batch]:
        branches, failures = self._resolve_branches()
        heads = dict(cursor.heads)
        every_head = [b.head for b in branches]
        done: list[str] = []  # heads of branches already read this run: their commits are not repeated
        for branch in branches:
            yield from self._fetch_branch(branch, cursor, heads, done, every_head)
            done.append(branch.head)
        tags, final = self._fetch_tags(cursor.tags)
        final.failures[:0] = failures
        files: dict[str, str] = dict(cursor.files)
        if self.code_paths and branches:
            files = self._fetch_files(branches[0], cursor.files, final)
        final.cursor = GitCursor(heads=heads, tags=tags, files=files)
        yield final

    def normalise(self, records: Sequence[RawRecord]) -> Normalised:
        return normalise(records, self.repo_name)

    # -- fetching -----------------------------------------------------------------------------------------

    def _git(self, *args: str, check: bool = True, input_bytes: bytes | None = None) -> bytes:
        return run_git(self.path, self.name, *args, check=check, input_bytes=input_bytes)

    def _check_repository(self) -> None:
        where = f"source '{self.name}' (sources.{self.name}.path = {self.path})"
        if not self.path.is_dir():
            raise SourceError(f"{where}: folder does not exist; point 'path' at a local git clone")
        try:
            inside = self._git("rev-parse", "--is-inside-work-tree", "--is-bare-repository").decode().split()
        except GitFailed as exc:
            raise SourceError(f"{where}: not a git repository ({exc.reason}); point 'path' at a clone") from None
        if "true" not in inside:
            raise SourceError(f"{where}: not a git repository; point 'path' at a local clone")

    def _resolve_branches(self) -> tuple[list[_Branch], list[Failure]]:
        names = self.branches
        failures: list[Failure] = []
        if not names:
            try:
                names = [self._git("symbolic-ref", "--short", "HEAD").decode().strip()]
            except GitFailed:
                names = ["HEAD"]  # detached HEAD: read what is checked out
        branches: list[_Branch] = []
        for name in names:
            try:
                head = self._git("rev-parse", "--verify", "--quiet", f"{name}^{{commit}}").decode().strip()
            except GitFailed:
                head = ""
            if not head:
                # An unborn default branch (empty repository) is not an error; a configured typo is.
                if self.branches:
                    failures.append(Failure(f"branch:{name}", f"branch '{name}' not found in {self.path}"))
                continue
            branches.append(_Branch(name, head))
        return branches, failures

    def _fetch_branch(
        self,
        branch: _Branch,
        cursor: GitCursor,
        heads: dict[str, str],
        done: list[str],
        every_head: list[str],
    ) -> Iterator[Batch]:
        if self.options.since is not None or self.options.until is not None:
            yield from self._fetch_window(branch, cursor, heads, done)
            return
        last = cursor.heads.get(branch.name)
        deleted: list[str] = []
        if last == branch.head:
            return
        if last and not self._is_ancestor(last, branch.head):
            log.warning(
                "git source '%s': branch %s was rewritten (%s is no longer an ancestor); reading it in full",
                self.name,
                branch.name,
                last[:12],
            )
            if self._has_commit(last):
                # Commits only the old history had are gone from every branch read, so their records go too.
                deleted = self._git("rev-list", last, "--not", *every_head).decode().split()
            last = None
        revs = [branch.head, "--not", *done] + ([last] if last else [])
        commits, failures = self._log(revs, branch.name)
        if not commits:
            heads[branch.name] = branch.head
            yield Batch(deleted=deleted, failures=failures, cursor=_with_heads(cursor, heads))
            return
        for start in range(0, len(commits), BATCH_SIZE):
            part = commits[start : start + BATCH_SIZE]
            final = start + BATCH_SIZE >= len(commits)
            # Oldest first, so every ancestor of the batch's newest commit is already stored.
            heads[branch.name] = branch.head if final else part[-1].key
            yield Batch(
                records=part,
                deleted=deleted if start == 0 else [],
                failures=failures if start == 0 else [],
                cursor=_with_heads(cursor, heads),
            )

    def _fetch_window(
        self, branch: _Branch, cursor: GitCursor, heads: dict[str, str], done: list[str]
    ) -> Iterator[Batch]:
        """Commits of the branch authored between --since and --until; the cursor's heads stay where they were."""
        since, until = self.options.since, self.options.until
        commits, failures = self._log([branch.head, "--not", *done], branch.name)
        kept = [
            c
            for c in commits
            if (since is None or parse_time(c.data["authored_at"]) >= _aware(since))
            and (until is None or parse_time(c.data["authored_at"]) <= _aware(until))
        ]
        for start in range(0, max(len(kept), 1), BATCH_SIZE):
            yield Batch(
                records=kept[start : start + BATCH_SIZE],
                failures=failures if start == 0 else [],
                cursor=_with_heads(cursor, heads),
            )

    def _is_ancestor(self, old: str, new: str) -> bool:
        try:
            self._git("merge-base", "--is-ancestor", old, new)
        except GitFailed:
            return False
        return True

    def _has_commit(self, sha: str) -> bool:
        try:
            self._git("cat-file", "-e", f"{sha}^{{commit}}")
        except GitFailed:
            return False
        return True

    def _log(self, revs: list[str], branch: str) -> tuple[list[RawRecord], list[Failure]]:
        raw = self._git(
            "log",
            "--reverse",
            "--topo-order",
            "-z",
            "--numstat",
            "-M",
            f"--format={LOG_FORMAT}",
            *revs,
            "--",
        )
        records: list[RawRecord] = []
        failures: list[Failure] = []
        for entry in split_log(raw.decode("utf-8", "replace")):
            sha = entry.split("\0", 1)[0]
            try:
                data = parse_commit(entry)
            except (ValueError, IndexError) as exc:
                failures.append(Failure(sha, f"commit could not be parsed: {exc}"))
                continue
            data["repo"] = self.repo_name
            data["branch"] = branch
            records.append(RawRecord(key=data["sha"], kind="git_commit", data=data))
        return records, failures

    def _fetch_tags(self, seen: dict[str, str]) -> tuple[dict[str, str], Batch]:
        batch = Batch()
        raw = self._git("for-each-ref", "--sort=creatordate", f"--format={TAG_FORMAT}", "refs/tags")
        fields = raw.decode("utf-8", "replace").split("\0")
        tags: dict[str, str] = {}
        width = len(TAG_FIELDS)
        for start in range(0, len(fields) - width + 1, width):
            values = [f.lstrip("\n") if i == 0 else f for i, f in enumerate(fields[start : start + width])]
            data: dict[str, Any] = dict(zip(TAG_FIELDS, values, strict=True))
            name = data["name"]
            annotated = data["object_type"] == "tag"
            target = data["commit"] if annotated else data["object"]
            tags[name] = data["object"]
            if seen.get(name) == data["object"]:
                continue
            if not annotated and data["object_type"] != "commit":
                continue  # a tag on a tree or blob says nothing about history
            try:
                record = self._tag_record(data, annotated=annotated, target=target)
            except (GitFailed, ValueError) as exc:
                batch.failures.append(Failure(f"tag:{name}", f"tag could not be read: {exc}"))
                del tags[name]  # not marked as seen, so the next run tries again
                continue
            batch.records.append(record)
        batch.deleted.extend(f"tag:{name}" for name in seen if name not in tags)
        return tags, batch

    def _tag_record(self, data: dict[str, Any], *, annotated: bool, target: str) -> RawRecord:
        name = data["name"]
        try:
            previous = self._git("describe", "--tags", "--abbrev=0", f"{target}^").decode().strip()
        except GitFailed:
            previous = ""  # the first tag, or a root commit
        revs = [target, "--not", previous] if previous else [target]
        listing = self._git("log", f"--max-count={MAX_TAG_COMMITS}", "--format=%H%x00%s", *revs, "--").decode()
        commits = [
            dict(zip(("sha", "subject"), line.split("\0", 1), strict=True))
            for line in listing.splitlines()
            if "\0" in line
        ]
        record = {
            "repo": self.repo_name,
            "name": name,
            "annotated": annotated,
            "object": data["object"],
            "commit": target,
            "tagger": (data["tagger"] if annotated else data["author"]) or "",
            "tagger_email": (data["tagger_email"] if annotated else data["author_email"]).strip("<>"),
            "created_at": data["created_at"],
            "message": data["message"].strip() if annotated else "",
            "previous_tag": previous,
            "commits": commits,
        }
        parse_time(record["created_at"])
        return RawRecord(key=f"tag:{name}", kind="git_tag", data=record)

    def _fetch_files(self, branch: _Branch, seen: dict[str, str], batch: Batch) -> dict[str, str]:
        raw = self._git("ls-tree", "-r", "-z", "--full-tree", "-l", branch.head).decode("utf-8", "replace")
        listed: dict[str, tuple[str, int]] = {}
        for entry in raw.split("\0"):
            if "\t" not in entry:
                continue
            meta, path = entry.split("\t", 1)
            mode, kind, sha, size_text = meta.split()
            if kind != "blob" or mode == "120000" or not self._wanted(path):
                continue
            listed[path] = (sha, int(size_text) if size_text.isdigit() else 0)
        changed = [p for p, (sha, _) in sorted(listed.items()) if seen.get(p) != sha]
        files = {p: sha for p, (sha, _) in listed.items()}
        committed_at = self._git("show", "-s", "--format=%cI", branch.head).decode().strip()
        for path in changed:
            sha, size = listed[path]
            key = f"file:{path}"
            # Too big or binary: nothing to chunk. Kept in the cursor so that it is not re-read every run; a
            # cached earlier (text) version is dropped.
            if size > MAX_FILE_BYTES:
                batch.failures.append(Failure(key, f"skipped: {size} bytes is over {MAX_FILE_BYTES}"))
                batch.deleted.append(key)
                continue
            content = self._git("cat-file", "blob", sha)
            if b"\0" in content[:8192]:
                batch.deleted.append(key)
                continue
            batch.records.append(
                RawRecord(
                    key=key,
                    kind="git_file",
                    data={
                        "repo": self.repo_name,
                        "path": path,
                        "blob": sha,
                        "branch": branch.name,
                        "commit": branch.head,
                        "committed_at": committed_at,
                        "text": content.decode("utf-8", "replace"),
                    },
                )
            )
        batch.deleted.extend(f"file:{p}" for p in seen if p not in files)
        return files

    def _wanted(self, path: str) -> bool:
        if path in self.code_paths:
            return True  # named explicitly: whatever its extension
        if PurePosixPath(path).suffix.lower() not in CODE_EXTENSIONS:
            return False
        return any(path.startswith(p + "/") or fnmatch(path, p) for p in self.code_paths)


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _with_heads(cursor: GitCursor, heads: dict[str, str]) -> GitCursor:
    return GitCursor(heads=dict(heads), tags=cursor.tags, files=cursor.files)


def build(ctx: SourceContext) -> GitConnector:
    """The connector for one `type = "git"` source table."""
    config: GitSource = ctx.config
    path = ctx.resolve(config.path)
    repo_name = config.name or path.resolve().name
    return GitConnector(
        path,
        name=ctx.name,
        repo_name=repo_name,
        branches=config.branches,
        code_paths=config.code_paths,
        options=ctx.options,
    )
