"""The embedded engine: qdrant-edge-py shards in published generations, so readers never wait on a writer.

Layout under the index folder (`$BRIEF_HOME/workspaces/<name>/index` unless `[qdrant] path` says otherwise):

    CURRENT              the name of the published generation (replaced atomically)
    generations/g-<n>/   one shard each (no write-ahead log: a published generation is never written again)
    generations/g-<n>.lock   readers hold a shared lock on the generation they have open
    writer.lock          one writer at a time (ingest, reindex); a second waits `writer_wait_s`, then says so

A reader opens the published generation and keeps it for its whole command; it first checks the generation
against the manifest its writer left in `brief-index.json` (every file and its size, the point count), so a damaged
index is reported as such (exit 11) instead of answering from half of it. A writer starts a new generation on its
first write from a snapshot of the published one (the indexed segments' write-once data files hard-linked, what a
write can change copied; `_snapshot`), or an empty one for `drop`, writes there, lets the optimizer build the HNSW
graph when enough points are new, and publishes by replacing CURRENT. Generations nobody reads any more are
removed by the next writer. A crash leaves CURRENT, and the generation it names, as they were.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import json
import logging
import os
import shutil
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np

from briefing import killpoint
from briefing.embed import SparseVec
from briefing.errors import IndexError_, StateError
from briefing.index import (
    DENSE,
    PAYLOAD_INDEXES,
    SPARSE,
    Filter,
    FilterModels,
    Index,
    Record,
    chunk_to_payload,
    content_hash,
    point_id,
    translate,
)
from briefing.model import Chunk
from briefing.settings import QdrantSettings, Settings

log = logging.getLogger(__name__)
FORMAT = 1
_META = "brief-index.json"


class EdgeModels(FilterModels):
    """qdrant-edge's models for `briefing.index.translate` (the same filter shape as qdrant-client's)."""

    def __init__(self) -> None:
        import qdrant_edge as qe

        self.qe = qe

    def any_of(self, key: str, values: Sequence[str]) -> Any:
        return self.qe.FieldCondition(key=key, match=self.qe.MatchAny(any=list(values)))

    def range(self, key: str, *, gte: float | None = None, lte: float | None = None, lt: float | None = None) -> Any:
        return self.qe.FieldCondition(key=key, range=self.qe.RangeFloat(gte=gte, lte=lte, lt=lt))

    def empty(self, key: str) -> Any:
        return self.qe.IsEmptyCondition(key=key)

    def all_of(self, must: Sequence[Any] = (), should: Sequence[Any] = ()) -> Any:
        return self.qe.Filter(must=list(must) or None, should=list(should) or None)


def edge_filter(flt: Filter | None, should: Sequence[Filter] = ()) -> Any:
    """Our `Filter` as a qdrant-edge filter (`briefing.index.translate`)."""
    return translate(flt, EdgeModels(), should)


_MALLOC_TRIM: list[Any] = []


def _release_freed_memory() -> None:
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


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# Files the engine itself rewrites when it loads a shard (same content, maybe another size): not in the manifest.
_VOLATILE = ("edge_config.json", "tracker_journal.dat")


def _manifest(gen: Path) -> dict[str, int]:
    """Every data file of a closed generation and its size, as published (what a damaged copy would lack)."""
    out: dict[str, int] = {}
    for path in gen.rglob("*"):
        if path.is_file() and path.name not in _VOLATILE and path.name != _META:
            out[str(path.relative_to(gen))] = path.stat().st_size
    return out


def _damaged(gen: Path, why: str) -> StateError:
    return StateError(
        f"damaged index at {gen} ({why}): run `brief reindex --full` to rebuild it from the raw cache "
        "(no source is contacted)"
    )


def _read_meta(gen: Path) -> dict[str, Any]:
    """The generation's own description, checked against its files (missing or truncated ones are damage)."""
    try:
        meta: dict[str, Any] = json.loads((gen / _META).read_text(encoding="utf-8"))
        int(meta["dim"])
    except FileNotFoundError:
        raise _damaged(gen, f"{_META} is missing") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise _damaged(gen, f"{_META} is unreadable: {type(exc).__name__}") from None
    for name, size in dict(meta.get("manifest", {})).items():
        try:
            actual = (gen / name).stat().st_size
        except FileNotFoundError:
            raise _damaged(gen, f"{name} is missing") from None
        if actual != size:
            raise _damaged(gen, f"{name} has {actual} bytes, {size} were written")
    return meta


def _load(gen: Path, meta: dict[str, Any], config: Any = None) -> Any:
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
        raise _damaged(gen, f"the engine could not load it: {str(exc)[:160]}") from None
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
            raise _damaged(gen, f"it holds {points} points, {meta['points']} were published")
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


def _snapshot(source: Path, target: Path) -> None:
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
            _copy_file(path, dest)


def _copy_file(source: Path, target: Path) -> None:
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


class _Lock:
    """An advisory `flock` on a file, held until `release` (or process exit: the kernel drops it)."""

    def __init__(self, path: Path, handle: IO[str]) -> None:
        self.path = path
        self.handle = handle

    @classmethod
    def try_take(cls, path: Path, *, exclusive: bool) -> _Lock | None:
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


class EdgeIndex(Index):
    """The workspace's embedded index; each read sees the latest published generation, whole.

    A reader keeps its generation open (and locked against collection) while it is the published one, and moves
    to a newer one at its next read after a writer publishes.
    """

    engine = "qdrant-edge"

    def __init__(
        self,
        root: Path,
        qdrant: QdrantSettings,
        *,
        clock: Callable[[], float] = time.monotonic,
        pause: Callable[[float], None] = time.sleep,
        legacy: Path | None = None,
        indexing_threshold_kb: int | None = None,
    ) -> None:
        self.root = root
        self._indexing_threshold_kb = indexing_threshold_kb  # the engine's default (about 6,500 384-d points)
        self.collection = root.name
        self.location = str(root)
        self.qdrant = qdrant
        self.generations = root / "generations"
        self.generations.mkdir(parents=True, exist_ok=True)
        self._clock = clock
        self._pause = pause
        self._legacy = legacy
        self._reader: Any = None
        self._reader_lock: _Lock | None = None
        self._reader_meta: dict[str, Any] | None = None
        self._reader_gen: Path | None = None
        self._writer: Any = None
        self._writer_lock: _Lock | None = None
        self._writer_gen: Path | None = None
        self._writer_meta: dict[str, Any] | None = None
        self._opened = False
        self.exact = False  # dense queries by brute force instead of the HNSW graph (bench/recall_bench.py)

    @classmethod
    def connect(cls, settings: Settings) -> EdgeIndex:
        q = settings.qdrant
        root = settings.resolve(Path(q.path)) if q.path else settings.workspace_home / "index"
        legacy = settings.workspace_home / "qdrant" / "collection" / f"brief_{settings.workspace.name}"
        return cls(root, q, legacy=legacy if legacy.is_dir() else None)

    # -- generations ------------------------------------------------------------------------------------------
    def published(self) -> Path | None:
        """The published generation's folder, or None before the first commit."""
        try:
            name = (self.root / "CURRENT").read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None
        return self.generations / name if name else None

    def _open_reader(self) -> None:
        if self._opened:
            return
        self._opened = True
        for _ in range(5):  # a writer may publish and collect between reading CURRENT and locking it
            gen = self.published()
            if gen is None:
                return
            lock = _Lock.try_take(gen.with_suffix(".lock"), exclusive=False)
            if lock is None:  # being collected right now: CURRENT has moved on
                continue
            if gen.is_dir():
                try:
                    meta = _read_meta(gen)
                    # Loading rewrites a few of the shard's own files (same content); one load at a time.
                    with (self.generations / f"{gen.name}.open").open("a") as opening:
                        fcntl.flock(opening, fcntl.LOCK_EX)
                        self._reader = _load(gen, meta)
                except BaseException:
                    lock.release()
                    raise
                self._reader_lock = lock
                self._reader_gen = gen
                self._reader_meta = meta
                return
            lock.release()
            if self.published() == gen:  # CURRENT names a generation that is gone
                raise _damaged(gen, "the published generation is missing")
        raise IndexError_(f"the index at {self.root} kept changing while it was opened: run the command again")

    @property
    def _shard(self) -> Any:
        """Where reads go: this process's unpublished writes if it has any, else the published generation."""
        if self._writer is not None:
            return self._writer
        if self._opened and self.published() != self._reader_gen:
            # A long-lived reader (the MCP server, a watch) moves to what a writer published since.
            self._close_reader()
        self._open_reader()
        if self._reader is None and self._legacy is not None:
            raise IndexError_(
                f"the index at {self._legacy.parent.parent} was built by qdrant-client local mode, which brief no "
                "longer uses by default: run `brief reindex --full` to rebuild it with the embedded engine (from "
                'the raw cache; no source is contacted), or set [qdrant] engine = "local" to keep using it'
            )
        return self._reader

    def _meta(self) -> dict[str, Any] | None:
        if self._writer is not None:
            return self._writer_meta
        self._open_reader()
        return self._reader_meta

    def _take_writer_lock(self) -> _Lock:
        wait = self.qdrant.writer_wait_s
        deadline = self._clock() + wait
        while True:
            lock = _Lock.try_take(self.root / "writer.lock", exclusive=True)
            if lock is not None:
                return lock
            if self._clock() >= deadline:
                raise IndexError_(
                    f"another brief ingest or reindex is writing the index at {self.root} (waited {wait:g} s): "
                    "asks and searches keep working; run this one again when that one has finished"
                )
            self._pause(0.05)

    def _begin(self, *, empty: bool = False, dim: int | None = None, model: str | None = None) -> None:
        """Start writing: a new generation, copied from the published one unless `empty`."""
        if self._writer is not None and not empty:
            return
        import qdrant_edge as qe

        if self._writer_lock is None:
            self._writer_lock = self._take_writer_lock()
        self._collect()
        if self._writer is not None:  # drop while writing: start over from nothing
            self._writer.close()
            self._writer = None
            if self._writer_gen is not None:
                shutil.rmtree(self._writer_gen, ignore_errors=True)
        gen = self.generations / f"g-{time.time_ns():x}-{os.getpid()}"
        source = None if empty else self.published()
        if source is not None and source.is_dir():
            published = _read_meta(source)
            # A reader loading the source rewrites a few of its files; never copy one halfway through.
            with (self.generations / f"{source.name}.open").open("a") as opening:
                fcntl.flock(opening, fcntl.LOCK_EX)
                _snapshot(source, gen)
            # Loaded with today's build settings, so the segments this writer optimizes follow them.
            self._writer = _load(gen, published, self._config(int(published["dim"])))
            self._writer_meta = {k: v for k, v in published.items() if k not in ("manifest", "points")}
        else:
            if dim is None or model is None:
                self._writer_gen = None
                return  # nothing published and nothing to create yet (a drop before any ensure)
            self._writer_meta = {"format": FORMAT, "dim": dim, "model": model}
            self._writer = qe.EdgeShard.create(str(gen), self._config(dim))
            memory = self._memory()
            for field, kind in PAYLOAD_INDEXES.items():
                params = (
                    qe.KeywordIndexParams(memory=memory) if kind == "keyword" else qe.FloatIndexParams(memory=memory)
                )
                self._writer.update(qe.UpdateOperation.create_field_index(field, params))
            (gen / _META).write_text(json.dumps(self._writer_meta), encoding="utf-8")
        self._writer_gen = gen

    def _memory(self) -> Any:
        """Where the engine keeps each component: memory-mapped and left to the page cache (`on_disk`: read when
        needed). Not pinned in RAM: loading pinned payload indexes built every index in memory at each open, which
        was most of a command's open time at 100k chunks (docs/performance.md)."""
        import qdrant_edge as qe

        return qe.Memory.Cold if self.qdrant.on_disk else qe.Memory.Cached

    def _config(self, dim: int) -> Any:
        import qdrant_edge as qe

        memory = self._memory()

        q = self.qdrant
        hnsw = qe.HnswIndexConfig(
            m=q.hnsw_m or 16,  # the engine's defaults when unset
            ef_construct=q.hnsw_ef_construct or 100,
            full_scan_threshold=q.hnsw_full_scan_threshold_kb,
            payload_m=q.hnsw_payload_m,
        )
        quantization: Any = None
        if q.quantization == "scalar":
            quantization = qe.ScalarQuantizationConfig(type=qe.ScalarType.Int8, quantile=0.99)
        elif q.quantization == "binary":
            quantization = qe.BinaryQuantizationConfig()
        return qe.EdgeConfig(
            vectors={DENSE: qe.EdgeVectorParams(size=dim, distance=qe.Distance.Cosine, memory=memory)},
            sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf, memory=memory)},
            payload_memory=memory,
            id_tracker_memory=memory,
            hnsw_config=hnsw,
            quantization_config=quantization,
            optimizers=qe.EdgeOptimizersConfig(
                indexing_threshold=self._indexing_threshold_kb,
                # Merges stop at one segment's worth of dense vectors (the engine counts KB of vector storage).
                max_segment_size=max(1, q.segment_points * dim * 4 // 1024) if q.segment_points else None,
            ),
            wal_enabled=False,  # a generation is written by one process and durable once flushed and published
        )

    def _collect(self) -> None:
        """Remove generations that are neither published nor open in any reader (the writer lock is held)."""
        current = self.published()
        for lock_path in sorted(self.generations.glob("*.lock")):
            gen = lock_path.with_suffix("")
            if gen == current or gen == self._writer_gen:
                continue
            lock = _Lock.try_take(lock_path, exclusive=True)
            if lock is None:
                continue  # a reader still has it open
            shutil.rmtree(gen, ignore_errors=True)
            lock_path.unlink(missing_ok=True)
            gen.with_suffix(".open").unlink(missing_ok=True)
            lock.release()
        for gen in self.generations.iterdir():  # a crashed writer's generation has no lock file yet
            if gen.is_dir() and gen != current and gen != self._writer_gen and not gen.with_suffix(".lock").exists():
                shutil.rmtree(gen, ignore_errors=True)

    def commit(self) -> None:
        """Publish what this writer wrote; readers opened from now on see it, open ones keep their generation."""
        if self._writer is None or self._writer_gen is None:
            self._release_writer()
            return
        import qdrant_edge as qe

        gen, meta = self._writer_gen, self._writer_meta
        assert meta is not None
        self._maybe_optimize()
        meta["points"] = int(self._writer.count(qe.CountRequest(exact=True)))
        self._writer.flush()
        self._writer.close()
        self._writer = None
        _release_freed_memory()  # the next source and the summaries start from what the process holds, not its peak
        # What a reader checks before it trusts this generation (docs/scaling.md, "damage").
        meta["manifest"] = _manifest(gen)
        with (gen / _META).open("w", encoding="utf-8") as handle:
            handle.write(json.dumps(meta))
            handle.flush()
            os.fsync(handle.fileno())
        gen.with_suffix(".lock").touch()
        tmp = self.root / f".CURRENT.{os.getpid()}"
        tmp.write_text(gen.name, encoding="utf-8")
        with tmp.open("a") as handle:
            os.fsync(handle.fileno())
        killpoint.reached("publish.swap")
        os.replace(tmp, self.root / "CURRENT")
        _fsync_dir(self.root)
        self._writer_gen = None
        # This object's next reads see what it just published; what it read before can be collected now.
        self._close_reader()
        self._collect()
        self._release_writer()

    def _maybe_optimize(self) -> None:
        """Let the engine's optimizer run once enough was written since it last ran (never per upsert).

        The optimizer itself decides what to do (build HNSW over segments past its indexing threshold, merge,
        vacuum deletions); a few hundred new points in an appendable segment are searched by brute force faster
        than a rebuild would pay back, so small ingests publish at once.
        """
        meta = self._writer_meta
        assert meta is not None and self._writer_gen is not None
        threshold = self.qdrant.optimize_min_points
        if threshold and int(meta.get("since_optimize", 0)) >= threshold:
            started = time.perf_counter()
            self._writer.optimize()
            log.info("optimized the index in %.1f s", time.perf_counter() - started)
            meta["since_optimize"] = 0

    def _wrote(self, points: int) -> None:
        if self._writer_meta is not None:
            self._writer_meta["since_optimize"] = int(self._writer_meta.get("since_optimize", 0)) + points

    def optimize(self) -> bool:
        """Run the optimizer now (in the writer's generation; published by the next commit)."""
        self._begin()
        if self._writer is None or self._writer_meta is None:
            return False
        self._writer_meta["since_optimize"] = 0
        return bool(self._writer.optimize())

    def _release_writer(self) -> None:
        if self._writer_lock is not None:
            self._writer_lock.release()
            self._writer_lock = None

    def _close_reader(self) -> None:
        if self._reader is not None:
            with contextlib.suppress(Exception):
                self._reader.close()
            self._reader = None
        if self._reader_lock is not None:
            self._reader_lock.release()
            self._reader_lock = None
        self._reader_meta = None
        self._reader_gen = None
        self._opened = False

    def close(self) -> None:
        try:
            self.commit()
        finally:
            if self._writer is not None:  # commit failed: the unpublished generation is collected later
                with contextlib.suppress(Exception):
                    self._writer.close()
                self._writer = None
            self._release_writer()
            self._close_reader()

    # -- schema -----------------------------------------------------------------------------------------------
    def exists(self) -> bool:
        return self._shard is not None

    def dense_size(self) -> int | None:
        meta = self._meta() if self._shard is not None else None
        return int(meta["dim"]) if meta is not None else None

    def ensure(self, dim: int, model: str) -> None:
        self._legacy = None  # a writer rebuilds from the raw cache, which migrates an old local-mode index
        meta = self._meta() if self._shard is not None else None
        if meta is None:
            self._begin(empty=True, dim=dim, model=model)
            return
        if int(meta["dim"]) != dim:
            raise IndexError_(
                f"the index was built with {meta['dim']}-d vectors but [embedding] model '{model}' gives {dim}-d: "
                "run `brief reindex --full` to rebuild it"
            )

    def drop(self) -> None:
        """Start an empty generation; what is published stays visible until this writer commits."""
        self._legacy = None
        meta = self._meta()
        if meta is not None:
            self._begin(empty=True, dim=int(meta["dim"]), model=str(meta["model"]))
        else:
            self._writer_lock = self._writer_lock or self._take_writer_lock()
            self._writer_gen = None
        self._legacy = None

    # -- writes -----------------------------------------------------------------------------------------------
    def upsert(
        self,
        chunks: Sequence[Chunk],
        dense: Sequence[Sequence[float]] | np.ndarray,
        sparse: Sequence[SparseVec],
        model: str,
    ) -> None:
        import qdrant_edge as qe

        self._begin()
        if self._writer is None:
            raise IndexError_(f"the index at {self.root} has no collection yet: ingest a source first")
        step = self.qdrant.upsert_batch
        rows = list(zip(chunks, dense, sparse, strict=True))
        for start in range(0, len(rows), step):
            points = [
                qe.Point(
                    id=point_id(chunk.chunk_id),
                    vector={
                        DENSE: dvec.tolist() if isinstance(dvec, np.ndarray) else [float(x) for x in dvec],
                        SPARSE: qe.SparseVector(indices=list(svec.indices), values=list(svec.values)),
                    },
                    payload=chunk_to_payload(chunk, content_hash(chunk, model)),
                )
                for chunk, dvec, svec in rows[start : start + step]
            ]
            self._writer.update(qe.UpdateOperation.upsert_points(points))
            self._wrote(len(points))
            self._segment_full()

    def _segment_full(self) -> None:
        """Optimize inside a long write once a segment's worth of points is new (`[qdrant] segment_points`):
        the optimizer then builds graphs of at most one segment, and the appendable segment never grows past it."""
        meta = self._writer_meta
        q = self.qdrant
        if meta is None or not q.segment_points or not q.optimize_min_points:
            return
        if int(meta.get("since_optimize", 0)) >= q.segment_points:
            started = time.perf_counter()
            self._writer.optimize()
            # The sealed segment's in-memory structures are freed once the shard is flushed (into this writer's
            # own generation: nothing is published); returning them bounds the writer's memory by one segment.
            self._writer.flush()
            killpoint.reached("index.sealed")
            _release_freed_memory()
            log.info("optimized a %d-point segment in %.1f s", meta["since_optimize"], time.perf_counter() - started)
            meta["since_optimize"] = 0

    def delete_ids(self, chunk_ids: Iterable[str]) -> None:
        import qdrant_edge as qe

        ids: list[Any] = [point_id(c) for c in chunk_ids]
        if not ids:
            return
        self._begin()
        if self._writer is None:
            return
        for start in range(0, len(ids), 512):
            self._writer.update(qe.UpdateOperation.delete_points(ids[start : start + 512]))
        self._wrote(len(ids))

    def set_payloads(self, updates: Mapping[str, Mapping[str, Any]]) -> None:
        import qdrant_edge as qe

        if not updates:
            return
        self._begin()
        if self._writer is None:
            return
        for chunk_id, payload in updates.items():
            self._writer.update(qe.UpdateOperation.set_payload([point_id(chunk_id)], dict(payload)))
        self._wrote(len(updates))

    # -- reads ------------------------------------------------------------------------------------------------
    def _scroll_raw(
        self, flt: Filter | None, should: Sequence[Filter], fields: Sequence[str] | bool, batch: int
    ) -> Iterator[Record]:
        import qdrant_edge as qe

        shard = self._shard
        if shard is None:
            return
        qflt = edge_filter(flt, should)
        with_payload = list(fields) if not isinstance(fields, bool) else fields
        offset = None
        while True:
            points, offset = shard.scroll(
                qe.ScrollRequest(offset=offset, limit=batch, filter=qflt, with_payload=with_payload, with_vector=False)
            )
            for point in points:
                yield Record(id=str(point.id), payload=dict(point.payload or {}))
            if offset is None:
                break

    def dense_vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        shard = self._shard
        if shard is None:
            return {}
        out: dict[str, np.ndarray] = {}
        for start in range(0, len(chunk_ids), 512):
            ids = [point_id(c) for c in chunk_ids[start : start + 512]]
            for point in shard.retrieve(ids, ["chunk_id"], [DENSE]):
                vector = point.vector.get(DENSE) if isinstance(point.vector, dict) else None
                if vector is not None and point.payload:
                    out[str(point.payload["chunk_id"])] = np.asarray(vector, dtype=np.float32)
        return out

    def count(self, flt: Filter | None = None) -> int:
        import qdrant_edge as qe

        shard = self._shard
        if shard is None:
            return 0
        return int(shard.count(qe.CountRequest(exact=True, filter=edge_filter(self._scoped(flt)))))

    def _query(self, using: str, vector: Any, *, limit: int, flt: Filter) -> list[tuple[dict[str, Any], float]]:
        import qdrant_edge as qe

        shard = self._shard
        if shard is None:
            return []
        if using == SPARSE:
            vector = qe.SparseVector(indices=list(vector.indices), values=list(vector.values))
        points = shard.query(
            qe.QueryRequest(
                limit=limit,
                query=qe.Query.Nearest(vector, using=using),
                filter=edge_filter(flt),
                with_payload=True,
                with_vector=False,
                params=self._search_params(using),
            )
        )
        return [(dict(p.payload or {}), float(p.score)) for p in points]

    def _search_params(self, using: str) -> Any:
        """The HNSW search effort for dense queries (`[qdrant] hnsw_ef`); `exact` is brute force (benchmarks)."""
        import qdrant_edge as qe

        q = self.qdrant
        if using != DENSE or (q.hnsw_ef is None and not self.exact and q.quantization == "none"):
            return None
        quantization = None
        if self.exact:  # brute force over the float vectors: the benchmarks' reference
            quantization = qe.QuantizationSearchParams(ignore=True)
        elif q.quantization != "none":  # candidates from the quantised copy, rescored with the float vectors
            quantization = qe.QuantizationSearchParams(rescore=True, oversampling=q.quantization_oversampling)
        return qe.SearchParams(hnsw_ef=q.hnsw_ef, exact=self.exact, quantization=quantization)
