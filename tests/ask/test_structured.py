"""Structured answers as of now over both JIRA shapes: a role asked of a ticket named by description, and the tickets
someone finished in a week, read from the tickets' state and changelog through a real index and its `View`.

Server/Data Center: users by name and key, a v2 changelog (an assignment, a resolution by the assignee, a close by
someone else). Cloud: the recorded fixture issues (an assignment made a minute after work started).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from briefing.ask.blocking import answer_open
from briefing.ask.described import answer_described
from briefing.ask.extractive import ExtractiveAnswer
from briefing.ask.finished import answer_finished
from briefing.index import Filter, Index
from briefing.model import Chunk, ChunkLimits, Document, RawRecord
from briefing.model import Item as MailItem
from briefing.question.parse import parse, wants
from briefing.question.words import ASKS_READY
from briefing.settings import QdrantSettings, Settings, WorkspaceSettings
from chunkers.email import chunk_thread
from chunkers.jira import chunk_issue
from connectors.jira.normalise import issue_document, normalise_issues
from tests.test_asof_state import _history, _item, _server_issue, _sparse, _user

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "jira"
ROOMY = ChunkLimits(max_tokens=100_000, max_chars=1_000_000, max_items=1000)
REFUSED = ExtractiveAnswer(text="The sources do not cover this.", no_answer=True)


def _mockups_issue() -> dict[str, object]:
    """A second Server ticket: reported and discussed by Matthias, assigned to Zoe, still open."""
    matt, zoe = _user("matzew", "Matthias Wessendorf"), _user("zbraden", "Zoe Braden")
    data = _server_issue()
    fields = dict(data["fields"])  # type: ignore[arg-type]
    fields.update(
        summary="User management mockups",
        status={"name": "In Progress"},
        resolution=None,
        resolutiondate=None,
        fixVersions=[{"name": "0.9.0"}],
        issuelinks=[{"type": {"name": "Blocks", "inward": "is blocked by", "outward": "blocks"},
                     "inwardIssue": {"key": "AEROGEAR-50", "fields": {"summary": "Admin console skeleton"}}}],
        assignee=zoe,
        description="Mockups for the user management screens of the admin console.",
        comment={"comments": [{"id": "77", "author": matt, "body": "I sketched the user list.",
                               "created": "2013-07-16T10:00:00.000+0200", "updated": "2013-07-16T10:00:00.000+0200"}]},
    )  # fmt: skip
    changelog = {
        "startAt": 0,
        "maxResults": 2,
        "total": 2,
        "histories": [
            _history("11", "2013-07-12T09:00:00.000+0200", matt, _item("assignee", None, "Zoe Braden")),
            _history("12", "2013-07-15T09:00:00.000+0200", zoe, _item("status", "Open", "In Progress")),
        ],
    }
    return {"id": "12346", "key": "AEROGEAR-43", "names": data["names"], "fields": fields, "changelog": changelog}


def _cloud_chunks() -> list[Chunk]:
    issues = json.loads((FIXTURES / "issues.json").read_text(encoding="utf-8"))
    names = {"customfield_10020": "Sprint", "customfield_10014": "Epic Link"}
    records = [RawRecord(i["key"], "jira_issue", {**i, "names": names}) for i in issues]
    documents = normalise_issues(records, base_url="https://acme.atlassian.net").documents
    return [chunk for document in documents for chunk in chunk_issue(document, limits=ROOMY)]


@pytest.fixture
def index(tmp_path: Path) -> Iterator[Index]:
    settings = Settings(workspace=WorkspaceSettings(name="structured"), qdrant=QdrantSettings(path=tmp_path / "index"))
    idx = Index.open(settings)
    chunks = [
        *chunk_issue(issue_document(_server_issue(), base_url="https://issues.example.org"), limits=ROOMY),
        *chunk_issue(issue_document(_mockups_issue(), base_url="https://issues.example.org"), limits=ROOMY),
        *_cloud_chunks(),
    ]
    for chunk in chunks:
        chunk.source_name = "jira"
    idx.ensure(4, "m")
    idx.upsert(chunks, np.ones((len(chunks), 4), dtype=np.float32), [_sparse(c.text) for c in chunks], "m")
    idx.commit()
    yield idx
    idx.close()


def _ask_role(index: Index, question: str, now: str, first: str) -> ExtractiveAnswer | None:
    """The role answer, retrieval stood in for by the ticket `first`'s reply chunks ranked above everything."""
    at = datetime.fromisoformat(now)
    view = index.view(at)
    parsed = parse(question, now=at)
    asked = wants(parsed)
    assert asked.described
    chunks = view.chunks(Filter())
    evidence = sorted(chunks, key=lambda c: (c.doc_key != first, c.metadata.get("section") == "body", c.chunk_id))
    found = answer_described(asked.fields, parsed, REFUSED, evidence, view)
    return found[0] if found is not None else None


def test_server_role_of_a_ticket_named_by_description_is_its_assignee_as_of_now(index: Index) -> None:
    # The best-ranked line is Matthias's comment on the ticket; the ticket is Zoe's.
    found = _ask_role(
        index, "Who is doing the user management mockups?", "2013-07-20T00:00:00+00:00", "jira:AEROGEAR-43"
    )
    assert found is not None and not found.no_answer
    assert found.text == 'AEROGEAR-43 ("User management mockups") is assigned to Zoe Braden [1].'
    assert found.cited == {1: ["jira:AEROGEAR-43"]}
    # Asked before it was assigned to her, it was nobody's.
    before = _ask_role(index, "Who owns the ticket about user management mockups?", "2013-07-11T00:00:00+00:00",
                       "jira:AEROGEAR-43")  # fmt: skip
    assert before is not None and "is unassigned" in before.text and "Zoe" not in before.text


@pytest.mark.parametrize("verb", ["worked on", "looked into", "handled"])
def test_who_worked_on_a_ticket_is_its_assignee_not_its_commenter(index: Index, verb: str) -> None:
    # Matthias reported the mockups ticket and wrote its only comment; Zoe holds it.
    found = _ask_role(index, f"Who {verb} the user management mockups?", "2013-07-20T00:00:00+00:00",
                      "jira:AEROGEAR-43")  # fmt: skip
    assert found is not None
    assert found.text == 'AEROGEAR-43 ("User management mockups") is assigned to Zoe Braden [1].'


def test_whose_ticket_it_is_is_its_assignee(index: Index) -> None:
    found = _ask_role(index, "Whose ticket is the user management mockups?", "2013-07-20T00:00:00+00:00",
                      "jira:AEROGEAR-43")  # fmt: skip
    assert found is not None
    assert found.text == 'AEROGEAR-43 ("User management mockups") is assigned to Zoe Braden [1].'


def test_server_reporter_and_a_ticket_the_question_is_not_about(index: Index) -> None:
    found = _ask_role(index, "Who filed the ticket about SimplePush on OpenShift?", "2014-01-01T00:00:00+00:00",
                      "jira:AEROGEAR-42")  # fmt: skip
    assert found is not None and "was reported by Matthias Wessendorf [1]" in found.text
    # The best-ranked tickets say nothing of Kubernetes: no ticket's role is read, the fact path answers.
    assert _ask_role(index, "Who is assigned the ticket about Kubernetes autoscaling?", "2014-01-01T00:00:00+00:00",
                     "jira:AEROGEAR-42") is None  # fmt: skip


def test_cloud_role_of_a_ticket_named_by_description_before_and_after_assignment(index: Index) -> None:
    now = _ask_role(index, "Who is working on the statements CSV export?", "2026-06-01T00:00:00+00:00", "jira:ACME-2")
    # ACME-2 ranks first but is about timeouts; ACME-1 is the statements export, Alice's.
    assert now is not None and now.text.startswith('ACME-1 ("Export statements as CSV") is assigned to Alice Chen')
    started = _ask_role(index, "Who is working on the statements CSV export?", "2026-05-04T09:30:30+00:00",
                        "jira:ACME-1")  # fmt: skip
    assert started is not None and "ACME-1" in started.text and "is unassigned" in started.text


def _finished(index: Index, question: str, now: str, zone: str = "UTC") -> ExtractiveAnswer | None:
    at = datetime.fromisoformat(now)
    parsed = parse(question, now=at, timezone=zone)
    asked = wants(parsed).finished
    assert asked is not None and parsed.kind == "listing"
    found = answer_finished(asked, parsed, REFUSED, index.view(at), zone=ZoneInfo(zone))
    return found[0] if found is not None else None


def test_the_tickets_someone_finished_last_week_come_from_their_resolving_transition(index: Index) -> None:
    found = _finished(index, "Which tickets did Zoe finish last week?", "2013-07-29T09:00:00+00:00")
    assert found is not None
    lines = found.text.splitlines()
    assert lines[0] == "1 ticket finished by Zoe last week, oldest first:"
    assert lines[1].startswith("- AEROGEAR-42: Run SimplePush on OpenShift (finished Thu 25 Jul, by Zoe Braden) [1]")
    assert found.cited == {1: ["jira:AEROGEAR-42#change-3"]}  # the changelog entry that resolved it
    assert "AEROGEAR-43" not in found.text  # still in progress
    # The week before, nothing was finished; and closing what Zoe resolved is not finishing it.
    assert _finished(index, "Which tickets did Zoe finish last week?", "2013-07-22T09:00:00+00:00") is None
    assert _finished(index, "Which tickets did Matthias close last week?", "2013-08-05T09:00:00+00:00") is None


def test_a_finished_item_is_listed_on_its_day_in_the_workspaces_zone(index: Index) -> None:
    # Resolved 2013-07-25 13:00 UTC: already Friday the 26th in Auckland, where the workspace's weeks are read too.
    found = _finished(index, "Which tickets did Zoe finish last week?", "2013-07-29T09:00:00+12:00", "Pacific/Auckland")
    assert found is not None
    assert "(finished Fri 26 Jul, by Zoe Braden)" in found.text, found.text


def test_how_many_tickets_someone_finished_is_the_listing_and_its_count(index: Index) -> None:
    found = _finished(index, "How many tickets did Zoe finish last week?", "2013-07-29T09:00:00+00:00")
    assert found is not None
    assert found.text.splitlines()[0] == "1 ticket finished by Zoe last week, oldest first:", found.text


def test_a_type_the_question_names_keeps_only_items_of_that_type(index: Index) -> None:
    """The resolved ticket is a feature request: asked for bugs, none was finished; asked for features, it was."""
    assert _finished(index, "How many bugs did Zoe fix last week?", "2013-07-29T09:00:00+00:00") is None
    found = _finished(index, "Which feature tickets did Zoe finish last week?", "2013-07-29T09:00:00+00:00")
    assert found is not None and "AEROGEAR-42" in found.text, found


def test_what_was_resolved_lists_every_finisher_and_never_a_resolution_after_now(index: Index) -> None:
    found = _finished(index, "What was resolved last week?", "2013-07-29T09:00:00+00:00")
    assert found is not None and "AEROGEAR-42" in found.text and "by Zoe Braden" in found.text
    # Asked on the morning of the 25th (the resolution came at 15:00 that day), this week holds nothing yet.
    assert _finished(index, "What was resolved this week?", "2013-07-25T09:00:00+00:00") is None


def _pending(index: Index, question: str, now: str) -> ExtractiveAnswer | None:
    at = datetime.fromisoformat(now)
    parsed = parse(question, now=at)
    asked = wants(parsed).open_for
    assert asked and parsed.kind == "listing"
    found = answer_open(asked, REFUSED, index.view(at), zone=UTC)
    return found[0] if found is not None else None


def test_a_release_with_unresolved_tickets_is_not_ready(index: Index) -> None:
    at = datetime.fromisoformat("2013-07-20T00:00:00+00:00")
    parsed = parse("Is 0.9.0 ready to ship?", now=at)
    assert wants(parsed).open_for == ("0.9.0",) and ASKS_READY.search(parsed.text)
    found = answer_open(("0.9.0",), REFUSED, index.view(at), zone=UTC, ready=True)
    assert found is not None
    assert found[0].text.splitlines()[0] == "No — 1 item with fix version 0.9.0 not resolved as of 2013-07-20:"
    # Release notes being ready, or a fix in a release, are not the release's readiness.
    for other in ("Are the 0.9.0 release notes ready?", "Is the fix ready in 0.9.0?"):
        assert not wants(parse(other, now=at)).open_for, other


@pytest.mark.parametrize(
    "question",
    [
        "What is blocking the 0.9.0 release?",
        "What remains to be done for 0.9.0?",
        "What do we still need to finish for 0.9.0?",
        "What is keeping us from shipping 0.9.0?",
    ],
)
def test_what_blocks_a_release_is_its_unresolved_tickets_as_of_now(index: Index, question: str) -> None:
    found = _pending(index, question, "2013-07-20T00:00:00+00:00")
    assert found is not None
    lines = found.text.splitlines()
    assert lines[0] == "1 item with fix version 0.9.0 not resolved as of 2013-07-20:"
    assert lines[1] == (
        "- AEROGEAR-43: User management mockups (In Progress, assignee Zoe Braden; blocked by AEROGEAR-50) [1]"
    )
    assert found.cited == {1: ["jira:AEROGEAR-43"]}
    # AEROGEAR-42 got fix version 0.8.0 in the entry that resolved it: never listed as open for it, before or after.
    assert _pending(index, "What's left for 0.8.0?", "2013-07-20T00:00:00+00:00") is None
    assert _pending(index, "What's left for 0.8.0?", "2013-07-26T00:00:00+00:00") is None


@pytest.mark.parametrize(
    "question",
    [
        "What is Zoe Braden working on?",
        "Which tickets is Zoe assigned to?",
        "Which open issues does Zoe have?",
        "What is Zoe busy with?",
        "What is assigned to Zoe Braden?",
        "What does Zoe have open?",
        "What does Zoe have on her plate?",
    ],
)
def test_what_someone_is_working_on_is_their_unresolved_tickets_as_of_now(index: Index, question: str) -> None:
    at = datetime.fromisoformat("2013-07-20T00:00:00+00:00")
    parsed = parse(question, now=at)
    asked = wants(parsed).assigned_to
    assert asked.startswith("Zoe") and parsed.kind == "listing"
    found = answer_open((), REFUSED, index.view(at), zone=UTC, person=asked)
    assert found is not None
    lines = found[0].text.splitlines()
    assert lines[0] == f"2 items assigned to {asked} not resolved as of 2013-07-20:", found[0].text
    assert lines[1:] == [
        "- AEROGEAR-42: Run SimplePush on OpenShift (In Progress) [1]",
        "- AEROGEAR-43: User management mockups (In Progress; blocked by AEROGEAR-50) [2]",
    ], found[0].text
    # Once AEROGEAR-42 is resolved (on the 25th), only the mockups remain hers.
    later = answer_open((), REFUSED, index.view(datetime(2013, 7, 29, tzinfo=UTC)), zone=UTC, person=asked)
    assert later is not None and later[1] == ["jira:AEROGEAR-43"], later


def test_an_event_named_by_description_answers_its_organiser_by_title() -> None:
    from briefing.ask import described
    from briefing.ask.fields import read_field
    from briefing.ask.item_model import Item
    from briefing.model import Unit

    header = Unit(
        "calendar:7f3a9c@example.org",
        "Meeting: Platform retro\nWhen: Thu 2026-06-11 15:00-16:00 UTC\nOrganiser: Lena Vogt\nAttendees: Sam, Aiko",
        "Lena Vogt",
        datetime.fromisoformat("2026-06-01T09:00:00+00:00"),
    )
    item = Item(header.ref, "7f3a9c@example.org", header, (header,))
    titled = described._titled(item, "Platform retro")
    found = read_field(titled, "organiser")
    assert found is not None and found[0].replace("\x00", "") == '"Platform retro" was organised by Lena Vogt'
    assert parse("Who organised the platform retro?", now=datetime.fromisoformat("2026-06-15T00:00:00+00:00")).extra[
        "wants"
    ].fields == ("organiser",)


def _briefed(index: Index, question: str, now: str, first: str) -> str | None:
    """The item a briefing question names by description, retrieval stood in for by `first`'s chunks first."""
    from briefing.ask.described import briefed_item

    at = datetime.fromisoformat(now)
    view = index.view(at)
    parsed = parse(question, now=at)
    asked = wants(parsed)
    assert parsed.kind == "briefing" and asked.topic
    evidence = sorted(view.chunks(Filter()), key=lambda c: (c.doc_key != first, c.chunk_id))
    return briefed_item(parsed, asked.topic, evidence, view)


def test_a_briefing_on_a_ticket_named_by_description_is_that_tickets_story(index: Index) -> None:
    # AEROGEAR-42 ranks first; the question describes AEROGEAR-43, whose week it is.
    asked = "What happened in the ticket about the user management mockups last week?"
    assert _briefed(index, asked, "2013-07-22T09:00:00+00:00", "jira:AEROGEAR-42") == "jira:AEROGEAR-43"
    asked = "What happened to the user management mockups ticket this week?"
    assert _briefed(index, asked, "2013-07-19T09:00:00+00:00", "jira:AEROGEAR-43") == "jira:AEROGEAR-43"
    # No ticket is about Kubernetes; a briefing that names no item by description is left to its topic.
    asked = "What happened in the ticket about Kubernetes autoscaling last week?"
    assert _briefed(index, asked, "2013-07-22T09:00:00+00:00", "jira:AEROGEAR-42") is None
    assert _briefed(index, "What happened with user management mockups last week?", "2013-07-22T09:00:00+00:00",
                    "jira:AEROGEAR-43") is None  # fmt: skip


def _mail(ref: str, author: str, day: int, subject: str, text: str) -> MailItem:
    return MailItem(ref=ref, source_type="email", kind="message", text=text, author=author, title=subject,
                    occurred_at=datetime(2019, 9, day, 9, tzinfo=UTC), container="linux-arm-kernel")  # fmt: skip


PATCH = "[PATCH v2 0/2] Fix GMII2RGMII private field"
REVIEWED = Document(
    key="email:gmii@example.org",
    kind="thread",
    source_type="email",
    title=PATCH,
    container="linux-arm-kernel",
    items=[
        _mail("email:gmii@example.org", "Harini Katakam", 3, PATCH,
              "Fix the usage of the external phy's priv field.\nReviewed-by: Michal Simek <michal@example.org>"),
        _mail("email:lunn@example.org", "Andrew Lunn", 4, f"Re: {PATCH}",
              "> Signed-off-by: Harini Katakam <harini@example.org>\n> Tested-by: Quoted Person <q@example.org>\n"
              "Reviewed-by: Andrew Lunn <andrew@example.org>"),
        _mail("email:florian@example.org", "Florian Fainelli", 5, f"Re: {PATCH}",
              "Looks good.\n\nAcked-by: Florian Fainelli <florian@example.org>"),
        _mail("email:davem@example.org", "David Miller", 6, f"Re: {PATCH}", "Series applied to net-next."),
    ],
)  # fmt: skip


@pytest.fixture
def mail_index(tmp_path: Path) -> Iterator[Index]:
    settings = Settings(workspace=WorkspaceSettings(name="mail"), qdrant=QdrantSettings(path=tmp_path / "index"))
    idx = Index.open(settings)
    chunks = chunk_thread(REVIEWED, limits=ROOMY)
    idx.ensure(4, "m")
    idx.upsert(chunks, np.ones((len(chunks), 4), dtype=np.float32), [_sparse(c.text) for c in chunks], "m")
    idx.commit()
    yield idx
    idx.close()


def test_a_mail_threads_reviewers_are_read_from_its_review_tags(mail_index: Index) -> None:
    found = _ask_role(mail_index, "Who reviewed the GMII2RGMII private field fix?", "2019-09-20T00:00:00+00:00",
                      "email:gmii@example.org")  # fmt: skip
    assert found is not None and not found.no_answer
    # The tags carried by the patch and given in replies, each cited to its mail; a quoted tag and the author's
    # sign-off are not reviews, and the maintainer who applied it gave none.
    assert found.text == (
        f'"{PATCH}" was reviewed by Michal Simek (Reviewed-by) [1], Andrew Lunn (Reviewed-by) [2], '
        "Florian Fainelli (Acked-by) [3]."
    )
    cited = {1: ["email:gmii@example.org"], 2: ["email:lunn@example.org"], 3: ["email:florian@example.org"]}
    assert found.cited == cited
    acked = _ask_role(mail_index, "Who acked the GMII2RGMII private field fix?", "2019-09-20T00:00:00+00:00",
                      "email:gmii@example.org")  # fmt: skip
    assert acked is not None and acked.text == f'"{PATCH}" was reviewed by Florian Fainelli (Acked-by) [1].'
    started = _ask_role(mail_index, "Who sent the patch that fixes the GMII2RGMII private field?",
                        "2019-09-20T00:00:00+00:00", "email:gmii@example.org")  # fmt: skip
    assert started is not None and started.text == f'"{PATCH}" was started by Harini Katakam [1].'
    # Asked before anyone replied, only the tag the patch itself carries is there.
    early = _ask_role(mail_index, "Who reviewed the GMII2RGMII private field fix?", "2019-09-03T12:00:00+00:00",
                      "email:gmii@example.org")  # fmt: skip
    assert early is not None and early.text == f'"{PATCH}" was reviewed by Michal Simek (Reviewed-by) [1].'


def test_who_resolved_a_ticket_is_the_author_of_its_resolving_transition(index: Index) -> None:
    """Zoe resolved AEROGEAR-42 on 25 July; Matthias closed it later, which ended nothing (it was done)."""
    from briefing.ask.fields import answer_fields

    at = datetime.fromisoformat("2013-08-05T09:00:00+00:00")
    found = answer_fields(("resolver",), ["AEROGEAR-42"], REFUSED, index.view(at))
    assert found is not None and found.text == "AEROGEAR-42 was resolved by Zoe Braden on 2013-07-25 [1].", found
    assert found.cited == {1: ["jira:AEROGEAR-42#change-3"]}
    # Before the resolution the view holds no such change: the ticket is not resolved yet.
    before = answer_fields(("resolver",), ["AEROGEAR-42"], REFUSED, index.view(datetime(2013, 7, 20, tzinfo=UTC)))
    assert before is not None and before.text.startswith("AEROGEAR-42 is not resolved; its status is"), before


def test_changelog_entries_are_no_comments(index: Index) -> None:
    """Zoe's changes to AEROGEAR-42 (an assignment, its resolution) are no comments; Matthias's line on -43 is one."""
    from briefing.ask.listing import Period
    from briefing.ask.reviewed import answer_reviews

    def listed(question: str, now: str) -> ExtractiveAnswer | None:
        at = datetime.fromisoformat(now)
        parsed = parse(question, now=at)
        asked, window = wants(parsed).records, parsed.window
        assert asked is not None and window is not None
        period = Period.asked((window.start, window.end), window.label, "", UTC)
        found = answer_reviews(asked, REFUSED, period, index.view(at), parsed)
        return found[0] if found is not None else None

    assert listed("Which tickets did Zoe Braden comment on last week?", "2013-07-29T09:00:00+00:00") is None
    found = listed("Which tickets did Matthias comment on last week?", "2013-07-22T09:00:00+00:00")
    assert found is not None and found.text.splitlines()[1].startswith("- AEROGEAR-43: User management mockups")
