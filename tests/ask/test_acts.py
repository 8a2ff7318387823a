"""Questions about an act: "Why did Rosa close her pull request?" quotes the comment that closes it and says why,
"What superseded it?" the comment naming its successor, and "Where did Raphael suggest ...?" Raphael's own words
before a better-worded line by someone else; on hand-built conversations."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.embed import Embedder
from briefing.model import Unit
from briefing.question.acts import change_asked, doers
from briefing.settings import AnswerSettings, EmbeddingSettings
from tests.ask.chunks import at, first_quote, slack, ticket_chunk
from tests.ask.parsed import parsed

PULL = slack(
    "github:acme/wire#605::0",
    "wire",
    (
        "rosa-m",
        "Add a mime type object in front of application data. This allows applications to express the mime type "
        "of the application data if desired.",
        at(2, 24, 5, 10),
    ),
    (
        "rosa-m",
        'PR #605 "Add mime type object" authored by rosa-m, opened 2026-02-24, closed unmerged 2026-05-02.',
        at(2, 24, 5, 11),
    ),
    ("omar", "Could the mime type live in an extension instead of the message itself?", at(3, 9, 18, 27)),
    ("rosa-m", "Closing as the changes have all moved to the content negotiation draft.", at(5, 2, 18, 27)),
)
SUPERSEDED = slack(
    "github:acme/wire#610::0",
    "wire",
    ("kim", "Explicitly allow deniable signature keys in the signature section.", at(3, 7, 10, 9)),
    (
        "kim",
        'PR #610 "Allow deniable signature keys" authored by kim, opened 2026-03-07, closed unmerged 2026-03-11.',
        at(3, 7, 10, 10),
    ),
    ("lee", "Closing in favor of #617 in light of the mailing list discussion.", at(3, 11, 17, 56)),
)
DIRECTED = slack(
    "github:acme/wire#708::0",
    "wire",
    ("lee", "This PR implements the directed approach for key packages that was discussed in #693.", at(5, 29, 19, 5)),
    (
        "raphael",
        "I think that's an excellent candidate for the extensions document, given that it's a niche feature.",
        at(5, 30, 16, 29),
    ),
)

TICKET = slack(
    "jira:PLAT-88::0",
    "tracker",
    (
        "Ricardo Ramirez",
        "Touch ID authentication fails on Android after the app resumes: the authentication dialog never returns "
        "and the app hangs on the touch ID authentication screen.",
        at(9, 18, 9, 0),
    ),
    (
        "Gary Mathews",
        "Fixed the authentication callback on resume; PR: https://github.com/acme/app/pull/9421",
        at(9, 20),
    ),
    ("Lokesh Choudhary", "Verified the fix in SDK 6.3.0.v20170920. Closing.", at(9, 22, 14, 0)),
)

# The same person's line in another pull request, worded closer to the question than their answer.
ELSEWHERE = slack(
    "github:acme/wire#703::0",
    "wire",
    ("raphael", "The key package could come in via a Welcome or an External Commit.", at(5, 29, 18, 19)),
)

MARKER = slack(
    "github:acme/wire#687::0",
    "wire",
    (
        "bren",
        'PR #687 "Add a marker byte to tree hash input structs" authored by bren, opened 2026-05-21, merged '
        "2026-05-24 by lee | state: merged",
        at(5, 21, 10, 0),
    ),
    ("bren", "Closes #663, where leaf and parent hash inputs could collide.", at(5, 21, 10, 1)),
    (
        "bren",
        "This adds a marker byte to the tree hash input structs, so leaf and parent inputs differ.",
        at(5, 21, 10, 2),
    ),
)

# The same pull request as a code host's item (its record and description, then a review reply that speaks of the
# fix in the question's words).
_PR = "github:acme/wire#687"
REVIEWED = replace(
    ticket_chunk(
        "X-687",
        "acme/wire#687: Add a marker byte to tree hash input structs",
        [
            Unit(_PR, MARKER.units[0].text, "bren", at(5, 21, 10, 0)),
            Unit(_PR, "Closes #663, where leaf and parent hash inputs could collide.", "bren", at(5, 21, 10, 0)),
            Unit(
                f"{_PR}/comment-1",
                "Looks right: this fixes the leaf and parent hash input collision with the marker byte.",
                "lee",
                at(5, 22, 9, 0),
            ),
        ],
        "acme/wire",
    ),
    doc_key=_PR,
    chunk_id=f"{_PR}::0",
    source_type="github",
    kind="github_issue",
)


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("acts-home"))
    defaults = AnswerSettings()
    yield ExtractiveAnswerer(embedder, min_evidence=0.0, max_sentences=defaults.max_sentences, hedge_below=0.0)
    embedder.close()


def test_why_closed_quotes_the_comment_that_closes_it_with_its_reason(answerer: ExtractiveAnswerer) -> None:
    question = parsed(
        "Why did rosa-m close her pull request adding a mime type object in front of application data?",
        people=["rosa-m"],
    )
    answer = answerer.answer(question, [PULL])
    assert not answer.no_answer
    who, text = first_quote(answer)
    assert who.startswith("rosa-m"), answer.text
    assert "moved to the content negotiation draft" in text, answer.text


def test_what_superseded_it_quotes_the_comment_naming_the_successor(answerer: ExtractiveAnswerer) -> None:
    answer = answerer.answer(parsed("What superseded the pull request on deniable signature keys?"), [SUPERSEDED])
    assert not answer.no_answer
    who, text = first_quote(answer)
    assert who.startswith("lee") and "#617" in text, answer.text


def test_where_did_a_named_person_suggest_quotes_that_person(answerer: ExtractiveAnswerer) -> None:
    question = parsed("Where did raphael suggest the directed key package feature belongs?", people=["raphael"])
    answer = answerer.answer(question, [DIRECTED])
    who, text = first_quote(answer)
    assert who.startswith("raphael") and "extensions document" in text, answer.text


@pytest.mark.parametrize(
    "question",
    [
        "Who closed the ticket about the touch ID authentication issue on Android?",
        "Who verified the fix for the touch ID authentication issue on Android?",
        "Which person closed the ticket about the touch ID authentication issue on Android?",
    ],
)
def test_who_closed_or_verified_names_who_announced_it_not_the_reporter(
    answerer: ExtractiveAnswerer, question: str
) -> None:
    answer = answerer.answer(parsed(question), [TICKET])
    assert not answer.no_answer
    assert answer.text.startswith("Lokesh Choudhary"), answer.text


@pytest.mark.parametrize(
    "asked",
    [
        "Which pull request fixed the ticket about touch ID authentication failing on Android?",
        "Where is the pull request for the ticket about touch ID authentication failing on Android?",
    ],
)
def test_which_pull_request_fixed_a_ticket_quotes_the_comment_linking_it(
    answerer: ExtractiveAnswerer, asked: str
) -> None:
    # The description words the question best; the developer's comment links the pull request that fixed it.
    question = parsed(asked)
    answer = answerer.answer(question, [TICKET])
    assert not answer.no_answer
    assert "pull/9421" in answer.text.splitlines()[0], answer.text


def test_the_named_persons_line_in_the_item_asked_about_leads_their_lines_elsewhere(
    answerer: ExtractiveAnswerer,
) -> None:
    question = parsed("Where did raphael suggest the directed key package feature belongs?", people=["raphael"])
    answer = answerer.answer(question, [DIRECTED, ELSEWHERE])
    who, text = first_quote(answer)
    assert who.startswith("raphael") and "extensions document" in text, answer.text
    assert not any(ref in ELSEWHERE.refs for refs in answer.cited.values() for ref in refs), answer.text


@pytest.mark.parametrize(
    "asked",
    [
        "Which issue did the pull request that adds a marker byte to tree hash input structs close?",
        # "fix" and "resolve" ask which issue too: the change's own description names it, not a reply to it
        "What issue does the PR that adds a marker byte to tree hash input structs fix?",
        "Which bug does the PR that adds a marker byte to tree hash input structs resolve?",
    ],
)
def test_which_issue_a_pull_request_closed_is_the_line_naming_it(answerer: ExtractiveAnswerer, asked: str) -> None:
    question = parsed(asked)
    answer = answerer.answer(question, [REVIEWED])
    assert "#663" in answer.text.splitlines()[0], answer.text


@pytest.mark.parametrize(
    ("question", "people", "named"),
    [
        ("Where did raphael suggest the feature belongs?", ["raphael"], ("raphael",)),
        ("What did Chris Barber change to fix the signing failures?", ["Chris Barber"], ("Chris Barber",)),
        ("Who replied to Ana about the export?", ["Ana"], ()),
        ("What did the team ask Ana to check?", ["Ana"], ()),
    ],
)
def test_the_doer_is_the_person_the_act_is_asked_of(question: str, people: list[str], named: tuple[str, ...]) -> None:
    assert doers(parsed(question, people=people)) == named


@pytest.mark.parametrize(
    ("question", "family"),
    [
        ("Why was the export ticket reopened?", "reopen"),
        ("Why did Ana close her pull request?", "close"),
        ("What superseded PR #610?", "close"),
        ("Why was the retry change reverted?", "revert"),
        ("Who closed the export ticket?", "close"),
        ("Who verified the fix for the export ticket?", "verify"),
        ("Who is working on the closing balance report?", ""),
        ("Why is the export slow?", ""),
    ],
)
def test_the_change_asked_about(question: str, family: str) -> None:
    assert change_asked(parsed(question)) == family
