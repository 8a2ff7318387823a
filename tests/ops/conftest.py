"""Real local servers for delivery tests: an SMTP server with STARTTLS and AUTH (aiosmtpd), and the Slack fake."""

from __future__ import annotations

import logging
import socket
import ssl
from collections.abc import Iterator
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
import trustme
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

from briefing.devserver.slack import SlackFake

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "slack" / "workspace.json"
SMTP_USER = "brief-bot"
SMTP_PASSWORD = "s3cret-smtp-password"


@dataclass
class Inbox:
    """What the SMTP server accepted."""

    messages: list[Message] = field(default_factory=list)
    envelopes: list[Any] = field(default_factory=list)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 (aiosmtpd's name)
        self.envelopes.append(envelope)
        self.messages.append(message_from_bytes(envelope.original_content or envelope.content))
        return "250 Message accepted"


@dataclass
class SmtpServer:
    host: str
    port: int
    ca_file: Path
    inbox: Inbox


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def smtp_server(tmp_path: Path) -> Iterator[SmtpServer]:
    """STARTTLS required, with a certificate from a throwaway CA the client is told to trust; AUTH after TLS."""
    # The server logs the handshakes the tests make fail on purpose (an untrusted CA); that is not news.
    server_log = logging.getLogger("mail.log")
    level = server_log.level
    server_log.setLevel(logging.CRITICAL)
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1", "localhost")
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    cert.configure_cert(context)
    ca_file = tmp_path / "smtp-ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))

    def authenticate(server: Any, session: Any, envelope: Any, mechanism: str, auth_data: Any) -> AuthResult:
        ok = (
            isinstance(auth_data, LoginPassword)
            and auth_data.login == SMTP_USER.encode()
            and auth_data.password == SMTP_PASSWORD.encode()
        )
        return AuthResult(success=ok, handled=False)  # handled=False: the server answers 535 itself

    inbox = Inbox()
    port = _free_port()
    controller = Controller(
        inbox,
        hostname="127.0.0.1",
        port=port,
        tls_context=context,
        require_starttls=True,
        authenticator=authenticate,
        auth_require_tls=True,
    )
    controller.start()
    yield SmtpServer("127.0.0.1", port, ca_file, inbox)
    controller.stop()
    server_log.setLevel(level)


@pytest.fixture
def slack_fake() -> Iterator[SlackFake]:
    fake = SlackFake.from_fixture(FIXTURE)
    fake.start()
    yield fake
    fake.stop()
