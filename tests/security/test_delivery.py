"""Delivery keeps its secrets: TLS before AUTH, replies scrubbed of anything that decodes to the password."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from briefing.errors import ConfigError
from briefing.ops.deliver import DeliveryError, EmailTarget, Message
from briefing.ops.scrub import scrub
from briefing.settings import EmailDelivery
from tests.security.conftest import AUTH_PLAIN, PASSWORD, USER, Evil


def _target(evil: Evil, **extra: object) -> EmailTarget:
    config = EmailDelivery(
        host=evil.host,
        port=evil.port,
        user_env="PROBE_USER",
        password_env="PROBE_PASSWORD",
        sender="brief@example.com",
        to=["em@example.com"],
        ca_file=evil.ca_file,
        timeout_s=10,
        **extra,  # type: ignore[arg-type]
    )
    return EmailTarget(config, lambda p: p, name="email")


def _leaks(text: str) -> list[str]:
    forms = [PASSWORD, AUTH_PLAIN, base64.b64encode(PASSWORD.encode()).decode(), PASSWORD.encode().hex()]
    return [f for f in forms if f in text]


@pytest.fixture(autouse=True)
def _credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROBE_USER", USER)
    monkeypatch.setenv("PROBE_PASSWORD", PASSWORD)


def test_no_password_is_sent_without_tls(evil_smtp: Callable[..., Evil]) -> None:
    plain = evil_smtp(tls=False)
    with pytest.raises(DeliveryError, match="STARTTLS"):  # the default: starttls, and the server offers none
        _target(plain).send(Message("s", "t", "k"))
    with pytest.raises(ConfigError, match="allow_plaintext_auth"):
        _target(plain, tls="none").send(Message("s", "t", "k"))
    assert plain.auths == [] and plain.data == []
    _target(plain, tls="none", allow_plaintext_auth=True).send(Message("s", "t", "k"))  # a local relay, explicitly
    assert plain.auths == [{"mechanism": "PLAIN", "tls": False}] and len(plain.data) == 1


def test_a_reply_echoing_the_auth_string_is_scrubbed(evil_smtp: Callable[..., Evil]) -> None:
    echo = evil_smtp(tls=True, echo=True)
    with pytest.raises(DeliveryError) as info:
        _target(echo).send(Message("s", "t", "k"))
    text = str(info.value)
    assert echo.auths == [{"mechanism": "PLAIN", "tls": True}]
    assert "550" in text and "[redacted]" in text and _leaks(text) == []
    assert "queued" not in text  # `brief deliver` queues nothing: the error says what happened


@pytest.mark.parametrize(
    "form",
    [
        PASSWORD,
        AUTH_PLAIN,
        base64.b64encode(f"\0{USER}\0{PASSWORD}".encode()).decode(),
        base64.b64encode(f"x{PASSWORD}y".encode()).decode(),
        base64.urlsafe_b64encode(f"xy{PASSWORD}".encode()).decode().rstrip("="),
        PASSWORD.encode().hex(),
    ],
)
def test_anything_that_decodes_to_the_secret_is_scrubbed(form: str) -> None:
    text = scrub(f"550 refused ({form}) at mx.example", [PASSWORD])
    assert form not in text and PASSWORD not in text and "mx.example" in text and "refused" in text


def test_body_bytes_arrive_unmangled(evil_smtp: Callable[..., Evil]) -> None:
    good = evil_smtp(tls=True)
    _target(good).send(Message("s", "Header line\nFrom the desk of Alice\n.dot line\n", "k"))
    body = good.data[-1].decode()
    assert "\nFrom the desk of Alice" in body.replace("\r\n", "\n") and ">From" not in body


def test_a_watch_stores_its_delivery_error_scrubbed(
    evil_smtp: Callable[..., Evil], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from briefing.ops import watch
    from briefing.settings import load_settings

    echo = evil_smtp(tls=True, echo=True)
    monkeypatch.setenv("BRIEF_HOME", str(tmp_path / "home"))
    settings = load_settings(None)
    store = watch.WatchStore.for_settings(settings)
    with store.lock:
        data = store.load()
        data["outbox"].append(
            {"id": "k>email", "watch": "w1", "ref": "r", "target": "email", "subject": "s", "text": "t", "key": "k"}
        )
        store.save(data)
    counts = watch.run_watches(settings, run_id="x", chosen=[_target(echo)])
    assert counts["failed"] == 1
    stored = store.path.read_text(encoding="utf-8")
    assert "[redacted]" in json.loads(stored)["outbox"][0]["last_error"] and _leaks(stored) == []


def test_doctor_names_plaintext_auth(tmp_path: Path) -> None:
    from briefing.ops.doctor import Report, check_delivery
    from briefing.settings import load_settings

    def findings(extra: str, host: str = "mail.example.com") -> list[tuple[str, str]]:
        config = tmp_path / "brief.toml"
        config.write_text(
            f'[delivery.email]\nhost = "{host}"\ntls = "none"\npassword_env = "P"\nuser_env = "U"\n'
            f'sender = "a@x.example"\nto = ["b@x.example"]\n{extra}'
        )
        report = Report()
        check_delivery(report, load_settings(config))
        return [(f.check, f.severity) for f in report.findings]

    assert findings("") == [("delivery.email", "error")]
    assert findings("allow_plaintext_auth = true\n") == [("delivery.email", "warning")]
    assert findings("allow_plaintext_auth = true\n", host="127.0.0.1") == [("delivery.email", "info")]
