"""The Wilcoxon signed-rank test and average ranks in numpy: SciPy's results without installing SciPy.

`wilcoxon(d)` follows `scipy.stats.wilcoxon(d, zero_method="wilcox", alternative="two-sided")` with its default
`method="auto"`: zeros dropped; without ties or zeros (and at most 50 values) the exact null distribution of the
positive rank sum; with ties or zeros, every sign flip enumerated when there are at most 13 values (SciPy's
deterministic permutation test), else the normal approximation with the tie correction and no continuity
correction. The statistic is the smaller of the two rank sums. The tests check both against SciPy.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

EXACT_MAX = 50  # SciPy's "auto": exact up to 50 values, the normal approximation above
FLIPS_MAX = 13  # with ties or zeros: all 2**n sign flips up to 13 values (fewer than SciPy's 9,999 resamples)


def average_ranks(values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Ranks from 1, ties given the mean of the ranks they span (`scipy.stats.rankdata`, method "average")."""
    arr = np.asarray(values, dtype=np.float64)
    order = np.argsort(arr, kind="mergesort")
    ranks = np.empty(len(arr), dtype=np.float64)
    ordered = arr[order]
    start = 0
    while start < len(arr):
        stop = start
        while stop + 1 < len(arr) and ordered[stop + 1] == ordered[start]:
            stop += 1
        ranks[order[start : stop + 1]] = (start + stop) / 2 + 1
        start = stop + 1
    return ranks


def _exact_distribution(n: int) -> np.ndarray:
    """P(positive rank sum = r) for r = 0 .. n(n+1)/2, no ties (built as SciPy builds it)."""
    c = np.ones(1, dtype=np.float64)
    for k in range(1, n + 1):
        prev = c
        c = np.zeros(k * (k + 1) // 2 + 1, dtype=np.float64)
        m = len(prev)
        c[:m] = prev * 0.5
        c[-m:] += prev * 0.5
    return c


def _exact_p(r_plus: float, n: int) -> float:
    pmf = _exact_distribution(n)
    mean = n * (n + 1) / 4

    def cdf(k: int) -> float:
        return float(pmf[: k + 1].sum()) if k <= mean else 1 - float(pmf[k + 1 :].sum())

    def sf(k: int) -> float:
        return float(pmf[k:].sum()) if k <= mean else 1 - float(pmf[:k].sum())

    p = 2 * min(sf(math.floor(r_plus)), cdf(math.ceil(r_plus)))
    return min(max(p, 0.0), 1.0)


def _flips_p(d: np.ndarray, ranks: np.ndarray, r_plus: float) -> float:
    """Every sign flip of `d`: the share of positive rank sums at least as far out as the observed one."""
    null = np.array([sum(r for r, s in zip(ranks, signs, strict=True) if s) for signs in _signs(len(d))])
    gamma = abs(np.finfo(np.float64).eps * 100 * r_plus)
    less = np.count_nonzero(null <= r_plus + gamma) / len(null)
    greater = np.count_nonzero(null >= r_plus - gamma) / len(null)
    return float(min(max(min(less, greater) * 2, 0.0), 1.0))


def _signs(n: int) -> list[tuple[bool, ...]]:
    return list(itertools.product((False, True), repeat=n))


def wilcoxon(deltas: Sequence[float]) -> tuple[float, float]:
    """(statistic, two-sided p-value) of the signed-rank test of `deltas` against zero."""
    d = np.asarray([x for x in deltas if x != 0], dtype=np.float64)
    n_zero = len(deltas) - len(d)
    n = len(d)
    if n == 0:
        return math.nan, math.nan
    ranks = average_ranks(np.abs(d))
    r_plus = float(np.sum((d > 0) * ranks))
    r_minus = float(np.sum((d < 0) * ranks))
    statistic = min(r_plus, r_minus)
    _, counts = np.unique(np.abs(d), return_counts=True)
    ties = bool(np.any(counts > 1))
    if len(deltas) <= EXACT_MAX and not ties and n_zero == 0:
        return statistic, _exact_p(r_plus, n)
    if len(deltas) <= FLIPS_MAX:
        return statistic, _flips_p(d, ranks, r_plus)
    t = counts.astype(np.float64)
    se = math.sqrt((n * (n + 1.0) * (2.0 * n + 1.0) - float(np.sum(t**3 - t)) / 2) / 24)
    z = (r_plus - n * (n + 1.0) * 0.25) / se
    return statistic, 2 * 0.5 * math.erfc(abs(z) / math.sqrt(2))
