"""Which pull requests or patches someone reviewed in a period: listed from the reviews themselves, cited to them.

GitHub: PyGithub's pull request #538 synced by the real connector from the local GitHub server
(`test_asof_github_state`): jzelinskie approved it on 22 March 2017, electrofelix and sfdye commented in reviews a
year later. Mail: a patch series written to an mbox and read by the local mail connector, reviewed by tag.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from briefing.ask.extractive import ExtractiveAnswer
from briefing.ask.listing import Period, same_person
from briefing.ask.reviewed import answer_reviews
from briefing.index import Index
from briefing.model import ChunkLimits, Document
from briefing.question.listings import reviews_asked
from briefing.question.parse import parse, wants
from briefing.settings import QdrantSettings, Settings, WorkspaceSettings
from chunkers.email import chunk_thread
from tests.ask.test_inventory import pulls as pulls  # noqa: F401 (the index of PR #538)
from tests.ask.test_structured import REFUSED
from tests.connectors.test_email_local import documents as mail_documents
from tests.connectors.test_email_local import message, run, write_mbox
from tests.test_asof_github_state import _sparse
from tests.test_asof_github_state import documents as documents  # noqa: F401 (the synced GitHub documents)


def _listed(index: Index, question: str, now: str) -> ExtractiveAnswer | None:
    at = datetime.fromisoformat(now)
    parsed = parse(question, now=at)
    records = wants(parsed).records
    window = parsed.window
    assert records is not None and window is not None and parsed.kind == "listing", question
    period = Period.asked((window.start, window.end), window.label, "", UTC)
    found = answer_reviews(records, REFUSED, period, index.view(at), parsed)
    return found[0] if found is not None else None


@pytest.mark.parametrize(
    ("question", "event", "by", "kind"),
    [
        ("Which PRs did jzelinskie review last week?", "reviewed", "jzelinskie", "PRs"),
        ("What did Rob ack this week?", "approved", "Rob", ""),
        ("Which patches has Dana Levi approved this month?", "approved", "Dana Levi", "patches"),
        ("Which pull requests did Lee request changes on last week?", "changes requested", "Lee", "pull requests"),
        ("What PRs did sam sign off on yesterday?", "approved", "sam", "PRs"),
        ("Which PRs were approved last week?", "approved", "", "PRs"),
        ("Which pull requests had changes requested this week?", "changes requested", "", "pull requests"),
    ],
)
def test_reviews_given_are_read_with_their_reviewer_and_verdict(question: str, event: str, by: str, kind: str) -> None:
    asked = reviews_asked(question)
    assert asked is not None and (asked.event, asked.by, asked.kind) == (event, by, kind), asked


@pytest.mark.parametrize(
    ("question", "by", "kind"),
    [
        ("Which tickets did Feon Sua Xin Miao comment on last week?", "Feon Sua Xin Miao", "tickets"),
        ("What did Dana reply to this week?", "Dana", ""),
        ("Which threads has Rob replied to this month?", "Rob", "threads"),
        ("What did Lee weigh in on yesterday?", "Lee", ""),
    ],
)
def test_comments_given_are_read_with_their_writer(question: str, by: str, kind: str) -> None:
    asked = reviews_asked(question)
    assert asked is not None and (asked.event, asked.by, asked.kind) == ("commented", by, kind), asked


def test_the_prs_someone_commented_on_count_each_comment_once(pulls: Index) -> None:  # noqa: F811
    found = _listed(pulls, "Which PRs did sfdye comment on this month?", "2018-03-24T09:00:00+00:00")
    assert found is not None
    lines = found.text.splitlines()
    assert lines[0] == "1 PR commented on by sfdye this month, oldest first:"
    assert lines[1].endswith("(by allevin; 3 comments: Tue 20 Mar) [1]"), lines[1]
    assert len(found.cited[1]) == 3 and all("comment-1053" in ref for ref in found.cited[1])


def test_a_thread_someone_replied_to_is_listed_not_one_they_only_started(mail: Index) -> None:
    found = _listed(mail, "Which threads did Sam Ortiz reply to last week?", "2026-05-11T09:00:00+00:00")
    assert found is not None and found.text.splitlines()[0].startswith("1 thread commented on by Sam Ortiz")
    assert found.cited == {1: ["email:rv@x"]}


@pytest.mark.parametrize(
    "question",
    [
        "Which PRs were merged last week?",
        "Who reviewed PR #57?",
        "Which PRs are waiting for review?",
        "What did Dana do?",
    ],
)
def test_other_questions_ask_for_no_reviews(question: str) -> None:
    assert reviews_asked(question) is None


def test_the_prs_someone_reviewed_last_week_are_listed_cited_by_the_review(pulls: Index) -> None:  # noqa: F811
    found = _listed(pulls, "Which PRs did jzelinskie review last week?", "2017-03-27T09:00:00+00:00")
    assert found is not None, "the approval of 22 March is a review last week"
    lines = found.text.splitlines()
    assert lines[0] == "1 PR reviewed by jzelinskie last week, oldest first:"
    assert lines[1].startswith('- PR #538 "Add Support for Pull Request Reviews feature" (by allevin; approved Wed')
    assert found.cited == {1: ["github:PyGithub/PyGithub#538/comment-28482091"]}
    # The week before, he had reviewed nothing: no listing (the fact path answers).
    assert _listed(pulls, "Which PRs did jzelinskie review last week?", "2017-03-20T09:00:00+00:00") is None


def test_approvals_are_not_comments(pulls: Index) -> None:  # noqa: F811
    """sfdye commented in three reviews in March 2018: reviews, not approvals; anyone's reviews name each reviewer."""
    assert _listed(pulls, "Which PRs did sfdye approve this week?", "2018-03-24T09:00:00+00:00") is None
    found = _listed(pulls, "Which PRs were reviewed this month?", "2018-03-24T09:00:00+00:00")
    assert found is not None
    line = found.text.splitlines()[1]
    assert "commented by electrofelix Fri 16 Mar" in line and "commented by sfdye Tue 20 Mar" in line, line
    assert "jzelinskie" not in found.text  # his approval was a year before


@pytest.fixture
def mail(tmp_path: Path) -> Iterator[Index]:
    msgs = [message("c0@x", "[PATCH v2 0/2] ledger: faster reconciliation", "Cover letter.")]
    # The second patch carries Lee's review of v1 forward: Dana wrote it, so it is no review given here.
    msgs += [
        message("p1@x", "[PATCH v2 1/2] ledger: step 1", "Step 1.\n\nSigned-off-by: Dana Levi <dana@example.com>"),
        message(
            "p2@x", "[PATCH v2 2/2] ledger: step 2",
            "Step 2.\n\nReviewed-by: Lee Park <lee@example.com>\nSigned-off-by: Dana Levi <dana@example.com>",
            minutes=1,
        ),
        message(
            "rv@x", "Re: [PATCH v2 1/2] ledger: step 1", "Right.\n\nReviewed-by: Sam Ortiz <sam@example.com>",
            minutes=9, reply_to="p1@x", sender="Sam Ortiz <sam@example.com>",
        ),
        message(
            "ak@x", "Re: [PATCH v2 2/2] ledger: step 2", "Acked-by: Ana Ortiz <ana@example.com>",
            minutes=20, reply_to="p2@x", sender="Ana Ortiz <ana@example.com>",
        ),
    ]  # fmt: skip
    write_mbox(tmp_path / "s.mbox", msgs)
    docs: dict[str, Document] = mail_documents(run(tmp_path / "s.mbox")[0])
    settings = Settings(workspace=WorkspaceSettings(name="mail"), qdrant=QdrantSettings(path=tmp_path / "index"))
    idx = Index.open(settings)
    chunks = [c for d in docs.values() for c in chunk_thread(d, limits=ChunkLimits(max_chars=1200))]
    idx.ensure(4, "m")
    idx.upsert(chunks, np.ones((len(chunks), 4), dtype=np.float32), [_sparse(c.text) for c in chunks], "m")
    idx.commit()
    yield idx
    idx.close()


def test_a_review_tag_counts_in_its_reviewers_own_message(mail: Index) -> None:
    found = _listed(mail, "Which patches did Sam Ortiz review last week?", "2026-05-11T09:00:00+00:00")
    assert found is not None
    assert found.text.splitlines() == [
        "1 patch reviewed by Sam Ortiz last week, oldest first:",
        '- "[PATCH v2 0/2] ledger: faster reconciliation" (Reviewed-by Mon 4 May) [1]',
    ]
    assert found.cited == {1: ["email:rv@x"]}
    # Lee's tag was carried forward in Dana's patch; "Ana" is not "Sam"'s family, nor is Ana Ortiz Sam Ortiz.
    assert _listed(mail, "Which patches did Lee Park review last week?", "2026-05-11T09:00:00+00:00") is None
    acked = _listed(mail, "Which patches were acked last week?", "2026-05-11T09:00:00+00:00")
    assert acked is not None and "Acked-by: Ana Ortiz Mon 4 May" in acked.text and "Sam" not in acked.text


def test_a_first_name_is_the_person_a_full_name_is_not_another() -> None:
    assert same_person("Andrew Murray", "Andrew") and same_person("andrew", "Andrew Murray")
    assert not same_person("Andrew Jeffery", "Andrew Murray")
    assert not same_person("", "Andrew") and not same_person("Andrew", " ")


def test_who_reviewed_the_most_counts_the_reviewed_prs_by_reviewer(pulls: Index) -> None:  # noqa: F811
    at = "2018-03-24T09:00:00+00:00"
    asked = wants(parse("Who reviewed the most PRs this month?", now=datetime.fromisoformat(at))).records
    assert asked is not None and asked.by_person and asked.event == "reviewed"
    found = _listed(pulls, "Who reviewed the most PRs this month?", at)
    assert found is not None
    lines = found.text.splitlines()
    assert lines[0] == "electrofelix and sfdye reviewed the most: 1 of 1 PRs reviewed this month. By reviewer:"
    assert lines[1:] == ["- electrofelix: 1 [1]", "- sfdye: 1 [2]"]
    assert found.cited[2] == ["github:PyGithub/PyGithub#538/comment-105368184"]  # sfdye's latest review of it


def test_nobody_is_no_reviewer_and_the_team_is_anyone() -> None:
    assert reviews_asked("Which PRs did nobody review last week?") is None  # what was not done: not this listing
    asked = reviews_asked("What did we comment on last week?")
    assert asked is not None and asked.by == ""
    team = reviews_asked("Which PRs did the team approve this week?")
    assert team is not None and (team.by, team.event) == ("", "approved")


def test_who_merged_the_most_counts_the_merged_prs_by_who_merged_them(pulls: Index) -> None:  # noqa: F811
    from briefing.ask.counted import answer_by_actor

    at = datetime.fromisoformat("2017-03-28T09:00:00+00:00")
    parsed = parse("Who merged the most PRs this month?", now=at)
    records, window = wants(parsed).records, parsed.window
    assert records is not None and records.by_person and records.event == "merged" and window is not None
    period = Period.asked((window.start, window.end), window.label, "", UTC)
    found = answer_by_actor(records, REFUSED, period, pulls.view(at), parsed)
    assert found is not None
    assert found[0].text.splitlines() == [
        "jzelinskie merged the most: 1 of 1 PRs merged this month:",
        "- jzelinskie: 1 (PyGithub/PyGithub#538) [1]",
    ]
