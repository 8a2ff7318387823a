"""`brief metrics serve` exports on /metrics only; any other path is a 404."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

import pytest

from briefing.ops import metrics


def test_only_the_metrics_path_answers(tmp_path: Path) -> None:
    server, _ = metrics.serve(tmp_path, 0)
    base = f"http://127.0.0.1:{server.server_port}"
    try:
        assert urllib.request.urlopen(f"{base}/metrics", timeout=10).status == 200
        for path in ("/admin", "/metrics/../x", "/.env", "/metricsx"):
            with pytest.raises(urllib.error.HTTPError) as info:
                urllib.request.urlopen(base + path, timeout=10)
            assert info.value.code == 404, path
    finally:
        server.shutdown()
        server.server_close()
