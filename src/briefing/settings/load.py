"""The Settings model of a deployment and `load_settings`: config file, environment and overrides, in that order."""

from __future__ import annotations

import os
import tomllib
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from pydantic import Field, SerializeAsAny, ValidationError, field_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, SettingsError

from briefing.errors import ConfigError
from briefing.settings.explain import SourceTableError, describe, table_error
from briefing.settings.sections import (
    AnswerSettings,
    ChunkingSettings,
    DeliverySettings,
    DigestSettings,
    EmbeddingSettings,
    LLMSettings,
    LoggingSettings,
    MetricsSettings,
    PeopleSettings,
    QdrantSettings,
    RetrievalSettings,
    ScheduleSettings,
    ServeSettings,
    SlackBotSettings,
    SyncSettings,
    WorkspaceSettings,
    safe_name,
)
from briefing.settings.source_tables import source_union
from briefing.sources import SourceBase

DEFAULT_CONFIG_NAME = "brief.toml"

# The parsed config file for the settings source below; set by `load_settings` for the model's construction.
_FILE_DATA: ContextVar[dict[str, Any] | None] = ContextVar("brief_config_file", default=None)


class _ConfigFile(PydanticBaseSettingsSource):
    """The TOML file as a pydantic-settings source (read and reported by `load_settings`)."""

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return (_FILE_DATA.get() or {}).get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return dict(_FILE_DATA.get() or {})


class Settings(BaseSettings):
    """The whole parameterisation of a deployment.

    Precedence, through pydantic-settings' sources: keyword arguments (the command line) > environment
    (`BRIEF_SECTION__KEY`) > the config file > defaults.
    """

    model_config = SettingsConfigDict(
        extra="forbid", env_prefix="BRIEF_", env_nested_delimiter="__", env_ignore_empty=True
    )

    workspace: WorkspaceSettings = Field(default_factory=WorkspaceSettings)
    sources: dict[str, SerializeAsAny[SourceBase]] = Field(default_factory=dict)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    qdrant: QdrantSettings = Field(default_factory=QdrantSettings)
    chunking: ChunkingSettings = Field(default_factory=ChunkingSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    answer: AnswerSettings = Field(default_factory=AnswerSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    sync: SyncSettings = Field(default_factory=SyncSettings)
    logging: LoggingSettings = Field(default_factory=LoggingSettings)
    metrics: MetricsSettings = Field(default_factory=MetricsSettings)
    schedule: ScheduleSettings = Field(default_factory=ScheduleSettings)
    delivery: DeliverySettings = Field(default_factory=DeliverySettings)

    digest: DigestSettings = Field(default_factory=DigestSettings)
    slack_bot: SlackBotSettings = Field(default_factory=SlackBotSettings)
    serve: ServeSettings = Field(default_factory=ServeSettings)
    people: PeopleSettings = Field(default_factory=PeopleSettings)

    # Not part of the file: where it was read from, for resolving relative paths and naming it in errors.
    config_path: Path | None = Field(default=None, exclude=True)
    home: Path = Field(default_factory=lambda: brief_home(), exclude=True)
    # `--as PERSON` for this run (briefing.access); not part of the file.
    acting_as: str | None = Field(default=None, exclude=True)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return init_settings, env_settings, _ConfigFile(settings_cls)

    @field_validator("sources", mode="before")
    @classmethod
    def _typed_sources(cls, value: Any) -> Any:
        """Each source table validated by its type's config model (from the source's descriptor)."""
        if not isinstance(value, dict):
            return value
        adapter = source_union()
        typed: dict[str, Any] = {}
        for name, table in value.items():
            try:
                safe_name(str(name), "source")
            except ValueError as exc:
                raise SourceTableError(f"sources.{name}: {exc}") from None
            if isinstance(table, SourceBase):
                typed[name] = table
                continue
            try:
                typed[name] = adapter.validate_python(table)
            except ValidationError as exc:
                raise table_error(exc, f"sources.{name}", table) from None
        return typed

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
    where = str(path) if path else "settings"
    token = _FILE_DATA.set(data)
    try:
        settings = Settings(**(overrides or {}))
    except ValidationError as exc:
        raise ConfigError(describe(exc, where, Settings)) from None
    except SettingsError as exc:
        raise ConfigError(
            f"{where}: an environment override could not be read ({exc}): fix the BRIEF_ variable"
        ) from None
    finally:
        _FILE_DATA.reset(token)
    settings.config_path = path
    settings.home = brief_home()
    return settings
