"""`brief search` and `brief ask`."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.panel import Panel
from rich.tree import Tree

from briefing.cli.common import AsOpt, cli_errors, err, load, out, plain

if TYPE_CHECKING:
    from briefing.results import AskResult, SearchResult

NowOpt = Annotated[str | None, typer.Option("--now", help="Fix 'now' for relative dates (ISO-8601; or BRIEF_NOW).")]
KOpt = Annotated[int, typer.Option("-k", min=1, max=100, help="How many hits.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")]
TraceOpt = Annotated[bool, typer.Option("--show-trace", help="Show constraints, candidates, rerank and timings.")]
DocsOpt = Annotated[bool, typer.Option("--show-docs", help="Show the retrieved chunks in full.")]


def _now(value: str | None) -> Any:
    from briefing.service import parse_now

    return parse_now(value or os.environ.get("BRIEF_NOW"))


def _emit_json(result: SearchResult, trace: bool) -> None:
    print(json.dumps(result.to_json(trace=trace), ensure_ascii=False, default=str))


def _render_hits(result: SearchResult, full: bool, timezone: str = "UTC") -> None:
    from zoneinfo import ZoneInfo

    zone = ZoneInfo(timezone)
    for rank, hit in enumerate(result.hits, 1):
        chunk = hit.chunk
        when = f"{chunk.start.astimezone(zone):%Y-%m-%d %H:%M %Z}"  # the workspace's zone, as the windows are
        out.print(
            f"[bold cyan]{rank:>2}.[/] [bold]{escape(chunk.title or chunk.chunk_id)}[/] "
            f"[dim]{chunk.source_type} · {when} · {hit.score:.3f}[/]"
        )
        out.print(f"    [dim]{escape(' '.join(chunk.refs[:4]))}{' …' if len(chunk.refs) > 4 else ''}[/]")
        if full and plain():
            out.print(escape(chunk.text), highlight=False)
        elif full:
            out.print(Panel(escape(chunk.text), expand=False))
        else:
            body = chunk.text.splitlines()
            preview = " ".join(body[1:] if len(body) > 1 else body)[:200]
            out.print(f"    {escape(preview)}")


def render_trace(result: SearchResult) -> None:
    trace = result.trace
    tree = Tree("[bold]trace")
    cons = tree.add("constraints (deterministic extraction)")
    c = trace.get("constraints", {})
    for span in c.get("spans", []):
        cons.add(f"{span.get('kind')}: “{escape(str(span.get('text')))}”")
    for key in ("time", "sources", "people", "channels", "projects", "tickets", "prs", "hard", "intent"):
        if c.get(key):
            cons.add(f"{key} = {escape(json.dumps(c[key], default=str))}")
    tree.add(f"router: {escape(str(trace.get('router', 'off')))}")
    for step in trace.get("router_steps", []):
        tree.add(f"router: {escape(json.dumps(step, default=str)[:300])}")
    for call in trace.get("model_calls", []):
        tokens = f" {call['prompt_tokens']}+{call['completion_tokens']} tokens" if "completion_tokens" in call else ""
        failed = f" failed: {call['error']}" if call.get("error") else ""
        tree.add(
            f"model call ({escape(str(call['role']))} {escape(str(call['model']))}): {call['ms']} ms{tokens}{failed}"
        )
    tree.add(f"hard filters: {escape(json.dumps(trace.get('filters', {}), default=str))} (workspace always)")
    if trace.get("access"):
        tree.add(f"access: {escape(json.dumps(trace['access'], default=str))}")
    tree.add(f"reranker: {escape(str(trace.get('reranker')))}")
    cands = tree.add(f"candidates before rerank ({len(trace.get('candidates', []))})")
    for cand in trace.get("candidates", [])[:15]:
        cands.add(
            f"{escape(cand['title'][:60])} fused={cand['fused']} dense#{cand['dense_rank']} "
            f"sparse#{cand['sparse_rank']} {cand['origin']}"
        )
    reranked = tree.add("after rerank")
    for cand in trace.get("reranked", []):
        reranked.add(f"{escape(cand['title'][:60])} score={cand['score']} boosts={cand['boosts']}")
    if "context" in trace:
        ctx = tree.add(f"context given to the answerer ({trace.get('answerer')})")
        for item in trace["context"]:
            ctx.add(f"[{item['n']}] {escape(item['title'][:70])}")
        ev = tree.add(f"evidence (best {trace.get('best_evidence_score')}, threshold {trace.get('threshold')})")
        for e in trace.get("evidence", [])[:8]:
            ev.add(f"[{e['n']}] {e['score']} (dense {e['dense']}, lexical {e['lexical']}): {escape(e['text'][:100])}")
        features = trace.get("features") or {}
        if "confidence" in features:
            from briefing.ask.extractive.refusal import signals  # the answer stage: not for `--help`

            said = signals(features)
            node = tree.add(f"confidence {features['confidence']:.2f} (refused below {trace.get('threshold')})")
            for words in said:
                node.add(words)
    for claim in trace.get("uncited_claims", []):
        tree.add(f"[yellow]uncited claim[/] {escape(str(claim))[:120]}")
    for removed in trace.get("removed_citations", []):
        tree.add(f"[red]removed citation[/] {escape(str(removed))}")
    tree.add(f"timings (ms): {result.timings_ms}")
    err.print(tree)


def register(app: typer.Typer) -> None:
    @app.command()
    @cli_errors
    def search(
        query: Annotated[str, typer.Argument(help="What to look for.")],
        k: KOpt = 10,
        now: NowOpt = None,
        json_out: JsonOpt = False,
        show_docs: DocsOpt = False,
        show_trace: TraceOpt = False,
        as_person: AsOpt = None,
    ) -> None:
        """Hybrid search over everything indexed, with metadata boosts from the query."""
        from briefing.service import Brief

        settings = load(as_person)
        with Brief(settings) as brief:
            result = brief.search(query, now=_now(now), k=k)
        if json_out:
            _emit_json(result, show_trace)
            return
        if not result.hits:
            out.print("no matches")
        _render_hits(result, show_docs, settings.workspace.timezone)
        if show_trace:
            render_trace(result)

    @app.command()
    @cli_errors
    def ask(
        question: Annotated[str, typer.Argument(help="A question about your team's work.")],
        k: KOpt = 10,
        now: NowOpt = None,
        json_out: JsonOpt = False,
        show_docs: DocsOpt = False,
        show_trace: TraceOpt = False,
        stream: Annotated[
            bool, typer.Option("--stream", help="Print the answer as it is generated (LLM answerer only).")
        ] = False,
        as_person: AsOpt = None,
    ) -> None:
        """Answer a question from the indexed sources, with citations, or say they do not cover it."""
        from briefing.service import Brief

        settings = load(as_person)
        streamed: list[str] = []

        def on_token(token: str) -> None:
            streamed.append(token)
            out.print(token, end="", markup=False, highlight=False)

        with Brief(settings) as brief:
            result = brief.ask(question, now=_now(now), k=k, on_token=on_token if stream and not json_out else None)
        if json_out:
            _emit_json(result, show_trace)
            return
        if streamed:
            # Citations are checked after the stream: show the validated answer if it differs.
            out.print()
            if "".join(streamed).strip() != result.answer.strip():
                out.print("[dim](answer after citation checks)[/]")
        print_answer(result)
        if show_docs:
            _render_hits(result, True, settings.workspace.timezone)
        if show_trace:
            render_trace(result)


def print_answer(result: AskResult) -> None:
    if plain():
        # The question heads the answer, as the panel's title does on a terminal.
        out.print(escape(result.question), highlight=False)
        out.print(escape(result.answer), highlight=False)
    else:
        style = "yellow" if result.no_answer else "green"
        out.print(Panel(escape(result.answer), title=escape(result.question), border_style=style, expand=False))
    for cit in result.citations:
        url = f" {cit.url}" if cit.url else ""
        out.print(f"  [bold][{cit.n}][/] {escape(' '.join(cit.refs))}[dim]{escape(url)}[/]")
