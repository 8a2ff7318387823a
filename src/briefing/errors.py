"""User-facing error family with distinct exit codes.

Every error here is printed by the CLI as one line, without a traceback. The message must name the file, key or
value at fault and say what to do; it must never contain a secret's value.
"""

from __future__ import annotations


class BriefError(Exception):
    """Base of all expected errors; `exit_code` is what the CLI exits with."""

    exit_code = 1


class ConfigError(BriefError):
    """The configuration file is missing, malformed or names something unknown."""

    exit_code = 2


class NotConfiguredError(ConfigError):
    """A command needs something (a source, a model, an index) that is not configured or not built yet."""

    exit_code = 3


class SourceError(BriefError):
    """A source's data could not be read at all (missing export folder, unreadable root)."""

    exit_code = 4


class AuthError(BriefError):
    """Credentials were missing or rejected; the message names the environment variable to set."""

    exit_code = 5


class RateLimitedError(BriefError):
    """The vendor kept rate limiting after all retries."""

    exit_code = 6


class SourceTimeoutError(BriefError):
    """The vendor did not answer in time after all retries."""

    exit_code = 7


class ModelError(BriefError):
    """A configured model (embedding, reranker, LLM) could not be loaded or called."""

    exit_code = 8


class IndexError_(BriefError):
    """The index is empty, locked by another process, or unreadable."""

    exit_code = 9


class InputError(BriefError):
    """The user's input (a question, a cases file, a date) is unusable."""

    exit_code = 10


class StateError(BriefError):
    """Local state under BRIEF_HOME (raw cache, index, state file) is damaged; the message says how to repair it."""

    exit_code = 11


class MassDeletionError(SourceError):
    """A run would delete most of a source's items; confirmed only with `--full --allow-deletions`."""

    exit_code = 12


class DiskFullError(StateError):
    """The disk under BRIEF_HOME is (nearly) full; nothing is damaged, the run stopped before writing."""

    exit_code = 16


class Terminated(KeyboardInterrupt):
    """The process was asked to stop (SIGTERM, as a scheduler's timeout sends); the run is logged as interrupted.

    A `KeyboardInterrupt`, so it unwinds through every cleanup and the CLI reports it as an interruption (exit 130).
    """

    exit_code = 130
