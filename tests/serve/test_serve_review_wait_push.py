"""A review waiting on a person fires once after its hours, and GitHub `push` deliveries record their commits.

Over the recorded octokit payloads (tests/fixtures/webhooks/README.md): a pull request opened, a review requested
from `octocat`, and `octocat`'s review; a push of one commit to a new branch and a push that deleted a tag. The
watch is evaluated by the server's own schedule (`Server.watch_tick`, as its worker calls it) and by `brief watch
run` (cron), both as of the injected wall clock, through the file target of `[delivery]`.
"""

from __future__ import annotations

import copy
import json
from datetime import datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from briefing import pipeline
from briefing.cli.app import app
from briefing.devserver.slack import SlackFake
from briefing.errors import InputError
from briefing.ops import watch
from briefing.settings import load_settings
from tests.serve.conftest import Served, fixture, start, write_config

REQUESTED = datetime.fromisoformat("2019-05-15T15:20:33+00:00").timestamp()  # the recorded review request
HOUR = 3600.0
PR2, PR3 = "github:Codertocat/Hello-World#2", "github:Codertocat/Hello-World#3"


def _numbered(payload: dict[str, object], number: int) -> dict[str, object]:
    changed = copy.deepcopy(payload)
    pull = changed["pull_request"]
    assert isinstance(pull, dict)
    changed["number"] = pull["number"] = number
    return changed


def _tick(served: Served, *, hours_after_request: float) -> dict[str, int] | None:
    served.wall.now = REQUESTED + hours_after_request * HOUR
    served.clock.now += served.server.settings.serve.watch_every_s
    return served.server.watch_tick()


@pytest.mark.slow
def test_a_review_waiting_longer_than_its_hours_fires_once_and_a_reviewed_one_never(
    tmp_path: Path, secrets: None, slack_fake: SlackFake
) -> None:
    config = write_config(tmp_path, slack_fake.url, extra='[delivery]\nfile = "notes.md"\n')
    pipeline.run(load_settings(config), ["team"])
    served = start(config, slack_fake, wall=REQUESTED + 60)
    notes = tmp_path / "notes.md"
    try:
        opened, requested = (
            fixture("github/pull_request.opened.json"),
            fixture("github/pull_request.review_requested.json"),
        )
        review = fixture("github/pull_request_review.submitted.json")
        review["review"]["user"] = requested["requested_reviewer"]  # octocat reviews #3, two hours after the request
        review["review"]["submitted_at"] = "2019-05-15T17:20:33Z"
        for n, (event, payload) in enumerate(
            [
                ("pull_request", opened),
                ("pull_request", requested),
                ("pull_request", _numbered(opened, 3)),
                ("pull_request", _numbered(requested, 3)),
                ("pull_request_review", _numbered(review, 3)),
            ]
        ):
            assert served.github(event, payload, f"d-{n}") == (200, {"ok": True, "ingested": True, "failures": []})
        assert served.github("pull_request", requested, "d-1")[1].get("duplicate") is True
        served.publish()
        added, _ = watch.add_watch(served.server.settings, target=None, query=None, sources=[], reviewer="octocat")

        assert _tick(served, hours_after_request=23) == {"new": 0, "delivered": 0, "failed": 0, "queued": 0}
        assert not notes.exists()  # not before the threshold
        assert served.server.watch_tick() is None  # not due again until watch_every_s has passed
        assert _tick(served, hours_after_request=25) == {"new": 1, "delivered": 1, "failed": 0, "queued": 0}
        text = notes.read_text()
        assert text.count(f"[1] {PR2}") == 1 and "review waiting on octocat" in text
        assert PR3 not in text  # octocat reviewed #3: its request is no longer pending
        assert _tick(served, hours_after_request=49)["new"] == 0  # type: ignore[index]
    finally:
        served.server.stop()
    # The same watch from cron, after the server stopped: nothing is delivered twice.
    result = CliRunner().invoke(app, ["--config", str(config), "watch", "run", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["new"] == 0
    assert notes.read_text().count(f"[1] {PR2}") == 1
    listed = CliRunner().invoke(app, ["--config", str(config), "watch", "list", "--json"])
    assert json.loads(listed.stdout)["watches"][0]["reviewer"] == "octocat" == added.reviewer


@pytest.mark.slow
def test_a_review_watch_names_a_person_of_the_people_directory(
    tmp_path: Path, secrets: None, slack_fake: SlackFake
) -> None:
    config = write_config(tmp_path, slack_fake.url)
    pipeline.run(load_settings(config), ["team"])
    result = CliRunner().invoke(app, ["--config", str(config), "watch", "add", "--review-waiting", "nobody-here"])
    assert result.exit_code == InputError.exit_code and "--review-waiting 'nobody-here' names nobody" in result.output


@pytest.mark.slow
def test_a_push_records_its_commits_once_and_a_tag_deletion_records_nothing(served: Served) -> None:
    push = fixture("github/push.with-new-branch.json")
    sha = push["commits"][0]["id"]
    assert served.github("push", push, "p-1", secret="wrong")[0] == 401
    assert f"Codertocat/Hello-World@{sha}" not in served.cached("gh")
    assert served.github("push", push, "p-1")[1].get("ingested") is True
    assert served.github("push", push, "p-1")[1].get("duplicate") is True  # GitHub's redelivery
    assert served.github("push", fixture("github/push.tag-deleted.json"), "p-2")[1] == {"ok": True, "ingested": False}
    cached = served.cached("gh")
    assert cached[f"Codertocat/Hello-World@{sha}"]["message"] == "Initial commit"
    served.publish()
    refs = served.refs("What was the initial commit of Hello-World?")
    assert f"github:Codertocat/Hello-World@{sha}" in refs
