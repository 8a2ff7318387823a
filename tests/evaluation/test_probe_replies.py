"""eval/probe_replies.py: a channel question's answer is read from who the later messages address."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from briefing.model import Chunk, Unit
from tests.evaluation.scripts import eval_script

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def probe_replies(monkeypatch: pytest.MonkeyPatch) -> Any:
    return eval_script(monkeypatch, "probe_replies")


def _channel(rows: list[tuple[int, str, str]]) -> Chunk:
    units = [Unit(f"slack:CDEV:{100 + m}.1", text, who, T0 + timedelta(minutes=m)) for m, who, text in rows]
    return Chunk(
        chunk_id="slack:CDEV::0",
        doc_key="slack:CDEV",
        source_type="slack",
        kind="slack_channel",
        title="#dev",
        text="\n".join(u.text for u in units),
        refs=[u.ref for u in units],
        start=units[0].at or T0,
        end=units[-1].at or T0,
        units=units,
    )


def test_the_answer_is_the_reply_addressed_to_the_asker(probe_replies: Any) -> None:
    chunk = _channel(
        [
            (0, "Ana Ruiz", "How do I pin the reader version in the build file?"),
            (5, "Bo Chen", "@Ana Ruizova unrelated, but lunch?"),
            (30, "Sam Ortiz", "@Ana Ruiz add it to your deps directly"),
            (400, "Lee Wong", "@Ana Ruiz late to this: the docs cover it"),
        ]
    )
    (probe,) = probe_replies.channel_probes([chunk], random.Random(1))
    assert probe.question == "How do I pin the reader version in the build file?"
    # Sam's reply, not Bo's message to someone whose name only starts alike, not Lee's past six hours.
    assert probe.answering == {"slack:CDEV:130.1"}
    assert probe.asker_refs == {"slack:CDEV:100.1"}
    assert probe.now == T0 + timedelta(minutes=30, days=1)


def test_a_question_nobody_answered_by_name_makes_no_probe(probe_replies: Any) -> None:
    chunk = _channel([(0, "Ana Ruiz", "How do I pin the reader version in the build file?"), (3, "Sam Ortiz", "ok")])
    assert probe_replies.channel_probes([chunk], random.Random(1)) == []


def test_a_question_put_to_someone_is_answered_by_their_next_message(probe_replies: Any) -> None:
    chunk = _channel(
        [
            (0, "Ana Ruiz", "@Sam Ortiz: how do I pin the reader version in the build file?"),
            (4, "Bo Chen", "lunch anyone?"),
            (7, "Sam Ortiz", "put it in the deps file directly"),
        ]
    )
    assert probe_replies.channel_probes([chunk], random.Random(1)) == []  # no reply opens with Ana's name
    (probe,) = probe_replies.channel_probes([chunk], random.Random(1), "addressee")
    # Asked without the address, so the question does not name the one who answers.
    assert probe.question == "how do I pin the reader version in the build file?"
    assert probe.answering == {"slack:CDEV:107.1"}


class _Asked:
    """A stand-in for `Brief`: one fixed answer to whatever is asked."""

    def __init__(self, text: str, *, refused: bool = False) -> None:
        self.text, self.refused = text, refused

    def ask(self, question: str, *, now: datetime, k: int) -> Any:
        assert question.startswith('Who answered the question "')
        return type("Answer", (), {"answer": self.text, "no_answer": self.refused})()


def test_who_answered_is_judged_by_the_name_the_answer_leads_with(monkeypatch: pytest.MonkeyPatch) -> None:
    from collections import Counter

    probe_threads = eval_script(monkeypatch, "probe_threads")
    probe = probe_threads.Probe(
        "slack:CDEV@1", "how do I pin it?", T0, frozenset({"r2"}), frozenset({"r1"}), frozenset({"r1", "r2"}), "thread"
    )
    authors = {"r1": "Ana Ruiz", "r2": "Sam Ortiz"}
    counts: Counter[str] = Counter()
    for text in ("Sam Ortiz — Sam Ortiz in #dev: ...", "Ana Ruiz — Ana Ruiz in #dev: ...", "Bo Chen — ..."):
        probe_threads.ask_who(_Asked(text), probe, authors, counts)
    probe_threads.ask_who(_Asked("The sources do not cover this.", refused=True), probe, authors, counts)
    assert counts == {"asked": 4, "RIGHT": 1, "ASKER": 1, "OTHER": 1, "REFUSED": 1}
