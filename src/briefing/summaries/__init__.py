"""Two-level index: one short extractive summary per conversation, searched before the items themselves.

`build` makes and refreshes them at ingest, `store` says where they live, `answer` serves `brief summarize`.
"""

from briefing.summaries.answer import Summary, SummaryLine, answer, render
from briefing.summaries.build import (
    MAX_SENTENCES,
    REFRESH_BATCH,
    RefreshReport,
    conversation_vectors,
    refresh,
    summarise,
)
from briefing.summaries.store import (
    CACHE_VERSION,
    SUFFIX,
    available,
    cache_path,
    disk_bytes,
    summary_settings,
    summary_size,
)

__all__ = [
    "CACHE_VERSION",
    "MAX_SENTENCES",
    "REFRESH_BATCH",
    "SUFFIX",
    "RefreshReport",
    "Summary",
    "SummaryLine",
    "answer",
    "available",
    "cache_path",
    "conversation_vectors",
    "disk_bytes",
    "refresh",
    "render",
    "summarise",
    "summary_settings",
    "summary_size",
]
