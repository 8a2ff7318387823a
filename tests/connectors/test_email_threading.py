"""Threads as the jwz algorithm builds them: references first, then the base subject within a time window."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime

import pytest

from connectors.email.mime import Parsed, parse
from connectors.email.threads import base_subject, threads

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def _message(mid: str, subject: str, *, days: float = 0, refs: tuple[str, ...] = ()) -> Parsed:
    msg = EmailMessage()
    msg["From"] = "Dana Levi <dana@example.com>"
    msg["To"] = "team@example.com"
    msg["Subject"] = subject
    msg["Message-ID"] = f"<{mid}>"
    msg["Date"] = format_datetime(T0 + timedelta(days=days))
    if refs:
        msg["References"] = " ".join(f"<{r}>" for r in refs)
        msg["In-Reply-To"] = f"<{refs[-1]}>"
    msg.set_content(f"Body of {mid}.")
    return parse(msg.as_bytes())


def _groups(messages: list[Parsed]) -> list[list[str]]:
    return sorted(sorted(m.message_id for m in thread) for thread in threads(messages))


@pytest.mark.parametrize(
    ("subject", "base"),
    [
        ("Re: [List] Re[4]: subject", "subject"),
        ("AW: SV: Fwd: [linux-arm] Re(2): Rollout plan", "Rollout plan"),
        ("FW: RE: Budget", "Budget"),
        ("Re: [PATCH v2 3/7] arm64: fix the timer", "[PATCH v2 3/7] arm64: fix the timer"),
        ("Re: [PATCHv2-next 0/3] Odroid c2 regulators", "[PATCHv2-next 0/3] Odroid c2 regulators"),
    ],
)
def test_reply_and_forward_prefixes_and_list_tags_are_removed_from_the_base_subject(subject: str, base: str) -> None:
    assert base_subject(subject) == base


def test_two_replies_to_a_missing_parent_are_one_thread() -> None:
    # jwzthreading's test_thread_two_missing_parent: both children of an absent message.
    first = _message("first", "Child", refs=("parent",))
    second = _message("second", "Child", days=0.1, refs=("parent",))
    assert _groups([first, second]) == [["first", "second"]]


def test_a_localised_reply_without_headers_joins_by_subject_within_the_window() -> None:
    start = _message("start", "[team] Rollout plan")
    answer = _message("answer", "AW: [team] Re[2]: Rollout plan", days=2)
    late = _message("late", "SV: Rollout plan", days=45)
    assert _groups([start, answer, late]) == [["answer", "start"], ["late"]]


def test_the_same_subject_without_references_joins_only_when_close_in_time() -> None:
    monday = _message("mon", "Build failed", days=0)
    tuesday = _message("tue", "Build failed", days=1)
    next_month = _message("later", "Build failed", days=30)
    assert _groups([monday, tuesday, next_month]) == [["later"], ["mon", "tue"]]


def test_a_false_references_header_does_not_merge_unrelated_threads() -> None:
    deploy = _message("deploy", "Deploy plan")
    quarterly = _message("numbers", "Quarterly numbers", days=70, refs=("deploy",))
    assert _groups([deploy, quarterly]) == [["deploy"], ["numbers"]]


def test_a_reply_that_changes_subject_or_comes_late_still_follows_its_references() -> None:
    deploy = _message("deploy", "Deploy plan")
    renamed = _message("renamed", "Rollback steps (was: Deploy plan)", days=3, refs=("deploy",))
    months_later = _message("months", "Re: Deploy plan", days=200, refs=("deploy",))
    assert _groups([deploy, renamed, months_later]) == [["deploy", "months", "renamed"]]
