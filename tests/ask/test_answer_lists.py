"""Answer composition, on hand-built chunks: a quote that cuts a list shows the items it cut off, a value
question is led by a close line that states the value, a request for logs is not quoted when a close line says
something, and a document's answer quotes another paragraph of the same document that holds what was asked.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from briefing.ask.extractive import ExtractiveAnswerer, list_items
from briefing.embed import Embedder
from briefing.settings import AnswerSettings, EmbeddingSettings
from tests.ask.chunks import at, doc, slack
from tests.ask.parsed import parsed


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("answer-lists-home"))
    defaults = AnswerSettings()
    yield ExtractiveAnswerer(embedder, min_evidence=0.0, max_sentences=defaults.max_sentences, hedge_below=0.0)
    embedder.close()


def test_list_items_reads_numbered_and_bulleted_lists_only() -> None:
    assert list_items("Feedback, 1. Read the issue first. 2. Do a self-review. 3. Attach a video.") == [
        "Read the issue first.",
        "Do a self-review.",
        "Attach a video.",
    ]
    assert list_items("Changes:\n- faster startup\n- XML support") == ["faster startup", "XML support"]
    # Numbers out of sequence are versions or counts, not a list.
    assert list_items("We moved from v0.8 2. to 0.9 and 3. is next.") == []
    assert list_items("One sentence, no list.") == []


def test_a_quote_that_cuts_a_list_shows_the_items_it_cut_off(answerer: ExtractiveAnswerer) -> None:
    feedback = slack(
        "slack:CCONTRIB::1",
        "contributing",
        (
            "shubham",
            "@Krishanu quick summary of the internal feedback on your pull requests, 1. Probably we need to work on "
            "understanding the issue better rather than start coding on it right away. Better to discuss a few "
            "things first if you are not sure about them, as in the PR where Duke commented on the approach. "
            "2. If AI is being used, please do the self-review. 3. Attach at least one video of a real sync.",
            at(8, 4),
        ),
    )
    answer = answerer.answer(parsed("What feedback did shubham give Krishanu on his pull requests?"), [feedback])
    assert "self-review" in answer.text and "video of a real sync" in answer.text
    assert answer.cited == {1: [feedback.refs[0]]}  # the same message, one citation


def test_a_value_question_is_led_by_a_close_line_that_states_the_value(answerer: ExtractiveAnswerer) -> None:
    # The announcement scores best (it names the rolling writers and big data files) but states no size: "#1012"
    # is an identifier. The design doc's line, close behind it, states the size.
    release = slack(
        "slack:CANNOUNCE::4",
        "announcements",
        (
            "Nayan Joshi",
            "OLake Go v0.9.0 released: feat: rolling writers for big data files in the S3 destination, the writers "
            "aim at fewer files, by @Vaibhav in #1012",
            at(7, 28),
        ),
    )
    design = doc(
        "blog/architecture.md",
        "Deep dive into OLake Go architecture",
        "vaibhav",
        at(7, 22),
        "Each writer closes a file when it reaches its target size: data files target 512 MB.",
    )
    answer = answerer.answer(parsed("How big are the data files that the rolling writers aim for?"), [release, design])
    assert answer.text.splitlines()[0].startswith("512 MB — ")
    assert answer.cited[1] == [design.refs[0]]


def test_a_request_for_logs_is_not_quoted_when_a_close_line_says_something(answerer: ExtractiveAnswerer) -> None:
    thread = slack(
        "slack:CHELP::6",
        "help",
        (
            "Vishal",
            "@Anh could you please download the job logs of the nginx error in the UI and share them here so we can "
            "debug.",
            at(5, 19, 4),
        ),
        (
            "Saksham",
            "The nginx error when creating a job in the UI was fixed by raising client_max_body_size in the proxy "
            "config.",
            at(5, 19, 6),
        ),
    )
    answer = answerer.answer(parsed("What fixed the nginx error when creating a job in the UI?"), [thread])
    assert "client_max_body_size" in answer.text
    assert "download the job logs" not in answer.text
    assert answer.cited == {1: [thread.refs[1]]}


def test_a_document_answer_quotes_the_paragraph_that_holds_the_asked_words(answerer: ExtractiveAnswerer) -> None:
    guide = doc(
        "handbook/onboarding.md",
        "Welcome to the platform team",
        "Priya Raman",
        at(5, 29),
        "As a newly hired engineer, set up your laptop, SSO and GitHub access in your first days.",
        "During the first days, also read the design doc of the ledger migration as a new hire.",
        "The team lunch is on Thursdays; the office closes at six.",
    )
    answer = answerer.answer(parsed("What should a newly hired engineer read during the first days?"), [guide])
    assert "design doc of the ledger migration" in answer.text
    # Another paragraph of the same document: no other ref is cited.
    assert {ref for refs in answer.cited.values() for ref in refs} == {guide.refs[0]}


def test_a_question_word_belongs_to_the_value_it_stands_next_to(answerer: ExtractiveAnswerer) -> None:
    # "data files" names the 512 MB; the 64 MB is the delete files', though it stands closer to "files".
    design = doc(
        "blog/architecture.md",
        "Deep dive into OLake Go architecture",
        "vaibhav",
        at(7, 22),
        "Data files target 512 MB and delete files 64 MB.",
    )
    answer = answerer.answer(parsed("How big are the data files that the writers aim for?"), [design])
    assert answer.text.splitlines()[0].startswith("512 MB — ")


def test_a_pasted_json_payload_gives_no_value_line(answerer: ExtractiveAnswerer) -> None:
    thread = slack(
        "slack:CHELP::7",
        "help",
        (
            "Anh",
            'The job payload the UI sends: {"name": "tst", "id": 5, "destination_type": "parquet", '
            '"batch_size": 10000}',
            at(5, 19, 6),
        ),
    )
    answer = answerer.answer(parsed("How many rows per batch does the job send to parquet?"), [thread])
    assert answer.text.startswith("- Anh in #help")  # the quote leads: no number read off the payload


def test_a_question_about_a_past_day_is_answered_from_that_day(answerer: ExtractiveAnswerer) -> None:
    general = slack(
        "slack:CGENERAL::8",
        "general",
        ("Anshika", "The first community poll is live right now: what does the community run?", at(7, 28)),
        ("Anshika", "Tuesday poll time. Iceberg lets you widen a column in place: int to bigint.", at(8, 11)),
    )
    now = at(8, 13, 9)
    day = (at(8, 11, 0), at(8, 12, 0))
    answer = answerer.answer(
        parsed("What subject did the community poll two days ago cover?", window=day, now=now), [general]
    )
    assert "widen a column" in answer.text
    assert answer.cited == {1: [general.refs[1]]}  # the older, better-worded poll is another day's


def test_a_window_that_has_not_begun_restricts_nothing(answerer: ExtractiveAnswerer) -> None:
    # "Next quarter" asks for plans stated before it; a line that merely falls in it says nothing of them.
    platform = slack(
        "slack:CPLATFORM::9",
        "platform-eng",
        ("Nadia", "Q3 plan draft, the platform team's priorities: per-merchant rate limits (PLAT-124).", at(6, 12)),
        ("Priya", "Good news: Farah joins the platform team as senior SRE on 6 July.", at(6, 12, 15)),
    )
    now = at(6, 15)
    quarter = (at(7, 1, 0), at(10, 1, 0))
    answer = answerer.answer(
        parsed("What are the platform team's priorities for next quarter?", window=quarter, now=now), [platform]
    )
    assert "PLAT-124" in answer.text
