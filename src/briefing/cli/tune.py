"""`brief tune`: compile the LLM answer program on evaluation cases (DSPy BootstrapFewShot)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from briefing.cli.common import cli_errors, err, out, state
from briefing.errors import NotConfiguredError


def register(app: typer.Typer) -> None:
    @app.command("tune")
    @cli_errors
    def tune_(
        cases_files: Annotated[
            list[Path], typer.Argument(help="JSONL files of evaluation cases (DESIGN.md format) to learn from.")
        ],
        dev_fraction: Annotated[
            float, typer.Option("--dev-fraction", min=0.0, max=0.9, help="Share of cases held out for scoring.")
        ] = 0.3,
        max_demos: Annotated[int, typer.Option("--max-demos", min=1, max=16, help="Few-shot demos to keep.")] = 4,
        seed: Annotated[int, typer.Option("--seed", help="Seed of the train/dev split.")] = 0,
        json_out: Annotated[bool, typer.Option("--json", help="Print the report as one JSON object.")] = False,
    ) -> None:
        """Tune the LLM answer program on evaluation cases; `brief ask` then uses the saved program."""
        from briefing.ask.lm import build_lm
        from briefing.evaluation.cases import load_cases
        from briefing.service import Brief
        from briefing.settings import load_settings

        settings = load_settings(state.config)
        lm = build_lm(settings.llm)  # names the `llm` extra when DSPy is not installed
        if lm is None:
            where = settings.config_path or "the config"
            raise NotConfiguredError(
                f"brief tune needs an LLM: set [llm] model in {where} (e.g. 'openai/gpt-4o-mini' or "
                "'ollama_chat/llama3.1'); the extractive answerer has nothing to tune"
            )
        from briefing.ask.tune import program_path, to_example, tune

        cases = [case for path in cases_files for case in load_cases(path)]
        limit = settings.answer.max_context_chunks
        with Brief(settings) as brief:
            examples = []
            for case in cases:
                hits = brief.search(case.question, now=case.now_dt, k=limit).hits
                examples.append(to_example(case, [h.chunk for h in hits[:limit]]))
        report = tune(
            examples,
            lm,
            program_path(settings),
            dev_fraction=dev_fraction,
            max_demos=max_demos,
            seed=seed,
            progress=lambda message: err.print(f"[dim]{message}[/dim]"),
        )
        if json_out:
            print(json.dumps(report.to_json()))
            return
        out.print(
            f"tuned on {report.train} case(s), {report.demos} demo(s) kept; dev score "
            f"{report.before:.3f} -> {report.after:.3f} on {report.dev} held-out case(s)"
        )
        out.print(f"saved {report.path}; `brief ask` uses it from now on (delete it to go back)")
