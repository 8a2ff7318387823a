"""Near misses a user would notice: the best lines share the question's topic but not the slot it asks for.

"Who is assigned to pull request #744?" answered from a line about #708; "Which reviewer approved it?" answered
with the PR's author; "Who is the new maintainer?" answered with whoever wrote about the project; "Which pull
request fixed it?" answered with the ticket that reports the bug. Each is refused, and the same question is
answered once a line states what is asked.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.embed import Embedder
from briefing.model import Chunk, Unit
from briefing.settings import AnswerSettings, EmbeddingSettings
from tests.ask.chunks import at, doc, slack, ticket_chunk
from tests.ask.parsed import parsed

PR_708 = doc(
    "github/proto/pull/708.md",
    "proto#708: Describe requests to join and directed KeyPackages",
    "bifurcation",
    at(5, 29),
    'PR #708 "Describe requests to join and directed KeyPackages" authored by bifurcation, opened 2022-05-29.',
    "I've also added a subsection to the protocol overview that discusses requests to be added; assigned to "
    "bifurcation.",
)
PR_744 = doc(
    "github/proto/pull/744.md",
    "proto#744: Clarify the epoch authenticator",
    "rohan",
    at(6, 2),
    'PR #744 "Clarify the epoch authenticator" authored by rohan, opened 2022-06-02; assigned to seanturner.',
)
PR_592 = doc(
    "github/proto/pull/592.md",
    "proto#592: Add a simple ProofCredential alternative to Certificate",
    "Bren2010",
    at(2, 10),
    'PR #592 "Add a simple ProofCredential alternative to Certificate" authored by Bren2010, opened 2022-02-10, '
    "closed unmerged 2022-05-03.",
)
PR_592_REVIEW = doc(
    "github/proto/pull/592-review.md",
    "proto#592: Add a simple ProofCredential alternative to Certificate > Reviews",
    "TWal",
    at(2, 14),
    "TWal approved the ProofCredential pull request on 2022-02-14.",
)
HELM_CHAT = slack(
    "slack:CTOOLS::3",
    "tools",
    ("priya", "The Helm chart for the worker needs a new release with the fixed liveness probe.", at(6, 3, 9)),
    ("marco", "I bumped the Helm chart version locally and the probe works now.", at(6, 3, 10)),
)
HELM_HANDOVER = slack(
    "slack:CTOOLS::4",
    "tools",
    ("lena", "Announcement: Jonah takes over as maintainer of the Helm chart from next week.", at(6, 4, 9)),
)
ANR_TICKET = doc(
    "jira/MOB-421.md",
    "MOB-421: Android: input dispatching timed out",
    "ankur",
    at(8, 28),
    "Input dispatching timed out on Android when a list scrolls while the keyboard opens (ANR).",
    "Steps to reproduce: open the form, focus the text field, scroll the list quickly.",
)
ANR_FIX = doc(
    "jira/MOB-421-comment.md",
    "MOB-421: Android: input dispatching timed out > Comments",
    "gary",
    at(9, 2),
    "The input dispatching ANR is fixed by https://github.com/example/mobile/pull/9350 which moves the scroll "
    "listener off the main thread.",
)


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("near-miss-home"))
    defaults = AnswerSettings()
    yield ExtractiveAnswerer(embedder, min_evidence=defaults.min_evidence, max_sentences=defaults.max_sentences)
    embedder.close()


def test_a_question_about_one_pull_request_is_not_answered_from_another(answerer: ExtractiveAnswerer) -> None:
    question = parsed("Who is assigned to pull request #744?")
    refused = answerer.answer(question, [PR_708], scope="github")
    assert refused.no_answer and refused.cited == {}
    assert "not about the item the question names" in refused.text
    assert "bifurcation" not in refused.text
    answered = answerer.answer(question, [PR_744, PR_708], scope="github")
    assert not answered.no_answer
    assert "seanturner" in answered.text


def test_a_reviewer_question_is_not_answered_with_the_author(answerer: ExtractiveAnswerer) -> None:
    question = parsed("Which reviewer approved the ProofCredential pull request?")
    refused = answerer.answer(question, [PR_592], scope="github")
    assert refused.no_answer
    assert "Bren2010" not in refused.text
    answered = answerer.answer(question, [PR_592, PR_592_REVIEW], scope="github")
    assert not answered.no_answer
    assert "TWal" in answered.text


def test_what_reviewers_said_is_asked_of_what_they_said_not_of_who_they_were(answerer: ExtractiveAnswerer) -> None:
    """ "What did reviewers say about X?" asks for their feedback: the review comments answer it, though no line
    records who the reviewers were."""
    comments = doc(
        "github/proto/pull/592-comments.md",
        "proto#592: Add a simple ProofCredential alternative to Certificate > Comments",
        "TWal",
        at(2, 12),
        "The ProofCredential alternative duplicates what certificates already give us; I would rather not add it.",
    )
    answered = answerer.answer(
        parsed("What did reviewers say about the ProofCredential alternative?"), [PR_592, comments], scope="github"
    )
    assert not answered.no_answer, answered.text
    assert "rather not add it" in answered.text


def test_a_maintainer_question_is_not_answered_with_whoever_wrote_about_the_project(
    answerer: ExtractiveAnswerer,
) -> None:
    question = parsed("Who is the new maintainer of the Helm chart?")
    refused = answerer.answer(question, [HELM_CHAT], scope="slack")
    assert refused.no_answer
    assert "priya" not in refused.text and "marco" not in refused.text
    answered = answerer.answer(question, [HELM_CHAT, HELM_HANDOVER], scope="slack")
    assert not answered.no_answer
    assert "Jonah" in answered.text


def test_a_pull_request_question_is_not_answered_with_the_ticket_that_reports_the_bug(
    answerer: ExtractiveAnswerer,
) -> None:
    question = parsed("Which pull request fixed the Android input dispatching ANR?")
    refused = answerer.answer(question, [ANR_TICKET], scope="jira")
    assert refused.no_answer
    assert "MOB-421" not in refused.text
    answered = answerer.answer(question, [ANR_TICKET, ANR_FIX], scope="jira")
    assert not answered.no_answer
    assert "pull/9350" in answered.text or "9350" in answered.text


WORKER_LOGS = slack(
    "slack:CHELP::9",
    "help",
    ("antonio", "The Fargate worker task logs show GET /api/v1/jobs answered in 2.61ms after the restart.", at(5, 21)),
)
WORKER_LIMIT = slack(
    "slack:CHELP::10",
    "help",
    ("duke", "We gave the Fargate worker task a 4 GB memory limit and it has been stable since.", at(5, 22)),
)
MONGO_REPORT = slack(
    "slack:CHELP::11",
    "help",
    (
        "daniel",
        "I sync a collection in Mongo with CDC upsert and find several Iceberg rows for the same _id.",
        at(5, 12),
    ),
    (
        "duke",
        "Upsert keeps one row per _id only after compaction; until then equality deletes hide the old rows.",
        at(5, 12, 11),
    ),
)


def test_a_memory_limit_is_not_answered_with_another_number_of_the_topic(answerer: ExtractiveAnswerer) -> None:
    question = parsed("What memory limit did the Fargate worker task get?")
    refused = answerer.answer(question, [WORKER_LOGS], scope="slack")
    assert refused.no_answer
    assert "2.61" not in refused.text
    answered = answerer.answer(question, [WORKER_LOGS, WORKER_LIMIT], scope="slack")
    assert not answered.no_answer
    assert answered.text.startswith("4 GB")


def test_a_product_named_with_its_db_suffix_is_found_where_it_is_written_without(
    answerer: ExtractiveAnswerer,
) -> None:
    question = parsed("Why did a MongoDB collection replicated with upserts end up with several Iceberg rows?")
    answer = answerer.answer(question, [MONGO_REPORT], scope="slack")
    assert answer.features["missing_named"] == 0.0
    assert not answer.no_answer


RELEASE_NOTE = slack(
    "slack:CANN::1",
    "announcements",
    ("nayan", "OLake Go v0.7.4 Released! What's new: MongoDB change streams resume from the saved token.", at(6, 1)),
    ("nayan", "Docs for the Helm chart were refreshed too.", at(6, 1, 11)),
)
STANDUP = slack(
    "slack:CGEN::2",
    "general",
    ("priya", "Core team standup moved to 10:00 this week.", at(6, 2)),
    ("marco", "Which core connectors are planned next quarter? Kafka and Oracle are on the list.", at(6, 2, 11)),
)


def test_every_part_of_a_two_part_question_the_evidence_supports_is_answered(answerer: ExtractiveAnswerer) -> None:
    # The first part alone ("Which release was announced") matches the announcement weakly; the whole question
    # and the line that answers the second part carry it.
    question = parsed("Which release was announced, and what did it add for MongoDB?")
    answer = answerer.answer(question, [RELEASE_NOTE, STANDUP], scope="slack")
    assert not answer.no_answer
    assert "do not say" not in answer.text
    first, second = answer.text.splitlines()[:2]
    assert first.startswith("Which release was announced: v0.7.4")
    # The announcement answers both parts: the second points to it rather than quoting it again.
    assert "MongoDB change streams" in first
    assert second == "What did it add for MongoDB: the same message [1]"


def test_only_the_part_without_support_is_refused(answerer: ExtractiveAnswerer) -> None:
    question = parsed("What does pull request #592 add, and which reviewer approved it?")
    answer = answerer.answer(question, [PR_592], scope="github")
    assert not answer.no_answer
    first, second = answer.text.splitlines()[:2]
    assert "ProofCredential alternative to Certificate" in first
    assert second.endswith("the sources do not say.")


def _ticket(key: str, title: str, *comments: tuple[str, str, datetime]) -> Chunk:
    made = [Unit(ref=f"jira:{key}#{n}", text=t, author=a, at=w) for n, (a, t, w) in enumerate(comments)]
    return ticket_chunk(key, title, made, "MOB")


EMOJI_TICKET = _ticket(
    "MOB-510",
    "iOS: disable the emoji keyboard in text areas",
    ("hans", "A text area in a table view row should be able to hide the emoji keyboard.", at(9, 1)),
    ("hans", "Fixed by adding a keyboardType property that disables the emoji keyboard for the text area.", at(9, 2)),
)
SCROLL_TICKET = _ticket(
    "MOB-533",
    "iOS: a text area scrolls the table view when it gets focus",
    ("ankur", "Focusing a text area inside a table view row scrolls the whole table view to the top.", at(9, 8)),
    (
        "gary",
        "Fixed in 6.3.0: the table view no longer scrolls to the top when a text area in a row gets focus; it "
        "keeps its offset.",
        at(9, 12),
    ),
)
# A channel's stream of posts: the report of the problem is a post of its own, not the chunk's first message.
MOBILE_CHANNEL = slack(
    "slack:CMOBILE::1",
    "mobile",
    ("priya", "Release 6.3.0 branch is cut, QA starts tomorrow.", at(9, 10, 9)),
    (
        "gary",
        "The table view scrolling to the top when a text area gets focus is resolved: the row keeps its offset now.",
        at(9, 12, 15),
    ),
)


def test_a_fix_question_is_not_answered_from_a_ticket_about_another_problem(answerer: ExtractiveAnswerer) -> None:
    # Before the scrolling ticket exists, the only ticket about text areas in table views is about the emoji
    # keyboard: its "Fixed by ..." line shares the words but fixes another problem.
    question = parsed("How was the table view scrolling to the top when a text area gets focus resolved?")
    refused = answerer.answer(question, [EMOJI_TICKET], scope="jira")
    assert refused.no_answer
    assert "about a different problem" in refused.text
    assert "keyboardType" not in refused.text
    answered = answerer.answer(question, [EMOJI_TICKET, SCROLL_TICKET], scope="jira")
    assert not answered.no_answer
    assert "Fixed in 6.3.0" in answered.text
    assert "keyboardType" not in answered.text


def test_a_fix_posted_in_a_channel_is_held_to_its_own_post(answerer: ExtractiveAnswerer) -> None:
    # The channel chunk opens with another post: the post that answers is its own subject.
    question = parsed("How was the table view scrolling to the top when a text area gets focus resolved?")
    answer = answerer.answer(question, [EMOJI_TICKET, MOBILE_CHANNEL], scope="slack")
    assert not answer.no_answer
    assert "keeps its offset" in answer.text


def test_a_question_about_a_persons_fixes_is_not_held_to_one_problem(answerer: ExtractiveAnswerer) -> None:
    question = parsed("Which tickets did hans fix in September?", people=["hans"])
    answer = answerer.answer(question, [EMOJI_TICKET], scope="jira")
    assert "subject_miss" not in answer.features
