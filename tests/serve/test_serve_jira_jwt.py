"""JIRA webhooks authenticated by an Atlassian Connect JWT (`auth = "jwt"`), over the real HTTP server.

What a user notices: a webhook with a current token signed with the shared secret and bound to this request is
ingested and answerable; a wrong signature, a token made for another request, an expired or future token, a
missing one, an unsigned one, or the URL secret alone is refused with 401 and nothing is cached.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jwt
import pytest
from typer.testing import CliRunner

from briefing import pipeline
from briefing.cli.app import app
from briefing.devserver.slack import SlackFake
from briefing.settings import load_settings
from connectors.jira.connect_jwt import query_hash
from tests.serve.conftest import Served, fixture, start, write_config

SECRET = "connect-shared-secret-7d1f0c9b2e4a6f8d0b3c5e7a9f1d3b5c"  # JIRA_WEBHOOK_SECRET in this test
HOOK = "/hooks/tickets"


def _jwt_config(root: Path, slack_url: str) -> Path:
    config = write_config(root, slack_url)
    text = config.read_text(encoding="utf-8")
    config.write_text(
        text.replace('secret_env = "JIRA_WEBHOOK_SECRET"\n', 'secret_env = "JIRA_WEBHOOK_SECRET"\nauth = "jwt"\n')
    )
    return config


@pytest.fixture
def served(tmp_path: Path, secrets: None, slack_fake: SlackFake, monkeypatch: pytest.MonkeyPatch) -> Iterator[Served]:
    monkeypatch.setenv("JIRA_WEBHOOK_SECRET", SECRET)
    config = _jwt_config(tmp_path, slack_fake.url)
    assert not pipeline.run(load_settings(config), ["team"]).broken
    running = start(config, slack_fake)
    yield running
    running.server.stop()


def _token(served: Served, target: str = HOOK, *, secret: str = SECRET, **claims: Any) -> str:
    now = int(served.wall.now)
    body = {"iss": "jira:5ac2fa1e-6b4f-4a39-9c3e", "iat": now, "exp": now + 180, "qsh": query_hash("POST", target)}
    return jwt.encode({**body, **claims}, secret, algorithm="HS256")


def _post(served: Served, payload: dict[str, Any], token: str | None, target: str = HOOK) -> int:
    headers = {"Authorization": f"JWT {token}"} if token else {}
    return served.post(target, json.dumps(payload).encode(), headers)[0]


def test_a_current_token_bound_to_the_request_is_ingested(served: Served) -> None:
    assert _post(served, fixture("jira/issue.created.json"), _token(served)) == 200
    status = fixture("jira/issue.updated.status-changed.json")
    late = _token(served, HOOK, iat=int(served.wall.now) - 200, exp=int(served.wall.now) - 20)  # within the skew
    assert served.post(f"{HOOK}?jwt={late}", json.dumps(status).encode(), {})[0] == 200  # the query form
    assert set(served.cached("tickets")) == {"BBCOM-1398", "INDEV-6"}
    served.publish()
    assert any(r.startswith("jira:INDEV-6") for r in served.refs("What is the status of INDEV-6?"))


def test_a_bad_token_is_refused_and_nothing_is_cached(served: Served) -> None:
    now = int(served.wall.now)
    payload = fixture("jira/issue.created.json")
    refused = {
        "wrong signature": _token(served, secret="another-shared-secret-0a9b8c7d6e5f4a3b2c1d"),
        "made for another path": _token(served, "/hooks/gh"),
        "expired": _token(served, iat=now - 400, exp=now - 61),
        "issued in the future": _token(served, iat=now + 120, exp=now + 300),
        "lives for a day": _token(served, iat=now, exp=now + 86400),
        "unsigned": jwt.encode({"iat": now, "exp": now + 180, "qsh": query_hash("POST", HOOK)}, None, algorithm="none"),
    }
    for why, token in refused.items():
        assert _post(served, payload, token) == 401, why
    assert _post(served, payload, None) == 401  # missing
    assert _post(served, payload, _token(served), f"{HOOK}?user_id=admin") == 401  # a query the token does not cover
    assert served.post(f"{HOOK}/{SECRET}", json.dumps(payload).encode(), {})[0] == 401  # the URL secret alone
    assert served.cached("tickets") == {}
    assert served.ingestor.waiting() == 0


def test_jwt_on_a_source_that_does_not_offer_it_is_one_line(
    tmp_path: Path, secrets: None, slack_fake: SlackFake
) -> None:
    config = write_config(tmp_path, slack_fake.url)
    text = config.read_text(encoding="utf-8")
    config.write_text(
        text.replace('secret_env = "GH_WEBHOOK_SECRET"\n', 'secret_env = "GH_WEBHOOK_SECRET"\nauth = "jwt"\n')
    )
    result = CliRunner().invoke(app, ["--config", str(config), "serve", "--port", "0"])
    assert result.exit_code == 2, result.output
    assert "serve.webhooks.gh.auth" in result.output and len(result.output.strip().splitlines()) == 1
