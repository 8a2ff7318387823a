"""IMAP against a real IMAP server (pymap, in memory) over STARTTLS: UID paging, expunge, UIDVALIDITY, new folders."""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from briefing.errors import AuthError
from briefing.registry import SourceContext
from connectors.email import EmailSource
from connectors.email.imap import build
from tests.harness import SourceRunner

pytest.importorskip("pymap")
pytest.importorskip("imapclient")


@dataclass
class Server:
    port: int
    cert: Path

    def admin(self) -> Any:
        from imapclient import IMAPClient

        client = IMAPClient("localhost", port=self.port, ssl=False, timeout=10)
        client.starttls(ssl.create_default_context(cafile=str(self.cert)))
        client.login("demouser", "demopass")
        return client


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make the test server's certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
         "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-c", "from pymap.main import main; main()", "--host", "127.0.0.1", "--port", str(port),
         "--cert", str(cert), "--key", str(key), "dict", "--demo-data"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        for _ in range(600):  # waiting for the server to listen, not for behaviour
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.05)
        else:
            pytest.fail("pymap did not start")
        yield Server(port, cert)
    finally:
        process.terminate()
        process.wait(timeout=10)


def mail(mid: str, subject: str, body: str, reply_to: str | None = None) -> bytes:
    head = (
        f"From: Dana Levi <dana@example.com>\r\nTo: team@example.com\r\nSubject: {subject}\r\nMessage-ID: <{mid}>\r\n"
    )
    head += "Date: Mon, 4 May 2026 09:00:00 +0000\r\n"
    if reply_to:
        head += f"In-Reply-To: <{reply_to}>\r\nReferences: <{reply_to}>\r\n"
    return (head + "\r\n" + body + "\r\n").encode()


def connector(server: Server, monkeypatch: pytest.MonkeyPatch, folders: list[str], tmp_path: Path) -> Any:
    monkeypatch.setenv("IMAP_USER", "demouser")
    monkeypatch.setenv("IMAP_PASSWORD", "demopass")
    config = EmailSource(
        type="email", host="localhost", port=server.port, tls="starttls", ca_file=server.cert, folders=folders,
        user_env="IMAP_USER", token_env="IMAP_PASSWORD", page_size=2,
    )  # fmt: skip
    return build(SourceContext(name="inbox", config=config))


@pytest.mark.slow
def test_uid_paging_expunge_uidvalidity_and_a_folder_added_later(
    server: Server, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    admin = server.admin()
    admin.create_folder("Team")
    for n in range(5):
        admin.append("Team", mail(f"m{n}@x", f"Note {n}", f"Body {n}"))
    runner = SourceRunner(connector(server, monkeypatch, ["Team"], tmp_path))
    batches = runner.collect()
    assert [len(b.records) for b in batches if b.records] == [2, 2, 1]  # pages of page_size UIDs
    assert set(runner.cache) == {f"m{n}@x" for n in range(5)}
    admin.select_folder("Team")
    assert admin.get_flags(admin.search("ALL")) and not any(
        b"\\Seen" in flags for flags in admin.get_flags(admin.search("ALL")).values()
    )  # read with BODY.PEEK: nothing marked as read

    # Expunge two, add one reply: the next sync fetches one and deletes two.
    doomed = [uid for uid, data in admin.fetch(admin.search("ALL"), ["ENVELOPE"]).items()
              if data[b"ENVELOPE"].message_id in (b"<m1@x>", b"<m3@x>")]  # fmt: skip
    admin.delete_messages(doomed)
    admin.expunge()
    admin.append("Team", mail("r1@x", "Re: Note 0", "Agreed.", reply_to="m0@x"))
    batches = runner.collect()
    assert sum(len(b.records) for b in batches) == 1
    assert set(runner.cache) == {"m0@x", "m2@x", "m4@x", "r1@x"}
    thread = next(d for d in runner.normalise().documents if d.key == "email:m0@x")
    assert [i.ref for i in thread.items] == ["email:m0@x", "email:r1@x"]

    # The folder is recreated: a new UIDVALIDITY, so it is read again from scratch.
    admin.close_folder()
    admin.delete_folder("Team")
    admin.create_folder("Team")
    admin.append("Team", mail("fresh@x", "Fresh start", "New numbering."))
    runner.collect()
    assert set(runner.cache) == {"fresh@x"}

    # A folder added to the configuration later is read in full.
    admin.create_folder("Projects")
    admin.append("Projects", mail("p1@x", "Ledger plan", "Phase two in June."))
    runner.connector = connector(server, monkeypatch, ["Team", "Projects"], tmp_path)
    runner.collect()
    assert set(runner.cache) == {"fresh@x", "p1@x"}
    assert {d.items[0].metadata["folder"] for d in runner.normalise().documents} == {"Team", "Projects"}
    admin.logout()


def test_wrong_password_names_the_variables_never_the_value(
    server: Server, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("IMAP_USER", "demouser")
    monkeypatch.setenv("IMAP_PASSWORD", "wrong-secret-value")
    config = EmailSource(
        type="email", host="localhost", port=server.port, tls="starttls", ca_file=server.cert,
        user_env="IMAP_USER", token_env="IMAP_PASSWORD",
    )  # fmt: skip
    bad = build(SourceContext(name="inbox", config=config))
    with pytest.raises(AuthError) as info:
        list(bad.fetch(bad.initial_cursor()))
    assert "IMAP_PASSWORD" in str(info.value) and "wrong-secret-value" not in str(info.value)


@pytest.mark.slow
def test_a_message_without_a_usable_date_is_dated_by_the_servers_arrival_time(
    server: Server, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    admin = server.admin()
    admin.create_folder("Undated")
    arrived = datetime(2026, 5, 6, 14, 30, tzinfo=UTC)
    body = b"From: Dana Levi <dana@example.com>\r\nSubject: No date\r\nMessage-ID: <nodate@x>\r\n\r\nStill here.\r\n"
    admin.append("Undated", body, msg_time=arrived)
    admin.append("Undated", body.replace(b"nodate@x", b"baddate@x").replace(b"Subject", b"Date: someday\r\nSubject"),
                 msg_time=arrived)  # fmt: skip
    runner = SourceRunner(connector(server, monkeypatch, ["Undated"], tmp_path))
    runner.collect()
    dated = {i.ref: i.occurred_at for d in runner.normalise().documents for i in d.items}
    assert dated == {"email:nodate@x": arrived, "email:baddate@x": arrived}  # not 1970, not the ingest's clock
    admin.logout()
