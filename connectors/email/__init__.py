"""Email: local mailboxes (mbox, Maildir, .eml) or IMAP over TLS (`type = "email"`), and Gmail (`type = "gmail"`).

Messages are grouped into threads (Message-ID / In-Reply-To / References; a patch series under its cover letter)
and chunked per thread. Refs `email:<Message-ID without angle brackets>`. Gmail is read through
google-api-python-client in raw format, so one MIME parser serves every mail source (`connectors.email.gmail`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from briefing.sources import ApiSource, DocumentKind, KindLimits, Presentation, SourceDescriptor


class EmailSource(ApiSource):
    """Exactly one of `path` (mbox file, Maildir, folder of .eml files) or `host` (IMAP over TLS)."""

    type: Literal["email"]
    path: Path | None = None
    host: str | None = None
    port: int = 993
    folders: list[str] = Field(default_factory=lambda: ["INBOX"])
    page_size: int = 200
    # TLS always: implicit (port 993) or STARTTLS; credentials never cross the network in clear text.
    tls: Literal["implicit", "starttls"] = "implicit"
    ca_file: Path | None = None  # a private CA's certificate for a self-hosted server

    @model_validator(mode="after")
    def _one_location(self) -> EmailSource:
        if (self.path is None) == (self.host is None):
            raise ValueError("set exactly one of `path` (a local mailbox) or `host` (an IMAP server)")
        return self


class GmailSource(ApiSource):
    """Gmail through its API; `credentials_file` is a service-account key or an OAuth authorized-user file."""

    type: Literal["gmail"]
    credentials_file: Path | None = None
    query: str = ""
    labels: list[str] = Field(default_factory=list)  # any of these (names or ids); empty: the whole mailbox
    # A service account reads a user's mailbox through domain-wide delegation: that user's address.
    delegated_user: str | None = None
    page_size: int = Field(default=100, ge=1, le=500)


THREAD = DocumentKind(
    "email_thread",
    "chunkers.email:chunk_thread",
    KindLimits(max_chars=1200, max_items=12, gap_hours=24 * 14, topic_threshold=0.0),
    threaded=True,
)

MAILBOX = SourceDescriptor(
    type="email",
    config=EmailSource,
    factory="connectors.email.local:build",
    family="email",
    container="mailbox",
    presentation=Presentation(label="email", place="title_or_container", conversational=True),
    kinds=(THREAD,),
    words=(r"e-?mails?|mail|inbox|mailing[\s-]lists?",),
    ref_patterns=(r"email:.+",),
    supports=frozenset({"deletions", "scopes"}),
)
GMAIL = replace(MAILBOX, type="gmail", config=GmailSource, factory="connectors.email.gmail:build")
