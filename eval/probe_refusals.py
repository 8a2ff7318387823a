"""Ask each thread probe twice, after its conversation and before it began, and count answers and refusals.

No dev case is read. The questions are `probe_threads.py`'s (a help thread's question, a ticket's summary put as a
question, a mail's subject). Asked a day after the conversation's last message, the index holds the answer: a
refusal is wrong. Asked a day before its first message, the index does not hold it yet, only what other
conversations said in the same words: the right answer is a refusal (a near miss, the negative that an answer
stage fitted to answerable questions gets wrong). An earlier conversation may answer the same question, so read
the counts as before and after a change, not as accuracy. Prints one line per probe and

    answered after: A of N; refused before: R of N; balanced: (A + R) / 2N

    python eval/probe_refusals.py --config C -n 40 [--seed 7] [--show]
    python eval/probe_refusals.py --config C -n 100 --cases-out probes.jsonl   # then `brief eval probes.jsonl`
"""

from __future__ import annotations

import argparse
import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from probe_threads import probes


def started(chunks: list[Any]) -> dict[str, datetime]:
    """Each unit's ref -> when it was written (for a conversation's first message)."""
    return {u.ref: u.at for c in chunks for u in c.units if u.at is not None}


def as_cases(drawn: list[Any], at: dict[str, datetime]) -> list[dict[str, Any]]:
    """Each probe as two evaluation cases: asked after its conversation (answerable, its answering units the gold)
    and before it began (unanswerable)."""
    cases = []
    for i, probe in enumerate(drawn, 1):
        first = min((at[ref] for ref in probe.thread_refs if ref in at), default=probe.now)
        common = {"question": probe.question, "answer_keywords": []}
        cases.append({"id": f"pa{i:03d}", **common, "now": probe.now.isoformat(), "gold_refs": sorted(probe.answering),
                      "no_answer": False, "category": "probe_after"})  # fmt: skip
        cases.append({"id": f"pb{i:03d}", **common, "now": (first - timedelta(days=1)).isoformat(), "gold_refs": [],
                      "no_answer": True, "category": "probe_before"})  # fmt: skip
    return cases


def refused(answer: Any) -> bool:
    return bool(answer.no_answer or not answer.citations)


class Tally:
    """Near-miss probes counted as answered after and refused before, one printed line each (`--show` adds the
    first line of an answer given before), and their balanced accuracy."""

    def __init__(self, show: bool, missed: str = "REFUSED ") -> None:
        self.show, self.missed = show, missed
        self.answered = self.declined = self.n = 0

    def add(self, key: str, question: str, day: datetime, after: bool, early: Any) -> None:
        """One probe: right after (`after`), and its answer `early` as of the near miss's `day`."""
        before = refused(early)
        self.answered += after
        self.declined += before
        self.n += 1
        said = "" if before or not self.show else " | " + early.answer.splitlines()[0][:160]
        print(f"{'answered' if after else self.missed} {'refused ' if before else 'ANSWERED'} {key} "
              f"{day:%Y-%m-%d} | {question}{said}")  # fmt: skip

    def summary(self) -> str:
        balanced = (self.answered + self.declined) / (2 * self.n) if self.n else 0.0
        return (
            f"answered after: {self.answered} of {self.n}; refused before: {self.declined} of {self.n}; "
            f"balanced: {balanced:.3f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--config", type=Path, required=True)
    parser.add_argument("-n", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--show", action="store_true", help="print the first line of each answer given before")
    parser.add_argument(
        "--cases-out", type=Path, help="write the probes as evaluation cases (JSONL, for `brief eval`) and ask nothing"
    )
    args = parser.parse_args()

    from briefing.index import Filter
    from briefing.service import Brief
    from briefing.settings import load_settings

    with Brief(load_settings(args.config)) as brief:
        chunks = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC)).chunks(Filter())
        at = started(chunks)
        drawn = probes(chunks, random.Random(args.seed))[: args.n]  # noqa: S311 (a reproducible draw)
        if args.cases_out is not None:
            args.cases_out.write_text("".join(json.dumps(c) + "\n" for c in as_cases(drawn, at)), encoding="utf-8")
            return
        tally = Tally(args.show)
        for probe in drawn:
            day = min((at[ref] for ref in probe.thread_refs if ref in at), default=probe.now) - timedelta(days=1)
            after = not refused(brief.ask(probe.question, now=probe.now, k=10))
            tally.add(probe.key, probe.question, day, after, brief.ask(probe.question, now=day, k=10))
        print(tally.summary())


if __name__ == "__main__":
    main()
