"""The cost of the access scope (briefing.access) on the embedded engine (a script, not a timed test).

    nice -n 10 python bench/access_bench.py

Indexes 20,000 points of random 384-d vectors (a third readable by everyone, the rest by 5 of 50 people), then
runs 200 dense top-50 queries unscoped (the owner) and as a principal holding 9 reader ids; prints p50/p95.
"""

from __future__ import annotations

import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from briefing.embed import SparseVec
from briefing.index import Filter, Index
from briefing.model import Chunk
from briefing.settings import QdrantSettings, Settings, WorkspaceSettings

N, DIM = 20000, 384
rng = np.random.default_rng(0)
T0 = datetime(2026, 1, 1, tzinfo=UTC)
people = [f"person:{i}" for i in range(50)]
tmp = Path(tempfile.mkdtemp())
s = Settings(workspace=WorkspaceSettings(name="bench"), qdrant=QdrantSettings(path=tmp / "idx"), home=tmp)
idx = Index.open(s)
idx.ensure(DIM, "m")
chunks = []
for i in range(N):
    at = T0 + timedelta(minutes=i)
    readers = ["everyone"] if i % 3 == 0 else list(rng.choice(people, 5, replace=False))
    chunks.append(
        Chunk(
            chunk_id=f"c{i}",
            doc_key=f"d{i}",
            source_type="slack",
            kind="k",
            title="t",
            text=f"text {i}",
            refs=[f"slack:C:{i}"],
            start=at,
            end=at,
            readers=readers,
        )
    )
vecs = rng.standard_normal((N, DIM)).astype(np.float32)
vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
for a in range(0, N, 2000):
    idx.upsert(
        chunks[a : a + 2000],
        vecs[a : a + 2000],
        [SparseVec([i % 1000], [1.0]) for i in range(a, min(a + 2000, N))],
        "m",
    )
idx.commit()
idx.close()
for label, scope in (("owner (no scope)", None), ("principal (9 ids)", ("everyone", *people[:8]))):
    idx = Index.open(s).restrict(scope)
    q = rng.standard_normal((200, DIM)).astype(np.float32)
    idx.search_dense(q[0], limit=50, flt=Filter(as_of=T0 + timedelta(days=400)))
    ts = []
    for v in q:
        t = time.perf_counter()
        idx.search_dense(v, limit=50, flt=Filter(as_of=T0 + timedelta(days=400)))
        ts.append(time.perf_counter() - t)
    ts.sort()
    print(f"{label}: p50 {ts[100] * 1000:.1f} ms, p95 {ts[190] * 1000:.1f} ms, {idx.count()} chunks visible")
    idx.close()
