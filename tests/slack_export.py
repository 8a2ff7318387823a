"""A one-channel Slack export written the way Slack writes one: channels.json, users.json and a file per day."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any


def write_export(
    folder: Path, channel: str, users: Sequence[dict[str, Any]], messages: Sequence[tuple[str, str, datetime]]
) -> Path:
    """`folder` as an unzipped export of one channel (id C1) holding `messages` (user id, text, time); returns it."""
    (folder / channel).mkdir(parents=True)
    (folder / "channels.json").write_text(json.dumps([{"id": "C1", "name": channel}]), encoding="utf-8")
    (folder / "users.json").write_text(json.dumps(list(users)), encoding="utf-8")
    for day in sorted({at.date() for _, _, at in messages}):
        records = [
            {"type": "message", "user": user, "text": text, "ts": f"{at.timestamp():.6f}"}
            for user, text, at in messages
            if at.date() == day
        ]
        (folder / channel / f"{day.isoformat()}.json").write_text(json.dumps(records), encoding="utf-8")
    return folder
