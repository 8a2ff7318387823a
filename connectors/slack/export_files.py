"""An export's JSON files read safely: lists parsed whole, day files checked, hashed and streamed (ijson)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import ijson


def parse_list(content: bytes) -> list[Any]:
    try:
        data = json.loads(content)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"not valid JSON: {exc}") from None
    except RecursionError:
        raise ValueError("JSON nested too deeply to be a real export") from None
    if not isinstance(data, list):
        raise ValueError(f"expected a JSON list, found {type(data).__name__}")
    return data


# Deeper than any real export (Python's own json gives up near 1,000 levels); the old reader's reason is kept.
_MAX_DEPTH = 512
_READ_BYTES = 1 << 16


class DayFile:
    """A day file read incrementally (ijson): one pass checks and hashes it, a second yields its messages.

    Memory holds one message at a time, not the file. A file in JSON that only Python's json accepts (NaN,
    Infinity, a BOM) or that is not valid JSON at all is read whole instead, with the reasons it always gave.
    """

    def __init__(self, path: Path, sha256: str, whole: list[Any] | None) -> None:
        self.path = path
        self.sha256 = sha256
        self._whole = whole

    @classmethod
    def open(cls, path: Path) -> DayFile:
        digest = hashlib.sha256()
        depth = 0
        top: str | None = None
        try:
            with path.open("rb") as handle:
                reader = _Hashing(handle, digest)
                for event, _ in ijson.basic_parse(reader, buf_size=_READ_BYTES):
                    if top is None:
                        top = event
                    if event in ("start_map", "start_array"):
                        depth += 1
                        if depth > _MAX_DEPTH:
                            raise ValueError("JSON nested too deeply to be a real export")
                    elif event in ("end_map", "end_array"):
                        depth -= 1
                reader.drain()
        except ijson.JSONError:
            top = None
        if top != "start_array":  # read whole, for the reason (or the NaN) Python's json finds
            content = path.read_bytes()
            return cls(path, hashlib.sha256(content).hexdigest(), parse_list(content))
        return cls(path, digest.hexdigest(), None)

    def messages(self) -> Iterator[Any]:
        if self._whole is not None:
            yield from self._whole
            return
        with self.path.open("rb") as handle:
            try:
                yield from ijson.items(handle, "item", use_float=True, buf_size=_READ_BYTES)
            except ijson.JSONError as exc:  # the file changed since it was checked
                raise ValueError(f"not valid JSON: {str(exc).splitlines()[0]}") from None


class _Hashing:
    """A binary file whose bytes are hashed as ijson reads them."""

    def __init__(self, handle: Any, digest: Any) -> None:
        self.handle = handle
        self.digest = digest

    def read(self, size: int = -1) -> bytes:
        data: bytes = self.handle.read(size)
        self.digest.update(data)
        return data

    def drain(self) -> None:  # whatever the parser did not need to read still belongs to the file's hash
        while self.read(_READ_BYTES):
            pass


def plain_name(name: str) -> bool:
    """A single, ordinary path component: no separators, not "." or "..", not absolute, no NUL."""
    return bool(name) and name not in (".", "..") and not any(c in name for c in "/\\\0") and ":" not in name[1:2]


def inside(root: Path, path: Path) -> bool:
    """Whether `path`, links resolved, stays inside `root` (a link loop counts as outside)."""
    try:
        return path.resolve(strict=True).is_relative_to(root.resolve(strict=True))
    except (OSError, RuntimeError):
        return False
