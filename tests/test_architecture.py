"""The layers, checked on the import graph and on the source descriptors.

Connectors and chunkers use only the core's contract modules; the core never imports them, finds sources through
`briefing.registry` (one line per type, naming the descriptor beside its connector) and learns everything else
from the descriptor: its names, its refs, and which keys of its chunks' metadata play the roles the core reads.
So a new source cannot quietly couple to retrieval, the index or the CLI, and adding one never means editing the
core. The checks are functions of the registry, so that a source registered at run time (tests/toysource) is
checked the same way.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import get_args

import pytest

from briefing import registry
from briefing.sources import ROLES, Flag, FlagRole, SourceDescriptor

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "src" / "briefing"
# What connectors and chunkers may import from the core: the data model, the descriptor, errors, the registry, the
# shared text rules and the one rule for credentials on a redirect.
CONTRACTS = frozenset(
    {
        "briefing.model",
        "briefing.sources",
        "briefing.errors",
        "briefing.registry",
        "briefing.textrules",
        "briefing.safe_http",
    }
)
SOURCE_PACKAGES = ("connectors", "chunkers")
# Metadata keys the core defines itself, so it may read them by name: who may read an item (`briefing.model`,
# `briefing.access`), and the people of a chunk (`briefing.people`).
CORE_KEYS = frozenset({"readers", "people", "mentions", "author_names"})
# The registry names every type by design; the demo and the sample's local API servers are the sample's own (they
# serve and configure one fictional team's Slack, JIRA, Confluence and GitHub).
NAMING_ALLOWED = (CORE / "registry.py", CORE / "cli" / "demo.py", CORE / "devserver", CORE / "sample")
FLAG_ROLES = frozenset(get_args(FlagRole))


# -- the import graph ------------------------------------------------------------------------------------------


def module_name(path: Path) -> str:
    """`src/briefing/ask/run.py` -> `briefing.ask.run`, `connectors/slack/__init__.py` -> `connectors.slack`."""
    rel = path.relative_to(ROOT / "src" if (ROOT / "src") in path.parents else ROOT)
    parts = list(rel.with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(*folders: Path) -> dict[str, Path]:
    """Every module under the folders, by dotted name."""
    return {module_name(path): path for folder in folders for path in sorted(folder.rglob("*.py"))}


def imported_names(name: str, path: Path) -> Iterator[str]:
    """Every module name an import of the module mentions, at any depth (an import inside a function counts)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def import_graph(known: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the modules it imports: internal ones by their module, other packages by their top name."""
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        found: set[str] = set()
        for imported in imported_names(name, path):
            target = imported
            while target and target not in known:
                target = target.rpartition(".")[0]
            if not target:
                target = imported.split(".")[0]  # outside: the standard library or a third-party package
            if target != name:
                found.add(target)
        graph[name] = found
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start] & graph.keys())))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph[step] & graph.keys()))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def contract_breaches(graph: dict[str, set[str]], packages: Iterable[str]) -> list[str]:
    """Imports by the modules of source `packages` (dotted names) of core modules that are not contracts, or of a
    connector by a chunker."""
    prefixes = tuple(packages)
    breaches = []
    for name, imported in sorted(graph.items()):
        if not any(name == p or name.startswith(f"{p}.") for p in prefixes):
            continue
        for target in sorted(imported):
            if target.split(".")[0] == "briefing" and target not in CONTRACTS:
                breaches.append(f"{name} imports {target}")
            if name.startswith("chunkers") and target.split(".")[0] == "connectors":
                breaches.append(f"{name} imports {target}")
    return breaches


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph(modules(CORE, *(ROOT / p for p in SOURCE_PACKAGES)))


def test_connectors_and_chunkers_import_only_the_core_contracts(graph: dict[str, set[str]]) -> None:
    assert contract_breaches(graph, SOURCE_PACKAGES) == []


def test_the_contracts_import_nothing_else_of_the_core(graph: dict[str, set[str]]) -> None:
    """Otherwise a connector would pull retrieval or the index in through a contract."""
    assert {
        (c, t) for c in CONTRACTS for t in graph[c] if t.split(".")[0] == "briefing" and t not in CONTRACTS
    } == set()


def test_the_core_never_imports_connectors_or_chunkers(graph: dict[str, set[str]]) -> None:
    offenders = [
        f"{name} imports {target}"
        for name, imported in sorted(graph.items())
        if name.startswith("briefing")
        for target in sorted(imported)
        if target.split(".")[0] in SOURCE_PACKAGES
    ]
    assert offenders == []


def test_no_import_circles(graph: dict[str, set[str]]) -> None:
    assert circles(graph) == []


def test_the_circle_finder_finds_a_circle_through_a_function_level_import(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import b\nimport os\n")
    (tmp_path / "b.py").write_text("def f():\n    from c import g\n")
    (tmp_path / "c.py").write_text("import a\n")
    (tmp_path / "d.py").write_text("import a\n")
    graph = import_graph({p.stem: p for p in tmp_path.glob("*.py")})
    assert graph["a"] == {"b", "os"}
    assert circles(graph) == [["a", "b", "c"]]


# -- the descriptors ---------------------------------------------------------------------------------------------


def descriptor_problems(descriptors: Iterable[SourceDescriptor]) -> list[str]:
    """What each descriptor lacks or gets wrong; the descriptors of one family declare the same metadata roles."""
    problems = []
    by_family: dict[str, SourceDescriptor] = {}
    for d in descriptors:
        where = f"{d.type} ({d.family})"
        if get_args(d.config.model_fields["type"].annotation) != (d.type,):
            problems.append(f"{where}: its config's `type` is not Literal[{d.type!r}]")
        if not (d.family and d.container and d.presentation.label and d.words and d.ref_patterns):
            problems.append(f"{where}: family, container, label, question words and ref patterns are all needed")
        for kind in d.kinds:
            if not callable(registry.chunker_for(kind.name)):
                problems.append(f"{where}: kind {kind.name} has no chunker")
        for role, key in d.metadata.items():
            if role not in ROLES:
                problems.append(f"{where}: metadata role {role!r} is not one the core reads ({', '.join(ROLES)})")
            if isinstance(key, Flag) and role not in FLAG_ROLES:
                problems.append(f"{where}: {role} is not a flag, so it cannot be read off a value")
            if not (key.key if isinstance(key, Flag) else key):
                problems.append(f"{where}: metadata role {role} names no key")
        first = by_family.setdefault(d.family, d)
        if dict(first.metadata) != dict(d.metadata):
            problems.append(f"{where}: declares other metadata roles than {first.type}, of the same family")
    return problems


def metadata_reads(path: Path) -> list[tuple[int, str]]:
    """(line, key) of every key a module reads from (or writes into) a metadata mapping by name.

    A metadata mapping is an attribute `.metadata` (a chunk's, an item's), a `.get("metadata")` of a payload, or a
    name bound to one of those in the same function; a key is a string constant given to `.get` or a subscript.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[tuple[int, str]] = set()
    for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))]:
        nodes = list(_within(scope))
        bound = {
            target.id
            for node in nodes
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr) and node.value is not None
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(target, ast.Name) and _is_metadata(node.value, set())
        }
        for node in nodes:
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
                holder, key = node.func.value, node.args[0] if node.args else None
            elif isinstance(node, ast.Subscript):
                holder, key = node.value, node.slice
            else:
                continue
            if isinstance(key, ast.Constant) and isinstance(key.value, str) and _is_metadata(holder, bound):
                found.add((node.lineno, key.value))
    return sorted(found)


def _within(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a module or function, without those of the functions defined in it (their own scopes)."""
    for child in ast.iter_child_nodes(scope):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        yield child
        yield from _within(child)


def _is_metadata(node: ast.AST, bound: set[str]) -> bool:
    if isinstance(node, ast.BoolOp):  # `(chunk.metadata or {})`
        return _is_metadata(node.values[0], bound)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict" and node.args:
        return _is_metadata(node.args[0], bound)  # `dict(payload.get("metadata") or {})`
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        return bool(node.args) and isinstance(node.args[0], ast.Constant) and node.args[0].value == "metadata"
    return (isinstance(node, ast.Attribute) and node.attr == "metadata") or (
        isinstance(node, ast.Name) and node.id in bound
    )


def undeclared_metadata_reads(descriptors: Iterable[SourceDescriptor]) -> list[str]:
    """Metadata keys the core reads by name that are neither its own nor declared by a source through a role."""
    declared = {key.key if isinstance(key, Flag) else key for d in descriptors for key in d.metadata.values()}
    return [
        f"{path.relative_to(ROOT)}:{line} reads metadata[{key!r}]"
        for path in sorted(CORE.rglob("*.py"))
        for line, key in metadata_reads(path)
        if key not in CORE_KEYS and key not in declared
    ]


def roles_asked(path: Path) -> Iterator[tuple[int, str]]:
    """(line, role) of every `meta(chunk, "role")` call (`briefing.registry.meta`) in a module."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call) or len(node.args) != 2:
            continue
        func = node.func
        named = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        role = node.args[1]
        if named == "meta" and isinstance(role, ast.Constant) and isinstance(role.value, str):
            yield node.lineno, role.value


def compared_names(descriptors: Iterable[SourceDescriptor]) -> list[str]:
    """Source types, families and ref prefixes the core compares a value with: `x == "slack"`, `t in ("jira",
    "github")`, `ref.startswith("confluence:")`. A word in a regular expression or a message is not a comparison,
    so everyday words that happen to name a source ("notes", "files") do not count."""
    descriptors = list(descriptors)
    names = {d.type for d in descriptors} | {d.family for d in descriptors}
    prefixes = {f"{n}:" for n in names} | {
        m[0] for d in descriptors for p in d.ref_patterns if (m := re.match(r"[a-z_]+:", p))
    }
    offenders = []
    for path in sorted(CORE.rglob("*.py")):
        if any(path == allowed or allowed in path.parents for allowed in NAMING_ALLOWED):
            continue
        for line, value in _comparison_values(path):
            if value.lower() in names or any(value.lower().startswith(p) for p in prefixes):
                offenders.append(f"{path.relative_to(ROOT)}:{line} compares with {value!r}")
    return offenders


def _comparison_values(path: Path) -> Iterator[tuple[int, str]]:
    def constants(node: ast.AST) -> Iterator[str]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.value
        elif isinstance(node, ast.Tuple | ast.List | ast.Set):
            for element in node.elts:
                yield from constants(element)

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare):
            for side in [node.left, *node.comparators]:
                yield from ((node.lineno, v) for v in constants(side))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("startswith", "endswith", "removeprefix", "partition") and node.args:
                yield from ((node.lineno, v) for v in constants(node.args[0]))
        elif isinstance(node, ast.MatchValue):
            yield from ((node.lineno, v) for v in constants(node.value))


def test_every_descriptor_is_complete_and_its_kinds_resolve() -> None:
    assert descriptor_problems(registry.descriptors()) == []


def test_every_metadata_key_the_core_reads_is_its_own_or_declared_through_a_role() -> None:
    assert undeclared_metadata_reads(registry.descriptors()) == []


def test_the_core_reads_source_metadata_only_through_roles() -> None:
    """A source's own keys (`thread_ts`, `is_pull_request`, ...) are read through `registry.meta`, never by name."""
    assert undeclared_metadata_reads([]) == []


def test_the_core_asks_only_for_roles_it_defines() -> None:
    asked = [
        f"{path.relative_to(ROOT)}:{line} asks for {role!r}"
        for path in sorted(CORE.rglob("*.py"))
        for line, role in roles_asked(path)
        if role not in ROLES
    ]
    assert asked == []


def test_the_core_compares_with_no_source_type_or_ref_prefix() -> None:
    assert compared_names(registry.descriptors()) == []


def test_the_checks_see_what_they_look_for(tmp_path: Path) -> None:
    """The scanners find a metadata read through a payload and a bound name, and a hard-coded comparison."""
    module = tmp_path / "m.py"
    module.write_text(
        "def f(chunk, record):\n"
        "    meta = record.payload.get('metadata')\n"
        "    if chunk.source_type == 'slack' or chunk.doc_key.startswith(('jira:', 'x')):\n"
        "        return meta.get('thread_ts'), (chunk.metadata or {}).get('status'), chunk.metadata['links']\n"
        "    return 'slack' in WORDS\n",
        encoding="utf-8",
    )
    assert sorted(key for _, key in metadata_reads(module)) == ["links", "status", "thread_ts"]
    assert sorted(v for _, v in _comparison_values(module)) == ["jira:", "slack", "slack", "x"]


def test_only_the_view_sets_a_moment_on_a_read() -> None:
    """Readers take `index.view(now, readers)`; a hand-built as-of filter would be a second read path."""
    offenders = []
    for path in sorted(CORE.rglob("*.py")):
        if path == CORE / "view.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and any(k.arg == "as_of" for k in node.keywords):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []
