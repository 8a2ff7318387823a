"""`brief init`: first-run setup that writes a commented config file, checks it, and lists the secrets to export."""

from __future__ import annotations

import json
import os
import zoneinfo
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from briefing.cli.common import cli_errors, err, out
from briefing.errors import ConfigError, InputError


def _toml_value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)  # JSON strings, numbers, booleans and lists are valid TOML


def _parse_source(spec: str) -> tuple[str, dict[str, Any]]:
    """`TYPE:NAME[:key=value,...]` -> (name, table); list values are written `key=a|b`."""
    from briefing import registry

    parts = spec.split(":", 2)
    if len(parts) < 2 or not parts[0] or not parts[1]:
        raise InputError(f"--source {spec!r}: write TYPE:NAME[:key=value,...], e.g. files:handbook:path=docs")
    source_type, name = parts[0], parts[1]
    registry.descriptor(source_type)  # raises "unknown source type ... (known: ...)"
    table: dict[str, Any] = {"type": source_type}
    for pair in parts[2].split(",") if len(parts) == 3 and parts[2] else []:
        key, sep, value = pair.partition("=")
        if not sep:
            raise InputError(f"--source {spec!r}: {pair!r} is not key=value")
        table[key.strip()] = value.split("|") if "|" in value else value
    return name, table


def _required_keys(source_type: str) -> list[str]:
    from briefing import registry

    model = registry.descriptor(source_type).config
    return [k for k, f in model.model_fields.items() if f.is_required() and k != "type"]


def _secret_keys(table: dict[str, Any]) -> list[str]:
    return [str(v) for k, v in table.items() if k.endswith("_env") and isinstance(v, str)]


def _ask_sources() -> dict[str, dict[str, Any]]:
    from rich.prompt import Confirm, Prompt

    from briefing import registry

    sources: dict[str, dict[str, Any]] = {}
    types = list(registry.source_types())
    while Confirm.ask("Add a source?", default=not sources, console=err):
        source_type = Prompt.ask("  type", choices=types, default=types[0], console=err)
        name = Prompt.ask("  name (what `brief ingest NAME` takes)", default=source_type.replace("_", "-"), console=err)
        table: dict[str, Any] = {"type": source_type}
        for key in _required_keys(source_type):
            table[key] = Prompt.ask(f"  {key}", console=err)
        fields = registry.descriptor(source_type).config.model_fields
        if "token_env" in fields:
            table["token_env"] = Prompt.ask(
                "  environment variable holding the token",
                default=f"{name.upper().replace('-', '_')}_TOKEN",
                console=err,
            )
        sources[name] = table
    return sources


def render(workspace: str, timezone: str, sources: dict[str, dict[str, Any]]) -> str:
    lines = [
        "# brief configuration, written by `brief init`. Every key: config/brief.example.toml in the brief sources.",
        "# Secrets are never values here: *_env keys name the environment variable that holds them.",
        "",
        "[workspace]",
        f"name = {_toml_value(workspace)}          # one index and cache namespace per workspace",
        f"timezone = {_toml_value(timezone)}    # 'yesterday', 'last week' and digests follow this zone",
        "",
    ]
    for name, table in sources.items():
        lines.append(f"[sources.{json.dumps(name) if not name.replace('-', '').replace('_', '').isalnum() else name}]")
        lines.extend(f"{key} = {_toml_value(value)}" for key, value in table.items())
        lines.append("")
    return "\n".join(lines)


def register(app: typer.Typer) -> None:
    @app.command()
    @cli_errors
    def init(
        path: Annotated[Path, typer.Option("--path", help="Where to write the config.")] = Path("brief.toml"),
        workspace: Annotated[str | None, typer.Option(help="Workspace name.")] = None,
        timezone: Annotated[str | None, typer.Option(help="IANA time zone, e.g. Europe/Berlin.")] = None,
        source: Annotated[
            list[str] | None, typer.Option("--source", help="TYPE:NAME[:key=value,...]; repeat for more sources.")
        ] = None,
        non_interactive: Annotated[bool, typer.Option("--non-interactive", help="Do not prompt.")] = False,
        force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
    ) -> None:
        """Write a commented config, check it, and list the environment variables to set.

        Examples: `brief init` (prompts); `brief init --non-interactive --workspace team --source
        slack_export:team-slack:path=exports/slack --source files:handbook:path=docs`.
        """
        from rich.prompt import Prompt

        from briefing.settings import load_settings

        if path.exists() and not force:
            raise ConfigError(f"{path} already exists: pass --force to overwrite it, or --path to write elsewhere")
        if non_interactive:
            name, zone = workspace or "default", timezone or "UTC"
            sources = dict(_parse_source(spec) for spec in source or [])
        else:
            name = workspace or str(Prompt.ask("Workspace name", default="default", console=err))
            zone = timezone or str(Prompt.ask("Time zone", default="UTC", console=err))
            sources = dict(_parse_source(spec) for spec in source or []) | _ask_sources()
        if zone not in zoneinfo.available_timezones():
            raise InputError(f"time zone {zone!r} is unknown: use an IANA name such as Europe/Berlin or UTC")
        path.parent.mkdir(parents=True, exist_ok=True)
        draft = path.with_name(f".{path.name}.draft")
        draft.write_text(render(name, zone, sources), encoding="utf-8")
        try:
            settings = load_settings(draft)  # unknown or missing keys fail here, naming them; nothing is written
        except ConfigError as exc:
            draft.unlink()
            raise ConfigError(str(exc).replace(str(draft.resolve()), str(path))) from None
        draft.replace(path)
        settings.config_path = path.resolve()
        out.print(f"wrote {escape(str(path))} with {len(settings.sources)} source(s)", highlight=False)
        for source_name, config in settings.sources.items():
            problems = []
            folder = getattr(config, "path", None)
            if isinstance(folder, Path) and not settings.resolve(folder).exists():
                problems.append(f"{settings.resolve(folder)} does not exist yet")
            missing = [v for v in _secret_keys(sources[source_name]) if not os.environ.get(v)]
            problems.extend(f"export {v}=... (it names this source's credential)" for v in missing)
            status = "; ".join(problems) if problems else "ok"
            out.print(f"  {escape(source_name)} ({config.type}): {escape(status)}", highlight=False)
        out.print("next: `brief ingest`, then `brief ask 'what happened last week?'`", highlight=False)
