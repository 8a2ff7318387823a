"""Email: local mailboxes (mbox, Maildir, .eml folders) or IMAP (`type = "email"`), and Gmail (`type = "gmail"`).

Accepted by the config contract; the connectors are not built yet, so `brief ingest` says so (exit code 3).
Refs `email:<Message-ID without angle brackets>`.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Literal

from briefing.sources import ApiSource, Presentation, SourceBase, SourceDescriptor


class EmailSource(SourceBase):
    type: Literal["email"]
    path: Path


class GmailSource(ApiSource):
    type: Literal["gmail"]
    query: str = ""
    credentials_env: str | None = None


MAILBOX = SourceDescriptor(
    type="email",
    config=EmailSource,
    factory=None,
    family="email",
    container="mailbox",
    presentation=Presentation(label="email", place="title_or_container", conversational=True),
    words=(r"e-?mails?|mail|inbox|mailing[\s-]lists?",),
    ref_patterns=(r"email:.+",),
)
GMAIL = replace(MAILBOX, type="gmail", config=GmailSource)
