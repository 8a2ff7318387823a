"""What `git log` and `git for-each-ref` print, parsed into commit and tag fields."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")
_NUMSTAT = re.compile(r"^(\d+|-)\t(\d+|-)\t(.*)$", re.DOTALL)
# `git log` fields (name=placeholder). One commit per \x1e-introduced entry, fields ended by NUL, which git
# never lets into a message.
_LOG_SPEC = dict(
    pair.split("=", 1)
    for pair in "sha=%H parents=%P author=%an author_email=%ae authored_at=%aI committer=%cn"
    " committer_email=%ce committed_at=%cI subject=%s body=%b".split()
)
LOG_FIELDS = tuple(_LOG_SPEC)
LOG_FORMAT = "%x1e" + "".join(f"{v}%x00" for v in _LOG_SPEC.values())
# `git for-each-ref` fields; `commit` is the commit an annotated tag points at, `author` a lightweight tag's.
_TAG_SPEC = dict(
    pair.split("=", 1)
    for pair in "name=%(refname:strip=2) object_type=%(objecttype) object=%(objectname) commit=%(*objectname)"
    " tagger=%(taggername) tagger_email=%(taggeremail) created_at=%(creatordate:iso-strict)"
    " message=%(contents) author=%(authorname) author_email=%(authoremail)".split()
)
TAG_FIELDS = tuple(_TAG_SPEC)
TAG_FORMAT = "".join(f"{v}%00" for v in _TAG_SPEC.values())


def split_log(raw: str) -> Iterator[str]:
    """Commit entries of `git log -z` output; a \\x1e inside a message is glued back to its commit."""
    entry = ""
    for piece in raw.split("\x1e"):
        if entry and _SHA.match(piece.split("\0", 1)[0]):
            yield entry
            entry = piece
        else:
            entry = entry + "\x1e" + piece if entry else piece
    if entry:
        yield entry


def parse_commit(entry: str) -> dict[str, Any]:
    fields = entry.split("\0")
    if len(fields) < len(LOG_FIELDS):
        raise ValueError(f"expected {len(LOG_FIELDS)} fields, got {len(fields)}")
    data: dict[str, Any] = dict(zip(LOG_FIELDS, fields[: len(LOG_FIELDS)], strict=True))
    if not _SHA.match(data["sha"]):
        raise ValueError(f"not a commit id: {data['sha'][:50]!r}")
    parse_time(data["authored_at"])
    data["parents"] = data["parents"].split()
    data["body"] = data["body"].strip()
    files: list[dict[str, Any]] = []
    rest = iter(fields[len(LOG_FIELDS) :])
    for token in rest:
        token = token.lstrip("\n")
        if not token:
            continue
        match = _NUMSTAT.match(token)
        if match is None:
            raise ValueError(f"unexpected numstat line {token[:80]!r}")
        added, removed, path = match.groups()
        entry_file: dict[str, Any] = {"path": path}
        if not path:  # a rename or copy: old and new paths follow as their own fields
            entry_file["old_path"] = next(rest)
            entry_file["path"] = next(rest)
        binary = added == "-"
        entry_file["insertions"] = 0 if binary else int(added)
        entry_file["deletions"] = 0 if binary else int(removed)
        if binary:
            entry_file["binary"] = True
        files.append(entry_file)
    data["files"] = files
    data["insertions"] = sum(f["insertions"] for f in files)
    data["deletions"] = sum(f["deletions"] for f in files)
    return data


def parse_time(value: str) -> datetime:
    parsed = datetime.fromisoformat(value.strip())
    if parsed.tzinfo is None:
        raise ValueError(f"time without a zone: {value!r}")
    return parsed.astimezone(UTC)
