"""The MCP tools' strict schemas: bounded inputs, no unknown arguments, typed outputs, one-line argument errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, cast, get_type_hints

from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp_types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field, ValidationError

MAX_K = 50
MAX_TEXT = 2_000
MAX_REF_CHARS = 500

K = Annotated[int, Field(ge=1, le=MAX_K, description=f"How many hits to use, 1 to {MAX_K}.")]
Text = Annotated[str, Field(min_length=1, max_length=MAX_TEXT)]
Ref = Annotated[str, Field(min_length=3, max_length=MAX_REF_CHARS, description="A native ref from a result.")]
Moment = Annotated[
    str | None, Field(max_length=64, description="ISO-8601 moment that relative dates and visibility resolve against.")
]
Words = Annotated[str | None, Field(max_length=200)]
Names = Annotated[list[Annotated[str, Field(max_length=200)]] | None, Field(max_length=50)]


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


class Hit(_Out):
    rank: int
    score: float
    chunk_id: str
    source: str
    refs: list[str]
    title: str | None = None
    url: str | None = None
    occurred_at: str
    authors: list[str]
    text: str


class Citation(_Out):
    n: int
    refs: list[str]
    url: str | None = None


class SearchOutput(_Out):
    question: str
    now: str
    constraints: dict[str, Any]
    hits: list[Hit]
    timings_ms: dict[str, float]


class AskOutput(SearchOutput):
    answer: str
    citations: list[Citation]
    no_answer: bool


class DigestOutput(_Out):
    window: list[str]
    now: str
    scope: dict[str, Any]
    sections: list[dict[str, Any]]
    more: list[Any]
    conversations: int
    timings_ms: dict[str, float]


class TimelineOutput(_Out):
    subject: str
    now: str
    window: list[str | None]
    events: list[dict[str, Any]]


class ItemOutput(_Out):
    ref: str
    now: str
    chunks: list[Hit]


class SourceRow(_Out):
    name: str
    type: str
    enabled: bool
    last_sync: str | None = None
    chunks: int
    failures: int | None = None


class SourcesOutput(_Out):
    workspace: str
    sources: list[SourceRow]


class Person(_Out):
    id: str
    name: str
    handles: list[str]
    emails: list[str]


class PeopleOutput(_Out):
    people: list[Person]


def _one_line(tool: str, exc: ValidationError) -> str:
    """Every argument problem in one line, named by argument; no pydantic boilerplate or documentation URL."""
    problems = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(part) for part in error["loc"]) or "arguments"
        if error["type"] == "extra_forbidden":
            problems.append(f"unknown argument '{where}'")
        elif error["type"] == "missing":
            problems.append(f"'{where}' is required")
        else:
            problems.append(f"'{where}': {error['msg'].lower()}")
    return f"{tool}: " + "; ".join(problems)


class StrictTool(Tool):
    """A tool whose argument errors come back as one line naming each argument."""

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
        try:
            return await super().run(arguments, context, convert_result)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(_one_line(self.name, exc.__cause__)) from None
            raise


def strict_tool(fn: Callable[..., Any], annotations: ToolAnnotations) -> Tool:
    """`fn` as an MCP tool that refuses unknown arguments and publishes its ranges and its output schema."""
    # The tool bodies are written where this module's names are imported lazily: resolve their hints here.
    fn.__annotations__ = get_type_hints(fn, globalns=globals(), include_extras=True)
    loose = Tool.from_function(fn, annotations=annotations, structured_output=True)
    base = loose.fn_metadata.arg_model
    strict = {"model_config": ConfigDict(extra="forbid", arbitrary_types_allowed=True)}
    model = cast("type[BaseModel]", type(base.__name__, (base,), strict))
    metadata = loose.fn_metadata.model_copy(update={"arg_model": model})
    fields = {name: getattr(loose, name) for name in Tool.model_fields}
    fields.update(fn_metadata=metadata, parameters=model.model_json_schema(by_alias=True))
    return StrictTool(**fields)
