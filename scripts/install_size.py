"""What each dependency of `brief` costs on disk: the installed size of every distribution in its dependency tree,
attributed to the direct dependency that brings it (a shared one counts once, under the first that needs it).

The requirements are read from this checkout's pyproject.toml (the default install), plus each `--extra`'s (for
example `--extra llm`, DSPy and LiteLLM), whose rows are marked `[extra]` and count only what the default install
does not already bring. Run in an environment that holds them all (the dev venv):
`python scripts/install_size.py [--extra llm] [--top 25]`.
"""

from __future__ import annotations

import argparse
import re
import tomllib
from importlib import metadata
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def _name(requirement: str) -> str:
    return re.split(r"[\s;<>=!~\[(]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _size(dist: metadata.Distribution) -> int:
    total = 0
    for file in dist.files or []:
        try:
            total += file.locate().stat().st_size
        except OSError:
            pass
    return total


def _runtime(requirements: list[str] | None) -> list[str]:
    return [_name(r) for r in requirements or [] if "extra ==" not in r]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--extra", action="append", default=[], help="also count this optional extra (e.g. llm)")
    args = parser.parse_args()
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    wanted = [(_name(r), "") for r in project["dependencies"]]
    for extra in args.extra:
        wanted += [(_name(r), f"[{extra}] ") for r in project["optional-dependencies"][extra]]
    dists = {d.metadata["Name"].lower().replace("_", "-"): d for d in metadata.distributions()}
    seen: set[str] = {"brief"}
    rows: list[tuple[str, int, int]] = []
    missing = [name for name, _ in wanted if name not in dists]
    if missing:
        parser.error(f"not installed here: {', '.join(missing)} (run in the environment that has them)")
    for direct, label in wanted:
        stack, own = [direct], 0
        count = 0
        while stack:
            name = stack.pop()
            if name in seen or name not in dists:
                continue
            seen.add(name)
            own += _size(dists[name])
            count += 1
            stack.extend(_runtime(dists[name].requires))
        rows.append((label + direct, own, count))
    rows.sort(key=lambda r: -r[1])
    total = sum(r[1] for r in rows)
    print(f"{'dependency':32} {'MB':>8} {'packages':>9}")
    for name, size, count in rows[: args.top]:
        print(f"{name:32} {size / 1e6:8.1f} {count:9d}")
    print(f"{'total':32} {total / 1e6:8.1f} {len(seen) - 1:9d}")


if __name__ == "__main__":
    main()
