"""Versions in questions, against a real (local) Qdrant index and the bundled models.

- "the v2.3.1 release" ranks the v2.3.1 item first: not v2.3.10 (more words in common) nor v2.3.0.
- "the most recent Workers version" picks the newest announcement of that series as of the question's now; one
  published after now does not exist yet, and another product's newer announcement does not count.
- The version is extracted as a constraint, exactly: "4.6x faster" and "0.4" are numbers.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

import briefing.retrieve.versions as versions_module
from briefing.embed import Embedder
from briefing.index import Index
from briefing.model import Chunk, Unit
from briefing.question.constraints import extract, version_match
from briefing.retrieve import Retriever, SearchQuery, residual_query
from briefing.settings import EmbeddingSettings, QdrantSettings, RetrievalSettings, Settings, WorkspaceSettings

NOW = datetime(2026, 7, 1, 9, 0, tzinfo=UTC)
T0 = datetime(2026, 5, 1, 10, 0, tzinfo=UTC)


def _release(tag: str, day: int, body: str) -> Chunk:
    at = T0 + timedelta(days=day)
    ref = f"github:acme/workers@release:{tag}"
    text = f"acme/workers release {tag}\nRelease {tag} published {at:%Y-%m-%d}. {body}"
    return Chunk(
        chunk_id=f"{ref}::0",
        doc_key=ref,
        source_type="github",
        kind="github_issue",
        title=f"acme/workers release {tag}",
        text=text,
        refs=[ref],
        start=at,
        end=at,
        authors=["release-bot"],
        container="acme/workers",
        units=[Unit(ref, f"Release {tag} published {at:%Y-%m-%d}. {body}", "release-bot", at)],
    )


def _announcement(n: int, day: int, text: str, channel: str = "announcements") -> Chunk:
    at = T0 + timedelta(days=day)
    ref = f"slack:CANN:{500 + n}.1"
    return Chunk(
        chunk_id=f"slack:CANN::{n}",
        doc_key="slack:CANN",
        source_type="slack",
        kind="slack_channel",
        title=f"#{channel}",
        text=f"#{channel}\n[{at:%Y-%m-%d %H:%M} UTC] Omar Haddad: {text}",
        refs=[ref],
        start=at,
        end=at,
        authors=["Omar Haddad"],
        container=channel,
        units=[Unit(ref, text, "Omar Haddad", at)],
    )


def _pull(number: int, day: int, title: str) -> Chunk:
    at = T0 + timedelta(days=day)
    ref = f"github:acme/workers#{number}"
    text = f'acme/workers#{number}: {title} (pull request, merged)\nPR #{number} "{title}" merged {at:%Y-%m-%d}'
    return Chunk(
        chunk_id=f"{ref}::0",
        doc_key=ref,
        source_type="github",
        kind="github_issue",
        title=f"acme/workers#{number}: {title}",
        text=text,
        refs=[ref],
        start=at,
        end=at,
        authors=["dana"],
        container="acme/workers",
        units=[Unit(ref, text.split("\n", 1)[1], "dana", at)],
    )


PULLS = {
    72: "chore: bump the protobuf runtime",
    73: "docs: fix typos in the sync workers guide",
    74: "ci: cache the module downloads",
    75: "test: the sync workers retry table",
    79: "feat: 2pc kafka",
}


def listing() -> list[Chunk]:
    """A tag whose notes list five pull requests (a list, not five links) and the pull requests themselves."""
    # The notes say in words what the pull request's title abbreviates, so the tag outranks the pull request.
    notes = "Highlights: two-phase commit support for the Kafka writer. Pull requests merged before v2.6.0: "
    tag = _release("v2.6.0", 50, notes + "; ".join(f"PR #{n} {t}" for n, t in PULLS.items()))
    tag.tickets = [f"github:acme/workers#{n}" for n in PULLS]
    return [tag] + [_pull(n, 45 + i, t) for i, (n, t) in enumerate(PULLS.items())]


def chunks() -> list[Chunk]:
    notes = "Pull requests merged after v2.3.0: retry backoff for the sync workers, log rotation, a v2.3.1 hotfix."
    return [
        _release("v2.3.0", 0, "Retry backoff for the sync workers and daily log rotation."),
        _release("v2.3.1", 3, "A hotfix for the log rotation of the sync workers."),
        # Its text repeats the words of "v2.3.1" (v2, 3, 1) and names v2.3.1 too.
        _release("v2.3.10", 30, notes),
        _announcement(0, 1, "Ingest Workers v2.3.0 released: retry backoff and daily log rotation."),
        # Closer to the question's words than the newer v2.4.0 announcement is.
        _announcement(1, 31, "Announcing the most recent Ingest Workers version: v2.3.10, the workers batch writes."),
        _announcement(2, 40, "Ingest Workers v2.4.0 released: the sync workers stream their writes."),
        _announcement(3, 42, "Dashboard v5.1.0 released: new charts for the sync workers."),
        # Published after the question's now: it does not exist yet.
        _announcement(4, 90, "Ingest Workers v2.5.0 released: the sync workers compress their writes."),
        _announcement(5, 20, "Reminder: the sync workers on-call rota changes next week."),
        # A year older: over this span a linear recency boost barely tells day 31 from day 40.
        _announcement(6, -300, "Ingest Workers v1.0.0 released: the first release of the sync workers."),
        # Newer, but in another channel than the one the question names.
        _announcement(7, 45, "Ingest Workers v2.4.1 is on staging: the sync workers stream their writes.", "general"),
        *listing(),
    ]


@pytest.fixture(scope="module")
def retriever(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Retriever]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("models"))
    settings = Settings(
        workspace=WorkspaceSettings(name="unittest", timezone="UTC"),
        qdrant=QdrantSettings(path=tmp_path_factory.mktemp("qdrant")),
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


def _first(retriever: Retriever, question: str) -> str:
    constraints = extract(question, now=NOW)
    hits = retriever.retrieve(SearchQuery(question, now=NOW, constraints=constraints, k=10)).hits
    return hits[0].chunk.chunk_id


def test_a_version_in_the_question_is_a_constraint_and_numbers_are_not() -> None:
    assert extract("When was the v0.8.0 tag cut?", now=NOW).versions == ["0.8.0"]
    assert extract("Which PR moved Iceberg to 1.10.2?", now=NOW).versions == ["1.10.2"]
    assert extract("Was it 4.6x faster, at 0.4 of the cost?", now=NOW).versions == []
    # The version stays in the topic: "what went into v0.9.2" is about v0.9.2.
    assert "v0.9.2" in residual_query("What went into v0.9.2?", extract("What went into v0.9.2?", now=NOW))


def test_a_version_matches_only_itself() -> None:
    exact = version_match("0.8.0")
    assert exact.search("Tag v0.8.0 at commit 8dcefff") and exact.search("see release/v0.8.0.md")
    assert not exact.search("v0.8.1") and not exact.search("v0.8.10") and not exact.search("v0.8.0-rc1")
    two = version_match("0.9")
    assert two.search("the v0.9 notes") and two.search("v0.9.0") and not two.search("v0.9.1")


@pytest.mark.slow
def test_the_exact_version_named_ranks_its_own_item_first(retriever: Retriever) -> None:
    assert _first(retriever, "When was the v2.3.1 release published?") == "github:acme/workers@release:v2.3.1::0"
    assert _first(retriever, "When was the v2.3.10 release published?") == "github:acme/workers@release:v2.3.10::0"


ASKED = "What is the most recent Ingest Workers version announced in #announcements?"


def test_the_most_recent_version_is_the_newest_of_its_series_as_of_now(retriever: Retriever) -> None:
    # v2.4.0 (day 40): not v2.5.0 (after now), not the Dashboard's v5.1.0 (day 42, another series), not v2.4.1
    # (day 45, in #general).
    assert _first(retriever, ASKED) == "slack:CANN::2"
    assert _first(retriever, "What is the latest Ingest Workers version?") == "slack:CANN::7"


def test_the_newest_of_the_series_is_found_when_the_question_alone_misses_it(retriever: Retriever) -> None:
    small = Retriever(retriever.settings.model_copy(update={"candidates": 2}), retriever.index, retriever.embedder)
    assert _first(small, ASKED) == "slack:CANN::2"


def test_without_the_series_rule_similarity_alone_misses_the_newest(
    retriever: Retriever, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(versions_module, "NEWEST_FROM", 0)
    assert _first(retriever, ASKED) != "slack:CANN::2"


def test_a_tag_listing_pull_requests_does_not_pull_them_all_above_the_answer(retriever: Retriever) -> None:
    question = "When did the two-phase commit support for Kafka get merged?"
    constraints = extract(question, now=NOW)
    ids = [h.chunk.chunk_id for h in retriever.retrieve(SearchQuery(question, now=NOW, constraints=constraints)).hits]
    answer = ids.index("github:acme/workers#79::0")
    others = [
        ids.index(f"github:acme/workers#{n}::0") for n in PULLS if n != 79 and f"github:acme/workers#{n}::0" in ids
    ]
    # The pull request the question is about ranks above the ones the tag merely lists.
    assert all(answer < other for other in others), ids
