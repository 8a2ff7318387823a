"""Principals fail closed: an empty, blank or ambiguous `--as` is refused, and only verified links grant access."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from briefing import access
from briefing.cli.app import app
from briefing.errors import InputError
from briefing.people import suggestions
from briefing.settings import load_settings
from briefing.store import SourceState

ALICE = {"id": "slack:U1", "name": "Alice Chen", "handles": ["alice"], "emails": ["alice@acme.io"]}
MALLORY = {"id": "slack:U9", "name": "Alice Chen", "handles": ["alicec"], "emails": ["mallory@evil.example"]}
SAM_A = {"id": "slack:U2", "name": "Sam Lee", "handles": ["sam"], "emails": ["sam@acme.io"]}
SAM_B = {"id": "slack:U3", "name": "Sam Lee", "handles": ["samlee"], "emails": ["slee@acme.io"]}
ALICE_GIT = {"id": "git:alice", "name": "Alice Chen", "emails": ["alice@acme.io"]}


def _config(tmp_path: Path, aliases: str = "") -> Path:
    (tmp_path / "docs").mkdir(exist_ok=True)
    config = tmp_path / "brief.toml"
    config.write_text(
        '[workspace]\nname = "sec"\nowner = "owner@acme.io"\n'
        '[sources.chat]\ntype = "files"\npath = "docs"\n[sources.code]\ntype = "files"\npath = "docs"\n' + aliases,
        encoding="utf-8",
    )
    settings = load_settings(config)
    owner = {"id": "slack:U0", "name": "Olga Owner", "emails": ["owner@acme.io"]}
    SourceState.for_source(settings, "chat").save_people([owner, ALICE, MALLORY, SAM_A, SAM_B])
    SourceState.for_source(settings, "code").save_people([ALICE_GIT])
    return config


@pytest.mark.parametrize("term", ["", " ", "\t", "\n"])
def test_an_empty_or_blank_as_is_refused_not_the_owner(tmp_path: Path, term: str) -> None:
    settings = load_settings(_config(tmp_path))
    with pytest.raises(InputError, match="names nobody"):
        access.principal_for(settings, term)
    result = CliRunner().invoke(app, ["--config", str(tmp_path / "brief.toml"), "sources", "--as", term])
    assert result.exit_code == 10, result.output


def test_an_ambiguous_name_is_refused_naming_every_candidate(tmp_path: Path) -> None:
    config = _config(tmp_path)
    result = CliRunner().invoke(app, ["--config", str(config), "sources", "--as", "Sam Lee"])
    assert result.exit_code == 10, result.output
    assert "ambiguous" in result.output and "sam@acme.io" in result.output and "slee@acme.io" in result.output
    sam = access.principal_for(load_settings(config), "slee@acme.io")  # an address picks exactly one
    assert sam.readers is not None and "chat/slack:U3" in sam.readers and "chat/slack:U2" not in sam.readers


def test_a_namesake_never_gains_the_persons_identities(tmp_path: Path) -> None:
    settings = load_settings(_config(tmp_path))
    mallory = access.principal_for(settings, "mallory@evil.example")
    alice = access.principal_for(settings, "alice@acme.io")
    assert mallory.readers is not None and alice.readers is not None
    assert "chat/slack:U1" not in mallory.readers and "code/git:alice" not in mallory.readers
    assert alice.person_id != mallory.person_id
    assert {"chat/slack:U1", "code/git:alice"} <= set(alice.readers)  # the same address is a verified link
    with pytest.raises(InputError, match="ambiguous"):
        access.principal_for(settings, "Alice Chen")


def test_a_name_match_is_only_suggested_in_brief_people(tmp_path: Path) -> None:
    config = _config(tmp_path)
    records = access.records_for(load_settings(config))
    assert {(a.name, b.name) for a, b in suggestions(records)} >= {("Alice Chen", "Alice Chen"), ("Sam Lee", "Sam Lee")}
    result = CliRunner().invoke(app, ["--config", str(config), "people"])
    assert result.exit_code == 0, result.output
    assert "same name, not merged" in result.output


def test_an_explicit_alias_or_merge_is_a_verified_link(tmp_path: Path) -> None:
    config = _config(tmp_path, '[people.aliases]\n"Sam Lee" = ["sam@acme.io", "slee@acme.io"]\n')
    sam = access.principal_for(load_settings(config), "Sam Lee")  # one person now: no longer ambiguous
    assert sam.readers is not None and {"chat/slack:U2", "chat/slack:U3"} <= set(sam.readers)


def test_mcp_and_the_bot_apply_the_same_rules(tmp_path: Path) -> None:
    from briefing.mcp_server import BriefTools
    from briefing.slack_bot import person_for

    settings = load_settings(_config(tmp_path))
    tools = BriefTools(settings)
    for term in ["", "  ", "Sam Lee"]:
        with pytest.raises(InputError):
            tools.ask("what is the plan?", acting_as=term)
    person = person_for(settings, "U9")  # mallory's Slack account is mallory, never Alice
    assert person is not None
    principal = access.principal_for(settings, person)
    assert principal.readers is not None and "chat/slack:U1" not in principal.readers
