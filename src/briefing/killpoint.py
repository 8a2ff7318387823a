"""Test-only crash points: `BRIEF_TEST_KILL_AT=NAME[@N]` SIGKILLs the process the Nth time NAME is reached.

The crash-safety test (`tests/test_crash_safety.py`) runs the real CLI in a subprocess with this variable set,
so the process dies exactly between two steps of a sync (after a batch is fetched, inside the cache write, before
the cursor is saved, between embedding and upsert, before the index is published, ...), then restarts it and
compares the result with an uninterrupted run. `BRIEF_TEST_KILL_AT=trace` only lists the points reached, in
order, on stderr. `BRIEF_TEST_KILL_SIGNAL=TERM` sends SIGTERM instead (what a scheduler's timeout sends).
The variables are read once at import; when they are unset, `reached()` is one comparison and a return.
"""

from __future__ import annotations

import os
import signal
import sys

ENV = "BRIEF_TEST_KILL_AT"

_target = os.environ.get(ENV) or None
_name, _, _nth = (_target or "").partition("@")
_wanted = int(_nth) if _nth.isdigit() else 1
_term = os.environ.get("BRIEF_TEST_KILL_SIGNAL", "").upper() in ("TERM", "SIGTERM")
_signal = signal.SIGTERM if _term else signal.SIGKILL
_hits = 0


def reached(name: str) -> None:
    """Mark a crash point; dies here (SIGKILL, no cleanup, no flush) when the environment names it."""
    if _target is None:
        return
    _maybe_die(name)


def _maybe_die(name: str) -> None:
    global _hits
    if _name == "trace":
        sys.stderr.write(f"kill point reached: {name}\n")
        return
    if name != _name:
        return
    _hits += 1
    if _hits == _wanted:
        sys.stderr.write(f"kill point {name}@{_hits}\n")
        sys.stderr.flush()
        os.kill(os.getpid(), _signal)
