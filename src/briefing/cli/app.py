"""The `brief` command line: global options, error handling, and the command modules."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Annotated

import typer

from briefing import __version__
from briefing.cli.common import err, state

app = typer.Typer(
    name="brief",
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
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
) -> None:
    """Briefings with citations over your team's Slack, docs, tickets and code."""
    state.config = config
    state.verbose = verbose
    if verbose:
        from rich.logging import RichHandler

        logging.basicConfig(level=logging.INFO, handlers=[RichHandler(console=err, show_path=False)], force=True)
    else:
        logging.basicConfig(level=logging.WARNING, handlers=[logging.StreamHandler(sys.stderr)], force=True)


def _register() -> None:
    from briefing.cli import demo, ingest, people, query

    ingest.register(app)
    query.register(app)
    demo.register(app)
    people.register(app)
    try:
        from briefing.cli import evaluate
    except ImportError:
        return
    evaluate.register(app)


_register()


def main() -> None:
    app()
