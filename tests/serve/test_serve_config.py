"""`[serve]` mistakes are one line naming the key, with a distinct exit code, and nothing starts."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from briefing.cli.app import app

runner = CliRunner()


def _config(tmp_path: Path, serve: str) -> Path:
    config = tmp_path / "brief.toml"
    config.write_text(
        '[workspace]\nname = "ops"\n[sources.gh]\ntype = "github"\nrepos = ["acme/web"]\ntoken_env = "GH_TOKEN"\n'
        f'[sources.notes]\ntype = "files"\npath = "{tmp_path}"\n{serve}'
    )
    return config


@pytest.mark.parametrize(
    ("serve", "code", "says"),
    [
        ("[serve]\npublish_delay_s = 0\n", 2, "serve.publish_delay_s"),
        ("[serve]\nport = 70000\n", 2, "serve.port"),
        ('[serve.webhooks.chat]\nsecret_env = "S"\n', 2, "serve.webhooks.chat: there is no source 'chat'"),
        ('[serve.webhooks.notes]\nsecret_env = "S"\n', 2, "serve.webhooks.notes: files sources receive no webhooks"),
        ('[serve.webhooks.gh]\nsecret_env = "GH_HOOK_SECRET"\n', 5, "GH_HOOK_SECRET (from serve.webhooks.gh"),
        ('[serve]\nhost = "0.0.0.0"\n', 10, "not a loopback address"),
    ],
)
def test_a_serve_mistake_is_one_line_naming_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, serve: str, code: int, says: str
) -> None:
    monkeypatch.delenv("GH_HOOK_SECRET", raising=False)
    result = runner.invoke(app, ["--config", str(_config(tmp_path, serve)), "serve", "--port", "0"])
    assert result.exit_code == code, result.output
    assert says in " ".join(result.output.split())
