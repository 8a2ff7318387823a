"""One MIME parser for every mail source: raw RFC 5322 bytes -> the fields `brief` indexes.

Text comes from the text/plain parts (HTML parts through inscriptis when there is no plain text), decoded with
the part's declared charset (gb2312, windows-1252, ...; an unknown or wrong charset falls back to a lenient
decode with a note). Attachments are listed by name and type; text-like ones (patches, .txt, .md) are kept.
`clean_body` removes what should not be indexed (quoted history, attribution lines, signatures, the list
footer), keeping the reviewer's inline comments with a line of the text they answer.
"""

from __future__ import annotations

import base64
import codecs
import email
import email.policy
import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime
from email.message import Message
from email.utils import parseaddr

from briefing.model import JSON
from connectors.email.headers import addresses, decode_text, header_date, header_text, received_date
from connectors.email.html_quotes import quote_html
from connectors.email.quotes import cut_history, drop_mobile_signature, is_signature_line, split_forward

TEXT_ATTACHMENT = re.compile(r"\.(patch|diff|txt|md|markdown|rst|log|csv)$", re.IGNORECASE)
_MAX_ATTACHMENT_CHARS = 20_000
_MSGID = re.compile(r"<([^<>\s]+)>")
_LIST_ID = re.compile(r"<([^<>]+)>")


class MimeError(ValueError):
    """A message that cannot be parsed at all (no headers, no body)."""


def raw_to_data(raw: bytes) -> JSON:
    """The cache form of a message's bytes: ASCII as text, anything else as base64."""
    try:
        return {"raw": raw.decode("ascii")}
    except UnicodeDecodeError:
        return {"raw_b64": base64.b64encode(raw).decode("ascii")}


def data_to_raw(data: JSON) -> bytes:
    if "raw_b64" in data:
        return base64.b64decode(data["raw_b64"])
    return str(data.get("raw", "")).encode("ascii", "surrogateescape")


def message_id_of(value: str | None) -> str | None:
    if not value:
        return None
    found = _MSGID.search(value)
    if found:
        return found.group(1)
    bare = value.strip()
    return bare if bare and " " not in bare else None


def id_list(value: str | None) -> list[str]:
    return list(dict.fromkeys(_MSGID.findall(value or "")))


def fallback_id(raw: bytes) -> str:
    """A stable id for a message without a Message-ID header."""
    return f"{hashlib.sha256(raw).hexdigest()[:24]}@brief.invalid"


def decode_part(part: Message) -> tuple[str, str | None]:
    """A leaf part's text and a note when its charset was unknown or wrong."""
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        raw = part.get_payload()
        return (raw if isinstance(raw, str) else ""), None
    charset = (part.get_content_charset() or "us-ascii").lower()
    if charset in {"gb2312", "gbk"}:
        charset = "gb18030"  # a superset: senders labelled gb2312 often use GBK characters
    try:
        codecs.lookup(charset)
    except LookupError:
        return payload.decode("utf-8", errors="replace"), f"unknown charset {charset!r}, decoded as UTF-8"
    try:
        return payload.decode(charset), None
    except UnicodeDecodeError:
        pass
    for fallback in ("utf-8", "cp1252"):
        try:
            return payload.decode(fallback), f"not valid in its charset {charset}; decoded as {fallback}"
        except UnicodeDecodeError:
            continue
    return payload.decode("latin-1"), f"not valid in its charset {charset}; decoded as latin-1"


def html_to_text(html: str) -> str:
    from inscriptis import get_text

    return str(get_text(quote_html(html, lambda part: str(get_text(part)))))


@dataclass
class Parsed:
    """The fields of one message; `text` is the full decoded body (kept), `body` the cleaned one (indexed)."""

    message_id: str
    subject: str
    sender: list[str]
    to: list[list[str]]
    cc: list[list[str]]
    date: datetime | None
    in_reply_to: list[str]
    references: list[str]
    list_id: str
    archived_at: str
    text: str
    body: str
    attachments: list[JSON] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    gmail_thread: str | None = None


def parse(raw: bytes, *, known_date: datetime | None = None) -> Parsed:
    """Parse one message; raises MimeError when there is nothing that looks like a message.

    The date is the Date header's, else the newest Received stamp's, else `known_date` (what the mailbox or the
    server says: the mbox `From ` line, the internal date, the file's time).
    """
    if not raw.strip():
        raise MimeError("empty message")
    message = email.message_from_bytes(raw, policy=email.policy.compat32)
    if not message.keys():
        raise MimeError("no headers: not an RFC 5322 message")
    notes: list[str] = [f"header defect: {type(d).__name__}" for d in message.defects[:3]]
    plain: list[str] = []
    html: list[str] = []
    attachments: list[JSON] = []
    for part in message.walk():
        if part.is_multipart():
            continue
        ctype = part.get_content_type()
        filename = decode_text(part.get_filename(), "subject") if part.get_filename() else ""
        disposition = (part.get("Content-Disposition") or "").split(";")[0].strip().lower()
        if filename or disposition == "attachment":
            entry: JSON = {"name": filename or "(unnamed)", "type": ctype}
            if ctype.startswith("text/") or TEXT_ATTACHMENT.search(filename):
                content, note = decode_part(part)
                entry["text"] = content[:_MAX_ATTACHMENT_CHARS]
                if note:
                    notes.append(f"{filename}: {note}")
            attachments.append(entry)
            continue
        if ctype == "text/plain" or ctype.startswith("multipart/"):
            # A multipart/* leaf is one whose boundary never appears: its body is read as text, not lost.
            content, note = decode_part(part)
            if ctype.startswith("multipart/"):
                note = "multipart body without its boundary: read as plain text"
            if note:
                notes.append(note)
            plain.append(content)
        elif ctype == "text/html":
            content, note = decode_part(part)
            if note:
                notes.append(note)
            html.append(content)
    parts = plain or [html_to_text(h) for h in html]
    text = "\n\n".join(p.replace("\r\n", "\n").strip("\n") for p in parts)
    sender_list = addresses(message, "From")
    date = header_date(message) or received_date(message)
    if date is None and known_date is not None:
        date = known_date
        notes.append("no readable Date or Received header: dated by the mailbox")
    sender = sender_list[0] if sender_list else ["", ""]
    if not sender[0] and sender[1]:
        sender = [sender[1].split("@")[0], sender[1]]
    msgid = message_id_of(message.get("Message-ID")) or fallback_id(raw)
    list_id = _LIST_ID.search(str(message.get("List-Id", "")))
    archived = str(message.get("Archived-At", "")).strip().strip("<>")
    return Parsed(
        message_id=msgid,
        subject=header_text(message, "Subject") or "(no subject)",
        sender=sender,
        to=addresses(message, "To"),
        cc=addresses(message, "Cc"),
        date=date,
        in_reply_to=id_list(message.get("In-Reply-To")),
        references=id_list(message.get("References")),
        list_id=list_id.group(1) if list_id else "",
        archived_at=archived,
        text=text,
        body=clean_body(text),
        attachments=attachments,
        notes=notes,
    )


# -- what is indexed ------------------------------------------------------------------------------------------

_FOOTER = re.compile(r"^_{2,}\s*\n(?:.*\n){0,1}.*mailing list.*$", re.MULTILINE | re.IGNORECASE)
_CLOSING = re.compile(
    r"^(?:thanks|thank you|many thanks|cheers|regards|best|br|kind regards|best regards|thx|ta)\b[\s,.!]*\w*[,.!]?$",
    re.IGNORECASE,
)
_DIFF_START = re.compile(r"^diff --git |^Index: |^--- a/", re.MULTILINE)
_DIFF_FILE = re.compile(r"^diff --git a/(\S+)|^\+\+\+ b/(\S+)|^Index: (\S+)", re.MULTILINE)
_HUNK_PLACE = re.compile(r"^@@ [^@]* @@ ?(.+)$", re.MULTILINE)
# A diff this short is kept as it is; a longer one becomes one line naming its files and the functions its hunks
# change. The lines of a diff fill a chunk with little a question asks about: on a kernel mailing list a
# 600-character sample of each diff was a fifth of the chunks embedded.
_MAX_DIFF_CHARS = 300
_LISTED = 12


def clean_body(text: str) -> str:
    """The message's own words: no list footer, no signature, no top-posted history, no quoted blocks.

    Inline replies keep the last quoted line before each answer ("> +	if (foo)" then "Why is this needed?"), so
    a reviewer's remark still says what it is about; quoted text nobody answers is dropped. A forwarded
    message is kept whole (connectors.email.quotes).
    """
    footer = _FOOTER.search(text)
    if footer:
        text = text[: footer.start()]
    text, forwarded = split_forward(cut_history(text))
    lines = text.split("\n")
    out: list[str] = []
    quoted: list[str] = []
    for index, line in enumerate(lines):
        stripped = line.strip()
        if is_signature_line(line) and index > 0:
            break
        if stripped.startswith(">"):
            quoted.append(stripped)
            continue
        if stripped and quoted and not _CLOSING.match(stripped):
            context = next((q for q in reversed(quoted) if q.lstrip("> ").strip()), "")
            if context:
                out.append(context[:200])
        if stripped or quoted == []:
            quoted = []
        out.append(line.rstrip())
    body = "\n".join(drop_mobile_signature(out))
    if forwarded:
        body = f"{body}\n\n{forwarded}" if body.strip() else forwarded
    body = trim_diff(body)
    return re.sub(r"\n{3,}", "\n\n", body).strip()


def trim_diff(body: str) -> str:
    """A patch keeps its message and diffstat; its diff becomes one line of files and changed functions (the raw
    cache keeps the diff itself)."""
    found = _DIFF_START.search(body)
    if not found:
        return body
    head, diff = body[: found.start()], body[found.start() :]
    if len(diff) <= _MAX_DIFF_CHARS:
        return body
    files = list(dict.fromkeys(next(name for name in m.groups() if name) for m in _DIFF_FILE.finditer(diff)))
    places = list(dict.fromkeys(m.group(1).strip()[:80] for m in _HUNK_PLACE.finditer(diff)))
    described = f"diff of {len(files)} file(s): {', '.join(files[:_LISTED])}" if files else "diff"
    if len(files) > _LISTED:
        described += f" and {len(files) - _LISTED} more"
    if places:
        described += f"; changes in {'; '.join(places[:_LISTED])}"
    return f"{head.rstrip()}\n[{described}]"


def sender_label(sender: list[str]) -> str:
    name, addr = sender
    return name or addr or "unknown"


def plain_address(value: str) -> str:
    return parseaddr(value)[1].lower()
