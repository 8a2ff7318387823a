"""eval/calibrate_refusal.py: the refusal refit's weight floors (a monotone constraint on a feature) and its
threshold table, which pools only the sets that hold both answerable and unanswerable questions."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

EVAL = Path(__file__).resolve().parents[2] / "eval"


@pytest.fixture
def calibrate(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.syspath_prepend(str(EVAL))
    sys.modules.pop("calibrate_refusal", None)
    module = importlib.import_module("calibrate_refusal")
    yield module
    module.FLOORS.clear()


def test_a_floor_holds_a_weight_the_free_fit_puts_below_it(calibrate: Any) -> None:
    rng = np.random.default_rng(1)
    signal = rng.normal(size=400)
    noise = rng.normal(size=400)  # says nothing about the label: the free fit leaves it near zero
    y = (signal + 0.3 * rng.normal(size=400) > 0).astype(float)
    x = np.column_stack([signal, noise])
    free = calibrate.fit(x, y)
    assert abs(free[2]) < 0.5
    calibrate.FLOORS[1] = 2.0
    held = calibrate.fit(x, y)
    assert held[2] == pytest.approx(2.0)
    # The other weight is refitted, not copied: it still carries the signal.
    assert held[1] > 1.0


def test_the_table_pools_only_sets_with_both_kinds_of_question(calibrate: Any) -> None:
    p = np.array([0.9, 0.9, 0.1, 0.9, 0.1, 0.1, 0.1])
    y = np.array([1, 1, 0, 0, 0, 0, 0])
    sets = np.array(["dev", "dev", "dev", "dev", "probes", "probes", "probes"])
    row = next(r for r in calibrate.table(p, y, sets) if r["threshold"] == 0.5)
    # Pooled over "dev" only: 1 of its 2 unanswerable questions refused; the probes would have made it 4 of 5.
    assert row["refusal_recall"] == pytest.approx(0.5)
    assert row["false_refusals"] == 0.0
    assert row["probes_recall"] == 1.0
    assert np.isnan(row["probes_false"])


def test_the_second_opinion_replaces_the_first_only_inside_its_band_and_never_lifts_a_cap(calibrate: Any) -> None:
    first = np.array([0.1, 0.45, 0.7, 0.95, 0.5])
    second = np.array([0.9, 0.2, 0.9, 0.1, 0.9])
    capped = np.array([False, False, False, False, True])
    base, combined = calibrate.with_second(first, second, capped, (0.3, 0.9))
    # 0.1 and 0.95 are outside the band: the first model's confidence stands (a sure refusal, a sure answer).
    assert combined[0] == 0.1 and combined[3] == 0.95
    # Inside the band the second model decides, either way.
    assert combined[1] == pytest.approx(0.2) and combined[2] == pytest.approx(0.9)
    # A capped question (typed_miss, off_topic) stays under the cap whatever the second model says.
    assert base[4] == calibrate.VETO_CAP and combined[4] == calibrate.VETO_CAP
