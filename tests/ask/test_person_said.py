"""What one person said in a conversation: "What did <replier> say about X?" quotes that replier, not the starter or
another replier; "What did <replier> reply to <starter> about X?" quotes the replier, not the starter's own report;
a person named by handle or first name ("alexmiller", "Alex") is the same person; and a person who wrote nothing
about X is not quoted as if another person's words were theirs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from briefing.ask.extractive import ExtractiveAnswerer
from briefing.embed import Embedder
from briefing.model import Person, Unit
from briefing.question.acts import addressees, doers, written
from briefing.question.parse import parse
from briefing.question.values import Directory
from briefing.settings import AnswerSettings, EmbeddingSettings
from tests.ask.chunks import at, first_quote, slack, ticket_chunk
from tests.ask.parsed import LATER, parsed

PEOPLE = ["Ana Lima", "Sean Corfield", "Alex Miller", "Dana Levi"]
THREAD = slack(
    "slack:CTOOLS/1.0::0",
    "tools",
    (
        "Ana Lima",
        "The deps alias classpath keeps changing between our CI builds. How should we pin the CI classpath?",
        at(3, 2, 9, 0),
    ),
    (
        "Sean Corfield",
        "Pin it with a :replace-deps alias in deps.edn, so the CI classpath never pulls in the user deps.",
        at(3, 2, 9, 20),
    ),
    (
        "Alex Miller",
        "The classpath cache in .cpcache is keyed on the deps alias, so delete it when the CI classpath looks stale.",
        at(3, 2, 9, 45),
    ),
)


@pytest.fixture(scope="module")
def answerer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtractiveAnswerer]:
    embedder = Embedder(EmbeddingSettings(), tmp_path_factory.mktemp("person-said-home"))
    defaults = AnswerSettings()
    yield ExtractiveAnswerer(embedder, min_evidence=0.0, max_sentences=defaults.max_sentences, hedge_below=0.0)
    embedder.close()


@pytest.mark.parametrize(
    ("question", "who", "said"),
    [
        ("What did Alex Miller say about the deps alias classpath in #tools?", "Alex Miller", ".cpcache"),
        ("What did Alex Miller suggest for the CI classpath?", "Alex Miller", ".cpcache"),
        ("What did Sean Corfield recommend about the deps alias classpath?", "Sean Corfield", ":replace-deps"),
        ("What did Alex Miller reply to Ana Lima about the CI classpath?", "Alex Miller", ".cpcache"),
        ("What did Sean Corfield reply to Ana Lima about pinning the CI classpath?", "Sean Corfield", ":replace-deps"),
    ],
)
def test_a_repliers_own_line_leads_cited(answerer: ExtractiveAnswerer, question: str, who: str, said: str) -> None:
    answer = answerer.answer(parsed(question, people=PEOPLE, places=["tools"]), [THREAD])
    assert not answer.no_answer, answer.text
    attribution, text = first_quote(answer)
    assert attribution.startswith(who) and said in text, answer.text
    theirs = {u.ref for u in THREAD.units if u.author == who}
    assert set(answer.cited[1]) <= theirs, answer.cited


def test_a_person_who_wrote_nothing_about_it_is_not_quoted_as_saying_it(answerer: ExtractiveAnswerer) -> None:
    question = parsed("What did Dana Levi say about the deps alias classpath in #tools?", people=PEOPLE)
    answer = answerer.answer(question, [THREAD])
    # Either refused, or said first that none of the lines is Dana's, each quoted line naming its real author.
    if not answer.no_answer:
        assert answer.text.startswith("None of these lines is by Dana Levi"), answer.text
    for line in answer.text.splitlines():
        if line.startswith("- "):
            assert not line[2:].startswith("Dana Levi"), answer.text


def test_a_persons_own_line_is_not_told_apart(answerer: ExtractiveAnswerer) -> None:
    question = parsed("What did Sean Corfield say about the deps alias classpath in #tools?", people=PEOPLE)
    answer = answerer.answer(question, [THREAD])
    assert answer.text.startswith("- Sean Corfield"), answer.text


# A report that words the question's topic better than the answer to it.
REPORT = slack(
    "slack:CTOOLS/2.0::0",
    "tools",
    (
        "Ana Lima",
        "Stale deps alias classpath on CI builds: the CI builds keep using a stale classpath after the deps alias "
        "changed.",
        at(3, 5, 9, 0),
    ),
    ("Alex Miller", "Delete the .cpcache folder; its cache key ignores edits to the alias.", at(3, 5, 9, 30)),
)


def test_a_reply_to_someone_quotes_the_reply_not_their_report(answerer: ExtractiveAnswerer) -> None:
    question = parsed(
        "What did Alex Miller reply to Ana Lima about the stale deps alias classpath on CI builds?", people=PEOPLE
    )
    answer = answerer.answer(question, [REPORT])
    attribution, text = first_quote(answer)
    assert attribution.startswith("Alex Miller") and ".cpcache" in text, answer.text


@pytest.mark.parametrize(
    ("question", "addressed"),
    [
        ("What did Alex Miller reply to Ana Lima about the classpath?", ("Ana Lima",)),
        ("What did Alex Miller tell Ana Lima about the classpath?", ("Ana Lima",)),
        ("What did Alex Miller say about Ana Lima's classpath?", ()),
        ("Who replied to Ana Lima about the classpath?", ()),
    ],
)
def test_the_person_addressed_is_not_the_doer(question: str, addressed: tuple[str, ...]) -> None:
    assert addressees(parsed(question, people=PEOPLE)) == addressed


# The people directory as the sources give it: a display name and the handles each person goes by.
DIRECTORY = Directory(
    people=[
        Person("U1", "Ana Lima", ("alima",), ()),
        Person("U2", "Sean Corfield", ("seancorfield",), ()),
        Person("U3", "Alex Miller", ("alexmiller",), ()),
    ]
)


@pytest.mark.parametrize(
    "question",
    [
        "What did alexmiller say about the deps alias classpath in #tools?",
        "What did Alex suggest for the CI classpath?",
        "What did alexmiller reply to alima about the stale deps alias classpath on CI builds?",
    ],
)
def test_a_person_named_by_handle_or_first_name_is_quoted(answerer: ExtractiveAnswerer, question: str) -> None:
    asked = parse(question, now=LATER, directory=DIRECTORY)
    assert doers(asked) == ("Alex Miller",), asked.people
    answer = answerer.answer(asked, [THREAD, REPORT])
    attribution, text = first_quote(answer)
    assert attribution.startswith("Alex Miller") and ".cpcache" in text, answer.text


def test_the_question_keeps_how_it_wrote_each_person() -> None:
    asked = parse("What did seancorfield reply to Ana about the classpath?", now=LATER, directory=DIRECTORY)
    assert asked.people == ("Sean Corfield", "Ana Lima")
    assert written(asked, "Sean Corfield") == ("Sean Corfield", "seancorfield")
    assert written(asked, "Ana Lima") == ("Ana Lima", "Ana")
    assert addressees(asked) == ("Ana Lima",)


TICKET = "jira:PLAT-41"


# A JIRA issue as the connector writes it: the field rows and the description are the reporter's units (their
# ref is the key), the comments are their own units.
TICKET_FIELDS = Unit(
    TICKET,
    "Type: Bug | Status: Closed | Priority: Critical\nResolution: Fixed\nAssignee: Dana Levi | Reporter: Ana Lima\n"
    "Components: HTTP client\nCreated: 2026-03-02 | Updated: 2026-03-09 | Resolved: 2026-03-09",
    "Ana Lima",
    at(3, 2, 9),
)
TICKET_REPORT = Unit(
    TICKET,
    "After a 401 from the server, the HTTP client sends each POST a second time before onerror is called.",
    "Ana Lima",
    at(3, 2, 9),
)
TICKET_ANSWER = Unit(
    f"{TICKET}#comment-7",
    "The second POST is the retry for the WWW-Authenticate challenge; the client now skips it when no "
    "credentials are set.",
    "Dana Levi",
    at(3, 9, 15),
)
TICKETS = [
    ticket_chunk(
        "PLAT-41", "HTTP client sends a second POST after a 401", [TICKET_FIELDS, TICKET_REPORT, TICKET_ANSWER], "PLAT"
    )
]
TICKET_PEOPLE = Directory(people=[Person("U1", "Ana Lima", ("alima",), ()), Person("U4", "Dana Levi", ("dlevi",), ())])


@pytest.mark.parametrize(
    "question",
    [
        "What did Ana Lima say about the HTTP client?",
        "What did Ana Lima report about the HTTP client in PLAT?",
        "What did alima say about the HTTP client?",
    ],
)
def test_an_items_field_rows_are_not_its_openers_words(answerer: ExtractiveAnswerer, question: str) -> None:
    # The rows name Ana as reporter and her name writes them, but the tracker wrote them: her description leads.
    answer = answerer.answer(parse(question, now=LATER, directory=TICKET_PEOPLE), TICKETS)
    assert not answer.no_answer, answer.text
    attribution, text = first_quote(answer)
    assert attribution.startswith("Ana Lima") and "a second time" in text, answer.text
    assert "Status: Closed" not in answer.text.splitlines()[0], answer.text


def test_the_doer_named_by_the_rows_alone_gets_no_lift_from_them(answerer: ExtractiveAnswerer) -> None:
    # Dana is named only by the rows (as assignee) and by her own comment: her comment answers.
    answer = answerer.answer(
        parse("What did Dana Levi say about the HTTP client?", now=LATER, directory=TICKET_PEOPLE), TICKETS
    )
    attribution, text = first_quote(answer)
    assert attribution.startswith("Dana Levi") and "WWW-Authenticate" in text, answer.text
