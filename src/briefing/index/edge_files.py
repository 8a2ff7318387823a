"""The embedded engine's files: a generation's manifest and damage checks, its snapshot for a writer, and locks."""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import json
import logging
import os
from pathlib import Path
from typing import IO, Any

from briefing.errors import StateError
from briefing.ops.disk import damage_or_full

log = logging.getLogger("briefing.index.edge")
FORMAT = 1
META = "brief-index.json"


_MALLOC_TRIM: list[Any] = []


def release_freed_memory() -> None:
    """Hand the heap pages the engine has freed back to the system (glibc's `malloc_trim`; elsewhere nothing).

    When the optimizer seals the appendable segment (its in-memory payload indexes, sparse postings and id
    tracker, about 5 KB a point) into a memory-mapped indexed one, and the shard is flushed, the engine frees
    those structures; glibc keeps the freed pages in its arenas, so without this the writer's anonymous memory
    would keep every point it ever held (docs/performance.md, "Memory").
    """
    if not _MALLOC_TRIM:
        trim = None
        with contextlib.suppress(OSError, AttributeError, TypeError):
            trim = ctypes.CDLL(None).malloc_trim  # the C library the process already has loaded
        _MALLOC_TRIM.append(trim)
    trim = _MALLOC_TRIM[0]
    if trim is not None:
        trim(0)


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# Files the engine itself rewrites when it loads a shard (same content, maybe another size): not in the manifest.
_VOLATILE = ("edge_config.json", "tracker_journal.dat")


def manifest(gen: Path) -> dict[str, int]:
    """Every data file of a closed generation and its size, as published (what a damaged copy would lack)."""
    out: dict[str, int] = {}
    for path in gen.rglob("*"):
        if path.is_file() and path.name not in _VOLATILE and path.name != META:
            out[str(path.relative_to(gen))] = path.stat().st_size
    return out


def damaged(gen: Path, why: str) -> StateError:
    return damage_or_full(
        gen,
        StateError(
            f"damaged index at {gen} ({why}): run `brief reindex --full` to rebuild it from the raw cache "
            "(no source is contacted)"
        ),
    )


def read_meta(gen: Path) -> dict[str, Any]:
    """The generation's own description, checked against its files (missing or truncated ones are damage)."""
    try:
        meta: dict[str, Any] = json.loads((gen / META).read_text(encoding="utf-8"))
        int(meta["dim"])
    except FileNotFoundError:
        raise damaged(gen, f"{META} is missing") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise damaged(gen, f"{META} is unreadable: {type(exc).__name__}") from None
    for name, size in dict(meta.get("manifest", {})).items():
        try:
            actual = (gen / name).stat().st_size
        except FileNotFoundError:
            raise damaged(gen, f"{name} is missing") from None
        if actual != size:
            raise damaged(gen, f"{name} has {actual} bytes, {size} were written")
    return meta


def load(gen: Path, meta: dict[str, Any], config: Any = None) -> Any:
    """Load a published generation; an engine error or a point count other than the one published is damage.

    A writer passes its `[qdrant]` build settings (HNSW, quantisation, segment size) as `config`: the engine
    writes them into its copy, and segments optimized from then on follow them. Settings the engine cannot
    change on an existing shard (a vector's memory tier) leave the copy as it was built, with a warning.
    """
    import qdrant_edge as qe

    try:
        try:
            shard = qe.EdgeShard.load(str(gen), config) if config is not None else qe.EdgeShard.load(str(gen))
        except BaseException as exc:
            if config is None or isinstance(exc, KeyboardInterrupt | SystemExit):
                raise
            log.warning("[qdrant] build settings not applied to %s (%s): it keeps its own", gen, str(exc)[:160])
            shard = qe.EdgeShard.load(str(gen))
    except BaseException as exc:  # the engine's panics are BaseExceptions
        if isinstance(exc, KeyboardInterrupt | SystemExit):
            raise
        raise damaged(gen, f"the engine could not load it: {str(exc)[:160]}") from None
    if "points" in meta:
        try:
            points = int(shard.count(qe.CountRequest(exact=True)))
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt | SystemExit):
                raise
            points = -1
        if points != int(meta["points"]):
            with contextlib.suppress(BaseException):
                shard.close()
            raise damaged(gen, f"it holds {points} points, {meta['points']} were published")
    return shard


def _immutable(segment: Path) -> bool:
    """Whether a segment was built by the optimizer (indexed, with an immutable id tracker), not appendable."""
    return any(path.name.startswith("id_tracker.") for path in segment.iterdir())


# In an indexed segment, the files that hold the data itself. The engine writes them once, when the optimizer
# builds the segment; deleting or updating a point there flips bits in the small id-tracker, version and tracker
# files (copied), and the new version goes to the appendable segment (copied). tests/test_index_edge_damage.py
# checks this against the engine: a write into a linked generation leaves every published file as it was.
_WRITE_ONCE = (
    "matrix.dat",  # dense vectors
    "chunk_*.mmap",
    "page_*.dat",  # payloads and sparse vectors (pages; their trackers are copied)
    "inverted_index.dat",  # the sparse index
    "links*.bin",  # the HNSW graph
    "graph*.bin",
    "point_to_values.bin",  # payload indexes
    "values_to_points.bin",
    "data.bin",
    "id_tracker.mappings",
)


def snapshot(source: Path, target: Path) -> None:
    """A writer's starting point: the published generation, with its indexed segments' data files hard-linked.

    Only what a write can change is copied (the appendable segment, which the optimizer keeps small, and the
    indexed segments' deletion flags, trackers and configs), so a small write into a large index copies megabytes,
    not the index. A published generation is never written through a link: the writer gets its own copy of every
    file it may write.
    """
    target.mkdir(parents=True)
    for path in sorted(source.rglob("*")):
        rel = path.relative_to(source)
        dest = target / rel
        if path.is_dir():
            dest.mkdir(parents=True, exist_ok=True)
            continue
        parts = rel.parts
        linked = (
            len(parts) > 2
            and parts[0] == "segments"
            and _immutable(source / parts[0] / parts[1])
            and any(path.match(pattern) for pattern in _WRITE_ONCE)
        )
        if linked:
            os.link(path, dest)
        else:
            copy_file(path, dest)


def copy_file(source: Path, target: Path) -> None:
    """Copy one file, only its data ranges: the engine preallocates 32 MB pages that are mostly holes."""
    with source.open("rb") as src, target.open("wb") as dst:
        fin, fout = src.fileno(), dst.fileno()
        size = os.fstat(fin).st_size
        pos = 0
        while pos < size:
            try:
                data = os.lseek(fin, pos, os.SEEK_DATA)
            except OSError:  # no data after pos: the rest is a hole
                break
            hole = os.lseek(fin, data, os.SEEK_HOLE)
            done = data
            while done < hole:
                try:
                    sent = os.copy_file_range(fin, fout, hole - done, done, done)
                except OSError:  # a file system without it: plain reads and writes
                    block = os.pread(fin, min(hole - done, 1 << 20), done)
                    sent = os.pwrite(fout, block, done) if block else 0
                if sent <= 0:
                    break
                done += sent
            pos = hole
        dst.truncate(size)


class Lock:
    """An advisory `flock` on a file, held until `release` (or process exit: the kernel drops it)."""

    def __init__(self, path: Path, handle: IO[str]) -> None:
        self.path = path
        self.handle = handle

    @classmethod
    def try_take(cls, path: Path, *, exclusive: bool) -> Lock | None:
        handle = path.open("a")
        try:
            fcntl.flock(handle, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            return None
        return cls(path, handle)

    def release(self) -> None:
        with contextlib.suppress(OSError):
            fcntl.flock(self.handle, fcntl.LOCK_UN)
        self.handle.close()
