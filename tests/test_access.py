"""Access scopes (briefing.access): the hard filter in both engines, fail closed, readers from the sources."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from briefing import access
from briefing.errors import InputError
from briefing.index import Filter, Index
from briefing.model import EVERYONE, MEMBERS, Chunk, Document, Item, reader_email, reader_id
from briefing.people import Identity, resolve
from connectors.slack.export import SlackExportConnector
from tests.harness import SourceRunner
from tests.test_index_engines import CHUNKS, T0, _dense, _settings, _sparse, _write

SLACK_EXPORT = Path(__file__).resolve().parent / "fixtures" / "slack_export" / "acme"
NOW = T0 + timedelta(days=40)


def _scoped(chunks: list[Chunk]) -> list[Chunk]:
    # 0: everyone; 1: Ada only; 2: no access data at all (the owner's); 3: Bo only.
    readers: list[list[str] | None] = [["everyone"], ["person:ada"], None, ["person:bo"]]
    return [replace(c, readers=r) for c, r in zip(chunks, readers, strict=True)]


@pytest.fixture(params=["edge", "local"])
def index(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Index]:
    idx = Index.open(_settings(tmp_path, request.param))
    _write(idx, _scoped(CHUNKS))
    idx.commit()
    yield idx
    idx.close()


def _ids(found: list[Chunk]) -> set[str]:
    return {c.chunk_id.rsplit(":", 1)[1] for c in found}


@pytest.mark.slow
def test_the_scope_is_a_hard_filter_before_ranking_in_both_engines(index: Index) -> None:
    index.restrict(("everyone", "person:ada"))
    # Chunk 3 is the best dense match for its own vector, chunk 2 for its words: neither may take a slot.
    best = index.view(NOW).search_dense(_dense(3), limit=1)
    assert [h.chunk.chunk_id for h in best] != ["slack:general:3"] and best
    words = index.view(NOW).search_sparse(_sparse("rollback plan for the migration is approved"), limit=4)
    assert _ids([h.chunk for h in words]) <= {"0", "1"}
    assert _ids(index.view(NOW).chunks()) == {"0", "1"}
    assert index.view(NOW).fetch(refs=[CHUNKS[2].refs[0], CHUNKS[3].refs[0]]) == []
    assert index.count() == 2
    assert {r.payload["chunk_id"] for r in index.scroll(fields=["chunk_id"])} == {
        "slack:general:0",
        "slack:general:1",
    }


def test_no_access_data_is_the_owners_only_and_the_owner_sees_everything(index: Index) -> None:
    index.restrict(("everyone", "person:bo", "person:ada"))
    assert "2" not in _ids(index.view(NOW).chunks())  # readable by nobody but the owner
    index.restrict(())  # a principal holding no ids at all sees nothing, not everything
    assert index.view(NOW).chunks() == [] and index.count() == 0
    index.restrict(None)
    assert _ids(index.view(NOW).chunks()) == {"0", "1", "2", "3"}


def test_readers_change_in_place_without_re_embedding(index: Index) -> None:
    index.set_readers({"slack:general:1": ["person:bo"], "slack:general:3": None})
    index.commit()
    index.restrict(("everyone", "person:ada"))
    assert _ids(index.view(NOW).chunks()) == {"0"}
    index.restrict(("everyone", "person:bo"))
    assert _ids(index.view(NOW).chunks()) == {"0", "1"}
    index.restrict(None)
    stored = {r.payload["chunk_id"]: r.payload["text"] for r in index.scroll(fields=["chunk_id", "text"])}
    assert stored["slack:general:1"] == CHUNKS[1].text  # the point itself is untouched


def _chunk_of(doc: Document, refs: list[str]) -> Chunk:
    return Chunk(
        chunk_id=f"{doc.key}::0", doc_key=doc.key, source_type="email", kind="email_thread", title="t", text="x",
        refs=refs, start=T0, end=T0,
    )  # fmt: skip


def test_assign_resolves_tokens_through_the_people_directory() -> None:
    records = resolve(
        [
            Identity("mail/email:ada@x.example", "mail", "Ada Byron", emails=("ada@x.example",)),
            Identity("chat/slack:U1", "chat", "Ada Byron", emails=("ada@x.example",)),
            Identity("mail/email:bo@x.example", "mail", "Bo Chan", emails=("bo@x.example",)),
        ]
    )
    ada = next(r for r in records if r.name == "Ada Byron")

    def item(ref: str, readers: list[str]) -> Item:
        return Item(
            ref=ref, source_type="email", kind="message", text="x", occurred_at=T0, metadata={"readers": readers}
        )

    thread = Document(
        key="email:root", kind="email_thread", source_type="email", title="t",
        items=[item("email:1", [reader_email("ada@x.example"), reader_email("bo@x.example")]),
               item("email:2", [reader_email("ada@x.example")])],
    )  # fmt: skip
    channel = Document(key="slack:C1", kind="slack_channel", source_type="slack", title="#c", items=[],
                       readers=(MEMBERS, reader_id("slack:U1")))  # fmt: skip
    silent = Document(key="file:a.md", kind="doc", source_type="files", title="a", items=[])
    chunks = [
        _chunk_of(thread, ["email:1"]),
        _chunk_of(thread, ["email:1", "email:2"]),
        _chunk_of(channel, []),
        _chunk_of(silent, []),
    ]
    access.assign(chunks, [thread, channel, silent], "chat", records, None)
    # Bo was only on the first message: a chunk holding both is Ada's alone.
    assert "mailbox:bo@x.example" in (chunks[0].readers or [])
    assert chunks[1].readers == sorted({"mailbox:ada@x.example", ada.id})
    assert chunks[2].readers == sorted({"members:chat", "chat/slack:U1", ada.id})
    assert chunks[3].readers is None  # fail closed: the owner's
    assert set(chunks[2].readers or []) & set(access.principal_ids(ada))

    access.assign(chunks[3:], [silent], "handbook", records, ["everyone", "Bo Chan", "nobody we know"])
    bo = next(r for r in records if r.name == "Bo Chan")
    assert chunks[3].readers == sorted({EVERYONE, bo.id})


def test_principal_for_names_a_known_person_or_refuses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from briefing.settings import Settings, WorkspaceSettings

    settings = Settings(workspace=WorkspaceSettings(name="acl", owner="ada@x.example"), home=tmp_path)
    settings.sources = {}
    assert access.principal_for(settings).owner
    with pytest.raises(InputError, match="mallory"):
        access.principal_for(settings, "mallory")
    monkeypatch.setattr(
        access,
        "records_for",
        lambda s: resolve(
            [
                Identity("m/email:ada@x.example", "m", "Ada Byron", emails=("ada@x.example",)),
                Identity("m/email:bo@x.example", "m", "Bo Chan", emails=("bo@x.example",)),
            ]
        ),
    )
    assert access.principal_for(settings, "Ada Byron").owner  # acting as the owner is the owner
    bo = access.principal_for(settings, "bo@x.example")
    assert not bo.owner and "mailbox:bo@x.example" in (bo.readers or ()) and EVERYONE in (bo.readers or ())
    assert "Bo Chan" == bo.describe()["principal"] and "hidden" not in str(bo.describe())


def test_a_slack_export_scopes_private_folders_to_their_members(tmp_path: Path) -> None:
    export = tmp_path / "export"
    shutil.copytree(SLACK_EXPORT, export)
    runner = SourceRunner(SlackExportConnector(export))
    runner.collect()
    docs = runner.normalise().documents
    by_channel = {d.metadata["channel_id"]: d.readers for d in docs}
    assert by_channel["G01LEADS"] == (reader_id("slack:U01ALICE"), reader_id("slack:U02BOB"))
    assert by_channel["C01PLAT"] == (MEMBERS,)


@pytest.mark.slow
def test_files_are_the_owners_unless_their_source_names_an_audience(tmp_path: Path) -> None:
    from tests.harness import Workspace

    (tmp_path / "handbook").mkdir()
    (tmp_path / "handbook" / "onboarding.md").write_text("# Onboarding\n\nLaptops arrive on day one.\n")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "salaries.md").write_text("# Salaries\n\nThe budget for raises is frozen.\n")
    (tmp_path / "mail.mbox").write_text(
        "From bo@x.example Fri Jun  5 10:00:00 2026\nFrom: Bo Chan <bo@x.example>\nTo: Ada Byron <ada@x.example>\n"
        "Subject: Hello\nDate: Fri, 05 Jun 2026 10:00:00 +0000\nMessage-ID: <hello-1@x.example>\n\nHi Ada.\n"
    )
    ws = Workspace(
        tmp_path / "ws",
        {
            "handbook": {"type": "files", "path": tmp_path / "handbook", "audience": ["everyone"]},
            "notes": {"type": "files", "path": tmp_path / "notes"},
            "mail": {"type": "email", "path": tmp_path / "mail.mbox"},
        },
    )
    ws.run()
    bo = access.principal_for(ws.settings, "bo@x.example")
    with access.open_index(ws.settings, bo) as index:
        seen = {ref for chunk in index.chunks(Filter()) for ref in chunk.refs}
    assert seen == {"file:onboarding.md", "email:hello-1@x.example"}
    assert "file:salaries.md" in ws.indexed_refs()  # indexed, for the owner
