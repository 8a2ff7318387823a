"""One named ticket or pull request as the view holds it, and the cited sentences read from it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from briefing.model import Unit

# Where a citation marker goes in a sentence read from an item.
MARK = "\x00"
# A header's "Resolved:" or "Created:" value: its day ("2017-10-05", "2017-10-05 14:02").
DAY = re.compile(r"\d{4}-\d{2}-\d{2}")

# A sentence with a MARK per cited unit, and those units in order.
Read = tuple[str, list[Unit]]


@dataclass(frozen=True)
class Item:
    """One named ticket or pull request as the view holds it: its key, header unit and other units."""

    key: str
    label: str
    header: Unit | None
    units: tuple[Unit, ...]
    events: tuple[dict[str, Any], ...] = ()  # its recorded transitions (a changelog's status changes)
    title: str = ""  # its title without its key
