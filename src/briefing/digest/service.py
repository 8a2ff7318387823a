"""Briefings for the CLI and the ask flow: names from the command line resolved, then the engine run."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from briefing import registry
from briefing.digest.engine import Briefer
from briefing.digest.model import Digest, Scope
from briefing.digest.places import channel_scope, places
from briefing.errors import InputError

if TYPE_CHECKING:
    from briefing.digest.llm import LineWriter
    from briefing.question.constraints import Directory
    from briefing.service import Brief
    from briefing.settings import Settings


def _known(values: Sequence[str]) -> str:
    shown = ", ".join(values[:12])
    return shown + (", ..." if len(values) > 12 else "") if values else "none indexed yet"


def resolve_people(names: Sequence[str], directory: Directory) -> tuple[str, ...]:
    """Display names for `--person` values: a full name, a first name, a handle or an email."""
    out = []
    for raw in names:
        wanted = raw.strip().lstrip("@").lower()
        match = next(
            (
                p.name
                for p in directory.people
                if wanted in {p.name.lower(), p.name.split()[0].lower() if p.name.split() else ""}
                or wanted in {h.lstrip("@").lower() for h in p.handles}
                or wanted in {e.lower() for e in p.emails}
            ),
            None,
        )
        if match is None:
            raise InputError(
                f"--person '{raw}' names nobody in the indexed sources (known: "
                f"{_known(sorted(p.name for p in directory.people))}): use a name, first name, handle or email"
            )
        out.append(match)
    return tuple(dict.fromkeys(out))


def resolve_containers(names: Sequence[str], directory: Directory) -> tuple[str, ...]:
    """`--channel` values (with or without "#") as the channel or project names chunks carry."""
    known = [*directory.channels, *directory.projects]
    by_lower = {k.lower(): k for k in known}
    out = []
    for raw in names:
        name = raw.strip().lstrip("#")
        found = by_lower.get(name.lower())
        if found is None:
            shown = directory.listed()
            raise InputError(f"--channel '{raw}' is not a channel or project in the index (known: {_known(shown)})")
        out.append(found)
    return tuple(dict.fromkeys(out))


def resolve_sources(names: Sequence[str], configured: dict[str, str]) -> tuple[str, ...]:
    """`--source` values (a configured source name, a type, or a family such as "slack") as chunk families."""
    families = registry.families()
    out = []
    for raw in names:
        value = raw.strip()
        if value in configured:
            out.append(registry.descriptor(configured[value]).family)
        elif value in registry.source_types():
            out.append(registry.descriptor(value).family)
        elif value in families:
            out.append(value)
        else:
            choices = sorted({*configured, *families})
            raise InputError(
                f"--source '{raw}' is not a configured source or a source type (use one of: {', '.join(choices)})"
            )
    return tuple(dict.fromkeys(out))


def line_writer(settings: Settings) -> LineWriter | None:
    """The DSPy line writer when `[llm] model` is set; offline (None) the lines stay extractive."""
    if not settings.llm.model:
        return None
    from briefing.ask.lm import build_lm
    from briefing.digest.llm import LineWriter

    return LineWriter(build_lm(settings.llm))


def run(
    brief: Brief,
    *,
    start: datetime,
    end: datetime,
    now: datetime,
    scope: Scope,
    max_lines: int | None = None,
) -> Digest:
    brief._require_index()
    directory = brief.directory()
    wanted = channel_scope(scope, directory)
    briefer = Briefer(
        brief.index,
        timezone=brief.settings.workspace.timezone,
        max_lines=brief.settings.digest.max_lines,
        burst_minutes=brief.settings.digest.burst_minutes,
        writer=line_writer(brief.settings),
    )
    shown = places(scope, directory)
    configured = sorted({registry.descriptor(c.type).family for c in brief.settings.sources.values()})
    # An `--until` after now reaches forward: what is scheduled there and was entered before now is included.
    forward = end > now
    searched = briefer.describe(start, end if forward else min(end, now), wanted, shown, configured)
    digest = briefer.digest(start, end, now=now, scope=wanted, max_lines=max_lines, searched=searched, forward=forward)
    digest.places = shown
    return digest
