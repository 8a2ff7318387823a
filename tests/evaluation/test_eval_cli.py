"""`brief eval` over the indexed sample workspace: the CI subset must not fall below today's measured quality.

Thresholds sit just below the values measured when they were set (see docs/evaluation.md), so losing one case on
any metric fails. Raise them when quality improves; lower them only with a measured reason in the commit message.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from briefing.cli.app import app
from tests.conftest import SampleIndex

ROOT = Path(__file__).resolve().parents[2]
SUBSET = ROOT / "eval" / "ci_subset.jsonl"
DEV = ROOT / "eval" / "sample_dev.jsonl"

# measured 2026-12-01 09:50 UTC on the default configuration, once every retrieval ran as of the case's `now`:
# hit@10 1.0, recall@10 0.651, MRR 0.620, citation precision 0.389, keywords 0.5625, no-answer 0.80. The figures of
# 2026-11-30 (citation precision 0.411, keywords 0.625) used evidence written after `now`: s069 (asked 25 May)
# answered from a 4 June message, s057 from a PDF dated by its file time (today); s050 lost its keywords because
# the recency boost now spans the weeks up to `now` instead of up to that PDF.
THRESHOLDS = {
    "hit@10": 0.98,
    # 0.63 -> 0.62: a folder named with a plain word ("releases") is no longer read as a project from the word
    # alone, so s028 ("What happened with ledger-api releases last week?") no longer pulls the release notes'
    # folder forward (recall 1.0 -> 0.8; the subset 0.635 -> 0.623), while over the whole sample set keywords rose
    # 0.738 -> 0.750 and MRR 0.717 -> 0.723, and OLake GitHub MRR 0.873 -> 0.887 (docs/evaluation.md).
    "recall@10": 0.62,
    # 0.60 -> 0.65: the unit list (retrieval ranks candidates by their best reply/section) lifted this subset's
    # MRR@10 from 0.620 to 0.682; the floor now guards that gain.
    "mrr@10": 0.65,
    # 0.37 -> 0.36: "what happened" questions are answered by the briefing engine, which cites every
    # conversation of the window; gold sets list a few refs per case, so the extra (correct) citations count
    # against precision (0.3677 on this subset after the change; hit@10 and recall@10 did not fall).
    # 0.36 -> 0.34: with the unit list this 20-case subset reads 0.345 (0.368 without it), while citation
    # precision over the full dev sets rose (olake 0.506 -> 0.569, sample 0.427 -> 0.443; docs/evaluation.md) and
    # keywords here rose 0.562 -> 0.625.
    "citation_precision": 0.34,
    "keyword_correctness": 0.55,
    "no_answer_accuracy": 0.78,
}


def test_ci_subset_is_a_verbatim_part_of_the_dev_set() -> None:
    dev = {json.loads(line)["id"]: json.loads(line) for line in DEV.read_text().splitlines() if line.strip()}
    subset = [json.loads(line) for line in SUBSET.read_text().splitlines() if line.strip()]
    assert len(subset) == 20
    assert {case["category"] for case in subset} == {case["category"] for case in dev.values()}
    for case in subset:
        assert case == dev[case["id"]], f"{case['id']} differs from eval/sample_dev.jsonl: copy it again"


@pytest.mark.slow
def test_eval_on_the_sample_keeps_quality(use_sample: SampleIndex, tmp_path: Path) -> None:
    saved = tmp_path / "run.json"
    args = ["--config", str(use_sample.config), "eval", str(SUBSET), "--json", "--save", str(saved)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    overall = data["metrics"]["overall"]
    below = {name: overall[name] for name, floor in THRESHOLDS.items() if overall[name] < floor}
    assert not below, f"quality fell below the CI thresholds: {below} (thresholds {THRESHOLDS})"
    assert [case["id"] for case in data["cases"]] == [
        json.loads(line)["id"] for line in SUBSET.read_text().splitlines() if line.strip()
    ]
    assert all(case["hits"] and case["timings_ms"]["total"] > 0 for case in data["cases"])

    # the saved run, compared with a second run of the same code, shows no significant difference
    args = ["--config", str(use_sample.config), "eval", str(SUBSET), "--compare", str(saved), "--json"]
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 0, again.output
    comparison = json.loads(again.stdout)["comparison"]
    assert comparison["cases_compared"] == 20
    assert {m["verdict"] for m in comparison["metrics"].values()} == {"no significant difference"}
