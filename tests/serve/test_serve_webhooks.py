"""Signed webhooks in, answers out: what a user of `brief serve` notices, over the real HTTP server."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.serve.conftest import Served, fixture, start

INCIDENT = "Payments API returns 502 for every checkout since the 14:05 deploy; rolling back build 4121 now."


def _message(text: str = INCIDENT, ts: str = "1596183880.004200", **event: Any) -> dict[str, Any]:
    payload = fixture("slack/message.json")
    payload["event"].update({"text": text, "ts": ts, "event_ts": ts, "blocks": [], **event})
    payload["event_id"] = f"Ev{ts.replace('.', '')}"
    return payload


@pytest.mark.slow
def test_a_posted_message_is_answerable_after_the_publish_delay(served: Served) -> None:
    assert served.slack(_message())[0] == 200
    assert "C111/1596183880.004200" in served.cached("team")  # in the raw cache at once
    served.ingestor.tick()  # the delay has not passed: nothing published yet
    assert served.ingestor.waiting() == 1
    served.publish()
    assert served.ingestor.waiting() == 0
    assert "slack:C111:1596183880.004200" in served.refs("Which build is being rolled back?")


@pytest.mark.slow
def test_a_wrong_or_stale_signature_is_refused_and_nothing_is_cached(served: Served) -> None:
    before = served.cached("team")
    assert served.slack(_message(), secret="not-the-secret")[0] == 401
    assert served.slack(_message(), stamp=served.wall.now - 301)[0] == 401
    gh = fixture("github/issues.opened.json")
    assert served.github("issues", gh, "d-1", secret="wrong")[0] == 401
    assert served.jira(fixture("jira/issue.created.json"), secret="wrong")[0] == 401
    assert served.cached("team") == before
    assert served.cached("gh") == {} and served.cached("tickets") == {}
    assert served.ingestor.waiting() == 0


@pytest.mark.slow
def test_the_url_verification_challenge_is_answered(served: Served) -> None:
    status, body = served.slack({"token": "t", "challenge": "3eZbrw1aBm2rZgRNFdxV", "type": "url_verification"})
    assert (status, body) == (200, {"challenge": "3eZbrw1aBm2rZgRNFdxV"})


@pytest.mark.slow
def test_a_replayed_event_is_ingested_once_even_after_a_restart(served: Served) -> None:
    payload = _message()
    assert served.slack(payload)[1]["ingested"] is True
    assert served.slack(payload)[1].get("duplicate") is True
    served.server.stop()
    again = start(served.config, served.fake)
    try:
        assert again.slack(payload)[1].get("duplicate") is True
        assert again.ingestor.accepted == 0
    finally:
        again.server.stop()


@pytest.mark.slow
def test_an_accepted_event_survives_a_crash_before_publishing(served: Served) -> None:
    assert served.slack(_message())[0] == 200
    # Killed before the batch is published: the lock and the index go with the process, nothing is drained.
    crashed = served.server
    assert crashed._stop_http is not None
    crashed._stop_http()
    crashed._stack.close()
    crashed._stop_http, crashed.ingestor = None, None  # nothing left for the fixture to stop
    again = start(served.config, served.fake)  # the journal says what is unpublished: it goes with the first batch
    try:
        assert again.ingestor.waiting() == 1
        again.publish()
        assert again.ingestor.waiting() == 0
        assert "slack:C111:1596183880.004200" in again.refs("Which build is being rolled back?")
    finally:
        again.server.stop()


@pytest.mark.slow
def test_edits_deletions_replies_and_renames_reach_the_cache_as_a_sync_writes_them(served: Served) -> None:
    served.slack(_message())
    edit = fixture("slack/message_changed.json")
    edit["event"]["message"]["text"] = "Payments API recovered after rolling back build 4121."
    edit["event"]["previous_message"]["ts"] = "1596183880.004200"
    edit["event_id"] = "EvEdit"
    assert served.slack(edit)[0] == 200
    reply = fixture("slack/thread_broadcast.json")
    reply["event"]["thread_ts"] = "1596183880.004200"
    reply["event_id"] = "EvReply"  # the recorded payloads share one made-up event id
    assert served.slack(reply)[0] == 200
    cached = served.cached("team")
    assert cached["C111/1596183880.004200"]["text"].startswith("Payments API recovered")
    assert cached["C111/1633670813.007500"]["_channel"] == {"id": "C111", "name": "incidents"}
    rename = fixture("slack/channel_rename.json")
    rename["event"]["channel"].update({"id": "C111", "name": "inc-payments", "name_normalized": "inc-payments"})
    rename["event_id"] = "EvRename"
    assert served.slack(rename)[0] == 200
    gone = fixture("slack/message_deleted.json")
    gone["event"]["deleted_ts"] = "1633670813.007500"
    gone["event_id"] = "EvGone"
    assert served.slack(gone)[0] == 200
    cached = served.cached("team")
    assert "C111/1633670813.007500" not in cached
    assert cached["channel/C111"]["name"] == "inc-payments"
    served.publish()
    answer = served.ask("What happened to the payments API?")
    assert "slack:C111:1596183880.004200" in {r for c in answer["citations"] for r in c["refs"]}


@pytest.mark.slow
def test_github_issue_comment_and_review_events_become_one_cached_record(served: Served) -> None:
    opened = fixture("github/issues.opened.json")
    assert served.github("issues", opened, "d-open")[0] == 200
    comment = fixture("github/issue_comment.created.json")
    comment["comment"]["body"] = "The flaky spelling check fails on the README heading; pinning the dictionary."
    assert served.github("issue_comment", comment, "d-comment")[0] == 200
    pull = fixture("github/pull_request.opened.json")
    assert served.github("pull_request", pull, "d-pr")[0] == 200
    review = fixture("github/pull_request_review.submitted.json")
    assert served.github("pull_request_review", review, "d-review")[0] == 200
    other = copy.deepcopy(opened)
    other["repository"]["full_name"] = "someone/else"
    assert served.github("issues", other, "d-other")[1]["ingested"] is False
    cached = served.cached("gh")
    assert set(cached) == {"Codertocat/Hello-World#1", "Codertocat/Hello-World#2"}
    assert [c["body"] for c in cached["Codertocat/Hello-World#1"]["comments"]][-1].startswith("The flaky")
    assert len(cached["Codertocat/Hello-World#2"]["reviews"]) == 1
    served.publish()
    assert "github:Codertocat/Hello-World#1" in {
        r.split("/comment-")[0] for r in served.refs("Why does the spelling check fail on the README?")
    }
    deleted = fixture("github/issues.deleted.json")
    assert served.github("issues", deleted, "d-delete")[0] == 200
    assert "Codertocat/Hello-World#1" not in served.cached("gh")


@pytest.mark.slow
def test_jira_issue_and_comment_events_update_the_ticket(served: Served) -> None:
    assert served.jira(fixture("jira/issue.created.json"))[0] == 200
    assert served.jira(fixture("jira/issue.updated.status-changed.json"))[0] == 200
    updated = fixture("jira/comment.updated.json")
    assert served.jira(updated)[0] == 200  # INDEV-28 is not cached yet: the sync brings it
    cached = served.cached("tickets")
    assert set(cached) == {"BBCOM-1398", "INDEV-6"}
    history = cached["INDEV-6"]["changelog"]["histories"]
    assert history[-1]["items"][0]["toString"] == "In Progress"
    assert served.jira(fixture("jira/issue.updated.status-changed.json"))[1].get("duplicate") is True
    served.publish()
    assert any(r.startswith("jira:INDEV-6") for r in served.refs("What is the status of INDEV-6?"))


@pytest.mark.slow
def test_the_run_log_says_how_many_items_each_path_brought(served: Served) -> None:
    import json

    served.slack(_message())
    served.github("issues", fixture("github/issues.opened.json"), "d-open")
    served.publish()
    served.ingestor.sync(["team"])
    runs = [json.loads(line) for line in (served.server.settings.home / "logs" / "runs.jsonl").read_text().splitlines()]
    events = next(r for r in runs if r["command"] == "serve")
    assert events["paths"] == {"events": {"team": 1, "gh": 1}} and events["status"] == "ok"
    sync = runs[-1]
    assert sync["command"] == "ingest" and sync["paths"]["sync"]["team"] >= 1


@pytest.mark.slow
def test_a_jira_comment_without_its_issue_finds_it_by_id_and_a_deleted_issue_leaves(served: Served) -> None:
    created = fixture("jira/issue.created.json")
    created["issue"]["id"] = "26313"  # the issue the recorded comment's URL points at
    assert served.jira(created)[0] == 200
    comment = fixture("jira/comment.created.json")  # JIRA Server's older shape: the comment only
    comment["comment"]["body"] = "Reproduced on the staging cluster: the importer drops rows with a null region."
    assert served.jira(comment)[1]["ingested"] is True
    comments = served.cached("tickets")["BBCOM-1398"]["fields"]["comment"]["comments"]
    assert [c["id"] for c in comments] == ["31039"]
    served.publish()
    assert any(r.startswith("jira:BBCOM-1398") for r in served.refs("What does the importer drop on staging?"))
    deleted = {**fixture("jira/issue.created.json"), "webhookEvent": "jira:issue_deleted", "timestamp": 1}
    assert served.jira(deleted)[0] == 200
    assert "BBCOM-1398" not in served.cached("tickets")
    served.publish()
    assert not any(r.startswith("jira:BBCOM-1398") for r in served.refs("What does the importer drop on staging?"))
