"""Doctor checks of what lives on disk: the model files, the index against the raw cache, the cache, free space."""

from __future__ import annotations

import shutil
from pathlib import Path

from briefing.errors import BriefError, IndexError_, ModelError, SourceError
from briefing.ops.doctor.report import Report, human_size
from briefing.settings import Settings

LOW_DISK_WARN = 2 * 1024**3
LOW_DISK_ERROR = 200 * 1024**2


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else 0


def check_models(report: Report, settings: Settings) -> None:
    from briefing.embed import BUNDLED, BUNDLED_FILES, _package_file, _sha256

    emb = settings.embedding
    if emb.model == BUNDLED and emb.path is None:
        for name, (package, relative, expected) in BUNDLED_FILES.items():
            try:
                path = _package_file(package, relative)
            except ModelError as exc:
                report.error("model", exc)
                continue
            if not path.is_file():
                report.add("model", "error", f"{path} is missing", f"reinstall the '{package}' package", 8)
            elif _sha256(path) != expected:
                report.add(
                    "model",
                    "error",
                    f"{path}: sha256 differs from the one brief was built with",
                    f"pin the '{package}' version from brief's dependencies",
                    8,
                )
            else:
                report.add("model", "ok", f"{name}: sha256 {expected[:12]}... verified")
        return
    if emb.path is not None:
        folder = settings.resolve(emb.path)
        missing = [f for f in ("model.onnx", "tokenizer.json") if not (folder / f).is_file()]
        if missing:
            report.add(
                "model",
                "error",
                f"[embedding] path {folder} lacks {', '.join(missing)}",
                "point path at a folder with the ONNX model and its tokenizer files",
                8,
            )
        else:
            report.add("model", "ok", f"[embedding] path {folder} has model.onnx and tokenizer.json")
        return
    report.add("model", "info", f"[embedding] model '{emb.model}' is fetched by fastembed; not checked offline")


def check_index(report: Report, settings: Settings) -> None:
    from briefing.embed import Embedder
    from briefing.index import PAYLOAD_INDEXES, ClientIndex, Filter, Index, content_hash, payload_to_chunk
    from briefing.store import RawStore

    try:
        index = Index.open(settings)
    except BriefError as exc:
        report.error("index", exc)
        return
    try:
        if not index.exists():
            report.add(
                "index", "warning", f"no collection '{index.collection}' at {index.location}", "run `brief ingest`"
            )
            return
        size = index.dense_size()
        embedder = Embedder(settings.embedding, settings.home)
        try:
            dim, model = embedder.dim, embedder.name
        except ModelError as exc:
            report.error("index", exc)
            return
        finally:
            embedder.close()
        if size != dim:
            report.add(
                "index",
                "error",
                f"the index holds {size}-d vectors, [embedding] model '{model}' gives {dim}-d",
                "run `brief reindex --full`",
                IndexError_.exit_code,
            )
        else:
            report.add("index", "ok", f"collection '{index.collection}': {dim}-d vectors, {index.count()} points")
        sample = next(iter(index.scroll(Filter())), None)
        if sample is not None and sample.payload.get("hash") != content_hash(payload_to_chunk(sample.payload), model):
            report.add(
                "index",
                "warning",
                f"indexed chunks were embedded with another model than '{model}'",
                "run `brief reindex` to re-embed them",
            )
        if isinstance(index, ClientIndex) and index.location.startswith(("http://", "https://")):
            info = index.client.get_collection(index.collection)
            present = set(getattr(info, "payload_schema", {}) or {})
            missing = sorted(set(PAYLOAD_INDEXES) - present)
            if missing:
                report.add(
                    "index",
                    "warning",
                    f"payload indexes missing: {', '.join(missing)}",
                    "run `brief reindex --full` (or create them) so filtered searches stay fast",
                )
            else:
                report.add("index", "ok", "payload indexes present")
        for name in settings.sources:
            store = RawStore.for_source(settings, name)
            try:
                cached = len(store)
            finally:
                store.close()
            points = index.count(Filter(source_names=(name,)))
            if cached and not points:
                report.add(
                    "index",
                    "warning",
                    f"{name}: {cached} cached records but no chunks in the index",
                    f"run `brief reindex {name}`",
                )
            elif points and not cached:
                report.add(
                    "index",
                    "warning",
                    f"{name}: {points} chunks in the index but nothing in the raw cache",
                    f"run `brief ingest {name} --full`",
                )
            elif cached:
                report.add("index", "ok", f"{name}: {cached} cached records, {points} chunks")
    except IndexError_ as exc:  # a server that is down or is not Qdrant: rebuilding cannot help
        report.error("index", exc, "start the Qdrant server, or fix [qdrant] url")
    except Exception as exc:  # a damaged collection: still one line
        report.add(
            "index",
            "error",
            f"the index at {index.location} cannot be read: {type(exc).__name__}: {exc}",
            "run `brief reindex --full`",
            IndexError_.exit_code,
        )
    finally:
        index.close()


def check_cache(report: Report, settings: Settings) -> None:
    raw = settings.workspace_home / "raw"
    if not raw.exists():
        report.add("cache", "info", f"no raw cache yet at {raw}", "run `brief ingest`")
        return
    try:
        size = _size(raw)
        sources = sorted(p.name for p in raw.iterdir() if p.is_dir())
    except OSError as exc:
        report.add(
            "cache", "error", f"{raw} cannot be read: {exc.strerror}", "fix its permissions", SourceError.exit_code
        )
        return
    orphans = sorted(set(sources) - set(settings.sources))
    report.add("cache", "ok", f"{raw}: {human_size(size)} for {len(sources)} sources")
    if orphans:
        report.add(
            "cache",
            "info",
            f"cached data of sources no longer configured: {', '.join(orphans)}",
            f"delete {raw}/<name> to reclaim the space",
        )


def check_disk(report: Report, settings: Settings) -> None:
    home = settings.home
    probe = home if home.exists() else home.parent
    while not probe.exists():
        probe = probe.parent
    free = shutil.disk_usage(probe).free
    if free < LOW_DISK_ERROR:
        report.add("disk", "error", f"only {human_size(free)} free under {probe}", "free disk space or move BRIEF_HOME")
    elif free < LOW_DISK_WARN:
        report.add(
            "disk", "warning", f"{human_size(free)} free under {probe}", "free disk space before the next ingest"
        )
    else:
        report.add("disk", "ok", f"{human_size(free)} free under {probe}")
