"""Ingested text is data: before it reaches a terminal, a chat message or a mail, escape codes and controls go."""

from __future__ import annotations

import re

# CSI/OSC/other ESC sequences first (so their parameters go with them), then any remaining C0/C1 control
# character except newline and tab, and the bidirectional overrides that can reorder what a reader sees.
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def neutralise(text: str) -> str:
    """`text` without terminal escape sequences, control characters or bidi overrides."""
    return _CONTROLS.sub("", _ESCAPES.sub("", text))


def one_line(text: str, limit: int = 300) -> str:
    """Neutralised, whitespace folded to single spaces, cut at `limit` characters with an ellipsis."""
    flat = " ".join(neutralise(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"
