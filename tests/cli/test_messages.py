"""Error messages as a new user meets them: text in square brackets survives, typos get the close key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from briefing.cli.app import app

runner = CliRunner()


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, " ".join(result.output.split())


def test_square_brackets_in_an_error_are_printed_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no ./brief.toml here, and BRIEF_HOME is the test's own
    code, output = run("ingest")
    assert code == 3
    assert "add a [sources.NAME] table" in output


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        ('[sources.team]\ntype = "slack_export"\npth = "x"\n', "unknown key 'sources.team.pth' (did you mean 'path'?)"),
        ("[retrieval]\ncandidate = 5\n", "unknown key 'retrieval.candidate' (did you mean 'candidates'?)"),
        ('[sources.team]\ntype = "slak"\n', "unknown source type 'slak' at 'sources.team'"),
        ('[sources.team]\ntype = "files"\n', "missing key 'sources.team.path'"),
    ],
)
def test_config_mistakes_name_the_key_and_the_likely_fix(tmp_path: Path, toml: str, expected: str) -> None:
    config = tmp_path / "brief.toml"
    config.write_text(toml, encoding="utf-8")
    code, output = run("--config", str(config), "sources")
    assert code == 2
    assert f"{config}: {expected}" in output
    assert ".slack_export." not in output and ".files." not in output  # no internal union level in key paths


def test_piped_answers_are_plain_lines_with_unbroken_urls(use_sample) -> None:
    result = runner.invoke(
        app,
        ["--config", str(use_sample.config), "ask", "Who is on call this week?", "--now", "2026-06-15T09:00:00+00:00"],
    )
    assert result.exit_code == 0, result.output
    assert not any(ch in result.stdout for ch in "╭╮╰╯│─"), "no panel boxes when stdout is not a terminal"
    lines = result.stdout.splitlines()
    cited = [line for line in lines if line.lstrip().startswith("[") and "https://" in line]
    assert cited, "citations carry their links"
    # A citation line is one line however long (the console's 80 columns would otherwise cut the permalink).
    assert any(len(line) > 80 for line in cited)
    for line in cited:
        assert re.search(r"https://\S+/archives/C\w+/p\d{16}$", line), line
