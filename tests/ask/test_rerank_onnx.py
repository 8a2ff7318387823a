"""The cross-encoder rerank path: fastembed `TextCrossEncoder` loading a tiny ONNX model built by this test.

The model is real ONNX run by onnxruntime: it scores a (question, passage) pair as the sum of per-token weights
over the pair's tokens minus a bias, so a passage with a heavily weighted word wins the rerank. Its tokenizer is a
real `tokenizers` WordLevel tokenizer with the BERT pair template. Nothing is downloaded: the folder is handed to
fastembed as `[retrieval] reranker_path` under a model name fastembed knows.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from briefing.embed import Embedder
from briefing.errors import ModelError
from briefing.index import Index
from briefing.retrieve import Retriever, SearchQuery
from briefing.settings import Settings
from tests.ask.conftest import NOW, workspace_chunks

onnx = pytest.importorskip("onnx")
tokenizers = pytest.importorskip("tokenizers")

MODEL = "Xenova/ms-marco-MiniLM-L-6-v2"  # a name fastembed knows; the files are ours
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
FAVOURED = "plants"  # the word the tiny cross-encoder rewards


def _vocab(settings_chunks: list[str]) -> dict[str, int]:
    words = sorted({w for text in settings_chunks for w in text.lower().split()})
    return {token: i for i, token in enumerate([*SPECIALS, *words])}


def build_cross_encoder(folder: Path, vocab: dict[str, int], favoured: str) -> None:
    from onnx import TensorProto, helper, numpy_helper

    weights = np.zeros((len(vocab), 1), dtype=np.float32)
    weights[vocab[favoured]] = 10.0
    graph = helper.make_graph(
        [
            helper.make_node("Gather", ["weights", "input_ids"], ["per_token"], axis=0),  # [batch, seq, 1]
            helper.make_node("Squeeze", ["per_token", "axis2"], ["token_scores"]),  # [batch, seq]
            helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
            helper.make_node("Mul", ["token_scores", "mask"], ["masked"]),
            helper.make_node("ReduceSum", ["masked", "axis1"], ["summed"], keepdims=1),  # [batch, 1]
            helper.make_node("Add", ["summed", "bias"], ["logits"]),  # irrelevant pairs score -5
        ],
        "tiny-cross-encoder",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
        ],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])],
        initializer=[
            numpy_helper.from_array(weights, "weights"),
            numpy_helper.from_array(np.array([2], dtype=np.int64), "axis2"),
            numpy_helper.from_array(np.array([1], dtype=np.int64), "axis1"),
            numpy_helper.from_array(np.array([-5.0], dtype=np.float32), "bias"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    (folder / "onnx").mkdir(parents=True)
    onnx.save(model, str(folder / "onnx" / "model.onnx"))

    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    tok.save(str(folder / "tokenizer.json"))
    special = {"pad_token": "[PAD]", "unk_token": "[UNK]", "cls_token": "[CLS]", "sep_token": "[SEP]"}
    (folder / "tokenizer_config.json").write_text(json.dumps({"model_max_length": 512, **special}))
    (folder / "special_tokens_map.json").write_text(json.dumps(special))
    (folder / "config.json").write_text(json.dumps({"model_type": "bert", "pad_token_id": 0}))


@pytest.fixture
def cross_encoder(tmp_path: Path) -> Path:
    texts = [re.sub(r"[^\w\s]", " ", c.text) for c in workspace_chunks()] + ["which connection pooler did we pick"]
    folder = tmp_path / "tiny-ce"
    build_cross_encoder(folder, _vocab(texts), FAVOURED)
    return folder


def _ranked(
    settings: Settings, index: Index, embedder: Embedder, question: str, **retrieval: object
) -> tuple[list[str], str]:
    config = settings.retrieval.model_copy(update=retrieval)
    result = Retriever(config, index, embedder).retrieve(SearchQuery(question, now=NOW, k=6))
    assert result.hits
    return [h.chunk.chunk_id for h in result.hits], result.reranker


def test_cross_encoder_scores_move_its_favoured_passage_to_the_top(
    settings: Settings, index: Index, embedder: Embedder, cross_encoder: Path
) -> None:
    question = "which connection pooler did we pick"
    plain, plain_name = _ranked(settings, index, embedder, question)
    reranked, name = _ranked(settings, index, embedder, question, reranker_model=MODEL, reranker_path=cross_encoder)
    assert "no cross-encoder" in plain_name and name.startswith(f"cross-encoder {MODEL}")
    assert plain[0] != "file:notes/plants.md::0"
    assert reranked[0] == "file:notes/plants.md::0"  # the only passage with the rewarded word
    assert sorted(reranked) == sorted(plain)  # a rerank reorders the same candidates, it does not add any


def test_the_tiny_model_scores_pairs_through_fastembed(cross_encoder: Path) -> None:
    from fastembed.rerank.cross_encoder import TextCrossEncoder

    model = TextCrossEncoder(MODEL, specific_model_path=str(cross_encoder))
    scores = list(model.rerank("which pooler", ["water the plants", "lunch"]))
    assert scores[0] == pytest.approx(5.0) and scores[1] == pytest.approx(-5.0)


def test_a_broken_cross_encoder_folder_is_one_clear_error(
    settings: Settings, index: Index, embedder: Embedder, tmp_path: Path
) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelError, match=r"reranker_path"):
        _ranked(settings, index, embedder, "anything", reranker_model=MODEL, reranker_path=tmp_path / "empty")
