"""Scrubbing server replies: nothing that is, or decodes to, a configured secret reaches an error, log or file."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable

from briefing.sources import redact

_MIN_LEN = 4
_SECRETS: set[bytes] = set()
# Base64 (standard and URL-safe alphabets) runs long enough to hide a secret of _MIN_LEN bytes.
_B64 = re.compile(r"[A-Za-z0-9+/_-]{6,}={0,2}")
_HEX = re.compile(r"(?:[0-9A-Fa-f]{2}){4,}")
REDACTED = "[redacted]"


def remember(values: Iterable[str | None]) -> None:
    """Secrets to scrub from now on (a password, a user name sent with it, a token)."""
    for value in values:
        if value and len(value) >= _MIN_LEN:
            _SECRETS.add(value.encode())


def _decodings(token: str) -> Iterable[bytes]:
    # A secret inside a longer base64 string is aligned to one of three offsets; decode from each.
    body = token.rstrip("=")
    for start in range(4):
        part = body[start:]
        part = part[: len(part) - len(part) % 4] if len(part) % 4 == 1 else part
        padded = part + "=" * (-len(part) % 4)
        for decode in (base64.b64decode, base64.urlsafe_b64decode):
            try:
                yield decode(padded)
            except (binascii.Error, ValueError):
                continue


def _hides_secret(token: str, secrets: set[bytes]) -> bool:
    return any(secret in decoded for decoded in _decodings(token) for secret in secrets)


def scrub(text: str, extra: Iterable[str | None] = ()) -> str:
    """`text` without any remembered secret: as it is, URL-encoded (`redact`), or inside base64 or hex."""
    secrets = set(_SECRETS) | {v.encode() for v in extra if v and len(v) >= _MIN_LEN}
    for value in sorted(secrets, key=len, reverse=True):
        text = text.replace(value.decode(errors="ignore"), REDACTED)
    text = redact(text)
    if not secrets:
        return text
    text = _B64.sub(lambda m: REDACTED if _hides_secret(m.group(), secrets) else m.group(), text)

    def hexed(match: re.Match[str]) -> str:
        raw = bytes.fromhex(match.group())
        return REDACTED if any(s in raw for s in secrets) else match.group()

    return _HEX.sub(hexed, text)
