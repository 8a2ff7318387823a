"""`brief summarize`: per-conversation summaries computed at ingest (cached by content hash), searched first,
then the best conversations' own units quoted and cited; and the conservative routing of broad `ask` questions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from briefing import summaries
from briefing.cli.app import app
from briefing.index import Filter, Index
from briefing.question.constraints import Directory, extract
from briefing.question.kind import wants_summary
from briefing.settings import load_settings
from tests.harness import Workspace

NOW = "2026-06-15T09:00:00+00:00"
runner = CliRunner()


def cli(config: Path, *args: str) -> str:
    result = runner.invoke(app, ["--config", str(config), *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def cache(settings) -> dict:  # type: ignore[no-untyped-def]
    return json.loads(summaries.cache_path(settings).read_text(encoding="utf-8"))["documents"]


def summary_count(settings) -> int:  # type: ignore[no-untyped-def]
    with Index.open(summaries.summary_settings(settings)) as index:
        return index.count() if index.exists() else 0


@pytest.mark.slow
def test_ingest_summarises_each_conversation_once_and_again_only_when_it_changes(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "pool.md").write_text(
        "# Connection pool\n\nThe PgBouncer pool of 20 was exhausted by retries during the outage.\n\n"
        "We raised default_pool_size to 60 and added jitter to the payout-worker retries.\n",
        encoding="utf-8",
    )
    (docs / "oncall.md").write_text(
        "# On call\n\nThe on-call engineer acknowledges a page within 15 minutes and opens an incident channel.\n",
        encoding="utf-8",
    )
    ws = Workspace(tmp_path / "ws", {"handbook": {"type": "files", "path": str(docs)}})
    ws.run()
    first = cache(ws.settings)
    assert len(first) == 2 and summary_count(ws.settings) == 2
    # Nothing changed: nothing is summarised or embedded again, and no chunk is read whole (the hashes come from
    # the stored chunk hashes, so a refresh over a large index holds no texts).
    with Index.open(ws.settings) as index:
        read: list[str] = []
        whole = index.chunks

        def spy(flt: Filter) -> list:  # type: ignore[type-arg]
            found = whole(flt)
            read.extend(c.chunk_id for c in found)
            return found

        index.chunks = spy  # type: ignore[method-assign]
        again = summaries.refresh(ws.settings, index, ws.embedder)
    assert (again.summarised, again.unchanged) == (0, 2)
    assert read == []
    # One document edited: only its summary is recomputed; the other keeps its hash.
    (docs / "oncall.md").write_text(
        "# On call\n\nThe on-call engineer acknowledges a page within 5 minutes and opens an incident channel.\n",
        encoding="utf-8",
    )
    ws.run()
    second = cache(ws.settings)
    changed = {k for k in second if second[k]["hash"] != first[k]["hash"]}
    assert changed == {k for k in second if "oncall" in k}
    with Index.open(summaries.summary_settings(ws.settings)) as index:
        (summary,) = index.chunks(Filter(doc_keys=tuple(changed)))
    assert "5 minutes" in summary.text and "15 minutes" not in summary.text
    # A document removed from the source: its summary goes too.
    (docs / "pool.md").unlink()
    ws.run()
    assert len(cache(ws.settings)) == 1 and summary_count(ws.settings) == 1


def test_summaries_stay_out_of_ordinary_answers(use_sample) -> None:
    settings = load_settings(use_sample.config)
    assert summary_count(settings) > 10
    with Index.open(settings) as index:
        assert not any(c.chunk_id.startswith("summary::") for c in index.chunks(Filter()))


def test_summarize_quotes_the_best_conversations_each_line_cited_to_its_unit(use_sample) -> None:
    out = json.loads(cli(use_sample.config, "summarize", "retry storm", "--format", "json", "--now", NOW))
    assert out["summaries_searched"] > 10 and out["lines"]
    assert any("retry storm" in line["text"].lower() for line in out["lines"][:3])
    settings = load_settings(use_sample.config)
    numbers = []
    with Index.open(settings) as index:
        for line in out["lines"]:
            for cited in line["citations"]:
                numbers.append(cited["n"])
                (ref,) = cited["refs"]
                units = [u for c in index.chunks(Filter(refs=(ref,))) for u in c.units if u.ref == ref]
                assert units, f"{ref} is a unit of the index"
                # The quoted sentence (before its marker) comes from that very unit.
                quoted = line["text"].split(f"[{cited['n']}]")[0].rsplit('"', 2)[-2]
                plain = " ".join(quoted.rstrip("…").split())[:60]
                assert any(plain in " ".join(u.text.split()) for u in units), (plain, ref)
    assert numbers == list(range(1, len(numbers) + 1))


def test_a_topic_naming_a_conversation_by_its_title_is_that_conversation_s_summary(use_sample) -> None:
    """ "Summarize the discussion on <a thread's opening words>": that thread, over its messages, each cited once,
    not five other conversations on the same topic; a topic that names no conversation still gets several."""
    named = json.loads(
        cli(use_sample.config, "summarize", "kicking off the ledger DB migration", "--format", "json", "--now", NOW)
    )
    (line,) = named["lines"]
    assert line["conversation"].startswith("slack:C02PLATENG/1777885500.018194"), line
    refs = [ref for cited in line["citations"] for ref in cited["refs"]]
    assert len(refs) >= 4 and len(set(refs)) == len(refs), line
    broad = json.loads(cli(use_sample.config, "summarize", "ledger DB migration", "--format", "json", "--now", NOW))
    assert len({b["conversation"] for b in broad["lines"]}) > 1
    asked = json.loads(
        cli(
            use_sample.config,
            "ask",
            "Summarize the discussion on kicking off the ledger DB migration.",
            "--json",
            "--show-trace",
            "--now",
            NOW,
        )
    )
    assert asked["trace"]["answerer"].startswith("summaries")
    assert {ref for c in asked["citations"] for ref in c["refs"]} == set(refs)


def test_summarize_as_of_an_earlier_now_quotes_nothing_written_later(use_sample) -> None:
    out = json.loads(
        cli(use_sample.config, "summarize", "retry storm", "--format", "json", "--now", "2026-05-19T15:00:00+00:00")
    )
    from briefing.model import utc

    for line in out["lines"]:
        for cited in line["citations"]:
            ref = cited["refs"][0]
            if ref.startswith("slack:"):
                assert utc(ref.rsplit(":", 1)[1]).isoformat() <= "2026-05-19T15:00:00+00:00"


@pytest.mark.slow
def test_summarize_without_summaries_says_to_ingest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nSome text about the pool.\n", encoding="utf-8")
    ws = Workspace(tmp_path / "ws", {"handbook": {"type": "files", "path": str(docs)}})
    ws.run()
    with Index.open(summaries.summary_settings(ws.settings)) as index:
        index.drop()
    summaries.cache_path(ws.settings).unlink()
    result = runner.invoke(app, ["--config", str(ws.config), "summarize", "pool"])
    assert result.exit_code == 9 and "brief ingest" in result.output


@pytest.mark.slow
def test_summaries_off_skips_them_at_ingest_and_broad_questions_use_retrieval(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "pool.md").write_text(
        "# Connection pool\n\nThe PgBouncer pool of 20 was exhausted by retries during the outage.\n", encoding="utf-8"
    )
    ws = Workspace(tmp_path / "ws", {"handbook": {"type": "files", "path": str(docs)}})
    ws.config.write_text(ws.config.read_text(encoding="utf-8") + "[digest]\nsummaries = false\n", encoding="utf-8")
    ws.settings = load_settings(ws.config)
    ws.run()
    assert not summaries.cache_path(ws.settings).exists() and summary_count(ws.settings) == 0
    result = runner.invoke(app, ["--config", str(ws.config), "summarize", "retries"])
    assert result.exit_code == 3 and "[digest] summaries = false" in result.output
    broad = json.loads(
        cli(ws.config, "ask", "What are the main problems with the connection pool?", "--json", "--show-trace")
    )
    assert not broad["trace"]["answerer"].startswith("summaries")
    assert broad["citations"] and "pool.md" in json.dumps(broad["citations"])


@pytest.mark.parametrize(
    "question",
    [
        "What are the main problems users hit with the payout-worker?",
        "Summarize the discussion about RDS Proxy",
        "summarise the conversations around the retry storm",
        "what are the most common questions about the ledger API",
        "What problems do users run into with CDC?",
    ],
)
def test_broad_topic_questions_route_to_summaries(question: str) -> None:
    assert wants_summary(question, extract(question, now=_now(), directory=Directory()))


@pytest.mark.parametrize(
    "question",
    [
        "What happened last week?",  # a window: the briefing engine
        "Summarize what happened in #incidents last week",  # a window
        "What is the status of PLAT-101?",  # one item
        "Which PR added jitter to payout-worker?",  # a lookup
        "Summarize",  # no topic
        "What are the main problems with PLAT-137?",  # one ticket
        "What problems did we see in May?",  # a window, and not the broad phrasing
        "Summarise where the Aurora migration stands.",  # one item's state: retrieval answers it
        "Give me an overview of the Aurora migration",  # usually one document
        "Summarize the main findings of the comparison with AWS DMS",  # one document
        "Summarize the discussion about the outage last week",  # a window: the briefing engine
    ],
)
def test_other_questions_keep_their_path(question: str) -> None:
    assert not wants_summary(question, extract(question, now=_now(), directory=Directory()))


def test_ask_routes_a_broad_question_to_summaries_and_a_lookup_to_retrieval(use_sample) -> None:
    broad = json.loads(
        cli(
            use_sample.config, "ask", "What are the main problems with retries?", "--json", "--show-trace", "--now", NOW
        )
    )
    assert broad["trace"]["answerer"].startswith("summaries")
    assert broad["citations"] and not broad["no_answer"]
    # The answer's text names each source by its marker only; the ask lists the sources once, after it.
    first = broad["citations"][0]
    listed = f"[{first['n']}] {first['refs'][0]}"
    assert first["refs"][0] not in broad["answer"]
    shown = cli(use_sample.config, "ask", "What are the main problems with retries?", "--now", NOW)
    assert sum(line.strip().startswith(listed) for line in shown.splitlines()) == 1, shown
    lookup = json.loads(
        cli(use_sample.config, "ask", "Which PR added jitter to payout-worker?", "--json", "--show-trace", "--now", NOW)
    )
    assert not lookup["trace"]["answerer"].startswith("summaries")


def _now():  # type: ignore[no-untyped-def]
    from datetime import datetime

    return datetime.fromisoformat(NOW)


def test_a_restricted_reader_searches_and_counts_only_the_summaries_they_may_read(use_sample) -> None:
    from datetime import datetime

    from briefing.embed import Embedder

    settings = load_settings(use_sample.config)
    now = datetime.fromisoformat(NOW)
    embedder = Embedder(settings.embedding, settings.home)
    try:
        with Index.open(settings) as index:
            owner = summaries.answer(settings, index, embedder, "retry storm", now=now)
            readable = sorted({r for c in index.chunks(Filter()) for r in (c.readers or ())})
            nobody = summaries.answer(settings, index.restrict(("no-such-reader",)), embedder, "retry storm", now=now)
            members = tuple(readable)
            some = summaries.answer(settings, index.restrict(members), embedder, "retry storm", now=now)
            index.restrict(None)
            visible = {c.doc_key for c in index.chunks(Filter(readers=members))}
    finally:
        embedder.close()
    assert owner.searched > 10 and owner.lines
    assert readable, "the sample has conversations a member may read"
    assert (nobody.searched, nobody.matched, nobody.lines) == (0, 0, [])
    assert 0 < some.searched < owner.searched  # the other sources' conversations are the owner's only
    assert some.searched <= len(visible)
    assert all(line.doc_key in visible for line in some.lines)
