"""The eval's signed-rank test gives SciPy's statistic and p-value (SciPy is a test dependency only)."""

from __future__ import annotations

import math
import random

import pytest

from briefing.evaluation.compare import paired_test
from briefing.evaluation.signed_rank import average_ranks, wilcoxon

stats = pytest.importorskip("scipy.stats")


def _cases() -> list[list[float]]:
    rng = random.Random(34)
    cases: list[list[float]] = [[1.0], [-0.5], [1.0, -1.0], [0.25, 0.5, 0.75]]
    for n in [*range(1, 16), 20, 30, 49, 50, 51, 80, 150]:
        cases.append([rng.gauss(0.1, 1.0) for _ in range(n)])  # no ties: the exact distribution up to 50
        cases.append([rng.choice([-1.0, -0.5, 0.5, 1.0, 1.0]) for _ in range(n)])  # metric deltas: ties
        cases.append([rng.choice([-1.0, 0.0, 0.0, 1.0]) for _ in range(n)])  # zeros as well
        cases.append([round(rng.uniform(-1, 1), 1) for _ in range(n)])
    return cases


@pytest.mark.parametrize("deltas", _cases())
@pytest.mark.slow
def test_the_same_statistic_and_p_value_as_scipy(deltas: list[float]) -> None:
    if all(d == 0 for d in deltas):
        return
    expected = stats.wilcoxon(deltas, zero_method="wilcox", alternative="two-sided")
    statistic, p_value = wilcoxon(deltas)
    assert statistic == pytest.approx(float(expected.statistic), rel=1e-12)
    assert p_value == pytest.approx(float(expected.pvalue), rel=1e-9, abs=1e-15)


def test_average_ranks_are_scipys() -> None:
    values = [3.0, 1.0, 3.0, 2.0, 5.0, 3.0, 1.0]
    assert average_ranks(values).tolist() == stats.rankdata(values).tolist()


def test_a_clear_improvement_is_called_better_and_no_change_is_not() -> None:
    assert paired_test([1.0] * 12 + [0.0] * 30)["verdict"] == "better"
    flat = paired_test([0.0] * 20)
    assert flat["verdict"] == "no significant difference" and flat["p_value"] == 1.0
    assert not math.isnan(paired_test([1.0, -1.0, 0.5])["p_value"])
