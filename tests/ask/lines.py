"""An extractive answerer that neither refuses nor hedges, and the first line it writes: for tests of the lines an
answer shows."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.embed import Embedder
from briefing.settings import AnswerSettings, EmbeddingSettings
from tests.ask.parsed import parsed


def open_answerer(home: Path) -> Iterator[ExtractiveAnswerer]:
    """The answerer for a module fixture (`yield from`), its embedder closed after the module."""
    embedder = Embedder(EmbeddingSettings(), home)
    defaults = AnswerSettings()
    yield ExtractiveAnswerer(embedder, min_evidence=0.0, max_sentences=defaults.max_sentences, hedge_below=0.0)
    embedder.close()


def first_line(answerer: ExtractiveAnswerer, question: str, *chunks: object) -> str:
    answer = answerer.answer(parsed(question), list(chunks))  # type: ignore[arg-type]
    assert not answer.no_answer
    return answer.text.splitlines()[0]
