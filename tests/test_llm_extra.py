"""DSPy and LiteLLM are the optional `llm` extra: without them the default (extractive) install answers, and a
config that names an LLM fails with one line naming the extra. Run in a subprocess whose imports of dspy and
litellm fail, as they do on an install without the extra."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

BLOCK = """
import sys
class _NoLLM:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('dspy', 'litellm'):
            raise ModuleNotFoundError(f"No module named '{name}'", name=name)
        return None
sys.meta_path.insert(0, _NoLLM())
from briefing.cli.app import main
sys.argv = ['brief', *sys.argv[1:]]
main()
"""


def brief(use_sample: Any, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", BLOCK, "--config", str(use_sample.config), *args],
        env={**os.environ, "BRIEF_HOME": str(use_sample.home), **env},
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_default_install_answers_without_dspy(use_sample: Any) -> None:
    done = brief(use_sample, "ask", "What did we decide about connection pooling?", "--json", "--now", "2026-06-15")
    assert done.returncode == 0, done.stderr
    assert '"citations": [{' in done.stdout


def test_the_default_install_briefs_a_week_without_dspy(use_sample: Any) -> None:
    # "What happened ... last week?" goes to the briefing engine, whose LLM line writer needs the extra; without an
    # LLM configured it must not even be imported (`brief demo` asks this on a plain `pip install .`).
    done = brief(use_sample, "ask", "What happened in #incidents last week?", "--json", "--now", "2026-06-15")
    assert done.returncode == 0, done.stderr
    assert "No module named" not in done.stderr
    assert '"citations": [{' in done.stdout


def test_an_llm_config_without_the_extra_is_one_line_naming_it(use_sample: Any) -> None:
    done = brief(use_sample, "ask", "pooling?", BRIEF_LLM__MODEL="openai/gpt-4o-mini")
    assert done.returncode == 8
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "pip install 'brief[llm]'" in lines[0] and "[llm] model = 'openai/gpt-4o-mini'" in lines[0]
    assert "Traceback" not in done.stderr
