"""Citation validation: what survives, what is removed and logged, and when the answer becomes a refusal."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from briefing.ask.citations import check, normalise_markers, uncited_claims
from briefing.model import Chunk, Unit


def _ctx(n: int) -> list[Chunk]:
    at = datetime(2026, 6, 1, tzinfo=UTC)
    return [
        Chunk(f"doc{i}::0", f"doc{i}", "files", "test", f"Doc {i}", f"text {i}", [f"file:doc{i}.md"], at, at,
              url=f"https://example.test/{i}")
        for i in range(1, n + 1)
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("answer", "expected_text", "expected_cited", "removed_reasons"),
    [
        ("The cutover moved to June 12 [1].", "The cutover moved to June 12 [1].", [1], []),
        ("Fabricated source [7].", "Fabricated source.", [], ["not in the context (1..3)"]),
        ("Zero is no citation [0].", "Zero is no citation.", [], ["not in the context (1..3)"]),
        ("Mixed [2] and invented [9] here.", "Mixed [2] and invented here.", [2], ["not in the context (1..3)"]),
        ("Repeated [1][1] marker.", "Repeated [1] marker.", [1], ["duplicate of the marker before it"]),
        ("Spaced repeat [2] [2].", "Spaced repeat [2].", [2], ["duplicate of the marker before it"]),
        ("A list [1,2] of sources.", "A list [1][2] of sources.", [1, 2], []),
        ("A list with space [1, 3].", "A list with space [1][3].", [1, 3], []),
        ("A range [1-3] here.", "A range [1][2][3] here.", [1, 2, 3], []),
        ("Padded [ 2 ] marker.", "Padded [2] marker.", [2], []),
        ("Trailing space [3 ] marker.", "Trailing space [3] marker.", [3], []),
        ("Letter marker [x] removed.", "Letter marker removed.", [], ["malformed citation marker"]),
        ("Placeholder [n ] removed.", "Placeholder removed.", [], ["malformed citation marker"]),
        ("Empty [] removed.", "Empty removed.", [], ["malformed citation marker"]),
        ("Footnote style [^2] kept as 2.", "Footnote style [2] kept as 2.", [2], []),
        ("List with a bad one [2,8].", "List with a bad one [2].", [2], ["not in the context (1..3)"]),
        ("A [WIP draft] title stays.", "A [WIP draft] title stays.", [], []),
        ("A [link](https://x.test) stays.", "A [link](https://x.test) stays.", [], []),
    ],
)
def test_markers(answer: str, expected_text: str, expected_cited: list[int], removed_reasons: list[str]) -> None:
    text, cited, removed = normalise_markers(answer, 3)
    assert text == expected_text
    assert cited == expected_cited
    assert [r["reason"] for r in removed] == removed_reasons


def test_valid_citations_return_the_refs_of_their_context_block() -> None:
    checked = check("Alice moved it [2]; Bob agreed [1][9].", _ctx(3), sufficient=True, scope="slack")
    assert checked.text == "Alice moved it [2]; Bob agreed [1]."
    assert checked.citations == [
        {"n": 1, "refs": ["file:doc1.md"], "url": "https://example.test/1"},
        {"n": 2, "refs": ["file:doc2.md"], "url": "https://example.test/2"},
    ]
    assert checked.removed == [{"marker": "[9]", "n": "9", "reason": "not in the context (1..3)"}]
    assert not checked.no_answer


def test_answer_left_without_valid_citation_becomes_a_refusal() -> None:
    checked = check("The migration finished on May 3 [5].", _ctx(2), sufficient=True, scope="jira; 2026-06-08")
    assert checked.no_answer
    assert checked.citations == []
    assert checked.text.startswith("The sources do not cover this (searched jira; 2026-06-08)")
    assert checked.uncited == ["The migration finished on May 3."]
    assert "no valid citation" in checked.note


def test_insufficient_evidence_refuses_with_scope_and_cites_nothing() -> None:
    checked = check(
        "The evidence does not say who approved the budget [1].", _ctx(3), sufficient=False,
        scope="slack, jira; 2026-06-08 to 2026-06-14",
    )  # fmt: skip
    assert checked.no_answer
    assert checked.citations == []
    assert "[1]" not in checked.text
    assert "searched slack, jira; 2026-06-08 to 2026-06-14" in checked.text
    assert "who approved the budget" in checked.text


def test_uncited_factual_sentences_are_flagged() -> None:
    text = "Deploys need two approvals [1]. The pipeline also runs smoke tests nightly. Summary:"
    assert uncited_claims(text) == ["The pipeline also runs smoke tests nightly."]
    checked = check(text, _ctx(1), sufficient=True, scope="files")
    assert checked.uncited == ["The pipeline also runs smoke tests nightly."]
    assert not checked.no_answer


def _thread() -> Chunk:
    at = datetime(2026, 7, 2, 9, tzinfo=UTC)
    units = [
        Unit("slack:CHELP:1782982800.000100", "The sync keeps crashing after we doubled the pod memory.", "Priya",
             at, "https://team.slack.com/archives/CHELP/p1782982800000100"),
        Unit("slack:CHELP:1782983000.000200", "Lower max_threads to 4 and give the pod 8 GB of RAM; it stays up.",
             "Omar", at, "https://team.slack.com/archives/CHELP/p1782983000000200"),
    ]  # fmt: skip
    return Chunk("slack:CHELP/1::0", "slack:CHELP/1", "slack", "slack_thread", "#help thread", "...",
                 [u.ref for u in units], at, at, url=units[0].url, units=units)  # fmt: skip


def test_a_model_citation_opens_the_message_its_sentence_quotes_not_the_chunks_first() -> None:
    thread = _thread()
    checked = check("Lower max_threads to 4 and give the pod 8 GB of RAM [1].", [thread], sufficient=True, scope="")
    assert checked.citations == [{"n": 1, "refs": [thread.units[1].ref], "url": thread.units[1].url}]


def test_a_citation_that_matches_no_single_message_keeps_the_whole_chunk() -> None:
    thread = _thread()
    checked = check("The team discussed it [1].", [thread], sufficient=True, scope="")
    assert checked.citations == [{"n": 1, "refs": thread.refs, "url": thread.url}]
