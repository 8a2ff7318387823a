"""One person per human across sources: matching rules, corrections that survive re-ingest, `brief people`."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from briefing.cli.app import app
from briefing.model import Chunk
from briefing.people import Corrections, Identity, annotate, full_name_key, resolve, suggestions
from briefing.settings import load_settings
from briefing.store import SourceState

SLACK = Identity("chat/slack:U1", "chat", "Dana Levi", handles=("dana",), emails=("dana@acme.io",))
GIT = Identity("code/git:dana", "code", "Dana Levi", emails=("DANA@acme.io".lower(),))
GITHUB = Identity("gh/github:dlevi", "gh", "dlevi", handles=("dlevi",))
JIRA = Identity("jira/jira:557", "jira", "Levi, Dana")
OTHER_DANA = Identity("mail/email:dana@vendor.com", "mail", "Dana", emails=("dana@vendor.com",))
SAM = Identity("chat/slack:U2", "chat", "Sam Ortiz", emails=("sam@acme.io",))


def by_name(records: list) -> dict[str, set[str]]:  # type: ignore[type-arg]
    return {r.name: {i.key for i in r.identities} for r in records}


def test_an_address_joins_but_a_name_only_suggests() -> None:
    records = resolve([SLACK, GIT, JIRA, OTHER_DANA, SAM, GITHUB])
    people = by_name(records)
    assert people["Dana Levi"] == {SLACK.key, GIT.key}  # the same address joins
    jira = next(r for r in records if JIRA.key in {i.key for i in r.identities})
    assert {i.key for i in jira.identities} == {JIRA.key}  # "Levi, Dana": the same full name never joins
    assert any(jira in pair for pair in suggestions(records))  # ... it is only suggested
    assert people["Dana"] == {OTHER_DANA.key}  # a first name alone never joins
    assert people["dlevi"] == {GITHUB.key}
    assert full_name_key("Dana L.") is None and full_name_key("dana@acme.io") is None
    assert full_name_key("José  Núñez") == full_name_key("Nunez, Jose")


def test_aliases_join_and_name_the_person() -> None:
    people = by_name(resolve([SLACK, GITHUB, SAM], aliases={"Dana Levi": ["dlevi"]}))
    assert people["Dana Levi"] == {SLACK.key, GITHUB.key}


def test_corrections_merge_and_split_and_stable_ids() -> None:
    first = resolve([SLACK, GIT, GITHUB, SAM])
    dana = next(r for r in first if r.name == "Dana Levi")
    corrections = Corrections(merges=[(SLACK.key, GITHUB.key)], splits=[GIT.key])
    second = resolve([SAM, GITHUB, GIT, SLACK], corrections=corrections)  # another ingestion order
    groups = [{i.key for i in r.identities} for r in second]
    assert sorted(groups, key=sorted) == sorted([{SLACK.key, GITHUB.key}, {GIT.key}, {SAM.key}], key=sorted)
    again = next(r for r in resolve([GITHUB, SLACK, SAM, GIT]) if r.name == "Dana Levi")
    assert again.id == dana.id  # ids come from the address, not from the order sources were read in


def test_chunks_carry_person_ids_and_the_persons_name() -> None:
    records = resolve([SLACK, GITHUB, SAM], aliases={"Dana Levi": ["dlevi"]})
    dana = next(r for r in records if r.name == "Dana Levi")
    sam = next(r for r in records if r.name == "Sam Ortiz")
    at = datetime(2026, 5, 4, tzinfo=UTC)
    chunk = Chunk(
        "c", "d", "github", "pr", "t", "Reviewed with Sam Ortiz.", ["github:a/b#1"], at, at, authors=["dlevi"]
    )
    annotate([chunk], records)
    assert chunk.metadata["people"] == [dana.id] and chunk.metadata["mentions"] == [sam.id]
    assert chunk.authors == ["dlevi", "Dana Levi"]


def _workspace(tmp_path: Path) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "mail.mbox").write_text("")
    config = tmp_path / "brief.toml"
    config.write_text(
        '[workspace]\nname = "ppl"\n[sources.chat]\ntype = "files"\npath = "docs"\n'
        '[sources.mail]\ntype = "email"\npath = "mail.mbox"\n',
        encoding="utf-8",
    )
    settings = load_settings(config)
    SourceState.for_source(settings, "chat").save_people(
        [{"id": "slack:U1", "name": "Dana Levi", "handles": ["dana"], "emails": ["dana@acme.io"]}]
    )
    SourceState.for_source(settings, "mail").save_people(
        [
            {"id": "email:dana@acme.io", "name": "Dana Levi", "emails": ["dana@acme.io"]},
            {"id": "email:dl@home.net", "name": "DL", "emails": ["dl@home.net"]},
        ]
    )
    return config


def test_cli_lists_merges_and_splits(tmp_path: Path) -> None:
    config = _workspace(tmp_path)
    runner = CliRunner()

    def people() -> list[set[str]]:
        result = runner.invoke(app, ["--config", str(config), "people", "--json"])
        assert result.exit_code == 0, result.output
        return sorted(({i["key"] for i in p["identities"]} for p in json.loads(result.stdout)["people"]), key=sorted)

    assert people() == [{"chat/slack:U1", "mail/email:dana@acme.io"}, {"mail/email:dl@home.net"}]
    result = runner.invoke(app, ["--config", str(config), "people", "merge", "Dana Levi", "dl@home.net"])
    assert result.exit_code == 0, result.output
    assert people() == [{"chat/slack:U1", "mail/email:dana@acme.io", "mail/email:dl@home.net"}]
    result = runner.invoke(app, ["--config", str(config), "people", "split", "chat/slack:U1"])
    assert result.exit_code == 0, result.output
    # The split identity stands alone; the merge of the other two is kept, and all of it survives a re-ingest.
    assert people() == [{"chat/slack:U1"}, {"mail/email:dana@acme.io", "mail/email:dl@home.net"}]
    settings = load_settings(config)
    SourceState.for_source(settings, "chat").save_people(
        [{"id": "slack:U1", "name": "Dana Levi", "handles": ["dana"], "emails": ["dana@acme.io"]}]
    )
    assert people() == [{"chat/slack:U1"}, {"mail/email:dana@acme.io", "mail/email:dl@home.net"}]
    table = runner.invoke(app, ["--config", str(config), "people"])
    assert table.exit_code == 0 and "mail/email:dl@home.net" in table.output
    unknown = runner.invoke(app, ["--config", str(config), "people", "merge", "Nobody Here", "DL"])
    assert unknown.exit_code == 10 and "person 'Nobody Here' matches nobody" in unknown.output


def _message(n: int, sender: str, subject: str) -> str:
    return (
        f"From x@y Mon Nov 30 09:0{n}:00 2026\n"
        f"Message-ID: <p{n}@acme.io>\nFrom: {sender}\nTo: team@acme.io\nSubject: {subject}\n"
        f"Date: Mon, 30 Nov 2026 09:0{n}:00 +0000\n\n{subject}: the ledger cut-over moves to Thursday.\n\n"
    )


@pytest.mark.parametrize("engine", ["edge", "local"])
@pytest.mark.slow
def test_merge_and_split_take_effect_on_the_index_without_a_reindex(tmp_path: Path, engine: str) -> None:
    from briefing.index import Index
    from tests.harness import Workspace

    (tmp_path / "mail.mbox").write_text(
        _message(1, "Dana Levi <dana@acme.io>", "Ledger plan") + _message(2, "DL <dl@home.net>", "Budget note"),
        encoding="utf-8",
    )
    ws = Workspace(tmp_path, {"mail": {"type": "email", "path": "mail.mbox"}}, name="ppl")
    with ws.config.open("a", encoding="utf-8") as config:
        config.write(f'[qdrant]\nengine = "{engine}"\n')  # the embedded engine (default) and qdrant-client's
    ws.settings = load_settings(ws.config)
    ws.ingest("mail")

    def stored() -> dict[str, tuple[list[str], list[str]]]:
        with Index.open(ws.settings) as index:
            return {
                p.payload["refs"][0]: (p.payload["metadata"]["people"], p.payload["authors"])
                for p in index.scroll(fields=["refs", "metadata", "authors"])
            }

    before = stored()
    assert before["email:p1@acme.io"][0] != before["email:p2@acme.io"][0]
    runner = CliRunner()
    result = runner.invoke(app, ["--config", str(ws.config), "people", "merge", "Dana Levi", "dl@home.net"])
    assert result.exit_code == 0, result.output
    after = stored()
    assert after["email:p2@acme.io"][0] == after["email:p1@acme.io"][0] == before["email:p1@acme.io"][0]
    assert "Dana Levi" in after["email:p2@acme.io"][1]  # "what did Dana write" finds the DL message now

    result = runner.invoke(app, ["--config", str(ws.config), "people", "split", "dl@home.net"])
    assert result.exit_code == 0, result.output
    split = stored()
    assert split["email:p2@acme.io"] == before["email:p2@acme.io"]
