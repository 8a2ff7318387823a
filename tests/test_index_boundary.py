"""The index modules own every Qdrant type: the rest of the code speaks `Filter`, `IndexHit`, `Chunk`, `Record`."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OWNERS = set((ROOT / "src/briefing/index").glob("*.py"))
QDRANT = ("qdrant_client", "qdrant_edge")


@pytest.mark.slow
def test_only_the_index_modules_import_qdrant() -> None:
    offenders = []
    for package in ("src/briefing", "chunkers", "connectors"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path in OWNERS:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
                if isinstance(node, ast.ImportFrom) and node.module:
                    names = [node.module]
                if any(n.split(".")[0] in QDRANT for n in names):
                    offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_no_qdrant_import_at_module_level_so_help_stays_fast() -> None:
    """`brief --help` must not pay for an engine: both index modules import Qdrant inside functions only."""
    for path in sorted(OWNERS):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
        names = [a.name for n in top if isinstance(n, ast.Import) for a in n.names]
        names += [n.module or "" for n in top if isinstance(n, ast.ImportFrom)]
        assert not [n for n in names if n.split(".")[0] in QDRANT], path.name
