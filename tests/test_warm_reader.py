"""By default a first ingest embeds only its chunks; a long-lived reader warms the vector cache in the background
after its first answer, so the questions after it embed only themselves, with the same answers."""

from __future__ import annotations

from pathlib import Path

from briefing.index import Filter, Index
from briefing.mcp_server import BriefTools
from briefing.warm import sentence_texts, unit_list_texts
from tests.test_ingest_throughput import QUESTIONS, model_calls, workspace

__all__ = ["model_calls"]  # the fixture, shared


def _ask_all(tools: BriefTools) -> list[object]:
    answers: list[object] = []
    for kind, question in QUESTIONS:
        found = tools.search(question) if kind == "search" else tools.ask(question)
        # The hits less their times (a file's time is when the test wrote it), or the answer and its citations.
        hits = [{k: v for k, v in hit.items() if k != "occurred_at"} for hit in found.get("hits", [])]
        answers.append(hits if kind == "search" else (found["answer"], found["citations"]))
    return answers


def test_a_reader_warms_the_cache_after_its_first_answer_and_answers_the_same(
    tmp_path: Path, model_calls: list[tuple[str, list[str]]]
) -> None:
    ws = workspace(tmp_path)
    first = ws.run()
    assert not first.broken
    with Index.open(ws.settings) as index:
        chunks = index.chunks(Filter())
    units = set(unit_list_texts(chunks))
    sentences = {t[:300] for t in sentence_texts(chunks, ws.embedder)}
    ingest_texts = {text for kind, texts in model_calls if kind == "dense" for text in texts}
    assert all(run.processed is not None and run.processed.warmed == 0 for run in first.sources)
    assert not units <= ingest_texts  # the ingest embedded its chunks, not what the questions read

    tools = BriefTools(ws.settings)
    try:
        model_calls.clear()
        kind, question = QUESTIONS[1]
        tools.ask(question)  # the first answer pays for what it reads, then the warm starts
        warmed = tools.warmer.join(timeout=300)
        assert warmed is not None and warmed.errors == [] and warmed.chunks == len(chunks)
        later = {text for kind, texts in model_calls if kind == "dense" for text in texts}
        assert later | ingest_texts >= units | sentences  # every unit and sentence a question could read
        assert tools.warmer.after_answer() is False  # the index did not change: no second pass

        model_calls.clear()
        answers = _ask_all(tools)
        assert [texts for kind, texts in model_calls if kind == "dense" and texts] == []  # only questions now
    finally:
        tools.close()

    cold = workspace(tmp_path / "cold", "[embedding]\nwarm_cache = false\n")
    assert not cold.run().broken
    plain = BriefTools(cold.settings)
    try:
        other = _ask_all(plain)
        assert other == answers  # warmed or not, the same answers
        assert plain.warmer.thread is None  # warm_cache = false: nothing runs in the background
    finally:
        plain.close()


def test_a_stopped_reader_ends_its_warm_pass(tmp_path: Path, model_calls: list[tuple[str, list[str]]]) -> None:
    ws = workspace(tmp_path)
    assert not ws.run().broken
    tools = BriefTools(ws.settings)
    tools.warmer.stopping.set()  # as `close()` does, before the pass reads its first page
    tools.ask(QUESTIONS[1][1])
    assert tools.warmer.thread is None  # a stopping reader starts nothing
    tools.close()


def test_warm_at_ingest_leaves_a_reader_nothing_to_warm(
    tmp_path: Path, model_calls: list[tuple[str, list[str]]]
) -> None:
    ws = workspace(tmp_path, '[embedding]\nwarm_at = "ingest"\n')
    first = ws.run()
    assert sum(run.processed.warmed for run in first.sources if run.processed) > 0
    tools = BriefTools(ws.settings)
    try:
        tools.ask(QUESTIONS[1][1])
        assert tools.warmer.thread is None  # the ingest did it
    finally:
        tools.close()


def test_brief_warm_fills_the_cache_in_the_foreground_so_one_shot_asks_embed_only_themselves(
    tmp_path: Path, model_calls: list[tuple[str, list[str]]]
) -> None:
    from briefing.warm_reader import warm_now

    ws = workspace(tmp_path)
    assert not ws.run().broken
    with Index.open(ws.settings) as index:
        chunks = index.chunks(Filter())
    model_calls.clear()
    done = warm_now(ws.settings)  # what `brief warm` runs
    assert done.errors == [] and done.chunks == len(chunks) and done.embedded > 0
    warmed = {text for kind, texts in model_calls if kind == "dense" for text in texts}
    assert set(unit_list_texts(chunks)) <= warmed
    assert warm_now(ws.settings).embedded == 0  # a second run finds everything cached

    tools = BriefTools(ws.settings)
    try:
        model_calls.clear()
        tools.ask(QUESTIONS[1][1])
        tools.warmer.stop()
        asked = [texts for kind, texts in model_calls if kind == "dense" and texts]
        assert len(asked) <= 1  # the question's own embedding, nothing of the evidence
    finally:
        tools.close()
