"""The `brief` command line: global options, error handling, and the command modules."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import IO, Annotated, cast

import typer

from briefing import __version__
from briefing.cli import help as _help  # noqa: F401  (flags shown without a `<bool>` type, on every help)
from briefing.cli.common import err, state
from briefing.cli.lazy import LazyGroup

# The command modules are imported on first use (briefing.cli.lazy): `brief --help` imports none of them.
app = typer.Typer(
    name="brief",
    cls=LazyGroup,
    help="Briefings with citations over your team's Slack, docs, tickets and code.",
    rich_markup_mode="rich",
    pretty_exceptions_show_locals=False,
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        print(f"brief {__version__}")
        raise typer.Exit()


@app.callback()
def main_callback(
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            "-c",
            help="Config file (default ./brief.toml, then $BRIEF_HOME/brief.toml).",
            envvar="BRIEF_CONFIG",
        ),
    ] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log diagnostics to stderr.")] = False,
    log_format: Annotated[
        str, typer.Option("--log-format", help="Diagnostics on stderr as text or json (one object a line).")
    ] = "text",
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
) -> None:
    """Briefings with citations over your team's Slack, docs, tickets and code."""
    state.config = config
    state.verbose = verbose
    if log_format not in ("text", "json"):
        err.print(f"[bold red]error:[/] --log-format '{log_format}': use text or json")
        raise typer.Exit(10)
    err.file = None  # type: ignore[assignment]  # the process's stderr (tests run many invocations in one process)
    if log_format == "json":
        from briefing.ops.runlog import JsonLines, json_handler

        # Everything the commands print on stderr (errors, skipped items, notes) becomes one JSON object a line.
        err.file = cast(IO[str], JsonLines(sys.stderr))
        err.soft_wrap = True
        logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, handlers=[json_handler()], force=True)
    elif verbose:
        from rich.logging import RichHandler

        logging.basicConfig(level=logging.INFO, handlers=[RichHandler(console=err, show_path=False)], force=True)
    else:
        logging.basicConfig(level=logging.WARNING, handlers=[logging.StreamHandler(sys.stderr)], force=True)


def main() -> None:
    app()
