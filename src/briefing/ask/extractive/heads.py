"""The stamp a conversation's unit opens with, left out of what an answer quotes (its attribution says it)."""

from __future__ import annotations

import re

# Unit text: the time stamp that opens a message, comment or mail as the chunkers write it ("[2019-08-30 14:21
# UTC] ", "[2022-05-03 17:41] ", "[2026-05-23] ").
_STAMP = re.compile(r"\[\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?(?: ?UTC)?)?\]\s+")
# Unit text after the stamp and the author: a mail's envelope (" to A, B and 3 more | Re: [PATCH] ..."), which
# runs to the end of the unit's first line.
_ENVELOPE = re.compile(r"(?: to [^|\n]*)? \| ")
# Unit text after the stamp and the author: a comment's or commit's colon (" 07f190f: ", ": ").
_SPEAKER = re.compile(r"(?: [0-9a-f]{7,40})?:\s+")


def without_head(text: str, author: str | None, first_line: str) -> str:
    """`text` (a sentence from the start of a unit whose first line is `first_line`) without the unit's opening
    stamp, author and envelope: "[2019-08-30 14:21 UTC] Joerg Roedel to Yong Wu | Re: [PATCH] x Applied, thanks."
    -> "Applied, thanks."; "[2022-05-03 17:41] seanturner: I posted this PR" -> "I posted this PR". Only when the
    stamp is followed by the unit's own author; a sentence that is nothing but the head stays as it is."""
    stamp = _STAMP.match(text)
    if stamp is None or not author:
        return text
    rest = text[stamp.end() :]
    if not rest.lower().startswith(author.lower()):
        return text
    after = rest[len(author) :]
    if _ENVELOPE.match(after):
        line = " ".join(first_line.split())
        flat = " ".join(text.split())
        body = flat[len(line) :].strip() if flat.startswith(line) else ""
        return body or text
    speaker = _SPEAKER.match(after)
    if speaker is not None and after[speaker.end() :].strip():
        return after[speaker.end() :]
    return text


def _head_line(author: str | None, first_line: str) -> str:
    """The unit's first line, flattened, when it is nothing but the unit's head (a stamp, the author and an
    envelope or a colon, no words of the message after them); else ""."""
    line = " ".join(first_line.split())
    if _STAMP.match(line) is None or without_head(line, author, line) != line:
        return ""
    return line


def past_head(text: str, author: str | None, first_line: str) -> str | None:
    """What of `text` (a sentence of a unit whose first line is `first_line`) comes after the unit's head, when the
    sentence starts inside that head: "" for a sentence that is only the head or a piece of it ("[2019-09-02 15:04
    UTC] A to B, Jason A." | "Donenfeld and 19 more | Re: [PATCH] x"), the rest for one that runs on past it
    ("Donenfeld and 19 more | Re: [PATCH] x Hi Arnd, ..." -> "Hi Arnd, ..."); None when it does not start there."""
    line = _head_line(author, first_line)
    flat = " ".join(text.split())
    if not line or not flat:
        return None
    if flat in line:
        return ""
    at = line.find(flat[:HEAD_PIECE])
    if at < 0 or len(line) - at < HEAD_PIECE or not flat.startswith(line[at:]):
        return None
    return flat[len(line) - at :].strip()


# A sentence starts inside a head when its first this many characters are in it.
HEAD_PIECE = 16


def head_only(text: str, author: str | None, first_line: str) -> bool:
    """Whether `text` (a sentence of a unit whose first line is `first_line`) is nothing but the unit's head or a
    piece of it (`past_head`)."""
    return past_head(text, author, first_line) == ""
