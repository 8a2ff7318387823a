"""What every command module shares: consoles, run state, settings loading and error handling.

Kept apart from `app.py` so command modules can be imported on their own (no import cycle through the app).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from briefing.errors import BriefError

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
            # escaped: messages name settings as "[llm] model", which Rich would otherwise take for markup
            err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, markup=True, soft_wrap=True)
            raise typer.Exit(exc.exit_code) from None
        except KeyboardInterrupt:
            err.print("interrupted: nothing cached so far was lost; run the command again to resume")
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def load() -> Any:
    from briefing.settings import load_settings

    return load_settings(state.config)
