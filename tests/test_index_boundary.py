"""The index module owns every Qdrant type: the rest of the code speaks `Filter`, `IndexHit`, `Chunk`, `Record`."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_only_the_index_module_imports_qdrant() -> None:
    offenders = []
    for package in ("src/briefing", "chunkers", "connectors"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path == ROOT / "src/briefing/index.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
                if isinstance(node, ast.ImportFrom) and node.module:
                    names = [node.module]
                if any(n == "qdrant_client" or n.startswith("qdrant_client.") for n in names):
                    offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []
