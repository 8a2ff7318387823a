"""The docs describe the product as it is: one version everywhere, a short README, no development journal."""

from __future__ import annotations

import ast
import io
import os
import re
import subprocess
import sys
import tokenize
import tomllib
from pathlib import Path

import pytest

import briefing

ROOT = Path(__file__).resolve().parents[1]
README_MAX_LINES = 150

# Development history: "stop 21", "Stop 21b", "stop-22", "stops 20-26"; "issue 15", "issue #16"; "this session",
# "last session", "the earlier session's", "eight sessions". A quoted example of what users type ("issue #12" in
# a comment about parsing questions) is product text, so a quote or backtick right before "issue" is allowed.
# A number followed by a unit is a quantity ("it stops 2 s after"), not a name.
_NOT_A_UNIT = r"(?!\s*(?:s|ms|min|minutes?|seconds?|hours?|h|%|x)\b)"
STOP = re.compile(r"\b[Ss]tops?[ -]?\d+[a-z]?\b" + _NOT_A_UNIT)
ISSUE = re.compile(r"(?<![\"'`])\b[Ii]ssues? #?\d+\b" + _NOT_A_UNIT)
SESSION = re.compile(
    r"\b(?:this|last|next|previous|earlier|later|current|that|each|another|other|same|whole"
    r"|\d+|two|three|four|five|six|seven|eight|nine|ten)\s+sessions?\b",
    re.I,
)
# Paths of a development machine. A bare "/tmp" (a systemd PrivateTmp= note, say) is product text; a path under it
# ("/tmp/olk/home") is somebody's scratch folder.
DEV_PATH = re.compile(r"(?<![\w.$~-])/(?:work|root)/|(?<![\w.$~-])/tmp/[\w.-]")
PATTERNS = {"stop N": STOP, "issue N": ISSUE, "session": SESSION, "development path": DEV_PATH}


def _project_version() -> str:
    return str(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"])


def _offences(text: str, where: str, first_line: int = 1) -> list[str]:
    found = []
    for number, line in enumerate(text.splitlines(), start=first_line):
        for name, pattern in PATTERNS.items():
            for match in pattern.finditer(line):
                found.append(f"{where}:{number}: {name}: {match.group(0)!r} in {line.strip()[:120]!r}")
    return found


def _doc_files() -> list[Path]:
    return [
        ROOT / "README.md",
        ROOT / "CHANGELOG.md",
        ROOT / "eval" / "README.md",
        *sorted((ROOT / "docs").glob("*.md")),
        *sorted((ROOT / "config").glob("*.toml")),
    ]


def _comments_and_docstrings(path: Path) -> list[tuple[int, str]]:
    """Every comment and docstring of a module, with the line it starts on."""
    source = path.read_text(encoding="utf-8")
    found = [
        (tok.start[0], tok.string)
        for tok in tokenize.generate_tokens(io.StringIO(source).readline)
        if tok.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                if isinstance(body[0].value.value, str):
                    found.append((body[0].lineno, body[0].value.value))
    return found


def test_the_package_version_is_the_project_version() -> None:
    # Read from the code, not from installed metadata: an editable install keeps the metadata of the day it was made.
    assert briefing.__version__ == _project_version()


def test_brief_version_prints_the_project_version() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-m", "briefing", "--version"], capture_output=True, text=True, timeout=60, env=env, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"brief {_project_version()}"


def test_the_changelog_opens_with_the_project_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    first = next(line for line in text.splitlines() if line.startswith("## ["))
    assert first.startswith(f"## [{_project_version()}]"), first


def test_the_readme_is_short() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; keep it to {README_MAX_LINES}"


def test_the_quickstart_test_line_is_the_line_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci_line = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    block = readme.split("## Quickstart", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0].splitlines()
    assert len(block) == 2, block
    assert block[1] == ci_line


def test_docs_and_config_carry_no_development_journal() -> None:
    found = [
        offence
        for path in _doc_files()
        for offence in _offences(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    ]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("text", ["since stop 22", "Stop 21b", "stop-23 indexes", "issue 15", "issue #16",
                                  "this session", "the earlier session's", "stops 20-26",
                                  "issues 14 and 15", "at /work/homes/olake", "/tmp/olk/home",
                                  "/root/.cache"])  # fmt: skip
def test_the_patterns_catch_the_journal(text: str) -> None:
    assert _offences(text, "probe")


@pytest.mark.parametrize("text", ["`PrivateTmp=` keeps /tmp private", "a requests session", "ONNX sessions",
                                  'written as "issue #12" or "PR 45"', "$BRIEF_HOME/workspaces/x",
                                  "/path/to/shared/corpora/olake", "brief stops 2 s after", "issues 404s",
                                  "stop 3 minutes later"])  # fmt: skip
def test_the_patterns_leave_product_text_alone(text: str) -> None:
    assert not _offences(text, "probe")


def test_code_comments_and_docstrings_carry_no_development_journal() -> None:
    found = []
    for package in ("src/briefing", "connectors", "chunkers"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for line, text in _comments_and_docstrings(path):
                found += _offences(text, str(path.relative_to(ROOT)), first_line=line)
    assert not found, "\n".join(found)
