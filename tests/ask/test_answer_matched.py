"""A question about a help thread in a few of its words is answered by that thread's reply, when the thread's
opening is the line that matches the question best on its own: a channel message that ranks higher only because
the opening, which asks, was discounted is another conversation."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from tests.ask.chunks import at, slack, thread_part
from tests.ask.lines import first_line, open_answerer


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    yield from open_answerer(Path(tmp_path_factory.mktemp("matched-home")))


ROOT = at(3, 2, 9)
OPENING = "Does anyone know how to stream large query results from Postgres without loading every row into memory?"
THREAD = [
    thread_part(ROOT.timestamp(), 0, "Ines Moreau", OPENING, ("Ines Moreau", OPENING, ROOT)),
    thread_part(
        ROOT.timestamp(),
        1,
        "Ines Moreau",
        OPENING,
        (
            "Karl Nystrom",
            "Use a server-side cursor with a fetch size of 500; the driver then pages the rows.",
            at(3, 2, 10),
        ),
    ),
]
# Another conversation on the same subject, in the channel: it shares words with the question but asks nothing.
CHANNEL = slack(
    "slack:CDATA::0",
    "data",
    ("Olu Bankole", "Our nightly export streams Postgres query results into S3 as large files.", at(3, 1, 16)),
)
QUESTION = "What did the replies in #help say about streaming large Postgres results?"


def test_the_reply_of_the_best_matched_thread_leads(answerer: ExtractiveAnswerer) -> None:
    line = first_line(answerer, QUESTION, CHANNEL, *THREAD)
    assert line.startswith("- Karl Nystrom in #help"), line


def test_a_question_the_channel_message_matches_best_keeps_it(answerer: ExtractiveAnswerer) -> None:
    line = first_line(answerer, "Which large files does the nightly export write?", CHANNEL, *THREAD)
    assert line.startswith("- Olu Bankole in #data"), line
