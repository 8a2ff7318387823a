"""A quoted line shows what was said: a mail's stamp and envelope is never the quote, and a lead that is only a
greeting, a thanks, a "+1" or a mention gives way to what its message (or the next line) says."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.ask.extractive.contentless import contentless
from briefing.embed import Embedder
from briefing.model import ChunkLimits, Document, Item
from briefing.settings import AnswerSettings, EmbeddingSettings
from chunkers.email import chunk_thread
from tests.ask.chunks import assert_citations_valid, at, first_line, slack
from tests.ask.parsed import parsed


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("contentless-home"))
    defaults = AnswerSettings()
    yield ExtractiveAnswerer(embedder, min_evidence=defaults.min_evidence, max_sentences=defaults.max_sentences)
    embedder.close()


SUBJECT = "[PATCH] ARM: Add support for Realtek SOC"
# A review long enough not to be quoted whole; its envelope names many recipients ("Jason A. Donenfeld and 19
# more"), so the sentence splitter cuts the envelope into a sentence of its own.
REVIEW = (
    "Hi James,\n\nThanks a lot for your submission! I'm glad to see this coming upstream. "
    "Please send the dts files separately from the platform code, and keep the defconfig change in its own patch "
    "so the soc maintainers can pick them up through the right trees. The Kconfig entry should select "
    "ARM_GIC and the generic timer rather than the board file doing it. The SMP bring-up in this version "
    "writes the secondary entry point into a hard-coded address; please describe that in the device tree "
    "instead, and use PSCI if the firmware has it. The clock driver should be a separate series sent to "
    "the clk maintainers. I would also drop the early printk hack, earlycon works on this uart already. The "
    "pinctrl binding needs review from the pinctrl maintainers and an example node in the binding document. "
    "Finally, the MAINTAINERS entry should list a mailing list and the tree the patches go through."
)


def _mail(ref: str, author: str, day: int, subject: str, text: str) -> Item:
    to = [["James Tai", "james@example.org"], ["Jason A. Donenfeld", "jason@example.org"]]
    to += [[f"Reviewer {i}", f"r{i}@example.org"] for i in range(19)]
    return Item(
        ref=ref,
        source_type="email",
        kind="message",
        text=text,
        occurred_at=datetime(2019, 9, day, 8, 46, tzinfo=UTC),
        author=author,
        title=subject,
        container="linux-arm-kernel",
        metadata={"to": to},
    )


THREAD = Document(
    key="email:realtek@example.org",
    kind="thread",
    source_type="email",
    title=SUBJECT,
    container="linux-arm-kernel",
    items=[
        _mail("email:realtek@example.org", "James Tai", 5, SUBJECT, "Add basic support for the Realtek RTD16XX SoC."),
        _mail("email:review@example.org", "Arnd Bergmann", 6, f"Re: {SUBJECT}", REVIEW),
    ],
)


def test_a_mail_reply_is_quoted_by_its_words_not_its_envelope(answerer: ExtractiveAnswerer) -> None:
    chunks = chunk_thread(THREAD, limits=ChunkLimits(max_chars=4000))
    answer = answerer.answer(parsed("What was the feedback on Add support for Realtek SOC?"), chunks)
    lead = first_line(answer)
    assert lead.startswith("- Arnd Bergmann in"), answer.text
    quote = lead.split(': "', 1)[1]
    assert not quote.startswith("["), answer.text
    assert "UTC]" not in quote and "19 more" not in quote and "| Re:" not in quote, answer.text
    assert "Thanks a lot for your submission" in quote or "dts files" in quote, answer.text
    assert quote != "Hi James,", answer.text
    assert_citations_valid(answer, chunks)


def test_who_answered_still_names_the_reviewer(answerer: ExtractiveAnswerer) -> None:
    chunks = chunk_thread(THREAD, limits=ChunkLimits(max_chars=4000))
    answer = answerer.answer(parsed("Who replied to the Add support for Realtek SOC patch?"), chunks)
    assert "Arnd Bergmann" in first_line(answer), answer.text
    assert "UTC]" not in first_line(answer) and "| Re:" not in first_line(answer), answer.text


@pytest.mark.parametrize(
    "line",
    [
        "Hi everyone,",
        "Thanks!",
        "+1",
        "LGTM",
        "@alex",
        "<@U024BE7LH> thanks a lot",
        "Thanks Jane!",
        "Best regards,",
        "Sounds good, will do.",
        "Good morning all!",
        "No worries",
    ],
)
def test_greetings_thanks_and_mentions_say_nothing(line: str) -> None:
    assert contentless(line)


@pytest.mark.parametrize(
    "line",
    [
        "Hi all, the deploy failed at 14:02.",
        "Kafka works now, thanks",
        "Merged.",
        "Done.",
        "v2.5.1 is out.",
        "Thanks! Raising request.timeout.ms to 120000 fixed it for me, the VPN handshake is just slow.",
    ],
)
def test_a_line_with_a_word_of_its_own_says_something(line: str) -> None:
    assert not contentless(line)


CHAT = [
    slack(
        "slack:CHELP::0",
        "help",
        (
            "Priya Nair",
            "The Kafka connector times out after 30 seconds when the broker sits behind the VPN, any idea?",
            at(3, 2, 9),
        ),
        ("Marco Rossi", "@Priya Nair", at(3, 2, 9, 4)),
        (
            "Marco Rossi",
            "Raise request.timeout.ms to 120000 in the connector config; the VPN handshake alone takes 40 seconds.",
            at(3, 2, 9, 5),
        ),
        ("Priya Nair", "Thanks @Marco Rossi!", at(3, 2, 9, 20)),
    )
]


def test_a_bare_thanks_does_not_lead(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(parsed("What did Marco Rossi reply to Priya Nair about the Kafka connector?"), CHAT)
    assert "Thanks @Marco Rossi" not in first_line(answer), answer.text
    assert "Kafka" in first_line(answer) or "request.timeout.ms" in first_line(answer), answer.text
    assert_citations_valid(answer, CHAT)


def test_a_thanks_still_answers_who_thanked(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(parsed("Who thanked Marco Rossi?"), CHAT)
    assert "Priya Nair" in first_line(answer), answer.text
