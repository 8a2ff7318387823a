"""A sequential runner of the ask graph's wiring, for the flow without an LLM: the graph without LangGraph's import.

`briefing.ask.graph.build_graph` wires the ask flow once, through a builder with LangGraph's `StateGraph` calls
(`add_node`, `add_edge`, `add_conditional_edges`, `compile`, `invoke`). With a router or an LLM writer it is
LangGraph's own; without them every node has one way out, and this builder runs the same nodes in the same order
with the same state rules: a node's update replaces a field, or is added to it by the reducer its `Annotated`
type names (`briefing.ask.state`). The result is the same final state, and a one-shot `brief ask` does not import
LangGraph and its tracing stack (about half a second of CPU).
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Sequence
from typing import Any

# LangGraph's names of the entry and the exit (`langgraph.graph.START`, `END`).
START = "__start__"
END = "__end__"

Node = Callable[[Any], dict[str, Any] | None]
Path = Callable[[Any], str]


_REDUCERS: dict[type[Any], dict[str, Callable[[Any, Any], Any]]] = {}


def reducers(state: type[Any]) -> dict[str, Callable[[Any, Any], Any]]:
    """The fields of a state class that add an update to what they hold: field -> its `Annotated` reducer."""
    if state in _REDUCERS:
        return _REDUCERS[state]
    hints = typing.get_type_hints(state, include_extras=True)
    found = _REDUCERS[state] = {
        name: hint.__metadata__[0]
        for name, hint in hints.items()
        if typing.get_origin(hint) is typing.Annotated and callable(hint.__metadata__[0])
    }
    return found


class Flow:
    """A `StateGraph` builder for a graph whose nodes run one after another; `compile()` returns itself."""

    def __init__(self, state: type[Any]) -> None:
        self.state = state
        self.nodes: dict[str, Node] = {}
        self.edges: dict[str, str | Path] = {}
        self.reducers = reducers(state)

    def add_node(self, name: str, node: Node) -> None:
        self.nodes[name] = node

    def add_edge(self, source: str, target: str) -> None:
        self._way_out(source, target)

    def add_conditional_edges(self, source: str, path: Path, targets: Sequence[str] = ()) -> None:
        self._way_out(source, path)

    def _way_out(self, source: str, way: str | Path) -> None:
        if source in self.edges:
            raise ValueError(f"node '{source}' has two ways out: this runner takes one at a time")
        self.edges[source] = way

    def compile(self) -> Flow:
        return self

    def invoke(self, state: Any) -> dict[str, Any]:
        """Run from START to END; the final state as LangGraph returns it (field name -> value)."""
        at = START
        for _ in range(len(self.nodes) + 2):
            way = self.edges[at]
            at = way if isinstance(way, str) else way(state)
            if at == END:
                return {f.name: getattr(state, f.name) for f in dataclasses.fields(state)}
            update = self.nodes[at](state) or {}
            state = dataclasses.replace(state, **self._merged(state, update))
        raise RuntimeError("the ask flow did not reach its end")

    def _merged(self, state: Any, update: dict[str, Any]) -> dict[str, Any]:
        out = {}
        for name, value in update.items():
            reducer = self.reducers.get(name)
            out[name] = reducer(getattr(state, name), value) if reducer is not None else value
        return out
