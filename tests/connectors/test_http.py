"""The HTTP layer (connectors/http.py) as a user meets it: waits, retries counted, one-line errors, exit codes.

Each test runs a real connector, built from its config table, against a local fake server; sleeping and the
clock are the layer's attributes, so nothing here waits on the wall clock (except the 50 ms read timeout).
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from briefing.devserver._http import FakeServer, running
from briefing.errors import AuthError, BriefError, RateLimitedError, SourceError, SourceTimeoutError
from briefing.registry import FetchOptions, SourceContext
from briefing.settings import source_adapter
from connectors.confluence.connector import build as build_confluence
from connectors.http import MAX_WAIT_S, SourceUnreadableError
from connectors.jira import JiraSource
from connectors.jira.connector import JiraConnector
from connectors.jira.connector import build as build_jira
from tests.fakes.confluence_server import FakeConfluence, load, serve
from tests.fakes.jira_server import JiraFake

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
USER, TOKEN = "bot@acme.example", "s3cret-api-token-value"
NOW = 1_781_000_000.0  # the layer's clock in these tests (2026-06-09)


@pytest.fixture(autouse=True)
def jira_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JIRA_USER", USER)
    monkeypatch.setenv("JIRA_TOKEN", TOKEN)


@pytest.fixture
def jira() -> Iterator[JiraFake]:
    server = JiraFake.from_dir(FIXTURES / "jira", search_page_cap=2, embedded_comments=2, embedded_changelog=5)
    server.credentials = JiraFake.basic(USER, TOKEN)
    server.start()
    yield server
    server.stop()


def jira_connector(base_url: str, waits: list[float], **config: Any) -> JiraConnector:
    table: dict[str, Any] = {
        "type": "jira",
        "base_url": base_url,
        "user_env": "JIRA_USER",
        "token_env": "JIRA_TOKEN",
        "projects": ["ACME"],
        "cloud": True,
        "max_retries": 2,
        **config,
    }
    connector = build_jira(SourceContext(name="tracker", config=JiraSource(**table), options=FetchOptions()))
    connector.http.sleep = waits.append
    connector.http.clock = lambda: NOW
    return connector


def run(connector: JiraConnector) -> list[str]:
    batches = connector.fetch(connector.initial_cursor())
    return [r.key for batch in batches for r in batch.records if not r.key.startswith("access/")]  # issues only


def one_line(error: BriefError) -> str:
    message = str(error)
    assert "\n" not in message and TOKEN not in message and USER not in message
    return message


def test_retry_after_as_an_http_date_is_waited_out_exactly(jira: JiraFake) -> None:
    jira.rate_limit = 2
    jira.retry_after = formatdate(NOW + 30, usegmt=True)
    waits: list[float] = []
    connector = jira_connector(jira.url, waits)

    stored = run(connector)

    assert waits == [30.0, 30.0]
    assert connector.http.retries == 2
    assert sorted(stored) == ["ACME-1", "ACME-2", "ACME-3", "ACME-4"]


def test_a_retry_after_longer_than_brief_waits_is_not_slept_but_reported(jira: JiraFake) -> None:
    jira.rate_limit = -1
    jira.retry_after = str(int(MAX_WAIT_S) * 4)
    waits: list[float] = []

    with pytest.raises(RateLimitedError) as info:
        run(jira_connector(jira.url, waits))

    assert waits == [] and len(jira.log) == 1
    assert info.value.exit_code == 6
    assert f"asked to wait {int(MAX_WAIT_S) * 4} s (HTTP 429)" in one_line(info.value)


def test_server_errors_are_retried_with_exponential_backoff_then_source_unreadable(jira: JiraFake) -> None:
    jira.status_override = 503
    waits: list[float] = []

    with pytest.raises(SourceError) as info:
        run(jira_connector(jira.url, waits, max_retries=3))

    assert isinstance(info.value, SourceUnreadableError) and info.value.exit_code == 4
    assert waits == [1.0, 2.0, 4.0] and len(jira.log) == 4
    message = one_line(info.value)
    assert "source 'tracker'" in message and jira.url in message and "HTTP 503" in message
    assert "after 3 retries" in message


def test_a_500_is_the_same_source_unreadable_error(jira: JiraFake) -> None:
    jira.status_override = 500
    waits: list[float] = []

    with pytest.raises(SourceUnreadableError, match="kept failing \\(HTTP 500\\)"):
        run(jira_connector(jira.url, waits))

    assert len(waits) == 2


def test_rejected_credentials_are_not_retried(jira: JiraFake, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JIRA_TOKEN", "wrong-token-value")
    waits: list[float] = []

    with pytest.raises(AuthError) as info:
        run(jira_connector(jira.url, waits))

    assert waits == [] and len(jira.log) == 1
    assert info.value.exit_code == 5
    message = one_line(info.value)
    assert "wrong-token-value" not in message and "sources.tracker.token_env (JIRA_TOKEN)" in message


def test_a_forbidden_answer_is_an_auth_error_at_once(jira: JiraFake) -> None:
    jira.status_override = 403
    waits: list[float] = []

    with pytest.raises(AuthError, match="refused access \\(HTTP 403\\)"):
        run(jira_connector(jira.url, waits))

    assert waits == [] and len(jira.log) == 1


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_a_closed_port_is_retried_then_named_with_the_setting_to_check() -> None:
    waits: list[float] = []
    url = f"http://127.0.0.1:{closed_port()}"

    with pytest.raises(SourceUnreadableError) as info:
        run(jira_connector(url, waits))

    assert len(waits) == 2 and info.value.exit_code == 4
    message = one_line(info.value)
    assert f"cannot reach JIRA at {url}" in message and "check sources.tracker.base_url" in message


def test_a_server_that_never_answers_is_a_timeout_naming_timeout_s() -> None:
    with socket.socket() as silent:  # accepts connections (backlog) and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        waits: list[float] = []

        with pytest.raises(SourceTimeoutError) as info:
            run(jira_connector(url, waits, timeout_s=0.05, max_retries=1))

    assert waits == [1.0] and info.value.exit_code == 7
    assert "within sources.tracker.timeout_s=0.05s after 1 retries" in one_line(info.value)


def test_confluence_rate_limits_and_rejections_go_through_the_same_layer(monkeypatch: pytest.MonkeyPatch) -> None:
    pages, comments = load(FIXTURES / "confluence")
    monkeypatch.setenv("CONFLUENCE_USER", "bot@example.com")
    monkeypatch.setenv("CONFLUENCE_TOKEN", "wrong-token-value")
    with serve(FakeConfluence(pages, comments, user="bot@example.com", token="secret-token")) as fake:
        table = {
            "type": "confluence",
            "base_url": fake.base_url,
            "user_env": "CONFLUENCE_USER",
            "token_env": "CONFLUENCE_TOKEN",
            "spaces": ["ENG"],
            "max_retries": 3,
        }
        connector = build_confluence(SourceContext(name="wiki", config=source_adapter().validate_python(table)))
        waits: list[float] = []
        connector.http.sleep = waits.append
        fake.rate_limited = 2

        with pytest.raises(AuthError) as info:
            list(connector.fetch(connector.initial_cursor()))

    assert waits == [0.0, 0.0] and connector.http.retries == 2  # two 429s (Retry-After: 0), then the 401
    assert info.value.exit_code == 5
    assert "wrong-token-value" not in str(info.value) and "(CONFLUENCE_TOKEN)" in str(info.value)


def test_a_base_url_without_the_wiki_path_is_a_404_naming_the_cloud_form(monkeypatch: pytest.MonkeyPatch) -> None:
    pages, comments = load(FIXTURES / "confluence")
    monkeypatch.setenv("CONFLUENCE_USER", "bot@example.com")
    monkeypatch.setenv("CONFLUENCE_TOKEN", "secret-token")
    with serve(FakeConfluence(pages, comments, user="bot@example.com", token="secret-token")) as fake:
        table = {
            "type": "confluence",
            "base_url": fake.base_url.removesuffix("/wiki"),
            "user_env": "CONFLUENCE_USER",
            "token_env": "CONFLUENCE_TOKEN",
            "spaces": ["ENG"],
        }
        connector = build_confluence(SourceContext(name="wiki", config=source_adapter().validate_python(table)))
        waits: list[float] = []
        connector.http.sleep = waits.append

        with pytest.raises(SourceError) as info:
            list(connector.fetch(connector.initial_cursor()))

    assert waits == [] and info.value.exit_code == 4 and not isinstance(info.value, SourceUnreadableError)
    message = str(info.value)
    assert "HTTP 404" in message and "(Cloud: https://SITE.atlassian.net/wiki)" in message and "\n" not in message


class _Recorder:
    """What the redirect target saw."""

    def __init__(self) -> None:
        self.authorization: list[str | None] = []
        self.target = ""


class _Redirects(BaseHTTPRequestHandler):
    server: FakeServer[_Recorder]

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return

    def do_GET(self) -> None:  # noqa: N802
        recorder = self.server.fake
        if recorder.target:  # the first server: send every request elsewhere
            self.send_response(302)
            self.send_header("Location", recorder.target + self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        recorder.authorization.append(self.headers.get("Authorization"))
        body = b'{"errorMessages": ["You are not authenticated."]}'
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def test_credentials_are_never_forwarded_to_another_host_on_redirect() -> None:
    other, first = _Recorder(), _Recorder()
    with running(_Redirects, other) as other_port, running(_Redirects, first) as first_port:
        first.target = f"http://localhost:{other_port}"  # another host name (and port)
        waits: list[float] = []

        with pytest.raises(AuthError):
            run(jira_connector(f"http://127.0.0.1:{first_port}", waits))

    assert other.authorization == [None]  # the redirected request arrived, without the Basic credentials
