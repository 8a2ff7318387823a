"""Header fields through the standard library's modern email API: text, addresses and the message's date.

Text and addresses are decoded by `email.policy.default`'s header registry, which parses an address list before
decoding it (an encoded comma stays inside its display name) and joins adjacent encoded words without the
spaces between them. A Date that cannot be read falls back to the newest Received stamp, then to the time the
caller knows (the mbox `From ` line, the server's internal date, the file's time), never to the epoch.
"""

from __future__ import annotations

import email.policy
import re
from datetime import UTC, datetime
from email.headerregistry import BaseHeader
from email.message import Message
from email.utils import getaddresses, parsedate_to_datetime
from typing import Any

_POLICY = email.policy.default
_ADJACENT_WORDS = re.compile(r"(\?=)\s+(=\?)")
_PLAIN_ADDRESS = re.compile(r"^[^\s<>\"@]+@[^\s<>\"@]+$")
_MBOX_FROM = re.compile(r"^From \S+\s+(?P<stamp>.+?)\s*$")
# A Date before this is a client's zeroed clock, not when the message was written.
_EARLIEST = datetime(1980, 1, 1, tzinfo=UTC)


def _raw_values(message: Message, name: str) -> list[str]:
    """The header's values as sent (folding and encoded words kept), whatever policy parsed the message."""
    wanted = name.lower()
    out: list[str] = []
    for key, value in message.raw_items():
        if key.lower() == wanted:
            out.append(str(value))
    return out


def _unsurrogate(text: str) -> str:
    """Bytes the decoder could not place (a character split across encoded words) decoded together as UTF-8."""
    if not any("\udc80" <= ch <= "\udcff" for ch in text):
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", errors="replace")


def _parsed(name: str, value: str) -> BaseHeader | None:
    try:
        header: BaseHeader = _POLICY.header_factory(name, value)
    except (ValueError, TypeError, IndexError, AttributeError, LookupError):
        return None
    return header


def decode_text(value: Any, name: str = "subject") -> str:
    """An unstructured header as Unicode: adjacent encoded words joined, folding collapsed, bad words kept."""
    if value is None:
        return ""
    text = str(value)
    header = _parsed(name, text.replace("\r", "").replace("\n", " "))
    decoded = _unsurrogate(str(header)) if header is not None else text
    return " ".join(decoded.split())


def header_text(message: Message, name: str) -> str:
    values = _raw_values(message, name)
    return decode_text(values[0], name) if values else ""


def addresses(message: Message, name: str) -> list[list[str]]:
    """`[[display name, address], ...]` of an address header (From, To, Cc), lowercased addresses."""
    out: list[list[str]] = []
    for raw in _raw_values(message, name):
        value = _ADJACENT_WORDS.sub(r"\1\2", raw.replace("\r", "").replace("\n", " "))
        header = _parsed(name, value)
        pairs: list[tuple[str, str]] = []
        if header is not None and hasattr(header, "addresses"):
            for address in header.addresses:
                addr = address.addr_spec if address.addr_spec != "<>" else ""
                pairs.append((_unsurrogate(address.display_name or ""), addr))
        if not pairs or not all(_PLAIN_ADDRESS.match(addr) for _, addr in pairs if addr):
            # A whole address inside one encoded word (some old clients): decoded first, then split.
            pairs = getaddresses([decode_text(raw, "x-address")])
        for display, addr in pairs:
            display = " ".join(display.split()).strip().strip('"')
            if addr or display:
                out.append([display, addr.strip().lower()])
    return out


def _as_utc(when: datetime) -> datetime:
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def parse_stamp(value: str) -> datetime | None:
    """An RFC 5322 date (lenient, as `email.utils` reads it) in UTC, or None when it is not one or is implausible."""
    try:
        when = parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None:
        return None
    when = _as_utc(when)
    return when if when >= _EARLIEST else None


def header_date(message: Message) -> datetime | None:
    """The Date header, when it is a readable, plausible date."""
    for raw in _raw_values(message, "Date"):
        when = parse_stamp(" ".join(raw.split()))
        if when is not None:
            return when
    return None


def received_date(message: Message) -> datetime | None:
    """The stamp of the newest Received header that carries one (the hop nearest the reader comes first)."""
    for raw in _raw_values(message, "Received"):
        _, _, stamp = " ".join(raw.split()).rpartition(";")
        when = parse_stamp(stamp) if stamp else None
        if when is not None:
            return when
    return None


def mbox_from_date(line: str) -> datetime | None:
    """The asctime stamp of an mbox separator line (`From sender Thu Mar 14 09:00:00 2019`), in UTC."""
    found = _MBOX_FROM.match(line.strip())
    if not found:
        return None
    stamp = found.group("stamp")
    for fmt in ("%a %b %d %H:%M:%S %Y", "%a %b %d %H:%M:%S %z %Y", "%a %b %d %H:%M %Y"):
        try:
            return _as_utc(datetime.strptime(" ".join(stamp.split()), fmt))
        except ValueError:
            continue
    return parse_stamp(stamp)
