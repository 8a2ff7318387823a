"""`brief demo`: ingest the bundled sample team into a temporary home and ask it a few questions.

Besides the docs folder, the demo serves the sample's Slack workspace (from its export), JIRA project,
Confluence space and GitHub repositories from local stand-ins of the vendors' APIs (`briefing.devserver`, on
127.0.0.1 only) and builds the sample git repository, so every API connector runs as it would against the real
services. The sample's own brief.toml reads the Slack export instead, for use without the demo's servers.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

import typer

from briefing.cli.common import cli_errors, err, out

DEMO_NOW = "2026-06-15T09:00:00+00:00"
DEMO_QUESTIONS = [
    "What was the root cause of the payments outage?",
    "What is the status of PLAT-101?",
    "Which pull request added jitter to payout-worker?",
    "Which PR added the statements index?",
    "What changed in ledger-api v2.5.1?",
    "Who is on call this week?",
    "What happened in #incidents last week?",
    "What is our policy on pets in the office?",
    "How much did Ruth approve for the Aurora database budget?",
    "What meetings do we have this week?",
]
# Credentials live in the demo process's environment only; the config names the variables, as everywhere.
_ENV = {
    "slack": (None, "BRIEF_DEMO_SLACK_TOKEN"),
    "jira": ("BRIEF_DEMO_JIRA_USER", "BRIEF_DEMO_JIRA_TOKEN"),
    "confluence": ("BRIEF_DEMO_CONFLUENCE_USER", "BRIEF_DEMO_CONFLUENCE_TOKEN"),
    "github": (None, "BRIEF_DEMO_GITHUB_TOKEN"),
}


def sample_dir() -> Path:
    return Path(str(resources.files("briefing") / "sample"))


@contextmanager
def _environ(values: dict[str, str]) -> Iterator[None]:
    """Set environment variables for the block and restore what was there before."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _table(name: str, values: dict[str, Any]) -> str:
    lines = [f"\n[sources.{name}]"]
    lines += [f"{key} = {json.dumps(value)}" for key, value in values.items()]
    return "\n".join(lines) + "\n"


SLACK_SOURCE = "team-slack"


def without_source(config_text: str, name: str) -> str:
    """`config_text` less its `[sources.<name>]` table (header to the next table), so another can take the name."""
    table = re.compile(rf"^\[sources\.(?:{re.escape(name)}|\"{re.escape(name)}\")\]\s*\n(?:(?!\[).*\n?)*", re.M)
    return table.sub("", config_text)


def api_sources(urls: dict[str, str], workspace: Path, git_repo: Path | None) -> str:
    """TOML tables for the stand-in servers in `urls` ({type: base URL}) and the built git repository."""
    text = "\n# Added by `brief demo`: local stand-ins of the vendors' APIs (briefing.devserver), for this run only.\n"
    if "slack" in urls:
        text += _table(SLACK_SOURCE, {"type": "slack", "base_url": urls["slack"], "token_env": _ENV["slack"][1]})
    if "jira" in urls:
        user, token = _ENV["jira"]
        jira = {"base_url": urls["jira"], "cloud": True, "user_env": user, "token_env": token, "projects": ["PLAT"]}
        text += _table("tracker", {"type": "jira", **jira})
    if "confluence" in urls:
        user, token = _ENV["confluence"]
        wiki = {"base_url": urls["confluence"], "user_env": user, "token_env": token, "spaces": ["ENG"]}
        text += _table("wiki", {"type": "confluence", **wiki})
    if "github" in urls:
        repos = sorted(p.stem.replace("__", "/", 1) for p in (workspace / "github").glob("*__*.json"))
        code = {"base_url": urls["github"], "token_env": _ENV["github"][1], "repos": repos}
        text += _table("code", {"type": "github", **code})
    if git_repo is not None:
        path = git_repo.relative_to(workspace).as_posix()
        text += _table("ledger-git", {"type": "git", "path": path, "code_paths": ["internal", "migrations"]})
    # The team's mailbox and calendar (local files); every series ends by 30 June 2026, so a wide window is small.
    text += _table("team-mail", {"type": "email", "path": "mail/team.mbox"})
    text += _table("team-calendar", {"type": "ics", "path": "calendar/team.ics", "expand_days": 3650})
    return text


def _secrets() -> dict[str, str]:
    from briefing.devserver import DEMO_TOKEN, DEMO_USER

    values: dict[str, str] = {}
    for user, token in _ENV.values():
        if user:
            values[user] = DEMO_USER
        values[token] = DEMO_TOKEN
    return values


def _print_sources(settings: Any) -> None:
    from rich.table import Table

    from briefing.store import SourceState

    table = Table("source", "type", "fetched", "documents", "chunks", "failures", box=None, title="Sources ingested")
    for name, config in settings.sources.items():
        run = SourceState.for_source(settings, name).data.get("last_run", {})
        failures = int(run.get("failures", 0))
        table.add_row(
            name,
            config.type,
            str(run.get("fetched", "-")),
            str(run.get("documents", "-")),
            str(run.get("chunks", "-")),
            f"[red]{failures}[/]" if failures else "0",
        )
    out.print(table)


def register(app: typer.Typer) -> None:
    @app.command()
    @cli_errors
    def demo(
        keep: Annotated[bool, typer.Option("--keep", help="Keep the temporary home and print its path.")] = False,
        question: Annotated[list[str] | None, typer.Option("--question", "-q", help="Ask this instead.")] = None,
    ) -> None:
        """Ingest the bundled sample team (Slack, docs, JIRA, Confluence, GitHub, git) and answer a few questions."""
        from briefing import pipeline
        from briefing.cli.ingest import print_skipped
        from briefing.cli.progress import ProgressDisplay
        from briefing.cli.query import print_answer
        from briefing.devserver import git_repo, serve_sample
        from briefing.registry import FetchOptions
        from briefing.service import Brief, parse_now
        from briefing.settings import load_settings

        home = Path(tempfile.mkdtemp(prefix="brief-demo-"))
        try:
            workspace = home / "sample"
            shutil.copytree(sample_dir(), workspace)
            repo = None
            if git_repo.available():
                repo = git_repo.build(workspace / "git")
            else:
                err.print("[yellow]note:[/] the `git` program is not installed: the demo skips the git source")
            with _environ({"BRIEF_HOME": str(home), **_secrets()}):
                with serve_sample(workspace) as urls:
                    config = workspace / "brief.toml"
                    text = config.read_text(encoding="utf-8")
                    if "slack" in urls:  # the Web API connector reads the workspace the export would have
                        text = without_source(text, SLACK_SOURCE)
                    config.write_text(text + api_sources(urls, workspace, repo), encoding="utf-8")
                    settings = load_settings(config)
                    out.print(f"[bold]Ingesting the sample workspace[/] into {home} ...")
                    with ProgressDisplay() as bars:
                        summary = pipeline.run(settings, list(settings.sources), options=FetchOptions(), progress=bars)
                print_skipped(summary)
                error = summary.error()
                if error is not None:
                    raise error
                _print_sources(settings)
                with Brief(settings) as brief:
                    for q in question or DEMO_QUESTIONS:
                        out.print()
                        print_answer(brief.ask(q, now=parse_now(DEMO_NOW), k=10))
        finally:
            if keep:
                out.print(f"kept {home}")
            else:
                shutil.rmtree(home, ignore_errors=True)
