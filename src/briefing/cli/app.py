"""The `brief` command line: global options, error handling, and the command modules."""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console

from briefing import __version__
from briefing.errors import BriefError

app = typer.Typer(
    name="brief",
    help="Briefings with citations over your team's Slack, docs, tickets and code.",
    rich_markup_mode="rich",
    pretty_exceptions_show_locals=False,
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
out = Console(soft_wrap=False)
err = Console(stderr=True)
F = TypeVar("F", bound=Callable[..., Any])


class State:
    config: Path | None = None
    verbose: bool = False


state = State()


def cli_errors(func: F) -> F:
    """Expected errors become one line on stderr and the error's exit code; never a traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except BriefError as exc:
            err.print(f"[bold red]error:[/] {exc}", highlight=False, markup=True, soft_wrap=True)
            raise typer.Exit(exc.exit_code) from None
        except KeyboardInterrupt:
            err.print("interrupted: nothing cached so far was lost; run the command again to resume")
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


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


def load() -> Any:
    from briefing.settings import load_settings

    return load_settings(state.config)


def _register() -> None:
    from briefing.cli import demo, ingest, query

    ingest.register(app)
    query.register(app)
    demo.register(app)
    try:
        from briefing.cli import evaluate
    except ImportError:
        return
    evaluate.register(app)


_register()


def main() -> None:
    app()
