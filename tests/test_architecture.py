"""The layers: connectors and chunkers use only the core's contracts, and the core names no source type.

The core finds sources through `briefing.registry` (one line per type, naming the descriptor beside its
connector) and learns everything else from the descriptor, so a new source cannot quietly couple to retrieval,
the index or the CLI, and adding one never means editing the core.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from briefing import registry

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "src" / "briefing"
ALLOWED_CORE = {"briefing.model", "briefing.sources", "briefing.errors", "briefing.registry", "briefing.textrules"}
# The registry names every type by design; the demo and the sample's local API servers are the sample's own
# (they serve and configure one fictional team's Slack, JIRA, Confluence and GitHub).
# slack_bot.py is a front end that runs in Slack (its principals are Slack users), not source handling.
NAMING_ALLOWED = {CORE / "registry.py", CORE / "cli" / "demo.py", CORE / "slack_bot.py"}
NAMING_ALLOWED_DIRS = {CORE / "devserver", CORE / "sample"}


def imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def string_constants(path: Path) -> list[tuple[int, str]]:
    """Every string literal of a module except docstrings (which may explain by example)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


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
    for path in sorted(CORE.rglob("*.py")):
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


def test_the_core_names_no_source_type() -> None:
    """No source type, source family, document kind or ref prefix appears as a string in the core."""
    names = set(registry.source_types()) | set(registry.families())
    names |= {kind.name for d in registry.descriptors() for kind in d.kinds}
    prefix = re.compile(rf"^(?:{'|'.join(map(re.escape, sorted(registry.families())))}):")
    offenders = []
    for path in sorted(CORE.rglob("*.py")):
        if path in NAMING_ALLOWED or any(d in path.parents for d in NAMING_ALLOWED_DIRS):
            continue
        for line, value in string_constants(path):
            if value.lower() in names or prefix.match(value):
                offenders.append(f"{path.relative_to(ROOT)}:{line} names {value!r}")
    assert offenders == []


def test_every_descriptor_is_complete_and_its_kinds_resolve() -> None:
    for descriptor in registry.descriptors():
        assert descriptor.config.model_fields["type"].annotation is not None, descriptor.type
        assert descriptor.presentation.label, descriptor.type
        assert descriptor.words, f"{descriptor.type}: no question words"
        assert descriptor.ref_patterns, f"{descriptor.type}: no ref patterns"
        for kind in descriptor.kinds:
            assert callable(registry.chunker_for(kind.name)), kind.name
