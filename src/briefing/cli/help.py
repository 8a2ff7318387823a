"""Help that reads like a native CLI: an example on every command, and flags shown without a `<bool>` type.

Commands whose docstring already carries "Examples:" keep it; the others get theirs from `EXAMPLES` as the help's
epilog, so every `brief COMMAND --help` ends with at least one line to copy (tests/cli/test_help.py checks all).
"""

from __future__ import annotations

from typing import Any

import typer
import typer.core

EXAMPLES: dict[str, list[str]] = {
    "ask": ['brief ask "what did we decide about connection pooling?"', 'brief ask "who is on call?" --json'],
    "search": ['brief search "aurora cutover runbook" -k 5', 'brief search "PLAT-137" --show-docs'],
    "summarize": ['brief summarize "problems users hit with CDC"', 'brief summarize "connection pooling" -n 3 -f json'],
    "timeline": ["brief timeline PLAT-137", 'brief timeline "aurora migration" --since "last month" -f json'],
    "sources": ["brief sources", "brief --verbose sources --json"],
    "demo": ["brief demo", 'brief demo -q "what broke last week?" --keep'],
    "deliver": ['brief digest --since monday | brief deliver - --subject "weekly brief"'],
    "doctor": ["brief doctor", "brief doctor --offline --json"],
    "eval": ["brief eval eval/cases.jsonl", "brief eval eval/cases.jsonl --set retrieval.candidates=100 --json"],
    "tune": ["brief tune eval/cases.jsonl --max-demos 4"],
    "metrics serve": ["brief metrics serve --port 9464"],
    "metrics show": ["brief metrics show"],
    "config": ["brief config show", "brief config show --json"],
    "metrics": ["brief metrics show", "brief metrics serve --port 9464"],
    "people": ["brief people", "brief people merge priya p.raman@example.com"],
    "schedule": ["brief schedule add ingest --every 30m", "brief schedule list"],
    "watch": ["brief watch add PLAT-123", "brief watch list"],
    "people merge": ['brief people merge "Priya Raman" priya@example.com'],
    "people split": ["brief people split slack:U0123"],
    "schedule add": ["brief schedule add ingest --every 30m", 'brief schedule add digest --cron "0 8 * * MON-FRI"'],
    "schedule list": ["brief schedule list --json"],
    "schedule remove": ["brief schedule remove digest-3f9a"],
    "schedule run": ["brief schedule run digest-3f9a"],
    "watch add": [
        "brief watch add PLAT-123",
        'brief watch add -q "outage OR incident" -s slack',
        "brief watch add --review-waiting ana@example.com --hours 24",
    ],
    "watch list": ["brief watch list"],
    "watch run": ["brief watch run"],
    "watch remove": ["brief watch remove PLAT-123"],
}


def has_example(text: str | None) -> bool:
    return bool(text) and "Example" in str(text)


def _epilog(lines: list[str]) -> str:
    # Rich markup mode: each example on its own line (a blank line between keeps typer from joining them).
    return "Examples:\n\n" + "\n\n".join(f"  $ {line}" for line in lines)


def _walk(app: typer.Typer, prefix: str = "") -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    for info in app.registered_commands:
        name = info.name or (info.callback.__name__.replace("_", "-") if info.callback else "")
        found.append((f"{prefix}{name}", info))
    for group in app.registered_groups:
        if group.typer_instance is not None:
            name = group.name or group.typer_instance.info.name or ""
            found.append((f"{prefix}{name}", group))
            found.extend(_walk(group.typer_instance, f"{prefix}{name} "))
    return found


def add_examples(app: typer.Typer) -> None:
    """Give every registered command without an example in its docstring the one `EXAMPLES` holds."""
    for path, info in _walk(app):
        own = getattr(getattr(info, "typer_instance", None), "info", None)  # a group's own Typer(help=...)
        callback = info.callback or (own.callback if own is not None else None)
        doc = info.help or (own.help if own is not None else None) or (callback.__doc__ if callback else None)
        if has_example(doc) or has_example(info.epilog) or path not in EXAMPLES:
            continue
        info.epilog = _epilog(EXAMPLES[path])
        if own is not None:
            own.epilog = info.epilog


def _flag_type(self: typer.core.TyperOption, ctx: Any) -> str | None:
    """A flag takes no value, so its help shows no type (typer prints `<bool>`, which reads as `--json true`)."""
    if self.is_flag or self.count:
        return None
    return _display_type_rich(self, ctx)


_display_type_rich = typer.core.TyperOption.display_type_rich
typer.core.TyperOption.display_type_rich = _flag_type  # type: ignore[method-assign]
