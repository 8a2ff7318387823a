"""Settings: the TOML config contract (DESIGN.md "Configuration"), environment overrides, secrets by name.

Precedence: command-line options > environment (`BRIEF_`, nested with `__`, e.g. `BRIEF_RETRIEVAL__CANDIDATES=100`)
> config file > defaults. Secrets are never values in the file: a source names the environment variable that
holds them (`token_env = "SLACK_TOKEN"`), read only when the connector needs it.
"""

from briefing.settings.load import DEFAULT_CONFIG_NAME, Settings, brief_home, find_config, load_settings
from briefing.settings.sections import (
    HNSW_EF,
    SEGMENT_POINTS,
    AnswerSettings,
    ChatDelivery,
    ChunkingSettings,
    DeliverySettings,
    DigestSettings,
    EmailDelivery,
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
    StreamSettings,
    SyncSettings,
    WebhookSettings,
    WorkspaceSettings,
)
from briefing.settings.source_tables import source_adapter
from briefing.sources import ApiSource, SourceBase, secret

__all__ = [
    "DEFAULT_CONFIG_NAME",
    "HNSW_EF",
    "SEGMENT_POINTS",
    "AnswerSettings",
    "ApiSource",
    "ChatDelivery",
    "ChunkingSettings",
    "DeliverySettings",
    "DigestSettings",
    "EmailDelivery",
    "EmbeddingSettings",
    "LLMSettings",
    "LoggingSettings",
    "MetricsSettings",
    "PeopleSettings",
    "QdrantSettings",
    "RetrievalSettings",
    "ScheduleSettings",
    "ServeSettings",
    "Settings",
    "SlackBotSettings",
    "SourceBase",
    "SyncSettings",
    "StreamSettings",
    "WebhookSettings",
    "WorkspaceSettings",
    "brief_home",
    "find_config",
    "load_settings",
    "secret",
    "source_adapter",
]
