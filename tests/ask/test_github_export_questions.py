"""Pull-request questions over an offline GitHub export, through the real pipeline and the real command line.

A small slice in the olake export shape (flat pulls/commits/tags) and a release-notes file: ingest, then ask who
wrote a PR, when it was merged, which tag came after it, and what a tag holds; the citations open the PR page.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from briefing.cli.app import app

REPO = "acme/payments"
SHA = [
    "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
    "0f1e2d3c4b5a69788796a5b4c3d2e1f001234567",
    "1234567890abcdef1234567890abcdef12345678",
    "fedcba9876543210fedcba9876543210fedcba98",
]
PULLS = [
    {
        "number": 41,
        "title": "fix(payouts): retry failed payouts with exponential backoff",
        "author": "dana-ruiz",
        "merged_at": "2026-05-04T10:00:00+05:30",
        "merge_commit_sha": SHA[0],
        "body": "Payout retries now back off exponentially, capped at five minutes.",
    },
    {
        "number": 44,
        "title": "feat(ledger): export the ledger to Parquet",
        "author": "eli-park",
        "merged_at": "2026-05-11T16:30:00+05:30",
        "merge_commit_sha": SHA[1],
        "body": "",
    },
    {
        "number": 47,
        "title": "chore(deps): bump the protobuf runtime to 5.29",
        "author": "dependabot[bot]",
        "merged_at": "2026-05-13T09:00:00Z",
        "merge_commit_sha": SHA[3],
        "body": "Signed-off-by: dependabot[bot]",
    },
]
COMMITS = [
    {"sha": SHA[0], "date": "2026-05-04T10:00:00+05:30", "author": "Dana Ruiz",
     "message": "fix(payouts): retry failed payouts with exponential backoff (#41)"},
    {"sha": SHA[1], "date": "2026-05-11T16:30:00+05:30", "author": "Eli Park",
     "message": "feat(ledger): export the ledger to Parquet (#44)"},
    {"sha": SHA[3], "date": "2026-05-13T09:00:00Z", "author": "dependabot[bot]",
     "message": "chore(deps): bump the protobuf runtime to 5.29 (#47)"},
]  # fmt: skip
TAGS = [
    {"tag_name": "v1.3.0", "created_at": "2026-04-28T08:00:00Z", "sha": SHA[2]},
    {"tag_name": "v1.4.0", "created_at": "2026-05-12T08:00:00Z", "sha": SHA[2]},
    {"tag_name": "v1.4.1", "created_at": "2026-05-14T08:00:00Z", "sha": SHA[3]},
    {"tag_name": "v1.4.10", "created_at": "2026-05-18T08:00:00Z", "sha": SHA[3]},
    # Cut after the questions' now: it does not exist yet for them.
    {"tag_name": "v1.5.0", "created_at": "2026-05-25T08:00:00Z", "sha": SHA[3]},
]
NOTES = """# Payments 1.4

## Bug fixes

1. **Payout retries** - failed payouts are retried with backoff instead of failing the batch.
"""
NOW = "2026-05-20T09:00:00+00:00"
runner = CliRunner()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The workspace, ingested once for the module: every test only reads it (config, home)."""
    tmp_path = tmp_path_factory.mktemp("gh-questions")
    home = tmp_path / "home"
    with pytest.MonkeyPatch.context() as env:
        for name in [n for n in os.environ if n.startswith("BRIEF_")]:
            env.delenv(name)
        env.setenv("BRIEF_HOME", str(home))
        return _ingest(tmp_path), home


@pytest.fixture
def workspace(built: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> Path:
    config, home = built
    monkeypatch.setenv("BRIEF_HOME", str(home))
    return config


def _ingest(tmp_path: Path) -> Path:
    export = tmp_path / "github"
    export.mkdir()
    for name, data in (("pulls.json", PULLS), ("commits.json", COMMITS), ("tags.json", TAGS)):
        (export / name).write_text(json.dumps(data), encoding="utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "release-1.4.md").write_text(NOTES, encoding="utf-8")
    config = tmp_path / "brief.toml"
    config.write_text(
        '[workspace]\nname = "gh-questions"\n'
        f'[sources.github]\ntype = "github"\npath = "{export}"\nrepos = ["{REPO}"]\n'
        f'[sources.docs]\ntype = "files"\npath = "{tmp_path / "docs"}"\n',
        encoding="utf-8",
    )
    result = runner.invoke(app, ["--config", str(config), "ingest"])
    assert result.exit_code == 0, result.output
    return config


def ask(config: Path, question: str) -> dict:
    result = runner.invoke(app, ["--config", str(config), "ask", question, "--json", "--now", NOW])
    assert result.exit_code == 0, result.output
    answer: dict = json.loads(result.stdout)
    return answer


def cited(answer: dict) -> list[str]:
    return [ref for c in answer["citations"] for ref in c["refs"]]


def test_who_wrote_a_pull_request_is_answered_and_cites_its_page(workspace: Path) -> None:
    answer = ask(workspace, "Who authored PR #41?")
    assert not answer["no_answer"]
    assert "dana-ruiz" in answer["answer"]
    first = answer["citations"][0]
    assert first["refs"] == [f"github:{REPO}#41"]
    assert first["url"] == f"https://github.com/{REPO}/pull/41"


def test_the_merge_day_and_the_next_tag_are_in_the_answer(workspace: Path) -> None:
    merged = ask(workspace, "When was the ledger Parquet export pull request merged?")
    assert "2026-05-11" in merged["answer"]
    assert f"github:{REPO}#44" in cited(merged)
    # Merged on 11 May, after v1.3.0 and before v1.4.0 was cut on 12 May.
    shipped = ask(workspace, "Which tag first shipped the payout retry backoff fix?")
    assert "v1.4.0" in shipped["answer"]
    assert f"github:{REPO}#41" in cited(shipped) or f"github:{REPO}@release:v1.4.0" in cited(shipped)


def test_a_tag_lists_the_pull_requests_merged_before_it(workspace: Path) -> None:
    answer = ask(workspace, "What went into tag v1.4.0?")
    assert f"github:{REPO}@release:v1.4.0" in cited(answer)
    assert "#41" in answer["answer"] and "#44" in answer["answer"]
    assert "#47" not in answer["answer"]  # merged after the tag


def test_a_commit_links_to_its_pull_request(workspace: Path) -> None:
    result = runner.invoke(
        app, ["--config", str(workspace), "search", "protobuf runtime bump commit", "--json", "--now", NOW]
    )
    assert result.exit_code == 0, result.output
    hits = json.loads(result.stdout)["hits"]
    commits = [h for h in hits if any(r == f"github:{REPO}@{SHA[3]}" for r in h["refs"])]
    assert commits, [h["refs"] for h in hits]
    # The export has no line counts: the commit line does not claim "+0 -0, 0 files".
    assert "0 files" not in commits[0]["text"]


def search(config: Path, question: str) -> list[dict]:
    result = runner.invoke(app, ["--config", str(config), "search", question, "--json", "--now", NOW])
    assert result.exit_code == 0, result.output
    hits: list[dict] = json.loads(result.stdout)["hits"]
    return hits


def test_the_exact_tag_named_ranks_first_not_its_neighbours(workspace: Path) -> None:
    # v1.4.1 is neither v1.4.10 nor v1.4.0 (whose notes come right before it).
    assert search(workspace, "When was the v1.4.1 tag cut?")[0]["refs"] == [f"github:{REPO}@release:v1.4.1"]
    assert search(workspace, "When was the v1.4.10 tag cut?")[0]["refs"] == [f"github:{REPO}@release:v1.4.10"]
    answer = ask(workspace, "When was the v1.4.1 tag cut?")
    assert cited(answer)[0] == f"github:{REPO}@release:v1.4.1"
    assert "14 May" in answer["answer"] or "2026-05-14" in answer["answer"]


def test_the_most_recent_tag_is_the_newest_as_of_now(workspace: Path) -> None:
    # v1.4.10 (18 May), not v1.5.0, which is cut after the question's now (20 May).
    for question in ("What is the most recent tag?", "Which is the latest tag?"):
        assert search(workspace, question)[0]["refs"] == [f"github:{REPO}@release:v1.4.10"], question


def test_a_pull_request_named_by_number_is_its_own_first_hit(workspace: Path) -> None:
    # The tag that lists PR 44 and the commit that names it come after the pull request itself.
    for question in ("What changed in PR 44?", "Who wrote PR #44?", "What did pull request 44 do?"):
        assert search(workspace, question)[0]["refs"] == [f"github:{REPO}#44"], question


def test_which_pull_requests_were_merged_in_a_period_lists_them(workspace: Path) -> None:
    # Every PR merged in May as of the 20th, oldest first, each citing its own page (`briefing.ask.listing`).
    month = ask(workspace, "Which PRs were merged in May?")
    assert not month["no_answer"]
    assert cited(month) == [f"github:{REPO}#41", f"github:{REPO}#44", f"github:{REPO}#47"], month["answer"]
    assert month["answer"].splitlines()[0].startswith("3 PRs merged in May")
    assert "export the ledger to Parquet" in month["answer"] and "(eli-park, merged" in month["answer"]
    # "The second week of May" is 8 to 14 May: not #41, merged on the 4th.
    week = ask(workspace, "Which pull requests were merged in the second week of May?")
    assert cited(week) == [f"github:{REPO}#44", f"github:{REPO}#47"], week["answer"]
    assert "the second week of May" in week["answer"].splitlines()[0]
