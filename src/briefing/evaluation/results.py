"""Saved results: metrics, per-case records, the configuration and package versions of one run."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from briefing.errors import InputError

SCHEMA = 1
PACKAGES = ("qdrant-client", "fastembed", "dspy")


def versions() -> dict[str, str | None]:
    from briefing import __version__

    found: dict[str, str | None] = {"briefing": __version__}
    for name in PACKAGES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found


def results_document(
    *, cases_file: str, k: int, settings: Any, metrics: dict[str, Any], records: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "cases_file": cases_file,
        "k": k,
        "config": settings.model_dump(mode="json"),
        "versions": versions(),
        "metrics": metrics,
        "cases": records,
    }


def save_results(path: Path, document: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def load_results(path: Path) -> dict[str, Any]:
    """A file written by `--save` (or the object `--json` prints): it must hold a `cases` list."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"results file {path} does not exist: pass a file written by `brief eval --save`") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"results file {path} is not readable JSON ({exc}): pass a `brief eval --save` file") from None
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        raise InputError(f"results file {path} has no 'cases' list: pass a file written by `brief eval --save`")
    return data
