"""eval/probe_latest.py: the newest release of one product among several, asked when another product released
after it; the announcements it reads, and the version a right answer names."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from briefing.model import Chunk, Unit
from tests.evaluation.scripts import eval_script

T0 = datetime(2026, 6, 1, 9, tzinfo=UTC)


@pytest.fixture
def probe_latest(monkeypatch: pytest.MonkeyPatch) -> Any:
    return eval_script(monkeypatch, "probe_latest", "probe_threads")


class _View:
    def __init__(self, chunks: list[Chunk]) -> None:
        self._chunks = chunks

    def chunks(self, flt: object) -> list[Chunk]:
        return self._chunks


def _channel(*posts: tuple[str, int]) -> Chunk:
    units = [Unit(f"slack:CANN:{day}", text, "Nayan", T0 + timedelta(days=day)) for text, day in posts]
    return Chunk(
        chunk_id="slack:CANN::0",
        doc_key="slack:CANN",
        source_type="slack",
        kind="slack_channel",
        title="#announcements",
        text="\n".join(u.text for u in units),
        refs=[u.ref for u in units],
        start=units[0].at or T0,
        end=units[-1].at or T0,
        units=units,
    )


def test_each_products_newest_release_is_asked_after_another_product_released(probe_latest: Any) -> None:
    view = _View(
        [
            _channel(
                ("OLake Workers v0.3.6 Released! Retries for uploads.", 0),
                ("OLake Helm v0.0.18 is out", 1),
                ("OLake Workers v0.3.7 Released!", 2),
                ("We will ship it until 0.4.0 is available", 3),  # "until" names no product
                ("[ANN] reitit 0.1.0", 4),
            )
        ]
    )
    found = probe_latest.releases(view)
    assert [(r.product, r.version) for r in found] == [
        ("OLake Workers", "0.3.6"),
        ("OLake Helm", "0.0.18"),
        ("OLake Workers", "0.3.7"),
        ("reitit", "0.1.0"),
    ]
    asked = probe_latest.probes(found)
    # Workers 0.3.6 is the first release of all (no other product before it); Helm released between the two
    # Workers releases, so "the newest Workers release" after 0.3.7 is not the newest release of the channel.
    assert ("What is the newest OLake Workers release?", T0 + timedelta(days=2, hours=1), "0.3.7") in asked
    assert all(version != "0.3.6" for _, _, version in asked)
    assert probe_latest.probes(found, "latest")[0][0].startswith("What is the latest ")
