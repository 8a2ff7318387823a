"""The `brief` executable: `--help` and `ask --help` from a copy rendered once, `--version` directly, the rest typer.

`brief --help` is the command a new user runs first and the one shell tools run to list commands. Rendering it
needs typer and rich (about 0.13 s of CPU on two cores, most of it imports). The root help depends only on the
code and on how the terminal renders (width, colour), so the first `brief --help` renders it through typer as
always and keeps the exact text in the user's cache directory; later calls with the same code and the same
terminal print that text without importing typer. The key covers the version, the files that define the root
help, typer's and rich's own files, whether stdout is a terminal and its width, and every environment variable
typer or rich read to choose width and colour, so a change of any of them renders again. A cache that cannot be
read or written is skipped silently: the help is then rendered as before. Shell completion (`_BRIEF_COMPLETE`)
and every other argument list go straight to typer.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import Any

HELP_ARGS = (["--help"], ["-h"], ["ask", "--help"], ["ask", "-h"])
# What typer and rich read from the environment to decide width, colour and terminal features.
RENDER_ENV = (
    "COLUMNS",
    "LINES",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "FORCE_COLOR",
    "PY_COLORS",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "TTY_COMPATIBLE",
    "TTY_INTERACTIVE",
    "TERMINAL_WIDTH",
    "GITHUB_ACTIONS",
    "JUPYTER_COLUMNS",
    "JUPYTER_LINES",
    "_TYPER_FORCE_DISABLE_TERMINAL",
    "_TYPER_STANDARD_TRACEBACK",
)
# The files whose code renders the root help (its options, command table and formatting).
_HELP_SOURCES = ("app.py", "lazy.py", "help.py", "common.py", "entry.py", "query.py")


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "brief" / "help"


def _stamp(path: str | None) -> str:
    if not path:
        return "-"
    try:
        st = os.stat(path)
    except OSError:
        return "-"
    return f"{path}:{st.st_mtime_ns}:{st.st_size}"


def _library_file(name: str) -> str | None:
    """The installed library's `__init__.py`, found without importing it (an upgrade changes its stamp)."""
    from importlib.util import find_spec

    try:
        spec = find_spec(name)
    except (ImportError, ValueError):
        return None
    return spec.origin if spec else None


def help_key(args: list[str]) -> str:
    from briefing import __version__

    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.stdout
    tty = bool(getattr(out, "isatty", lambda: False)())
    try:
        width = os.get_terminal_size(out.fileno()).columns if tty else 0
    except (OSError, ValueError, AttributeError):
        width = 0
    parts = [
        __version__,
        " ".join(args),
        *(_stamp(os.path.join(here, name)) for name in _HELP_SOURCES),
        _stamp(_library_file("typer")),
        _stamp(_library_file("rich")),
        f"tty={tty}",
        f"width={width}",
        f"encoding={getattr(out, 'encoding', '')}",
        *(f"{name}={os.environ.get(name)}" for name in RENDER_ENV),
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]


class _Recording:
    """stdout as rich sees it (same terminal, same encoding), keeping a copy of what is written."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.text: list[str] = []

    def write(self, text: str) -> int:
        written = int(self._stream.write(text))  # click probes for a binary stream with write(b""): it fails here
        self.text.append(text)
        return written

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _save(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only or full cache directory only costs the next call its speed


def _render_help(path: Path | None) -> None:
    from briefing.cli.app import main as run

    recording = _Recording(sys.stdout)
    sys.stdout = recording  # type: ignore[assignment]
    try:
        run()
    except SystemExit as done:
        if path is not None and done.code in (0, None) and recording.text:
            _save(path, "".join(recording.text))
        raise
    finally:
        sys.stdout = recording._stream


def main() -> None:
    args = sys.argv[1:]
    if args == ["--version"] and "_BRIEF_COMPLETE" not in os.environ:
        from briefing import __version__

        print(f"brief {__version__}")  # what the eager `--version` option prints, without importing typer
        return
    if args in HELP_ARGS and "_BRIEF_COMPLETE" not in os.environ:
        try:
            path: Path | None = cache_dir() / f"{help_key(args)}.txt"
        except Exception:  # noqa: BLE001  (no key, no cache: render as before)
            path = None
        if path is not None:
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                text = ""
            if text:
                sys.stdout.write(text)
                sys.stdout.flush()
                return
        _render_help(path)
        return
    from briefing.cli.app import main as run

    run()
