"""Real embeddings for the recall benchmark: the product's embedder over real corpus texts, saved as one .npy file.

    nice -n 10 python bench/real_vectors.py --out /tmp/real.npy --limit 6000
    python bench/real_vectors.py --out /tmp/real.npy --from-index $BRIEF_HOME/workspaces/*/index

Texts: the olake Slack export's messages and the mailing-list mbox's message bodies (split into paragraphs of at
most 800 characters, quoted lines dropped), under /work/shared/corpora unless --corpora says otherwise; both are
optional. The vectors are embedded as passages with `[embedding] model` (the bundled MiniLM by default), unit
length, duplicates removed. `--from-index` reads the vectors already stored in `brief` indexes instead (no
embedding: what this session's recall figures used). `bench/recall_bench.py` grows them to 100k points
(`bench/synthetic.py`).
"""

from __future__ import annotations

import argparse
import json
import mailbox
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from briefing.embed import Embedder  # noqa: E402
from briefing.settings import EmbeddingSettings  # noqa: E402


def slack_texts(folder: Path) -> Iterator[str]:
    for path in sorted(folder.glob("*/*.json")):
        try:
            messages = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for message in messages if isinstance(messages, list) else []:
            text = str(message.get("text") or "").strip() if isinstance(message, dict) else ""
            if len(text) >= 20:
                yield text[:800]


def mail_texts(path: Path) -> Iterator[str]:
    for message in mailbox.mbox(str(path)):
        body = message.get_payload(decode=True) if not message.is_multipart() else None
        if not isinstance(body, bytes):
            continue
        lines = [line for line in body.decode("utf-8", "replace").splitlines() if not line.startswith(">")]
        subject = str(message.get("subject") or "")
        for paragraph in "\n".join(lines).split("\n\n"):
            paragraph = paragraph.strip()
            if len(paragraph) >= 40:
                yield f"{subject}\n{paragraph[:800]}"


def index_vectors(folders: list[Path]) -> np.ndarray:
    """The dense vectors already stored in `brief` indexes (copies are read: loading rewrites a shard's files)."""
    import shutil
    import tempfile

    import qdrant_edge as qe

    out: list[np.ndarray] = []
    for folder in folders:
        with tempfile.TemporaryDirectory() as tmp:
            gen = folder / "generations" / (folder / "CURRENT").read_text(encoding="utf-8").strip()
            copy = Path(tmp) / "gen"
            shutil.copytree(gen, copy)
            shard = qe.EdgeShard.load(str(copy))
            offset = None
            while True:
                points, offset = shard.scroll(
                    qe.ScrollRequest(offset=offset, limit=512, with_payload=False, with_vector=["dense"])
                )
                for point in points:
                    vector = point.vector["dense"] if isinstance(point.vector, dict) else point.vector
                    out.append(np.asarray(vector, dtype=np.float32))
                if offset is None:
                    break
            shard.close()
    return np.stack(out) if out else np.zeros((0, 384), dtype=np.float32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", type=Path, default=Path("/work/shared/corpora"))
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--limit", type=int, default=6000, help="texts to embed at most")
    parser.add_argument("--home", type=Path, default=Path("/tmp/brief-real-vectors-home"))
    parser.add_argument(
        "--from-index", type=Path, nargs="+", default=None, help="read the vectors of these index folders instead"
    )
    ns = parser.parse_args()
    if ns.from_index:
        vectors = index_vectors(ns.from_index)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        vectors = np.unique(vectors.round(5), axis=0).astype(np.float32)
        np.save(ns.out, vectors)
        print(json.dumps({"indexes": len(ns.from_index), "vectors": len(vectors)}))
        return
    texts: list[str] = []
    seen: set[str] = set()
    sources = [slack_texts(ns.corpora / "olake" / "slack")]
    mbox = ns.corpora / "mailing-list" / "linux-arm-kernel-2019.mbox"
    if mbox.is_file():
        sources.append(mail_texts(mbox))
    for source in sources:  # Slack first (short messages, the product's main case), then mail paragraphs
        for text in source:
            if text not in seen:
                seen.add(text)
                texts.append(text)
            if len(texts) >= ns.limit:
                break
    ns.home.mkdir(parents=True, exist_ok=True)
    embedder = Embedder(EmbeddingSettings(), ns.home)
    started = time.perf_counter()
    vectors = np.asarray(embedder.dense(texts), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors = np.unique(vectors, axis=0)
    ns.out.parent.mkdir(parents=True, exist_ok=True)
    np.save(ns.out, vectors)
    print(
        json.dumps({"texts": len(texts), "vectors": len(vectors), "embed_s": round(time.perf_counter() - started, 1)})
    )


if __name__ == "__main__":
    main()
