"""Runs `git` in a local clone: no prompts, no optional locks, the C locale, and one error for a failed command."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from briefing.errors import SourceError


class GitFailed(Exception):
    """A git command that exited non-zero, with the last line it wrote to stderr."""

    def __init__(self, command: str, reason: str) -> None:
        super().__init__(f"git {command}: {reason}")
        self.reason = reason


def run_git(path: Path, name: str, *args: str, check: bool = True, input_bytes: bytes | None = None) -> bytes:
    """The output of `git <args>` in the clone at `path` (source `name`); a failure raises `GitFailed`."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"}
    env.pop("GIT_DIR", None)
    env.pop("GIT_WORK_TREE", None)
    try:
        # git is run with an argument list (never a shell), found on PATH as users expect.
        proc = subprocess.run(  # noqa: S603
            [  # noqa: S607
                "git",
                "-C",
                str(path),
                "-c",
                "core.quotepath=off",
                "-c",
                "log.showSignature=false",
                *args,
            ],
            input=input_bytes,
            capture_output=True,
            env=env,
            check=False,
        )
    except FileNotFoundError:
        raise SourceError(f"source '{name}': the git command is not installed; install git to read {path}") from None
    if check and proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitFailed(args[0], message[-1] if message else f"exit {proc.returncode}")
    return proc.stdout
