"""What every command module shares: consoles, run state, settings loading and error handling.

Kept apart from `app.py` so command modules can be imported on their own (no import cycle through the app).

Everything printed to a terminal goes through `SafeConsole`: control characters that ingested content (or a file
name) carries are shown as visible escapes (`\\x1b`), never sent raw, so a message cannot retitle the window,
plant a hyperlink, clear the screen or hide text. Rich's own styling is unaffected (it is not in the text). Dynamic
values are passed through `escape` (or `markup=False`) so `[link=...]` in a path is text, not markup. `--json`
output bypasses the consoles and stays exact. Known secret values are redacted from every error and log line.
"""

from __future__ import annotations

import functools
import logging
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape as _markup_escape
from rich.segment import Segment

from briefing.errors import BriefError

F = TypeVar("F", bound=Callable[..., Any])


def redact(text: str) -> str:
    """briefing.sources.redact, imported on first use: `brief --help` need not load the source models (pydantic)."""
    from briefing.sources import redact as _redact

    return _redact(text)


def remember_secret(value: str | None) -> None:
    from briefing.sources import remember_secret as _remember

    _remember(value)


# C0 controls except tab and newline, DEL, C1 controls, and the bidirectional overrides and isolates that can
# make a line read differently from what it contains.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def neutralise(text: str) -> str:
    """`text` with every terminal control character replaced by a visible escape; tabs and newlines kept."""
    return _UNSAFE.sub(_visible, text.replace("\r\n", "\n"))


def escape(value: object) -> str:
    """A dynamic value for a Rich markup string: control characters neutralised, markup brackets escaped."""
    return _markup_escape(neutralise(str(value)))


class SafeConsole(Console):
    """A Rich console that never writes a control character it did not produce itself."""

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        safe = (
            seg if seg.control or not _UNSAFE.search(seg.text) else Segment(neutralise(seg.text), seg.style)
            for seg in buffer
        )
        return redact(super()._render_buffer(safe))


out = SafeConsole(soft_wrap=False)
err = SafeConsole(stderr=True)
# Piped or redirected output (a file, `less`, another program): whole lines, no hard wrapping, no boxes.
if not out.is_terminal:
    out.soft_wrap = True
if not err.is_terminal:
    err.soft_wrap = True


def plain() -> bool:
    """True when stdout is not a terminal: print text as text (URLs unbroken, no panels)."""
    return not out.is_terminal


class RedactingFilter(logging.Filter):
    """Removes known secret values from a log record's final message."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


def install_log_redaction(logger: logging.Logger | None = None) -> None:
    """Redact secrets from every handler of `logger` (the root logger by default)."""
    target = logger or logging.getLogger()
    for handler in target.handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())


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
            err.print(f"[bold red]error:[/] {escape(redact(str(exc)))}", highlight=False, soft_wrap=True)
            raise typer.Exit(exc.exit_code) from None
        except KeyboardInterrupt:
            err.print("interrupted: nothing cached so far was lost; run the command again to resume")
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def _remember_configured_secrets(settings: Any) -> None:
    """Secrets the config names (`*_env` keys) are redacted even before a connector reads them."""
    tables = [*getattr(settings, "sources", {}).values(), getattr(settings, "llm", None)]
    for table in tables:
        if table is None:
            continue
        for key, value in table.model_dump().items():
            if key.endswith("_env") and isinstance(value, str):
                remember_secret(os.environ.get(value))


AsOpt = Annotated[
    str | None,
    typer.Option(
        "--as", help="Answer only from what this person may see (an address, handle or name).", metavar="PERSON"
    ),
]


def load(acting_as: str | None = None) -> Any:
    """The settings; `acting_as` is the command's `--as PERSON` (briefing.access)."""
    from briefing.settings import load_settings

    settings = load_settings(state.config)
    if acting_as is not None:
        settings.acting_as = acting_as
    _remember_configured_secrets(settings)
    install_log_redaction()
    return settings
