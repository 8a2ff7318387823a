"""Each regular expression of the answer stage and the question parser says what class of text it reads.

A pattern defined at module level in `briefing.ask`, `briefing.question` or `briefing.textrules` carries a comment
on its own lines or heads a block of definitions that opens with one ("Question text: ...", "Evidence text: ..."),
so a reader can tell a rule for a class of text from a rule for one case.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "src" / "briefing"
READERS = [*sorted((CORE / "ask").rglob("*.py")), *sorted((CORE / "question").glob("*.py")), CORE / "textrules.py"]


def _compiles(tree: ast.Module) -> list[ast.stmt]:
    """The module-level assignments of a `re.compile(...)` call."""
    found: list[ast.stmt] = []
    for node in tree.body:
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "compile":
            found.append(node)
    return found


def unexplained(path: Path, root: Path = CORE) -> list[str]:
    """`path:line` of each pattern with no comment on its lines or at the head of its block of definitions."""
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    comments = {t.start[0] for t in tokens if t.type == tokenize.COMMENT}
    missing = []
    for node in _compiles(ast.parse(text)):
        end = node.end_lineno or node.lineno
        said = any(n in comments for n in range(node.lineno, end + 1))
        above = node.lineno - 1
        while not said and above >= 1 and lines[above - 1].strip():
            said = above in comments and lines[above - 1].lstrip().startswith("#")
            above -= 1
        if not said:
            missing.append(f"{path.relative_to(root)}:{node.lineno}")
    return missing


def test_every_answer_stage_pattern_names_its_class_of_text() -> None:
    assert len(READERS) > 40
    assert sum(len(_compiles(ast.parse(p.read_text(encoding="utf-8")))) for p in READERS) > 150
    missing = [where for path in READERS for where in unexplained(path)]
    assert not missing, f"patterns without a comment saying what text they read: {missing}"


def test_a_pattern_without_a_comment_is_found(tmp_path: Path) -> None:
    bare = tmp_path / "bare.py"
    bare.write_text(
        'import re\n\nX = 1\n_WORD = re.compile(r"#\\w+")\n\n# Question text: a hash tag.\n_TAG = re.compile(r"#")\n'
    )
    assert [w.split(":")[1] for w in unexplained(bare, tmp_path)] == ["4"]
