"""`brief schedule`, `brief watch`, `brief metrics`, `brief doctor`, `brief deliver`: leaving brief unattended."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from briefing.cli.common import cli_errors, err, load, out, state
from briefing.errors import ConfigError, InputError, NotConfiguredError

TabOpt = Annotated[
    Path | None,
    typer.Option("--tabfile", help="Write to this crontab file instead of your crontab ([schedule] tabfile)."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def _tabfile(settings: Any, tabfile: Path | None) -> Path | None:
    if tabfile is not None:
        return tabfile.expanduser().resolve()
    configured = settings.schedule.tabfile
    return settings.resolve(configured) if configured else None


def _brief_command(ctx: typer.Context, name: str) -> Any:
    # Typer ships its own click; the root group is duck-typed rather than checked against one click's classes.
    root: Any = ctx.find_root().command
    command = root.get_command(ctx, name)
    if command is None or name in ("schedule", "demo"):
        known = ", ".join(sorted(n for n in root.list_commands(ctx) if n not in ("schedule", "demo")))
        raise InputError(f"'{name}' is not a brief command that can be scheduled (one of: {known})")
    return command


def _has_option(command: Any, flag: str) -> bool:
    return any(flag in getattr(p, "opts", ()) for p in command.params)


schedule_app = typer.Typer(help="Run brief from cron: add, list, remove and run schedules.", no_args_is_help=True)
watch_app = typer.Typer(help="Be told about new items that match a ticket or a query.", no_args_is_help=True)
metrics_app = typer.Typer(
    help="Prometheus metrics: the textfile under BRIEF_HOME/metrics/, or an exporter.", no_args_is_help=True
)


@schedule_app.command("add", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
@cli_errors
def schedule_add(
    ctx: typer.Context,
    command: Annotated[str, typer.Argument(help="The brief command to run: ingest, digest, reindex, ...")],
    every: Annotated[str | None, typer.Option("--every", help="A period: 15m, 30m, 2h, 1d.")] = None,
    cron: Annotated[str | None, typer.Option("--cron", help='A cron expression, e.g. "0 8 * * MON-FRI".')] = None,
    out_file: Annotated[
        str | None, typer.Option("--out", help="Passed to the command's --out ({date} is the run's date).")
    ] = None,
    entry_id: Annotated[str | None, typer.Option("--id", help="The schedule's id (default: COMMAND-random).")] = None,
    env_file: Annotated[
        Path | None, typer.Option("--env-file", help="A file of VAR=value lines (the tokens) cron should load.")
    ] = None,
    tabfile: TabOpt = None,
    systemd: Annotated[bool, typer.Option("--systemd", help="Print an equivalent systemd timer instead.")] = False,
    json_out: JsonOpt = False,
) -> None:
    """Add a schedule; extra arguments after the command go to it (brief schedule add ingest team-slack --every 30m)."""
    from briefing.ops import schedule

    if bool(every) == bool(cron):
        raise InputError('give exactly one of --every PERIOD or --cron "EXPR"')
    expression = schedule.every_to_cron(every) if every else schedule.check_cron(cron or "")
    target = _brief_command(ctx, command)
    args = [command, *ctx.args]
    if out_file:
        if not _has_option(target, "--out"):
            raise InputError(f"`brief {command}` has no --out option: drop --out, or schedule a command that has one")
        args += ["--out", str(Path(out_file).expanduser())]
    settings = load()
    config = settings.config_path
    if config is None:
        raise NotConfiguredError("no config file found: pass --config FILE so the schedule names it (cron has no cwd)")
    if env_file is not None and not env_file.expanduser().is_file():
        raise ConfigError(f"--env-file {env_file} does not exist: create it with the VAR=value lines cron should load")
    entry_id = entry_id or schedule.new_id(args)
    line = schedule.command_line(args, entry_id=entry_id, config=config, home=settings.home, env_file=env_file)
    if systemd:
        print(schedule.systemd_units(entry_id, expression, line), end="")
        return
    tab = schedule.Crontab(_tabfile(settings, tabfile))
    entry = tab.add(entry_id, expression, line)
    if json_out:
        print(json.dumps(entry.to_json()))
        return
    runs = ", ".join(t.strftime("%a %Y-%m-%d %H:%M") for t in schedule.next_runs(expression))
    out.print(f"added [bold]{entry.id}[/] to {escape(tab.where)}: {escape(expression)}  brief {escape(' '.join(args))}")
    out.print(f"next runs: {runs}", highlight=False)


@schedule_app.command("list")
@cli_errors
def schedule_list(tabfile: TabOpt = None, json_out: JsonOpt = False) -> None:
    """brief's schedules (only the lines brief wrote), their next runs and their last run."""
    from briefing.ops import runlog, schedule

    settings = load()
    tab = schedule.Crontab(_tabfile(settings, tabfile))
    entries = tab.entries()
    last = runlog.last_runs(settings.home)
    if json_out:
        rows = [{**e.to_json(), "last_run": last.get(e.id)} for e in entries]
        print(json.dumps({"crontab": tab.where, "schedules": rows}, default=str))
        return
    if not entries:
        out.print(f"no brief schedules in {escape(tab.where)}: add one with `brief schedule add ingest --every 30m`")
        return
    table = Table("id", "when", "command", "next run", "last run", box=None)
    for entry in entries:
        run = last.get(entry.id) or {}
        nxt = schedule.next_runs(entry.expression, 1)[0].strftime("%a %m-%d %H:%M") if entry.enabled else "disabled"
        done = f"{str(run.get('ts', ''))[:16].replace('T', ' ')} {run.get('status', '')}" if run else "never"
        table.add_row(entry.id, entry.expression, escape(" ".join(entry.args)), nxt, done)
    out.print(f"schedules in {escape(tab.where)}")
    out.print(table)


@schedule_app.command("remove")
@cli_errors
def schedule_remove(
    entry_id: Annotated[str, typer.Argument(help="The schedule's id.")], tabfile: TabOpt = None
) -> None:
    """Remove one of brief's schedules (other crontab lines are never touched)."""
    from briefing.ops import schedule

    settings = load()
    tab = schedule.Crontab(_tabfile(settings, tabfile))
    entry = tab.remove(entry_id)
    out.print(f"removed {entry.id} from {escape(tab.where)}")


@schedule_app.command("run")
@cli_errors
def schedule_run(entry_id: Annotated[str, typer.Argument(help="The schedule's id.")], tabfile: TabOpt = None) -> None:
    """Run a schedule now, with the very command line cron runs; exits with its exit code."""
    from briefing.ops import schedule

    settings = load()
    tab = schedule.Crontab(_tabfile(settings, tabfile))
    entry = tab.get(entry_id)
    code = schedule.run_entry(entry)
    output = schedule.output_path(settings.home, entry.id)
    if output.is_file():
        from briefing.ops.safe import neutralise

        sys.stderr.write(neutralise(output.read_text(encoding="utf-8", errors="replace")))
    if code:
        raise typer.Exit(code)


@watch_app.command("add")
@cli_errors
def watch_add(
    target: Annotated[str | None, typer.Argument(help="A ticket key (PLAT-123), or words to watch for.")] = None,
    query: Annotated[str | None, typer.Option("--query", "-q", help='Words: "outage OR incident", -excluded.')] = None,
    source: Annotated[
        list[str] | None, typer.Option("--source", "-s", help="Only these sources (name, type or family).")
    ] = None,
    review_waiting: Annotated[
        str | None,
        typer.Option("--review-waiting", help="A person (people directory): reviews requested from them, pending."),
    ] = None,
    hours: Annotated[float, typer.Option("--hours", help="With --review-waiting: pending longer than this.")] = 24.0,
    json_out: JsonOpt = False,
) -> None:
    """Watch a ticket or a query (each new matching item is delivered once, after the ingest that brings it), or
    reviews requested from a person and still pending after --hours (each delivered once)."""
    from briefing.ops import watch

    settings = load()
    added, existing = watch.add_watch(
        settings, target=target, query=query, sources=source or [], reviewer=review_waiting, wait_hours=hours
    )
    if json_out:
        print(json.dumps({**added.to_json(), "already_matching": existing}))
        return
    out.print(
        f"watching [bold]{escape(added.label())}[/] ({added.id}); {existing} item(s) already match and will not notify"
    )


@watch_app.command("list")
@cli_errors
def watch_list(json_out: JsonOpt = False) -> None:
    """The watches, how many items each has seen, and notifications still queued."""
    from briefing.ops import watch

    settings = load()
    data = watch.WatchStore.for_settings(settings).load()
    rows = [
        {
            **w,
            "seen": len(data["seen"].get(w["id"], [])),
            "queued": sum(o["watch"] == w["id"] for o in data["outbox"]),
        }
        for w in data["watches"]
    ]
    if json_out:
        print(json.dumps({"watches": rows}))
        return
    if not rows:
        out.print('no watches: add one with `brief watch add PLAT-123` or `brief watch add --query "outage"`')
        return
    table = Table("id", "watching", "sources", "seen", "queued", "since", box=None)
    for row in rows:
        table.add_row(
            row["id"],
            escape(
                row["ticket"] or row["query"] or f"review waiting on {row.get('reviewer')} > {row.get('wait_hours')} h"
            ),
            escape(", ".join(row["sources"]) or "all"),
            str(row["seen"]),
            str(row["queued"]),
            row["created_at"][:16].replace("T", " "),
        )
    out.print(table)


@watch_app.command("run")
@cli_errors
def watch_run(json_out: JsonOpt = False) -> None:
    """Evaluate the watches now and deliver what is due (from cron, for review-wait watches between ingests)."""
    from datetime import UTC, datetime

    from briefing.ops import watch

    errors: list[str] = []
    run_id = "watch-" + datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    counts = watch.run_watches(load(), run_id=run_id, errors=errors)
    if json_out:
        print(json.dumps({**counts, "errors": errors}))
    else:
        out.print(f"{counts['new']} new, {counts['delivered']} delivered, {counts['queued']} queued")
        for error in errors:
            err.print(f"delivery failed: {escape(error)}")
    if counts["failed"]:
        raise typer.Exit(14)


@watch_app.command("remove")
@cli_errors
def watch_remove(watch_id: Annotated[str, typer.Argument(help="The watch's id (or its ticket key).")]) -> None:
    """Stop a watch (its queued notifications are dropped)."""
    from briefing.ops import watch

    removed = watch.remove_watch(load(), watch_id)
    out.print(f"removed watch {removed.id} ({escape(removed.label())})")


@metrics_app.command("serve")
@cli_errors
def metrics_serve(
    port: Annotated[int | None, typer.Option("--port", help="Port (default [metrics] port, 9464).")] = None,
    addr: Annotated[str | None, typer.Option("--addr", help="Address (default [metrics] addr, 127.0.0.1).")] = None,
) -> None:
    """A long-running Prometheus exporter of the totals every run writes (re-read at each scrape)."""
    import threading

    from briefing.ops import metrics

    settings = load()
    port = port if port is not None else settings.metrics.port
    addr = addr or settings.metrics.addr
    try:
        server, _ = metrics.serve(settings.home, port, addr)
    except OSError as exc:
        raise InputError(f"--port {port}: cannot listen on {addr}:{port} ({exc.strerror}): pick another port") from None
    err.print(f"serving metrics on http://{addr}:{server.server_port}/metrics (Ctrl-C stops)")
    try:
        threading.Event().wait()
    finally:
        server.shutdown()


@metrics_app.command("show")
@cli_errors
def metrics_show() -> None:
    """Print the metrics as Prometheus would scrape them."""
    from prometheus_client import CollectorRegistry, generate_latest

    from briefing.ops import metrics

    settings = load()
    registry = CollectorRegistry(auto_describe=False)
    registry.register(metrics.StateCollector(home=settings.home))
    sys.stdout.write(generate_latest(registry).decode())


def register(app: typer.Typer) -> None:
    app.add_typer(schedule_app, name="schedule")
    app.add_typer(watch_app, name="watch")
    app.add_typer(metrics_app, name="metrics")

    @app.command()
    def doctor(
        tabfile: TabOpt = None,
        json_out: JsonOpt = False,
        offline: Annotated[bool, typer.Option("--offline", help="Skip the credential calls.")] = False,
    ) -> None:
        """Check the setup: config, credentials, models, index, cache, disk, schedules; each problem with its fix."""
        from briefing.errors import BriefError
        from briefing.ops import doctor as checks

        try:
            settings = load()
        except BriefError as exc:
            report = checks.Report()
            report.error("config", exc, "fix the config file named above")
        else:
            report = checks.run_checks(settings, tabfile=tabfile, online=not offline)
        if json_out:
            print(json.dumps(report.to_json()))
        else:
            _render_report(report)
        raise typer.Exit(report.exit_code)

    @app.command()
    @cli_errors
    def deliver(
        file: Annotated[Path, typer.Argument(help="A text or Markdown file (a digest), or - for stdin.")],
        subject: Annotated[str, typer.Option("--subject", help="The subject line.")] = "brief",
    ) -> None:
        """Send a file (a digest) through the configured delivery targets: stdout, a file, e-mail, a chat message."""
        import hashlib

        from briefing.ops.deliver import Message, targets

        settings = load()
        text = sys.stdin.read() if str(file) == "-" else _read(file)
        message = Message(subject=subject, text=text, key="deliver-" + hashlib.sha256(text.encode()).hexdigest()[:16])
        for target in targets(settings):
            target.send(message)
            err.print(f"delivered via {target.name}")


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path} cannot be read ({exc.strerror}): name an existing file") from None


_STYLE = {"ok": "green", "info": "cyan", "warning": "yellow", "error": "red"}


def _render_report(report: Any) -> None:
    for finding in report.findings:
        colour = _STYLE[finding.severity]
        out.print(
            f"[{colour}]{finding.severity:>7}[/] {escape(finding.check)}: {escape(finding.message)}",
            highlight=False,
            soft_wrap=True,
        )
        if finding.fix and finding.severity != "ok":
            out.print(f"        fix: {escape(finding.fix)}", highlight=False, soft_wrap=True)
    counts = report.to_json()["counts"]
    out.print(f"{counts['error']} error(s), {counts['warning']} warning(s); exit code {report.exit_code}")


_ = state  # the global options (config, log format) reach these commands through `load()`
