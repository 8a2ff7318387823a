"""`brief digest` and `brief timeline`: briefings over a time window, from the briefing engine."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any
from zoneinfo import ZoneInfo

import typer

from briefing.cli.common import AsOpt, cli_errors, err, load

NowOpt = Annotated[str | None, typer.Option("--now", help="Fix 'now' (ISO-8601; or BRIEF_NOW).")]
SinceOpt = Annotated[
    str | None, typer.Option("--since", help='Start: a date or words ("last monday", "last week"); default 7 days ago.')
]
UntilOpt = Annotated[
    str | None,
    typer.Option("--until", help="End (inclusive day, e.g. friday); default now. Past now: what is scheduled too."),
]
FormatOpt = Annotated[str, typer.Option("--format", "-f", help="md (default), json or text.")]
OutOpt = Annotated[Path | None, typer.Option("--out", "-o", help="Write to this file instead of stdout.")]


def _now(value: str | None) -> Any:
    from briefing.service import parse_now

    return parse_now(value or os.environ.get("BRIEF_NOW"))


def dated(out: Path | None, day: str) -> Path | None:
    """`--out ~/briefs/{date}.md`: `{date}` is the day the digest is written for (so a schedule keeps one a day)."""
    return Path(str(out).replace("{date}", day)).expanduser() if out is not None else None


def _write(text: str, out: Path | None) -> None:
    if out is None:
        typer.echo(text, nl=False)
        return
    from briefing.errors import InputError

    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"--out {out}: cannot write ({exc.strerror}): choose a writable path") from None
    err.print(f"wrote {out}", highlight=False)


def _format(value: str) -> str:
    from briefing.errors import InputError

    if value not in ("md", "json", "text"):
        raise InputError(f"--format '{value}' is not one of md, json, text")
    return value


def register(app: typer.Typer) -> None:
    @app.command()
    @cli_errors
    def digest(
        since: SinceOpt = None,
        until: UntilOpt = None,
        source: Annotated[list[str] | None, typer.Option("--source", help="Only this source (name, type).")] = None,
        channel: Annotated[list[str] | None, typer.Option("--channel", help="Only this channel or project.")] = None,
        person: Annotated[
            list[str] | None, typer.Option("--person", help="Only conversations this person took part in.")
        ] = None,
        topic: Annotated[str | None, typer.Option("--topic", help="Only conversations about this.")] = None,
        fmt: FormatOpt = "md",
        out: OutOpt = None,
        limit: Annotated[int | None, typer.Option("--limit", min=1, help="Lines shown before 'and N more'.")] = None,
        now: NowOpt = None,
        as_person: AsOpt = None,
    ) -> None:
        """What happened in a window: every conversation, grouped by channel or project, one cited line each.

        Examples: `brief digest --since monday`; `brief digest --since "last week" --channel incidents --format json`;
        `brief digest --out ~/briefs/{date}.md` ({date} is today in the workspace time zone).
        """
        from briefing.digest import render, service
        from briefing.digest.model import Scope
        from briefing.digest.window import resolve
        from briefing.question.timeexpr import Calendar
        from briefing.service import Brief

        chosen = _format(fmt)
        settings = load(as_person)
        at = _now(now)
        ws = settings.workspace
        start, end = resolve(since, until, Calendar(at, ws.timezone, ws.week_start))
        with Brief(settings) as brief:
            directory = brief.directory()
            scope = Scope(
                sources=service.resolve_sources(source or [], {n: c.type for n, c in settings.sources.items()}),
                containers=service.resolve_containers(channel or [], directory),
                people=service.resolve_people(person or [], directory),
                topic=(topic or "").strip(),
            )
            result = service.run(brief, start=start, end=end, now=at, scope=scope, max_lines=limit)
        day = at.astimezone(ZoneInfo(ws.timezone)).date().isoformat()
        _write(render.render(result, chosen), dated(out, day))

    @app.command()
    @cli_errors
    def timeline(
        subject: Annotated[str, typer.Argument(help="A topic or a ticket/PR key (PLAT-137, owner/repo#12).")],
        since: SinceOpt = None,
        until: UntilOpt = None,
        fmt: FormatOpt = "md",
        out: OutOpt = None,
        now: NowOpt = None,
        as_person: AsOpt = None,
    ) -> None:
        """The dated sequence of events about a topic or a ticket across sources, each cited."""
        from briefing.digest import timeline as tl
        from briefing.digest.window import bound
        from briefing.question.timeexpr import Calendar
        from briefing.service import Brief, check_question

        chosen = _format(fmt)
        settings = load(as_person)
        at = _now(now)
        ws = settings.workspace
        cal = Calendar(at, ws.timezone, ws.week_start)
        start = bound(since, cal, option="--since", end=False) if since else None
        end = bound(until, cal, option="--until", end=True) if until else None
        with Brief(settings) as brief:
            result = tl.build(brief, check_question(subject), now=at, start=start, end=end)
        _write(tl.render(result, chosen), out)
