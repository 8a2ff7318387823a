"""Run a snippet in a fresh interpreter with only this checkout on the path: what a new process imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_probe(code: str) -> str:
    """The snippet's standard output; it must exit 0."""
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{ROOT / 'src'}:{ROOT}"},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout
