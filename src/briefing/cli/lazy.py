"""The root `brief` group, with command modules imported only when one of their commands is needed.

`brief --help` lists every command from `COMMANDS` (name, module, the first paragraph of its help) without
importing a command module; `brief ask ...` or `brief ask --help` imports `briefing.cli.query` alone. Each
module keeps its `register(app)`: the group calls it on a private `typer.Typer` and takes the commands typer
builds from it, so a command's options, examples (`briefing.cli.help`) and behaviour are the ones an eager
registration gives. `tests/cli/test_lazy.py` checks `COMMANDS` against what the modules register.
"""

from __future__ import annotations

import importlib
import sys
import types
from difflib import get_close_matches
from typing import Any, NamedTuple

import typer
import typer.core
from typer._click.exceptions import UsageError  # typer runs on its own copy of click


class Entry(NamedTuple):
    name: str
    module: str
    help: str  # the first paragraph of the command's help: what the command list shows


# In the order `brief --help` lists them (the modules' registration order).
COMMANDS: tuple[Entry, ...] = (
    Entry("ingest", "briefing.cli.ingest", "Collect new and changed items from configured sources and index them."),
    Entry("reindex", "briefing.cli.ingest", "Re-chunk and re-embed from the raw cache, without contacting any source."),
    Entry(
        "warm",
        "briefing.cli.ingest",
        "Embed ahead of time the texts questions read (each message under its chunk's header, answer sentences).",
    ),
    Entry(
        "sources",
        "briefing.cli.ingest",
        "What is configured, when it last synced, counts and failures (`--as`: what that person may see).",
    ),
    Entry(
        "search", "briefing.cli.query", "Hybrid search over everything indexed, with metadata boosts from the query."
    ),
    Entry(
        "ask",
        "briefing.cli.query",
        "Answer a question from the indexed sources, with citations, or say they do not cover it.",
    ),
    Entry(
        "digest",
        "briefing.cli.digest",
        "What happened in a window: every conversation, grouped by channel or project, one cited line each.",
    ),
    Entry(
        "timeline",
        "briefing.cli.digest",
        "The dated sequence of events about a topic or a ticket across sources, each cited.",
    ),
    Entry(
        "summarize",
        "briefing.cli.summarize",
        "Broad questions: search the per-conversation summaries first, then quote the best conversations' own\n"
        "messages, comments and sections, each line cited to the exact unit.",
    ),
    Entry(
        "demo",
        "briefing.cli.demo",
        "Ingest the bundled sample team (Slack, docs, JIRA, Confluence, GitHub, git) and answer a few questions.",
    ),
    Entry(
        "mcp",
        "briefing.cli.mcp",
        "Serve search, ask, digest, timeline, get_item, list_sources and list_people to an MCP client.",
    ),
    Entry(
        "slack-bot",
        "briefing.cli.slack_bot",
        "Answer @-mentions and DMs in Slack with cited answers from the index, threaded, with permalinks.",
    ),
    Entry(
        "serve",
        "briefing.cli.serve",
        "Hold the workspace open: ingest webhook events as they happen, serve /healthz and /metrics.",
    ),
    Entry(
        "init", "briefing.cli.init", "Write a commented config, check it, and list the environment variables to set."
    ),
    Entry(
        "doctor",
        "briefing.cli.ops",
        "Check the setup: config, credentials, models, index, cache, disk, schedules; each problem with its fix.",
    ),
    Entry(
        "deliver",
        "briefing.cli.ops",
        "Send a file (a digest) through the configured delivery targets: stdout, a file, e-mail, a chat message.",
    ),
    Entry(
        "tune",
        "briefing.cli.tune",
        "Tune the LLM answer program on evaluation cases; `brief ask` then uses the saved program.",
    ),
    Entry(
        "eval",
        "briefing.cli.evaluate",
        "Run evaluation cases through the ask path and report retrieval, citation and answer metrics.",
    ),
    Entry("config", "briefing.cli.config", "Inspect the configuration."),
    Entry("schedule", "briefing.cli.ops", "Run brief from cron: add, list, remove and run schedules."),
    Entry("watch", "briefing.cli.ops", "Be told about new items that match a ticket or a query."),
    Entry("metrics", "briefing.cli.ops", "Prometheus metrics: the textfile under BRIEF_HOME/metrics/, or an exporter."),
    Entry(
        "people",
        "briefing.cli.people",
        "People across every source, one record each; merge and split correct the matching.",
    ),
)
# The order the modules used to be registered in, which gives the order above (typer lists commands, then groups).
MODULES: tuple[str, ...] = tuple(
    f"briefing.cli.{name}"
    for name in (
        "ingest", "query", "digest", "summarize", "demo", "mcp", "slack_bot", "serve", "config", "init", "ops", "tune",
        "people", "evaluate",
    )
)  # fmt: skip
_BY_NAME = {entry.name: entry for entry in COMMANDS}


class _Deferred(type):
    """A stand-in for a rich class that typer's help module imports at its top but help output never uses.

    The first real use (a call, an attribute such as `Traceback.from_exception`, an isinstance check) imports
    the real module and hands over to the real class.
    """

    _module: str
    _name: str

    def _real(cls) -> Any:
        return getattr(importlib.import_module(cls._module), cls._name)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return cls._real()(*args, **kwargs)

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(cls._real(), name)

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, cls._real())


# typer.rich_utils imports these at its top for Markdown help (markup mode "markdown", which brief does not use)
# and pretty tracebacks; they pull in markdown-it and pygments, about 85 % of the module's import time.
_DEFERRED = (("rich.markdown", "Markdown"), ("rich.traceback", "Traceback"))


def light_rich_help() -> None:
    """Import typer's rich help module with `_DEFERRED` standing in for their real modules while it loads."""
    if "typer.rich_utils" in sys.modules:
        return
    stand_ins: dict[str, types.ModuleType] = {}
    for module, name in _DEFERRED:
        if module not in sys.modules:
            stand_in = types.ModuleType(module)
            setattr(stand_in, name, _Deferred(name, (), {"_module": module, "_name": name}))
            stand_ins[module] = sys.modules[module] = stand_in
    try:
        importlib.import_module("typer.rich_utils")
    finally:
        for module, stand_in in stand_ins.items():
            if sys.modules.get(module) is stand_in:
                del sys.modules[module]  # the next import of it loads the real module


# One registration per module and process (a module's `register` adds commands to its module-level sub-apps, so a
# second call would add them twice); the click commands are built from it afresh for each root group, as typer
# does for an eager app.
_REGISTERED: dict[tuple[str, Any], typer.Typer] = {}


def build(module: str, markup: Any = "rich") -> dict[str, Any]:
    """The click commands `module.register` defines, built by typer exactly as on the root app, examples added."""
    from briefing.cli.help import add_examples

    light_rich_help()  # the command's help and usage errors format through it
    app = _REGISTERED.get((module, markup))
    if app is None:
        app = typer.Typer(rich_markup_mode=markup)
        importlib.import_module(module).register(app)
        add_examples(app)
        _REGISTERED[(module, markup)] = app
    return dict(typer.main.get_group(app).commands)


class LazyGroup(typer.core.TyperGroup):
    """`brief`'s root group: lists commands from `COMMANDS`, imports a command's module when it is looked up."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._listing = False
        self._built: set[str] = set()

    def list_commands(self, ctx: Any) -> list[str]:
        return [*(entry.name for entry in COMMANDS), *(name for name in self.commands if name not in _BY_NAME)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        entry = _BY_NAME.get(cmd_name)
        if entry is None or cmd_name in self.commands:
            return self.commands.get(cmd_name)
        if self._listing:  # the root help's command list: the name and its first paragraph are all it shows
            return typer.core.TyperCommand(name=cmd_name, help=entry.help)
        if entry.module not in self._built:
            self._built.add(entry.module)
            try:
                built = build(entry.module, self.rich_markup_mode)
            except ImportError:  # an optional module whose extra is not installed: the command is absent
                return None
            for name, command in built.items():
                self.commands.setdefault(name, command)
        return self.commands.get(cmd_name)

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        try:
            return super().resolve_command(ctx, args)
        except UsageError as e:  # typer suggests from the commands built so far; suggest from all of them
            if self.suggest_commands and args and "Did you mean" not in e.message:
                matches = get_close_matches(args[0], self.list_commands(ctx))
                if matches:
                    e.message = f"{e.message.rstrip('.')}. Did you mean {', '.join(repr(m) for m in matches)}?"
            raise

    def format_help(self, ctx: Any, formatter: Any) -> None:
        light_rich_help()
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False
