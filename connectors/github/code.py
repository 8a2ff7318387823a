"""Code files of a GitHub repository's default branch: which files to read, their state, their documents.

The GitHub connector lists the branch's tree, downloads only blobs whose sha it has not seen for that path, and
stores one raw record per file (`<owner>/<repo>:<path>`, kind "github_file"); this module holds what it needs
for that and the normalised form: a "code_file" Document with one Item whose ref is `github:<owner>/<repo>:<path>`.
"""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from fnmatch import fnmatch
from pathlib import PurePosixPath
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict, Field

from briefing.model import JSON, Document, Item, RawRecord
from connectors.git.connector import CODE_EXTENSIONS, MAX_FILE_BYTES

RECORD_KIND = "github_file"
# Only the start is looked at, as git does to call a file binary.
_BINARY_PROBE = 8192

__all__ = ["MAX_FILE_BYTES", "RECORD_KIND", "CodeState", "code_document", "decode_blob", "file_key", "wanted"]


class CodeState(BaseModel):
    """Per repository: the code paths listed, the commit read, the branch ref's ETag and path -> blob sha.

    `files` includes skipped files (binary, too big) so that they are not downloaded again while unchanged.
    `head` and `ref_etag` are empty until a listing was fully stored, so an interrupted run lists again.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    paths: list[str] = Field(default_factory=list)
    head: str = ""
    ref_etag: str = ""
    files: dict[str, str] = Field(default_factory=dict)


def file_key(repo: str, path: str) -> str:
    return f"{repo}:{path}"


def wanted(path: str, code_paths: list[str]) -> bool:
    """The same rule as the git connector's: under a configured path (or glob) and a source-code extension."""
    if path in code_paths:
        return True  # named explicitly: whatever its extension
    if PurePosixPath(path).suffix.lower() not in CODE_EXTENSIONS:
        return False
    return any(path.startswith(p + "/") or fnmatch(path, p) for p in code_paths)


def decode_blob(raw: JSON) -> bytes:
    """The bytes of a `GET /git/blobs/{sha}` answer (base64, wrapped at 60 columns, or utf-8)."""
    content = str(raw.get("content") or "")
    if raw.get("encoding") == "base64":
        return base64.b64decode(content)
    return content.encode()


def is_binary(content: bytes) -> bool:
    return b"\0" in content[:_BINARY_PROBE]


def _at(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)


def code_document(record: RawRecord) -> Document:
    """A code file as one Item; `chunkers.code` splits it by function and class and reads `path` from metadata."""
    data = record.data
    repo, path = str(data["repo"]), str(data["path"])
    ref = f"github:{repo}:{path}"
    html_url = str(data.get("html_url") or "")
    url = f"{html_url}/blob/{data['commit']}/{quote(path)}" if html_url else ""
    meta: JSON = {"repo": repo, "path": path, "blob": data["blob"], "commit": data["commit"], "branch": data["branch"]}
    item = Item(
        ref=ref,
        source_type="github",
        kind="code_file",
        text=str(data["text"]),
        occurred_at=_at(str(data["committed_at"])),
        title=path,
        url=url,
        container=repo,
        metadata={k: meta[k] for k in ("path", "blob", "commit", "branch")},
    )
    return Document(
        key=ref,
        kind="code_file",
        source_type="github",
        title=f"{repo}/{path}",
        items=[item],
        url=url,
        container=repo,
        metadata=meta,
    )
