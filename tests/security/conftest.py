"""Evil local servers for the security tests: an SMTP server that may lack STARTTLS or echo the AUTH string."""

from __future__ import annotations

import base64
import logging
import socket
import ssl
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import trustme
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

USER = "probe-user"
PASSWORD = "pr0be-Passw0rd-9x"
AUTH_PLAIN = base64.b64encode(f"{USER}\0{USER}\0{PASSWORD}".encode()).decode()


@dataclass
class Evil:
    """What an SMTP server saw: the AUTH attempts (mechanism, over TLS or not) and the raw DATA bytes."""

    host: str
    port: int
    ca_file: Path
    auths: list[dict[str, Any]] = field(default_factory=list)
    data: list[bytes] = field(default_factory=list)


class _Handler:
    def __init__(self, evil: Evil, echo: bool) -> None:
        self.evil, self.echo = evil, echo

    async def handle_MAIL(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:  # noqa: N802
        if self.echo:  # a hostile or buggy server quotes the client's AUTH string back in its refusal
            return f"550 5.7.1 sender refused for session ({AUTH_PLAIN}) user {PASSWORD}"
        envelope.mail_from = address
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        self.evil.data.append(envelope.original_content or envelope.content)
        return "250 Message accepted"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def evil_smtp(tmp_path: Path) -> Iterator[Callable[..., Evil]]:
    """Start an SMTP server: `tls` offers STARTTLS (or not), `echo` refuses MAIL echoing the credentials."""
    logging.getLogger("mail.log").setLevel(logging.CRITICAL)
    started: list[Controller] = []
    ca = trustme.CA()
    ca_file = tmp_path / "evil-ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))

    def start(*, tls: bool = True, echo: bool = False) -> Evil:
        evil = Evil("127.0.0.1", _free_port(), ca_file)

        def authenticate(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
            evil.auths.append({"mechanism": mechanism, "tls": session.ssl is not None})
            ok = isinstance(data, LoginPassword) and data.password == PASSWORD.encode()
            return AuthResult(success=ok, handled=False)

        context = None
        if tls:
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            ca.issue_cert("127.0.0.1").configure_cert(context)
        controller = Controller(
            _Handler(evil, echo),
            hostname=evil.host,
            port=evil.port,
            tls_context=context,
            authenticator=authenticate,
            auth_require_tls=False,  # the evil server takes a password any way it comes
        )
        controller.start()
        started.append(controller)
        return evil

    yield start
    for controller in started:
        controller.stop()
