"""What joins the answer's context after the strongest chunks, read through the ask graph's own nodes.

- The maintainer's "fixed in 2.4.1", later in the same channel than the release it fixes, reaches the answer when
  its chunk ranks low as a whole: "in which version was it fixed?" is answered 2.4.1, not quoted from the release.
- A job post that opens the thread reaches the answer when only the thread's replies were among the strongest
  chunks: "which company was hiring?" quotes the post that names it; the opening is marked as added.
- Each added chunk is cut to the one message that earned its place, and only a conversation of the strongest
  chunks adds its best messages; a thread whose header does not restate the opening (a mail's subject) adds none.
- An added message does not reweigh the strongest chunks: their lines score as they did without it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

import briefing.retrieve.context as context_module
from briefing.ask.extractive.scoring import strongest
from briefing.ask.nodes import AskDeps
from briefing.model import ADDED_TO_CONTEXT, Chunk, Unit
from briefing.question.constraints import Directory
from briefing.question.parse import parse
from briefing.retrieve import Hit
from briefing.retrieve.context import answer_context
from tests.ask_graph import ask_through, chat_deps

NOW = datetime(2026, 7, 1, 9, 0, tzinfo=UTC)
T0 = datetime(2026, 6, 10, 10, 0, tzinfo=UTC)
POST = (
    "Quillon are hiring - we're a textile startup in Leeds. We build our whole stack in Clojure and "
    "our open roles are on quillon.example/careers."
)
DIRECTORY = Directory(people=[], channels=["jobs", "tooling", "general"])


def _chunk(doc: str, n: int, channel: str, units: list[Unit], header: str, kind: str) -> Chunk:
    lines = [f"[{u.at:%Y-%m-%d %H:%M} UTC] {u.author}: {u.text}" for u in units if u.at]
    return Chunk(
        chunk_id=f"{doc}::{n}",
        doc_key=doc,
        source_type="slack",
        kind=kind,
        title=f"#{channel}",
        text="\n".join([header, *lines]),
        refs=[u.ref for u in units],
        start=min(u.at for u in units if u.at),
        end=max(u.at for u in units if u.at),
        authors=list(dict.fromkeys(u.author for u in units if u.author)),
        container=channel,
        units=units,
    )


def _unit(channel: str, minutes: int, author: str, text: str) -> Unit:
    return Unit(f"slack:{channel}:{1000 + minutes}.1", text, author, T0 + timedelta(minutes=minutes))


def chunks() -> list[Chunk]:
    log = "slack:CTOOL"
    said = [
        [
            "Sam Ortiz: I just published lintkit 2.4.0, which might break your build if you use relative requires.",
            "Ana Ruiz: after upgrading lintkit to 2.4.0 my build fails with a missing namespace error",
        ],
        ["Sam Ortiz: looking into why the namespace resolution changed", "Sam Ortiz: the jar does have the file"],
        ["Bo Chen: anyone going to the meetup on Friday?", "Ana Ruiz: yes, see you there"],
        ["Sam Ortiz: @Ana Ruiz fixed in `2.4.1`. thanks for the report.", "Ana Ruiz: awesome, thanks"],
        ["Bo Chen: the shared build server is out of disk again", "Sam Ortiz: cleaned it up"],
    ]
    out = []
    for n, lines in enumerate(said):
        units = [_unit("CTOOL", 60 * n + i, *line.split(": ", 1)) for i, line in enumerate(lines)]
        out.append(_chunk(log, n, "tooling", units, "#tooling", "slack_channel"))
    thread = "slack:CJOBS/500.1"
    header = "#jobs, thread started by Rita Moss: Quillon are hiring - we're a textile startup in Leeds."
    replies = [
        [(0, "Rita Moss", POST)],
        [(30, "Tom Hale", "Would you consider remote people for the Leeds roles, or is it on site only?")],
        [(90, "Rita Moss", "We prefer people in Leeds but would consider remote people for senior roles.")],
    ]
    for n, rows in enumerate(replies):
        units = [_unit("CJOBS", 1440 + m, author, text) for m, author, text in rows]
        out.append(_chunk(thread, n, "jobs", units, header, "slack_thread"))
    return out


@pytest.fixture(scope="module")
def deps(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AskDeps]:
    with chat_deps(tmp_path_factory, chunks(), DIRECTORY) as found:
        yield found


def _ask(deps: AskDeps, question: str) -> tuple[list[Chunk], str]:
    return ask_through(deps, question, NOW)


FIXED = "Sam Ortiz's lintkit 2.4.0 broke a user's build; in which version did he say the reported problem was fixed?"
HIRING = "In #jobs, which textile company in Leeds was hiring?"


@pytest.mark.slow
def test_the_maintainers_fix_later_in_the_channel_answers_which_version(deps: AskDeps) -> None:
    context, answer = _ask(deps, FIXED)
    assert answer.startswith("2.4.1")
    added = [c for c in context[1:] if "fixed in `2.4.1`" in c.text]
    # Cut to the one message: its neighbour's thanks is not evidence of its own.
    assert [u.text for c in added for u in c.units] == ["@Ana Ruiz fixed in `2.4.1`. thanks for the report."]


@pytest.mark.slow
def test_without_the_best_units_the_fix_is_not_in_the_context(deps: AskDeps, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(context_module, "UNIT_CONTEXT", 0)
    # The fix is addressed to Ana, whose report asks: the channel's replies would bring it too (tested on its own).
    monkeypatch.setattr(context_module, "ADDRESSED_FROM", 0)
    context, answer = _ask(deps, FIXED)
    assert "2.4.1" not in answer
    assert not any("2.4.1" in c.text for c in context)


@pytest.mark.slow
def test_a_job_post_opening_the_thread_names_the_company(deps: AskDeps) -> None:
    context, answer = _ask(deps, HIRING)
    assert context[0].chunk_id != "slack:CJOBS/500.1::0"
    assert "Quillon are hiring" in answer
    opening = [c for c in context if POST in c.text]
    assert [c.chunk_id for c in opening] == ["slack:CJOBS/500.1::0"]
    assert opening[0].metadata.get(ADDED_TO_CONTEXT)


@pytest.mark.slow
def test_without_the_opening_the_company_is_not_quoted(deps: AskDeps, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(context_module, "OPENING_FROM", 0)
    context, answer = _ask(deps, HIRING)
    assert POST not in [u.text for c in context for u in c.units]
    assert "Quillon are hiring" not in answer


def _hit(chunk: Chunk, unit_rank: int | None = None, unit_pos: int | None = None) -> Hit:
    return Hit(chunk=chunk, unit_rank=unit_rank, unit_pos=unit_pos)


def test_only_the_conversations_of_the_best_chunks_add_their_best_units() -> None:
    found = {c.chunk_id: c for c in chunks()}
    release, fix, post = found["slack:CTOOL::0"], found["slack:CTOOL::3"], found["slack:CJOBS/500.1::0"]
    candidates = [_hit(release, 3, 0), _hit(fix, 1, 0), _hit(post, 2, 0)]
    added = answer_context(candidates, [release])[1:]
    # The fix continues the release's channel; the job post, though ranked second, is another conversation.
    assert [c.chunk_id for c in added] == ["slack:CTOOL::3"]
    assert added[0].refs == [fix.units[0].ref]


def test_added_messages_are_marked_after_the_strongest_chunks() -> None:
    found = {c.chunk_id: c for c in chunks()}
    release, fix = found["slack:CTOOL::0"], found["slack:CTOOL::3"]
    context = answer_context([_hit(fix, 1, 0)], [release])
    assert strongest(context) == 1
    assert strongest([release, fix]) == 2  # a context nothing was added to is all strongest


@pytest.mark.slow
def test_an_added_message_leaves_the_strongest_chunks_lines_scored_as_they_were(deps: AskDeps) -> None:
    found = {c.chunk_id: c for c in chunks()}
    strong = [found["slack:CTOOL::0"], found["slack:CTOOL::1"], found["slack:CTOOL::2"]]
    question = parse(FIXED, now=NOW, timezone="UTC", directory=DIRECTORY)
    context = answer_context([_hit(found["slack:CTOOL::3"], 1, 0)], strong)
    assert len(context) == 4

    def scores(chunks: list[Chunk]) -> dict[str, float]:
        evidence = deps.extractive.candidates(chunks)
        deps.extractive.score(question, evidence, chunks)
        return {e.text: e.score for e in evidence if e.n <= len(strong)}

    alone, added = scores(strong), scores(context)
    # The release, the look into it and the meetup keep their order and their scores: the added fix competes with
    # them by its own text, as the strongest chunks' last, without pushing the others' rank prior down.
    assert added == pytest.approx(alone)


def test_a_thread_whose_header_is_no_opening_brings_no_opening() -> None:
    found = {c.chunk_id: c for c in chunks()}
    reply, opening = found["slack:CJOBS/500.1::2"], found["slack:CJOBS/500.1::0"]
    assert [c.chunk_id for c in answer_context([_hit(opening)], [reply])] == [reply.chunk_id, opening.chunk_id]
    # A mail thread's chunks are headed by the subject line, not by the opening's words.
    subject = replace(reply, text="Re: roles in Leeds\n" + reply.text.split("\n", 1)[1])
    assert answer_context([_hit(opening)], [subject]) == [subject]
