"""`brief demo`: ingest the bundled sample workspace into a temporary home and ask it a few questions."""

from __future__ import annotations

import os
import shutil
import tempfile
from importlib import resources
from pathlib import Path
from typing import Annotated

import typer

from briefing.cli.common import cli_errors, out

DEMO_NOW = "2026-06-15T09:00:00+00:00"
DEMO_QUESTIONS = [
    "What was the root cause of the payments outage?",
    "What happened in #incidents last week?",
    "Who is on call this week?",
    "What is our policy on pets in the office?",
]


def sample_dir() -> Path:
    return Path(str(resources.files("briefing") / "sample"))


def register(app: typer.Typer) -> None:
    @app.command()
    @cli_errors
    def demo(
        keep: Annotated[bool, typer.Option("--keep", help="Keep the temporary home and print its path.")] = False,
        question: Annotated[list[str] | None, typer.Option("--question", "-q", help="Ask this instead.")] = None,
    ) -> None:
        """Ingest the bundled sample team into a temporary home and answer a few questions, with citations."""
        from briefing.cli.ingest import run_ingest
        from briefing.cli.query import print_answer
        from briefing.registry import FetchOptions
        from briefing.service import Brief, parse_now
        from briefing.settings import load_settings

        home = Path(tempfile.mkdtemp(prefix="brief-demo-"))
        previous = os.environ.get("BRIEF_HOME")
        os.environ["BRIEF_HOME"] = str(home)
        try:
            workspace = home / "sample"
            shutil.copytree(sample_dir(), workspace)
            settings = load_settings(workspace / "brief.toml")
            out.print(f"[bold]Ingesting the sample workspace[/] into {home} ...")
            run_ingest(settings, list(settings.sources), collect_first=True, options=FetchOptions())
            with Brief(settings) as brief:
                for q in question or DEMO_QUESTIONS:
                    out.print()
                    print_answer(brief.ask(q, now=parse_now(DEMO_NOW), k=10))
        finally:
            if previous is None:
                os.environ.pop("BRIEF_HOME", None)
            else:
                os.environ["BRIEF_HOME"] = previous
            if keep:
                out.print(f"kept {home}")
            else:
                shutil.rmtree(home, ignore_errors=True)
