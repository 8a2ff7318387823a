"""Unusable questions are clear errors (exit code 10), before any index or model is touched."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from briefing.cli.app import app
from briefing.errors import InputError
from briefing.service import Brief
from briefing.settings import Settings
from tests.ask.conftest import NOW


@pytest.mark.parametrize("question", ["", "   \n\t ", "x" * 20_000])
def test_unusable_questions_raise_input_error(question: str) -> None:
    with Brief(Settings()) as brief, pytest.raises(InputError, match="question"):
        brief.ask(question, now=NOW)


@pytest.mark.parametrize("question", ["", "why " * 5000])
def test_cli_exit_code_for_unusable_questions(question: str) -> None:
    result = CliRunner().invoke(app, ["ask", question, "--now", NOW.isoformat()])
    assert result.exit_code == 10, result.output
