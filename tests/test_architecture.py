"""The import arrow: connectors and chunkers use only the core's model, settings, error and registry modules.

The core finds connectors and chunkers through `briefing.registry` by dotted path and never imports them itself,
so a new source cannot quietly couple to retrieval, the index or the CLI.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ALLOWED_CORE = {"briefing.model", "briefing.settings", "briefing.errors", "briefing.registry", "briefing.textrules"}


def imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def test_connectors_and_chunkers_import_only_the_core_contracts() -> None:
    offenders = []
    for package in ("connectors", "chunkers"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for module in imports(path):
                if module.startswith("briefing") and module not in ALLOWED_CORE:
                    offenders.append(f"{path.relative_to(ROOT)} imports {module}")
    assert offenders == []


def test_core_never_imports_connectors_or_chunkers_directly() -> None:
    offenders = []
    for path in sorted((ROOT / "src" / "briefing").rglob("*.py")):
        for module in imports(path):
            if module.split(".")[0] in {"connectors", "chunkers"}:
                offenders.append(f"{path.relative_to(ROOT)} imports {module}")
    assert offenders == []


def test_chunkers_do_not_import_connectors() -> None:
    offenders = [
        f"{path.relative_to(ROOT)} imports {module}"
        for path in sorted((ROOT / "chunkers").rglob("*.py"))
        for module in imports(path)
        if module.split(".")[0] == "connectors"
    ]
    assert offenders == []
