"""`brief config show`: the effective configuration, each value with where it came from."""

from __future__ import annotations

import json
import os
import tomllib
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from briefing.cli.common import cli_errors, load, out

config_app = typer.Typer(help="Inspect the configuration.", no_args_is_help=True)


def _leaves(data: Any, prefix: str = "") -> list[tuple[str, Any]]:
    if isinstance(data, dict) and data:
        found: list[tuple[str, Any]] = []
        for key, value in data.items():
            found.extend(_leaves(value, f"{prefix}.{key}" if prefix else str(key)))
        return found
    return [(prefix, data)]


def _env_keys() -> set[str]:
    """Setting paths set through `BRIEF_SECTION__KEY` variables (BRIEF_HOME and friends are not settings)."""
    return {name[len("BRIEF_") :].lower().replace("__", ".") for name in os.environ if name.startswith("BRIEF_")}


def _covered(key: str, keys: set[str]) -> bool:
    return any(key == k or key.startswith(k + ".") for k in keys)


def provenance(settings: Any) -> list[dict[str, Any]]:
    """Every effective setting with its origin: environment, file or default (secrets are only ever names)."""
    file_keys: set[str] = set()
    if settings.config_path is not None:
        file_keys = {k for k, _ in _leaves(tomllib.loads(settings.config_path.read_text(encoding="utf-8")))}
    env = _env_keys()
    rows = []
    for key, value in _leaves(settings.model_dump(mode="json", exclude={"home", "config_path"})):
        origin = "environment" if _covered(key, env) else "file" if _covered(key, file_keys) else "default"
        rows.append({"key": key, "value": value, "origin": origin})
    return rows


def register(app: typer.Typer) -> None:
    app.add_typer(config_app, name="config")

    @config_app.command("show")
    @cli_errors
    def show(
        json_out: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
        changed: Annotated[bool, typer.Option("--changed", help="Only values that are not defaults.")] = False,
    ) -> None:
        """The effective config with the origin of each value (default, file, environment).

        Secrets never appear: sources name the environment variable that holds them (`token_env`), and that
        name is what is shown. Command-line options (`--now`, `-k`, ...) apply to one command and are not listed.
        Example: `brief config show --changed`.
        """
        settings = load()
        rows = [r for r in provenance(settings) if not changed or r["origin"] != "default"]
        head = {"config_file": str(settings.config_path) if settings.config_path else None, "home": str(settings.home)}
        if json_out:
            print(json.dumps({**head, "settings": rows}, indent=2, default=str))
            return
        where = head["config_file"] or "none"
        out.print(f"config file: {escape(where)}   home: {escape(str(head['home']))}", highlight=False)
        table = Table("key", "value", "from", box=None)
        for row in rows:
            table.add_row(escape(row["key"]), escape(json.dumps(row["value"], default=str)), row["origin"])
        out.print(table)
