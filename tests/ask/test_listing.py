"""Which documents of a kind came out in a period: the answer lists the documents of that kind whose own date falls
in the window, each cited by its own document.

Through the real pipeline (a files source with a `blog/` and a `release/` folder, the index, `Brief.ask`). Before
this, "Which blog posts came out in July?" quoted the sections closest to its words, most of them from one post.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from dspy.utils import DummyLM

from briefing.ask.meetings import agenda_topic
from briefing.question.kind import agenda_asked, next_meeting_asked
from briefing.service import Brief
from tests.harness import ingest_docs

NOW = datetime(2026, 7, 25, 9, 0, tzinfo=UTC)


def _post(date: str, author: str, title: str, body: str) -> str:
    head = f"---\ndate: {date}\nauthor: {author}\n---\n# {title}\n\n## Introduction\n\n"
    return f"{head}{body} This blog post explains how.\n"


DOCS = {
    "blog/2026-06-20-row-lineage.md": _post(
        "2026-06-20",
        "anshika",
        "Row lineage in Relay",
        "Row lineage lets a downstream job read only the rows that changed since its last checkpoint in the table.",
    ),
    "blog/2026-07-08-exactly-once.md": _post(
        "2026-07-08",
        "vaibhav",
        "How Relay delivers exactly once",
        "Relay commits each batch and its checkpoint together, so a restart never writes a batch into the table twice.",
    ),
    "blog/2026-07-19-kafka-source.md": _post(
        "2026-07-19",
        "nayan",
        "Reading Kafka topics with Relay",
        "The new Kafka source reads one stream per topic and keeps the consumer offsets in the state file of the sync.",
    ),
    "blog/2026-07-28-roadmap.md": _post(
        "2026-07-28",
        "nayan",
        "The Relay roadmap for the autumn",
        "This post lists what the team plans to build for Relay between September and December of this year.",
    ),
    "release/relay-3.0.md": _post(
        "2026-07-12",
        "nayan",
        "Relay 3.0 release notes",
        "Relay 3.0 adds a Kafka source, writes to BigQuery tables and exposes Prometheus metrics for every sync.",
    ),
}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(config, home) of the documents, ingested once."""
    return ingest_docs(tmp_path_factory.mktemp("listing"), "listing", DOCS)


@pytest.fixture
def brief(workspace: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> Iterator[Brief]:
    from briefing.settings import load_settings

    config, home = workspace
    monkeypatch.setenv("BRIEF_HOME", str(home))
    with Brief(load_settings(config)) as b:
        yield b


def _lines(answer: str) -> list[str]:
    return [line for line in answer.splitlines() if line.startswith("- ")]


@pytest.mark.slow
def test_the_posts_dated_in_the_month_are_listed_each_cited(brief: Brief) -> None:
    result = brief.ask("Which blog posts came out in July?", now=NOW)
    assert not result.no_answer
    lines = _lines(result.answer)
    # The two July posts the reader can see on 25 July, oldest first; not June's, not the release notes, not the
    # post dated after the question's now.
    assert len(lines) == 2, result.answer
    assert '"How Relay delivers exactly once" (vaibhav, Wed 8 Jul)' in lines[0]
    assert '"Reading Kafka topics with Relay" (nayan, Sun 19 Jul)' in lines[1]
    assert "Row lineage" not in result.answer and "roadmap" not in result.answer.lower()
    assert "release notes" not in result.answer.lower()
    assert result.answer.splitlines()[0].startswith("2 blog posts dated in July")
    # Each line cites its own document, and says what the post is about.
    refs = [ref for c in result.citations for ref in c.refs]
    assert refs == ["file:blog/2026-07-08-exactly-once.md", "file:blog/2026-07-19-kafka-source.md"]
    assert "commits each batch and its checkpoint together" in lines[0]
    assert result.trace.get("listing") == refs


def test_a_topic_keeps_the_posts_that_mention_it(brief: Brief) -> None:
    result = brief.ask("Which blog posts about Kafka came out in July?", now=NOW)
    assert [ref for c in result.citations for ref in c.refs] == ["file:blog/2026-07-19-kafka-source.md"]


def test_the_kind_asked_for_is_the_folder_listed(brief: Brief) -> None:
    result = brief.ask("Which release notes were published in July?", now=NOW)
    assert [ref for c in result.citations for ref in c.refs] == ["file:release/relay-3.0.md"]


def test_without_a_period_or_a_document_in_it_the_answer_is_the_ordinary_one(brief: Brief) -> None:
    for question in ("Which blog posts explain exactly-once delivery?", "Which blog posts came out in March?"):
        result = brief.ask(question, now=NOW)
        assert "listing" not in result.trace, question
        assert "dated in" not in result.answer, question


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("What meetings do we have this week?", set()),
        ("Any 1:1s tomorrow?", set()),
        ("What's on the calendar next week?", set()),
        ("What is on my calendar tomorrow?", set()),
        ("Any meetings about the budget this week?", {"budget"}),
        # A fact about one meeting, or "events" and "calls" that are not the calendar's: not a list of meetings.
        ("What meeting decided the cutover date?", None),
        ("What events happened last week?", None),
        ("Which calls failed after the deploy?", None),
    ],
)
def test_which_questions_ask_for_the_calendars_meetings(question: str, topic: set[str] | None) -> None:
    about = agenda_asked(question)
    assert (agenda_topic(about) if about is not None else None) == topic


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("When is the next standup?", "standup"),
        ("When's our next 1:1 with Marcus?", "1:1 with Marcus"),
        ("when will the next sprint retro be?", "sprint retro"),
        ("When was the last standup?", None),
        ("When is the standup?", None),
    ],
)
def test_which_questions_ask_for_the_next_meeting(question: str, words: str | None) -> None:
    assert next_meeting_asked(question) == words


# -- the same kind of answer with an LLM configured -----------------------------------------------------------------
CALENDAR = Path(__file__).resolve().parents[2] / "src" / "briefing" / "sample" / "calendar" / "team.ics"
CALENDAR_NOW = datetime(2026, 6, 15, 9, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def calendar(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(config, home) of the sample team's calendar, ingested once."""
    import os

    from briefing import pipeline
    from briefing.settings import load_settings

    root = tmp_path_factory.mktemp("calendar")
    config = root / "brief.toml"
    # Every series is expanded (the sample's end by 30 June 2026), as `brief demo` configures it.
    source = f'[sources.team]\ntype = "ics"\npath = "{CALENDAR}"\nexpand_days = 3650\n'
    config.write_text(f'[workspace]\nname = "calendar"\n{source}')
    saved = os.environ.get("BRIEF_HOME")
    os.environ["BRIEF_HOME"] = str(root / "home")
    try:
        assert pipeline.run(load_settings(config), ["team"]).failure_count == 0
    finally:
        if saved is None:
            os.environ.pop("BRIEF_HOME", None)
        else:
            os.environ["BRIEF_HOME"] = saved
    return config, root / "home"


def _with_and_without_llm(config: Path, question: str, now: datetime) -> tuple[dict, dict, DummyLM]:
    from briefing.ask.answer import LLMAnswerer
    from briefing.ask.run import build_deps, run_ask
    from briefing.settings import load_settings

    lm = DummyLM([{"answer": "The LLM's own answer [1].", "sufficient": True}] * 2)
    with Brief(load_settings(config)) as b:
        plain = run_ask(build_deps(b), question, now=now)
        deps = build_deps(b)
        deps.answerer = LLMAnswerer(lm)
        written = run_ask(deps, question, now=now)
    return plain, written, lm


@pytest.mark.parametrize(
    "question", ["Which blog posts came out in July?", "Which blog posts about Kafka came out in July?"]
)
def test_a_listing_is_the_same_with_an_llm_configured(workspace, monkeypatch, question: str) -> None:  # type: ignore[no-untyped-def]
    config, home = workspace
    monkeypatch.setenv("BRIEF_HOME", str(home))
    plain, written, lm = _with_and_without_llm(config, question, NOW)
    assert "dated in July" in plain["answer"]
    assert (written["answer"], written["citations"]) == (plain["answer"], plain["citations"])
    assert written["trace"]["listing"] == plain["trace"]["listing"]
    assert lm.history == []  # read from the index, not written


@pytest.mark.parametrize(
    ("question", "lead"),
    [
        ("What meetings do we have this week?", "8 meetings this week, in time order:"),
        ("When is the next standup?", "Mon 15 Jun 10:00-10:15 UTC: Platform standup"),
    ],
)
@pytest.mark.slow
def test_meetings_are_the_same_with_an_llm_configured(calendar, monkeypatch, question: str, lead: str) -> None:  # type: ignore[no-untyped-def]
    config, home = calendar
    monkeypatch.setenv("BRIEF_HOME", str(home))
    plain, written, lm = _with_and_without_llm(config, question, CALENDAR_NOW)
    assert plain["answer"].startswith(lead), plain["answer"]
    assert (written["answer"], written["citations"]) == (plain["answer"], plain["citations"])
    assert lm.history == []


def test_with_nothing_of_the_kind_the_llm_writes_the_fact_answer(workspace, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    config, home = workspace
    monkeypatch.setenv("BRIEF_HOME", str(home))
    # No post is dated in March: the listing declines, and the LLM writes the answer as for any fact question.
    plain, written, lm = _with_and_without_llm(config, "Which blog posts came out in March?", NOW)
    assert "listing" not in plain["trace"] and "listing" not in written["trace"]
    assert written["trace"]["draft"].startswith("The LLM's own answer")  # printed only where the evidence holds it
    assert len(lm.history) == 1
