"""What an install of brief weighs, package by package, from the distributions installed in this environment.

For the core requirements (and each extra named with `--extra`) it walks the requirement graph of the installed
distributions and adds up the files each one installed (its RECORD), so the total is what `pip install brief`
puts in a fresh virtual environment (pip, setuptools and brief itself left out). `--what-if NAME` leaves a
requirement of brief out and shows what the install would weigh without it (what moving it to an extra saves).

    python bench/install_size.py [--extra llm] [--what-if scipy --what-if langgraph] [--top 25] [--json]
"""

from __future__ import annotations

import argparse
import json
import re
import tomllib
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SKIP = {"pip", "setuptools", "wheel", "brief"}


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(spec: str) -> tuple[str, str]:
    """(the distribution's name, its environment marker) of a requirement line."""
    head, _, marker = spec.partition(";")
    return canonical(re.split(r"[\s\[<>=!~(]", head.strip(), maxsplit=1)[0]), marker.strip()


def applies(marker: str, extras: set[str]) -> bool:
    """Whether a requirement's marker holds here (only its `extra == ...` part is read; platform markers hold)."""
    wanted = re.findall(r"extra\s*==\s*['\"]([^'\"]+)['\"]", marker)
    return not wanted or bool(set(map(canonical, wanted)) & extras)


def installed() -> dict[str, metadata.Distribution]:
    return {canonical(d.metadata["Name"]): d for d in metadata.distributions()}


def size(dist: metadata.Distribution) -> int:
    total = 0
    for file in dist.files or []:
        path = Path(str(dist.locate_file(file)))
        if path.is_file():
            total += path.stat().st_size
    return total


def closure(roots: list[tuple[str, set[str]]], dists: dict[str, metadata.Distribution]) -> set[str]:
    """Every installed distribution the roots need, following each one's requirements (with the extras asked)."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name, extras = todo.pop()
        dist = dists.get(name)
        if dist is None or name in SKIP:
            continue
        if name in seen and not extras:
            continue
        seen.add(name)
        for spec in dist.requires or []:
            child, marker = requirement_name(spec)
            if applies(marker, extras):
                inner = re.search(r"\[([^\]]+)\]", spec.partition(";")[0])
                todo.append((child, {canonical(e) for e in inner.group(1).split(",")} if inner else set()))
    return seen


def project_requirements(extras: list[str]) -> list[tuple[str, set[str]]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    specs = list(project["dependencies"])
    for extra in extras:
        specs += project["optional-dependencies"][extra]
    out = []
    for spec in specs:
        name, _ = requirement_name(spec)
        inner = re.search(r"\[([^\]]+)\]", spec)
        out.append((name, {canonical(e) for e in inner.group(1).split(",")} if inner else set()))
    return out


def weigh(roots: list[tuple[str, set[str]]], dists: dict[str, metadata.Distribution]) -> dict[str, int]:
    return {name: size(dists[name]) for name in closure(roots, dists)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--extra", action="append", default=[], help="an optional-dependencies group to add")
    parser.add_argument("--what-if", action="append", default=[], help="a requirement of brief to leave out")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--json", action="store_true")
    ns = parser.parse_args()
    dists = installed()
    roots = project_requirements(ns.extra)
    missing = sorted(name for name, _ in roots if name not in dists)
    sizes = weigh(roots, dists)
    total = sum(sizes.values())
    found: dict[str, Any] = {
        "extras": ns.extra,
        "packages": len(sizes),
        "total_mb": round(total / 1e6, 1),
        "not_installed_here": missing,
        "largest_mb": {n: round(s / 1e6, 1) for n, s in sorted(sizes.items(), key=lambda kv: -kv[1])[: ns.top]},
        "without": {},
    }
    # What each direct requirement alone brings (the packages only it needs).
    for name in ns.what_if:
        kept = [r for r in roots if r[0] != canonical(name)]
        rest = sum(weigh(kept, dists).values())
        found["without"][name] = {"total_mb": round(rest / 1e6, 1), "saves_mb": round((total - rest) / 1e6, 1)}
    if ns.json:
        print(json.dumps(found, indent=2))
        return
    print(f"brief{'[' + ','.join(ns.extra) + ']' if ns.extra else ''}: {found['total_mb']} MB in {len(sizes)} packages")
    for name, mb in found["largest_mb"].items():
        print(f"  {mb:8.1f} MB  {name}")
    for name, what in found["without"].items():
        print(f"without {name}: {what['total_mb']} MB (saves {what['saves_mb']} MB)")
    if missing:
        print("not installed here (not counted): " + ", ".join(missing))


if __name__ == "__main__":
    main()
