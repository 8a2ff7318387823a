"""The embedded engine's generations: qdrant-edge-py shards published whole, so readers never wait on a writer.

Layout under the index folder (`$BRIEF_HOME/workspaces/<name>/index` unless `[qdrant] path` says otherwise):

    CURRENT              the name of the published generation (replaced atomically)
    generations/g-<n>/   one shard each (no write-ahead log: a published generation is never written again)
    generations/g-<n>.lock   readers hold a shared lock on the generation they have open
    writer.lock          one writer at a time (ingest, reindex); a second waits `writer_wait_s`, then says so

A reader opens the published generation and keeps it for its whole command; it first checks the generation
against the manifest its writer left in `brief-index.json` (every file and its size, the point count), so a damaged
index is reported as such (exit 11) instead of answering from half of it. A writer starts a new generation on its
first write from a snapshot of the published one (the indexed segments' write-once data files hard-linked, what a
write can change copied; `edge_files.snapshot`), or an empty one for `drop`, writes there, lets the optimizer build
the HNSW graph when enough points are new, and publishes by replacing CURRENT. Generations nobody reads any more are
removed by the next writer. A crash leaves CURRENT, and the generation it names, as they were.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from briefing import killpoint
from briefing.errors import IndexError_
from briefing.index.edge_files import (
    FORMAT,
    META,
    Lock,
    damaged,
    fsync_dir,
    load,
    log,
    manifest,
    read_meta,
    release_freed_memory,
    snapshot,
)
from briefing.index.payload import DENSE, PAYLOAD_INDEXES, SPARSE
from briefing.settings import QdrantSettings


class Generations:
    """One index folder's published generation for reading, and this process's unpublished one for writing.

    A reader keeps its generation open (and locked against collection) while it is the published one, and moves
    to a newer one at its next read after a writer publishes.
    """

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
        self._current_file = root / "CURRENT"
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
        self._reader_lock: Lock | None = None
        self._reader_meta: dict[str, Any] | None = None
        self._reader_gen: Path | None = None
        self._writer: Any = None
        self._writer_lock: Lock | None = None
        self._writer_gen: Path | None = None
        self._writer_meta: dict[str, Any] | None = None
        self._opened = False
        self._checked_current: tuple[int, ...] | None = None  # CURRENT's stat when it last named the reader's
        self.exact = False  # dense queries by brute force instead of the HNSW graph (bench/recall_bench.py)

    # -- generations ------------------------------------------------------------------------------------------
    def published(self) -> Path | None:
        """The published generation's folder, or None before the first commit."""
        try:
            name = (self.root / "CURRENT").read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None
        return self.generations / name if name else None

    def _current_stat(self) -> tuple[int, ...] | None:
        try:
            st = os.stat(self._current_file)
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)

    def _open_reader(self) -> None:
        if self._opened:
            return
        self._opened = True
        for _ in range(5):  # a writer may publish and collect between reading CURRENT and locking it
            gen = self.published()
            if gen is None:
                return
            lock = Lock.try_take(gen.with_suffix(".lock"), exclusive=False)
            if lock is None:  # being collected right now: CURRENT has moved on
                continue
            if gen.is_dir():
                try:
                    meta = read_meta(gen)
                    # Loading rewrites a few of the shard's own files (same content); one load at a time.
                    with (self.generations / f"{gen.name}.open").open("a") as opening:
                        fcntl.flock(opening, fcntl.LOCK_EX)
                        self._reader = load(gen, meta)
                except BaseException:
                    lock.release()
                    raise
                self._reader_lock = lock
                self._reader_gen = gen
                self._reader_meta = meta
                return
            lock.release()
            if self.published() == gen:  # CURRENT names a generation that is gone
                raise damaged(gen, "the published generation is missing")
        raise IndexError_(f"the index at {self.root} kept changing while it was opened: run the command again")

    @property
    def _shard(self) -> Any:
        """Where reads go: this process's unpublished writes if it has any, else the published generation."""
        if self._writer is not None:
            return self._writer
        if self._opened:
            # A long-lived reader (the MCP server, a watch) moves to what a writer published since. Publishing
            # replaces CURRENT (a new file), so its stat tells whether it needs reading again.
            seen = self._current_stat()
            if seen != self._checked_current:
                if self.published() != self._reader_gen:
                    self._close_reader()
                self._checked_current = seen
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

    def _take_writer_lock(self) -> Lock:
        wait = self.qdrant.writer_wait_s
        deadline = self._clock() + wait
        while True:
            lock = Lock.try_take(self.root / "writer.lock", exclusive=True)
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
            published = read_meta(source)
            # A reader loading the source rewrites a few of its files; never copy one halfway through.
            with (self.generations / f"{source.name}.open").open("a") as opening:
                fcntl.flock(opening, fcntl.LOCK_EX)
                snapshot(source, gen)
            # Loaded with today's build settings, so the segments this writer optimizes follow them.
            self._writer = load(gen, published, self._config(int(published["dim"])))
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
            (gen / META).write_text(json.dumps(self._writer_meta), encoding="utf-8")
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
            lock = Lock.try_take(lock_path, exclusive=True)
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
        release_freed_memory()  # the next source and the summaries start from what the process holds, not its peak
        # What a reader checks before it trusts this generation (docs/scaling.md, "damage").
        meta["manifest"] = manifest(gen)
        with (gen / META).open("w", encoding="utf-8") as handle:
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
        fsync_dir(self.root)
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
