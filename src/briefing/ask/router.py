"""The LLM router: DSPy ReAct over the tools in `tools.py`, bounded in steps and time.

It starts from the deterministic constraints and may refine them (a time window, sources, people, a channel),
fetch items by key, or search again with a rewritten query. Any LLM error, parse failure or timeout falls back
to the deterministic constraints unchanged, and the trace says why.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import dspy

from briefing.ask import llm_http
from briefing.ask.tools import RouterClosed, RouterTools
from briefing.question.constraints import Constraints

if TYPE_CHECKING:
    from briefing.model import Chunk
    from briefing.retrieve import Hit

log = logging.getLogger(__name__)


class RouteQuestion(dspy.Signature):  # type: ignore[misc]  # dspy ships no type information
    """Prepare the search for an engineering manager's question about their team's work.

    `extracted` holds what was already read from the question without a model (time window, source types,
    people, channels, projects, ticket keys). Correct or complete it with the tools only where the question
    clearly asks for more: a time window, source types, people, a channel or project, items named by key
    (fetch them), or one extra search with a rewritten query. Use list_known before naming a person, channel,
    project or ticket; never invent one. Make a constraint a hard filter (only=true) only when the question
    says so explicitly ("only in Slack"). Call finish as soon as the search is set up.
    """

    question: str = dspy.InputField()
    now: str = dspy.InputField(desc="the current time, ISO-8601, for relative dates")
    extracted: str = dspy.InputField(desc="constraints already extracted, JSON")
    plan: str = dspy.OutputField(desc="one line: what the search will look at")


@dataclass
class RouteResult:
    constraints: Constraints
    steps: list[dict[str, Any]]
    fetched: list[Chunk] = field(default_factory=list)
    searched: list[Hit] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    status: str = "ok"
    plan: str = ""


Wait = Callable[[threading.Thread, float], bool]
"""Waits up to `timeout_s` for the router's worker thread; True when it finished within the deadline."""


def join_within(worker: threading.Thread, timeout_s: float) -> bool:
    """The real deadline: join the worker for at most `timeout_s` seconds of wall-clock time."""
    worker.join(timeout_s)
    return not worker.is_alive()


class Router:
    def __init__(self, lm: Any, *, max_steps: int, timeout_s: float, wait: Wait = join_within) -> None:
        self.lm = lm
        self.max_steps = max(1, max_steps)
        self.timeout_s = timeout_s
        self.wait = wait  # tests inject a deadline that has already passed instead of spending the seconds

    def route(self, question: str, now: str, extracted: Constraints, tools: RouterTools) -> RouteResult:
        """Run the ReAct loop in a worker thread with a deadline; fall back to `extracted` on any failure."""
        program = dspy.ReAct(
            RouteQuestion, tools=[lenient_tool(f) for f in tools.functions()], max_iters=self.max_steps
        )
        outcome: dict[str, Any] = {}
        summary = _summary(extracted)

        def run() -> None:
            llm_http.allow()  # this thread's requests may run (a thread id can be reused after a cancel)
            set_deadline = getattr(self.lm, "set_deadline", None)
            if set_deadline is not None:  # every request of this loop is closed by the end of the budget
                set_deadline(self.timeout_s)
            try:
                with dspy.context(lm=self.lm):
                    outcome["prediction"] = program(question=question, now=now, extracted=summary)
            except BaseException as exc:  # reported to the caller, which falls back
                outcome["error"] = exc
            finally:
                if set_deadline is not None:
                    set_deadline(None)
                llm_http.allow()

        started = time.perf_counter()
        # A daemon thread, so nothing it still does can keep the CLI alive.
        worker = threading.Thread(target=run, name="brief-router", daemon=True)
        worker.start()
        finished = self.wait(worker, self.timeout_s)
        if not finished and worker.ident is not None:
            llm_http.cancel(worker.ident)  # the request in flight is closed now: a one-slot server is free again
        tools.close()
        elapsed = time.perf_counter() - started
        # A request is sent with the time left in the budget as its timeout, so a request that timed out means the
        # budget ran out, even when its error reached the worker just before the wait above gave up.
        timed_out = "Timeout" in type(outcome.get("error")).__name__
        if not finished or timed_out:
            return self._fallback(extracted, tools, f"timeout after {self.timeout_s:.0f} s")
        if "error" in outcome:
            exc = outcome["error"]
            log.warning("router failed (%s); using the deterministic constraints", type(exc).__name__)
            return self._fallback(extracted, tools, f"LLM error: {type(exc).__name__}: {_short(exc)}")
        prediction = outcome.get("prediction")
        trajectory = getattr(prediction, "trajectory", {}) or {}
        if not tools.steps and not any(str(v) == "finish" for k, v in trajectory.items() if k.startswith("tool_name")):
            return self._fallback(extracted, tools, "the router produced no valid tool call")
        return RouteResult(
            constraints=tools.constraints,
            steps=tools.steps,
            fetched=tools.fetched,
            searched=tools.searched,
            queries=tools.queries,
            status=f"ok ({len(tools.steps)} tool call(s), {elapsed:.1f} s)",
            plan=str(getattr(prediction, "plan", "") or ""),
        )

    @staticmethod
    def _fallback(extracted: Constraints, tools: RouterTools, reason: str) -> RouteResult:
        steps = [{**s, "discarded": True} for s in tools.steps]
        steps.append({"tool": "fallback", "input": {}, "result": f"{reason}; deterministic constraints used"})
        return RouteResult(constraints=extracted, steps=steps, status=f"fallback: {reason}")


def _summary(constraints: Constraints) -> str:
    """The constraints as the model sees them, in the tools' own argument names (no `label`, no `span`)."""
    data = constraints.to_json()
    data.pop("spans", None)
    time_window = data.get("time")
    if isinstance(time_window, dict):
        data["time"] = {k: time_window[k] for k in ("start", "end") if time_window.get(k)}
    return json.dumps({k: v for k, v in data.items() if v}, default=str)


# Argument names small models use for a tool's own arguments (copied from the constraints JSON or guessed).
ALIASES: dict[str, dict[str, str]] = {
    "set_time_window": {"label": "start", "phrase": "start", "from": "start", "since": "start", "to": "end"},
    "set_sources": {"source": "sources", "types": "sources", "source_types": "sources"},
    "boost_people": {"people": "names", "name": "names", "person": "names"},
    "boost_container": {"name": "names", "channel": "names", "project": "names", "channels": "names"},
    "fetch_item": {"item": "key", "ticket": "key", "ref": "key", "id": "key"},
    "search": {"q": "query", "text": "query"},
    "list_known": {"type": "kind", "what": "kind"},
}


def lenient_tool(func: Callable[..., str]) -> Any:
    """A DSPy tool that maps or ignores arguments it does not take and answers any error in one short line."""
    return _LenientTool(func)


class _LenientTool(dspy.Tool):  # type: ignore[misc]  # dspy ships no type information
    def __call__(self, **kwargs: Any) -> Any:
        try:
            known, ignored = _map_args(self.name, self.args, kwargs)
            result = self.func(**self._validate_and_parse_args(**known))
        except RouterClosed:
            raise
        except Exception as exc:  # the model gets one line, never a traceback, and may try again
            return f"error: {_short(exc)}"
        return f"{result} (ignored arguments {sorted(ignored)})" if ignored else result


def _map_args(tool: str, accepted: dict[str, Any], given: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The arguments the tool takes: aliases renamed, a nested object of its arguments unpacked, the rest dropped."""
    known: dict[str, Any] = {k: v for k, v in given.items() if k in accepted}
    ignored: list[str] = []
    aliases = ALIASES.get(tool, {})
    for key, value in given.items():
        if key in accepted:
            continue
        target = aliases.get(key)
        if target in accepted and target not in known and isinstance(value, (str, list)):
            known[target] = value
        elif key != "span" and isinstance(value, dict) and any(k in accepted for k in value):
            # e.g. {"time": {"start": ..., "end": ...}}: a span's character offsets are never a date
            known.update({k: v for k, v in value.items() if k in accepted and k not in known and isinstance(v, str)})
        else:
            ignored.append(key)
    return known, ignored


# Router output: a value shaped like a credential (a prefixed key or a long opaque token), never passed on.
_SECRETISH = re.compile(r"\b(?:sk|pk|key|token|bearer)[-_ ]?[A-Za-z0-9_\-.]{12,}|[A-Za-z0-9_\-]{32,}", re.IGNORECASE)


def _short(exc: BaseException) -> str:
    """The first line of a provider error, without anything that looks like a credential."""
    line = (str(exc).splitlines() or [""])[0][:200]
    return _SECRETISH.sub("***", line)
