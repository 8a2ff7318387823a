"""`brief summarize TOPIC`: the conversations about a topic, from the summaries computed at ingest, each cited."""

from __future__ import annotations

from typing import Annotated

import typer

from briefing.cli.common import cli_errors, load
from briefing.cli.digest import FormatOpt, NowOpt, OutOpt, _format, _now, _write


def register(app: typer.Typer) -> None:
    @app.command()
    @cli_errors
    def summarize(
        topic: Annotated[str, typer.Argument(help='What to summarise, e.g. "problems users hit with CDC".')],
        conversations: Annotated[
            int, typer.Option("--conversations", "-n", min=1, max=50, help="Conversations to drill into.")
        ] = 6,
        fmt: FormatOpt = "md",
        out: OutOpt = None,
        now: NowOpt = None,
    ) -> None:
        """Broad questions: search the per-conversation summaries first, then quote the best conversations' own
        messages, comments and sections, each line cited to the exact unit."""
        from briefing import summaries
        from briefing.service import Brief, check_question

        chosen = _format(fmt)
        settings = load()
        at = _now(now)
        with Brief(settings) as brief:
            brief._require_index()
            result = summaries.answer(
                settings, brief.index, brief.embedder, check_question(topic), now=at, conversations=conversations
            )
        _write(summaries.render(result, chosen), out)
