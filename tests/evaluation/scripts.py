"""The evaluation scripts of `eval/`, imported fresh by the tests that check them."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import pytest

EVAL = Path(__file__).resolve().parents[2] / "eval"


def eval_script(monkeypatch: pytest.MonkeyPatch, name: str, *siblings: str) -> Any:
    """`eval/<name>.py` as a module, imported again (with the `siblings` it imports), so a test sees its source."""
    monkeypatch.syspath_prepend(str(EVAL))
    for module in (name, *siblings):
        sys.modules.pop(module, None)
    return importlib.import_module(name)
