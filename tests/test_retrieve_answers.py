"""Retrieval puts the answer in front of the answer stage, against a real (local) Qdrant index and the bundled models.

- A follow-up question asked in one chunk of a thread and answered at the start of the next: the answer's chunk
  ranks first, not the chunk where the question is restated.
- A "latest state" question over a long thread gets the thread's newest chunk, which states the state.
- Near-duplicates (a message cross-posted to two channels) take one place in the top k, not two.
- "What is X's role" is answered by what others wrote about X (the person list is skipped, mentions count in
  full); "what did X change" still puts X's own message first.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import briefing.retrieve.candidates as candidates_module
import briefing.retrieve.retriever as retriever_module
import briefing.retrieve.units as units_module
from briefing.embed import Embedder
from briefing.index import Index
from briefing.model import Chunk, Person, Unit
from briefing.question.constraints import Directory, about_person, extract
from briefing.retrieve import Hit, Retriever, SearchQuery, demote_near_duplicates
from briefing.settings import EmbeddingSettings, QdrantSettings, RetrievalSettings, Settings, WorkspaceSettings

NOW = datetime(2026, 7, 1, 9, 0, tzinfo=UTC)
T0 = datetime(2026, 6, 10, 10, 0, tzinfo=UTC)
ROOT = "Adding a Lakekeeper catalog to the maintenance module fails with a permission error."
HEADER = f"#help, thread started by Ravi Menon: {ROOT}"
ASKED = "What is the recommended interval for running compaction jobs in production, every hour or every day?"
ANSWER = "There is no fixed interval: it depends on how fast small files pile up and how fresh reads must be."
CROSS_POST = "Release 2.4 of the ingestion workers is out: retries now back off exponentially and logs rotate daily."
DANA = Person(id="person:dana0001", name="Dana Levi", handles=("dlevi",))
OMAR = Person(id="person:omar0002", name="Omar Haddad", handles=("ohaddad",))
DIRECTORY = Directory(people=[DANA, OMAR], channels=["help", "general", "announcements"])


def _msg(i: int, author: str, text: str) -> Unit:
    return Unit(f"slack:CHELP:{200 + i}.1", text, author, T0 + timedelta(minutes=10 * i))


def _thread_chunk(n: int, units: list[Unit]) -> Chunk:
    lines = [f"[{u.at:%Y-%m-%d %H:%M} UTC] {u.author}: {u.text}" for u in units if u.at]
    return Chunk(
        chunk_id=f"slack:CHELP/200.1::{n}",
        doc_key="slack:CHELP/200.1",
        source_type="slack",
        kind="slack_thread",
        title="#help thread",
        text="\n".join([HEADER, *lines]),
        refs=[u.ref for u in units],
        start=min(u.at for u in units if u.at),
        end=max(u.at for u in units if u.at),
        authors=list(dict.fromkeys(u.author for u in units if u.author)),
        container="help",
        units=units,
    )


def _channel_chunk(chunk_id: str, channel: str, author: str, text: str, ts: str, **metadata: object) -> Chunk:
    ref = f"slack:{chunk_id.split(':')[1]}:{ts}"
    return Chunk(
        chunk_id=chunk_id,
        doc_key=chunk_id.split("::")[0],
        source_type="slack",
        kind="slack_channel",
        title=f"#{channel}",
        text=f"#{channel}\n[2026-06-10 10:00 UTC] {author}: {text}",
        refs=[ref],
        start=T0,
        end=T0,
        authors=[author],
        container=channel,
        units=[Unit(ref, text, author, T0)],
        metadata=dict(metadata),
    )


def chunks() -> list[Chunk]:
    thread = [
        _thread_chunk(0, [_msg(0, "Ravi Menon", ROOT), _msg(1, "Mei Lin", "Create the warehouse as s3-compat first.")]),
        _thread_chunk(1, [_msg(2, "Ravi Menon", "That worked, thanks."), _msg(3, "Ravi Menon", ASKED)]),
        _thread_chunk(
            2,
            [_msg(4, "Mei Lin", ANSWER), _msg(5, "Ravi Menon", "I cannot pick the full refresh option in the form.")],
        ),
    ]
    posts = [
        _channel_chunk("slack:CANN::0", "announcements", "Omar Haddad", CROSS_POST, "300.1"),
        _channel_chunk("slack:CGEN::0", "general", "Omar Haddad", CROSS_POST + " :tada:", "301.1"),
        _channel_chunk(
            "slack:CGEN::1",
            "general",
            "Omar Haddad",
            "The ingestion workers changelog lists the retry and log rotation changes of release 2.4 in detail.",
            "302.1",
        ),
    ]
    people = [
        _channel_chunk(
            "slack:CGEN::2",
            "general",
            "Dana Levi",
            "I rewrote the retry backoff for the sync workers; it now waits 60 s before the first retry.",
            "303.1",
            people=[DANA.id],
            mentions=[],
        ),
        _channel_chunk(
            "slack:CGEN::3",
            "general",
            "Dana Levi",
            "My week: the backoff rewrite, two reviews and a talk on the sync workers.",
            "304.1",
            people=[DANA.id],
            mentions=[],
        ),
        _channel_chunk(
            "slack:CGEN::4",
            "general",
            "Omar Haddad",
            "Welcome to the team: Dana Levi is our tech lead for the sync workers, and Omar runs releases.",
            "305.1",
            people=[OMAR.id],
            mentions=[DANA.id],
        ),
    ]
    return thread + posts + people + long_thread()


def long_thread() -> list[Chunk]:
    """A support thread whose current state is only in its newest chunk, in words the question does not share."""
    header = (
        "#help, thread started by Omar Haddad: Syncs fail because one request to the writer exceeds the size limit."
    )
    texts = [
        "The writer rejects the batch: request size exceeds the 4 MB limit of the writer.",
        "Raising the writer size limit to 16 MB works around the request size failure for now.",
        "Same writer size limit error here on a second sync, the request exceeds the limit again.",
        "Good news: version 3.1 ships with smaller batches, so please upgrade and tell us whether it holds.",
    ]
    out = []
    for n, text in enumerate(texts):
        at = T0 + timedelta(days=n)
        unit = Unit(f"slack:CHELP:{400 + n}.1", text, "Mei Lin" if n % 2 else "Omar Haddad", at)
        out.append(
            Chunk(
                chunk_id=f"slack:CHELP/400.1::{n}",
                doc_key="slack:CHELP/400.1",
                source_type="slack",
                kind="slack_thread",
                title="#help thread",
                text=f"{header}\n[{at:%Y-%m-%d %H:%M} UTC] {unit.author}: {text}",
                refs=[unit.ref],
                start=at,
                end=at,
                authors=[str(unit.author)],
                container="help",
                units=[unit],
            )
        )
    return out


@pytest.fixture(scope="module")
def retriever(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Retriever]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("models"))
    path: Path = tmp_path_factory.mktemp("qdrant")
    settings = Settings(
        workspace=WorkspaceSettings(name="unittest", timezone="UTC"),
        qdrant=QdrantSettings(path=path),
        sources={"s": {"type": "slack_export", "path": "x"}},
    )
    index = Index.open(settings)
    found = chunks()
    texts = [c.text for c in found]
    index.ensure(embedder.dim, embedder.name)
    index.upsert(found, embedder.dense(texts), embedder.sparse(texts), embedder.name)
    yield Retriever(RetrievalSettings(), index, embedder)
    index.close()
    embedder.close()


def _hits(retriever: Retriever, question: str, k: int = 10) -> list[Hit]:
    constraints = extract(question, now=NOW, directory=DIRECTORY)
    return retriever.retrieve(SearchQuery(question, now=NOW, constraints=constraints, k=k)).hits


@pytest.mark.slow
def test_the_reply_that_opens_the_next_chunk_outranks_the_restated_question(
    retriever: Retriever, monkeypatch: pytest.MonkeyPatch
) -> None:
    question = "How often should compaction jobs run in production?"
    assert _hits(retriever, question)[0].chunk.chunk_id == "slack:CHELP/200.1::2"
    # Without the credit, the chunk where the asker restates the question wins on its words.
    monkeypatch.setattr(units_module, "ANSWER_CREDIT", False)
    assert _hits(retriever, question)[0].chunk.chunk_id == "slack:CHELP/200.1::1"


def test_a_cross_posted_message_takes_one_place_in_the_top_k(retriever: Retriever) -> None:
    question = "What changed in release 2.4 of the ingestion workers?"
    constraints = extract(question, now=NOW, directory=DIRECTORY)
    found = retriever.retrieve(SearchQuery(question, now=NOW, constraints=constraints, k=3))
    top = [h.chunk.chunk_id for h in found.hits]
    assert len(set(top) & {"slack:CANN::0", "slack:CGEN::0"}) == 1
    assert "slack:CGEN::1" in top
    # Nothing is dropped: the repeat stays a candidate and says which hit it repeats.
    repeat = next(h for h in found.candidates if h.chunk.chunk_id in {"slack:CANN::0", "slack:CGEN::0"} - set(top))
    assert repeat.duplicate_of in top


def test_near_duplicates_move_below_the_top_k_in_order() -> None:
    base = chunks()
    by_id = {c.chunk_id: c for c in base}
    ranked = [
        Hit(by_id[i], score=1.0 - n / 10) for n, i in enumerate(["slack:CANN::0", "slack:CGEN::0", "slack:CGEN::1"])
    ]
    out = demote_near_duplicates(ranked, k=2)
    assert [h.chunk.chunk_id for h in out] == ["slack:CANN::0", "slack:CGEN::1", "slack:CGEN::0"]
    assert out[2].duplicate_of == "slack:CANN::0"
    # Different texts that share some words are not repeats.
    assert demote_near_duplicates([ranked[0], ranked[2]], k=2)[1].duplicate_of is None


def test_who_someone_is_is_asked_apart_from_what_they_did() -> None:
    for question in ("What is Dana Levi's role on the team?", "When did Dana Levi start?", "What is Dana's job?"):
        assert about_person(question, extract(question, now=NOW, directory=DIRECTORY)), question
    for question in ("What did Dana Levi change in the retry backoff?", "What is the role of the backoff?"):
        assert not about_person(question, extract(question, now=NOW, directory=DIRECTORY)), question


def test_a_persons_role_comes_from_what_others_wrote_about_them(
    retriever: Retriever, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert retriever.settings.person_list
    role = _hits(retriever, "What is Dana Levi's role on the team?")
    assert role[0].chunk.chunk_id == "slack:CGEN::4"
    assert role[0].boosts["person"] == retriever.settings.boost_person
    assert not any("person" in h.origin for h in role)
    did = _hits(retriever, "What did Dana Levi change in the retry backoff?")
    assert did[0].chunk.chunk_id == "slack:CGEN::2"
    assert "person" in did[0].origin
    # Read as "what did Dana write", the role question would rank her own messages above the welcome post.
    monkeypatch.setattr(retriever_module, "PERSON_ABOUT", False)
    assert _hits(retriever, "What is Dana Levi's role on the team?")[0].chunk.chunk_id != "slack:CGEN::4"


def test_a_latest_state_question_gets_the_newest_chunk_of_the_thread(
    retriever: Retriever, monkeypatch: pytest.MonkeyPatch
) -> None:
    question = "What is the current fix for syncs that fail because a request to the writer exceeds the size limit?"
    small = Retriever(retriever.settings.model_copy(update={"candidates": 2}), retriever.index, retriever.embedder)
    constraints = extract(question, now=NOW, directory=DIRECTORY)
    assert constraints.intent == "latest"
    found = [h.chunk.chunk_id for h in small.retrieve(SearchQuery(question, now=NOW, constraints=constraints)).hits]
    assert "slack:CHELP/400.1::3" in found[:5]
    # Searched on its words alone, the chunk that states the fix is not among the candidates.
    monkeypatch.setattr(candidates_module, "THREAD_TAIL", 0)
    found = [h.chunk.chunk_id for h in small.retrieve(SearchQuery(question, now=NOW, constraints=constraints)).hits]
    assert "slack:CHELP/400.1::3" not in found
