"""eval/probe_threads.py: questions made from the sample's own conversations are asked through `Brief.ask` and
counted; the reply that answered is the yardstick, never the asker's own message."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import pytest

from tests.conftest import SampleIndex
from tests.evaluation.scripts import eval_script


@pytest.fixture
def probe_threads(monkeypatch: pytest.MonkeyPatch) -> Any:
    return eval_script(monkeypatch, "probe_threads")


def _answer(*cited: str, refused: bool = False) -> Any:
    citations = [SimpleNamespace(refs=[ref]) for ref in cited]
    return SimpleNamespace(no_answer=refused, citations=citations, answer="")


def test_a_verdict_names_where_the_answering_reply_is_cited(probe_threads: Any) -> None:
    probe = probe_threads.Probe(
        "slack:C/1.0", "How do I x?", datetime(2026, 1, 1, tzinfo=UTC), frozenset({"r2"}), frozenset({"r1"}),
        frozenset({"r1", "r2", "r3"}), "thread",
    )  # fmt: skip
    assert probe_threads.judge(probe, _answer("r2", "r1")) == "LEAD"
    assert probe_threads.judge(probe, _answer("r1", "r2")) == "CITED"
    assert probe_threads.judge(probe, _answer("r9")) == "MISS"
    assert probe_threads.judge(probe, _answer(refused=True)) == "REFUSED"
    assert probe_threads.led_by(probe, _answer("r1")) == "asker"
    assert probe_threads.led_by(probe, _answer("r3")) == "same conversation"
    assert probe_threads.led_by(probe, _answer("x")) == "other conversation"


@pytest.mark.slow
def test_the_probes_of_the_sample_are_asked_and_counted(
    probe_threads: Any, use_sample: SampleIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    from briefing.index import Filter
    from briefing.service import Brief
    from briefing.settings import load_settings

    with Brief(load_settings(use_sample.config)) as brief:
        view = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC))
        drawn = probe_threads.probes(view.chunks(Filter()), random.Random(7))
        assert len(drawn) >= 5
        for probe in drawn:  # the yardstick is a reply, never the asker's own message
            assert probe.answering and not probe.answering & probe.asker_refs
            assert probe.answering <= probe.thread_refs
            assert probe.now > datetime(2026, 1, 1, tzinfo=UTC)
        counts = probe_threads.run(brief, 5, 7)
    assert counts["asked"] == 5
    assert sum(counts[v] for v in ("LEAD", "CITED", "MISS", "REFUSED")) == 5
    assert counts["LEAD"] >= 2  # measured 4 of the first 5 when written
    summary = probe_threads.summary(counts)
    assert summary.startswith(f"lead {counts['LEAD']} of 5")
    assert len(capsys.readouterr().out.splitlines()) == 5


def test_a_mail_probe_skips_acks_and_robots(probe_threads: Any) -> None:
    from briefing.model import Unit

    def mail(ref: str, who: str, subject: str, body: str, hour: int) -> Unit:
        when = datetime(2019, 9, 2, hour, tzinfo=UTC)
        return Unit(ref, f"[2019-09-02 {hour:02d}:00 UTC] {who} to list | {subject}\n{body}", who, when)

    subject = "[PATCH v2 1/3] arm64: dts: add the Lenovo Yoga C630 board"
    units = [
        mail("m1", "Lee Jones", subject, "Add the board's device tree.", 9),
        mail("m2", "kbuild test robot", f"Re: {subject}", "I love your patch! Yet something to improve: " * 3, 10),
        mail("m3", "Rob Herring", f"Re: {subject}", "> Add the board\nReviewed-by: Rob Herring <rob@kernel.org>", 11),
        mail(
            "m4", "Bjorn Andersson", f"Re: {subject}", "Please sort the nodes by address and drop the empty line.", 12
        ),
    ]
    probe = probe_threads._mail_probe("email:m1", units, datetime(2019, 9, 3, tzinfo=UTC), random.Random(7))
    assert probe is not None and probe.answering == {"m4"} and probe.asker_refs == {"m1"}
    assert "add the Lenovo Yoga C630 board" in probe.question and "PATCH" not in probe.question
