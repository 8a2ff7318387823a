"""The local vendor servers are the demo's: no other product module imports `briefing.devserver`."""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "src" / "briefing"
DEMO = CORE / "cli" / "demo.py"


def test_only_the_demo_command_imports_the_dev_servers() -> None:
    importers = []
    for path in sorted(CORE.rglob("*.py")):
        if path == DEMO or (CORE / "devserver") in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                # `from briefing import devserver` names the package as one of its imports
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            if any(name == "briefing.devserver" or name.startswith("briefing.devserver.") for name in names):
                importers.append(str(path.relative_to(CORE)))
    assert importers == []
    assert "briefing.devserver" in DEMO.read_text(encoding="utf-8")  # the check looks at the right tree
