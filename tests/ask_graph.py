"""An index of hand-made chat chunks read through the ask graph's own nodes (retrieve, then the extractive answer):
for tests of what reaches the answer's context and how the answer reads it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.ask.nodes import AskDeps, extractive_node, retrieve_node
from briefing.ask.state import AskState
from briefing.embed import Embedder
from briefing.index import Index
from briefing.model import Chunk
from briefing.question.constraints import Directory
from briefing.question.parse import parse
from briefing.retrieve import Retriever
from briefing.settings import (
    AnswerSettings,
    EmbeddingSettings,
    QdrantSettings,
    RetrievalSettings,
    Settings,
    WorkspaceSettings,
)


@contextmanager
def chat_deps(
    tmp_path_factory: pytest.TempPathFactory, chunks: Sequence[Chunk], directory: Directory
) -> Iterator[AskDeps]:
    """The ask graph's dependencies over a real index of `chunks` (a Slack source; one chunk of context, so that
    what the rules add is all the answer has beside the strongest chunk)."""
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("models"))
    settings = Settings(
        workspace=WorkspaceSettings(name="unittest", timezone="UTC"),
        qdrant=QdrantSettings(path=tmp_path_factory.mktemp("qdrant")),
        sources={"s": {"type": "slack_export", "path": "x"}},
        answer=AnswerSettings(max_context_chunks=1),
    )
    index = Index.open(settings)
    texts = [c.text for c in chunks]
    index.ensure(embedder.dim, embedder.name)
    index.upsert(list(chunks), embedder.dense(texts), embedder.sparse(texts), embedder.name)
    extractive = ExtractiveAnswerer(embedder, min_evidence=0.0, max_sentences=3, timezone="UTC")
    try:
        yield AskDeps(settings, Retriever(RetrievalSettings(), index, embedder), directory, extractive)
    finally:
        index.close()
        embedder.close()


def ask_through(deps: AskDeps, question: str, now: datetime) -> tuple[list[Chunk], str]:
    """The answer's context and text for `question` as of `now`, through the retrieve and extractive nodes."""
    state = AskState(question=parse(question, now=now, timezone="UTC", directory=deps.directory))
    found = retrieve_node(state, deps)
    state.evidence = found["evidence"]
    return state.evidence, extractive_node(state, deps)["answer"]
