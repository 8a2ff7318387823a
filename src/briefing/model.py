"""The data model shared by connectors, chunkers and the core.

Flow: a connector yields `RawRecord`s (vendor shapes, kept raw in the cache); its `normalise` turns the cached
records of one source into `Document`s made of `Item`s (one native item each, with its ref); a chunker turns one
`Document` into `Chunk`s. Every chunk keeps its provenance: the refs of the items it covers, their time span,
their authors, and one `Unit` per item so that answers can attribute and cite each line exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

JSON = dict[str, Any]

# Who may see an item (`Document.readers`, an item's `metadata["readers"]`): what a connector records where its
# source says so. The core resolves these through the people directory (`briefing.access`); an item without
# readers is seen by the workspace owner only (fail closed).
EVERYONE = "everyone"  # anyone who uses this workspace (a public repository)
MEMBERS = "members"  # every member the source lists (a Slack workspace's users, for a public channel)
# The metadata key that marks a chunk the answer's context added after its strongest chunks
# (`briefing.retrieve.context`): the answer stage reads its rank order from the strongest chunks alone.
ADDED_TO_CONTEXT = "added_to_context"


def reader_id(native_id: str) -> str:
    """A reader named by the source's own person id, the same id its `Person.id` carries (`slack:U0123`)."""
    return f"id:{native_id}"


def reader_email(address: str) -> str:
    """A reader named by e-mail address, `mailbox:<address>` (mail recipients, calendar attendees)."""
    return f"mailbox:{address.strip().lower()}"


def utc(ts: float | int | str) -> datetime:
    """A Unix timestamp (Slack `ts` strings included) as an aware UTC datetime."""
    return datetime.fromtimestamp(float(ts), tz=UTC)


@dataclass(frozen=True)
class RawRecord:
    """One vendor item exactly as fetched; `key` is unique and stable within its source."""

    key: str
    kind: str
    data: JSON


@dataclass(frozen=True)
class Failure:
    """One item that could not be fetched or parsed; counted and reported, never fatal to the run."""

    key: str
    reason: str


class Cursor(BaseModel):
    """Base of the connectors' typed, frozen, JSON-serialisable cursors."""

    model_config = ConfigDict(frozen=True, extra="forbid")


@dataclass
class Batch:
    """Records to store, keys deleted at the source, and the cursor valid once both are applied."""

    records: list[RawRecord] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    cursor: Cursor | None = None
    failures: list[Failure] = field(default_factory=list)
    # True when this batch lists *every* key the source still has (e.g. a full folder scan): the runner then
    # drops cached keys that are absent. Connectors that only see changes leave it False.
    complete: bool = False


@dataclass(frozen=True)
class Person:
    """A participant, resolved across sources by id, handle or email."""

    id: str
    name: str
    handles: tuple[str, ...] = ()
    emails: tuple[str, ...] = ()


@dataclass
class Item:
    """One native item (a message, a file, a ticket comment) in the project's own shape."""

    ref: str
    source_type: str
    kind: str
    text: str
    occurred_at: datetime
    author: str | None = None
    title: str = ""
    url: str = ""
    container: str = ""
    thread: str | None = None
    # `metadata["readers"]` (a list of reader tokens, like `Document.readers`): who may see this item when it
    # differs from its document (one e-mail of a thread); absent: the document's.
    metadata: JSON = field(default_factory=dict)


@dataclass
class Document:
    """A group of items chunked together; its chunks are replaced as a whole when it changes.

    `key` is stable (e.g. `slack:C0123/1781081500.170139` for a thread, `file:docs/a.md`); `kind` picks the
    chunker through the registry.
    """

    key: str
    kind: str
    source_type: str
    title: str
    items: list[Item]
    url: str = ""
    container: str = ""
    metadata: JSON = field(default_factory=dict)
    # Who may see it (`EVERYONE`, `MEMBERS`, `reader_id(...)`, `reader_email(...)`); None: the source does not say.
    readers: tuple[str, ...] | None = None


@dataclass
class Normalised:
    """What a connector's `normalise` returns for one source."""

    documents: list[Document] = field(default_factory=list)
    people: list[Person] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)


@dataclass(frozen=True)
class Unit:
    """One attributable piece of a chunk: a message line or a paragraph, with the ref it cites."""

    ref: str
    text: str
    author: str | None = None
    at: datetime | None = None
    # Opens this unit itself (the message permalink, the comment, the document section), not its chunk's first item.
    url: str = ""


@dataclass
class Chunk:
    """A retrievable piece of text with full provenance."""

    chunk_id: str
    doc_key: str
    source_type: str
    kind: str
    title: str
    text: str
    refs: list[str]
    start: datetime
    end: datetime
    authors: list[str] = field(default_factory=list)
    url: str = ""
    container: str = ""
    tickets: list[str] = field(default_factory=list)
    units: list[Unit] = field(default_factory=list)
    metadata: JSON = field(default_factory=dict)
    source_name: str = ""
    truncated: bool = False
    # When its content was written, if not at `start`: a calendar event written in May about a meeting in June
    # is visible "as of" May (DESIGN.md: events scheduled after `now` are visible).
    written_at: datetime | None = None
    # When a later state of its item superseded it (a ticket's state chunk once the ticket moved on): from then
    # on it is hidden, and the chunk of the next state shows instead; None: never superseded.
    valid_until: datetime | None = None
    # Resolved reader ids (person ids, identity keys, group ids; `briefing.access`); None: the owner only.
    readers: list[str] | None = None

    @property
    def ordinal(self) -> int:
        """The chunk's place in its document (chunkers number a document's chunks: `<doc key>::<n>`), or -1."""
        tail = self.chunk_id.rsplit("::", 1)[-1]
        return int(tail) if tail.isdigit() else -1


# A cosine is never under -1: a topic threshold at or below it turns topic splits off, and no item vector is read
# (so ingest embeds none: `[chunking] slack_topic_threshold = -1`).
TOPIC_OFF = -1.0


@dataclass(frozen=True)
class ChunkLimits:
    """Bounds every chunker respects; `count_tokens` is the embedding model's own tokeniser."""

    max_tokens: int = 256
    max_chars: int = 1200
    max_items: int = 30
    gap_seconds: float = 4 * 3600
    topic_threshold: float = 0.0
    count_tokens: Callable[[str], int] = field(default=lambda text: len(text) // 4 + 1)


@runtime_checkable
class Connector(Protocol):
    """A source: knows its first cursor, yields batches, and normalises its own cached records."""

    def initial_cursor(self) -> Cursor: ...

    def load_cursor(self, data: JSON) -> Cursor: ...

    def fetch(self, cursor: Cursor) -> Iterator[Batch]: ...

    def normalise(self, records: Sequence[RawRecord]) -> Normalised: ...


class RecordSource(Protocol):
    """The raw cache of one source as a streaming normaliser reads it: its keys, and records by key."""

    def keys(self) -> set[str]: ...

    def read(self, keys: Iterable[str]) -> Iterator[RawRecord]: ...


@runtime_checkable
class StreamingNormaliser(Protocol):
    """A connector that normalises its cache in parts, so memory holds one part's records, not the source's.

    Contract: the parts together equal `normalise` of every record; the first part carries every person; a
    document (one key) is whole inside one part.
    """

    def normalise_parts(self, records: RecordSource) -> Iterator[Normalised]: ...


class Chunker(Protocol):
    """A pure function from one document to its chunks."""

    def __call__(
        self,
        document: Document,
        *,
        limits: ChunkLimits,
        vectors: Mapping[str, Sequence[float]] | None = None,
    ) -> Iterable[Chunk]: ...


@dataclass(frozen=True)
class WebhookRequest:
    """One vendor webhook request as `brief serve` received it, with the secret its config names."""

    headers: Mapping[str, str]  # names lower-cased
    body: bytes
    path: str  # what follows `/hooks/<source>/` in the URL ("" when nothing does)
    secret: str
    now: float  # Unix time, for a signature's age
    config: Any = None  # the source's config table: what it collects (channels, repositories, projects)
    target: str = ""  # the request's path and query as sent (`/hooks/<source>?a=b`), for a token bound to them
    auth: str = "default"  # how the config says requests are authenticated (`[serve.webhooks.<name>] auth`)


@dataclass
class WebhookEvent:
    """What one accepted webhook changes in the source's raw cache: the same records a batch sync writes."""

    event_id: str  # the vendor's delivery or event id: a replay with the same id is ingested once
    kind: str  # e.g. "message", "issues.opened", "comment_created": for the run log and the metrics
    put: list[RawRecord] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    reply: Mapping[str, Any] | None = None  # answered as JSON at once, nothing written (a URL handshake)


class WebhookRefused(Exception):
    """The request's signature or secret is missing, wrong or stale: answered 401 and nothing is written."""


class CachedRecords(Protocol):
    """The source's raw cache as a webhook reads it, to merge an event into the record a sync wrote."""

    def get(self, key: str) -> RawRecord | None: ...

    def records(self) -> Iterator[RawRecord]: ...


Webhook = Callable[[WebhookRequest, CachedRecords], WebhookEvent | None]
"""A source's webhook receiver: checks the signature (raises `WebhookRefused`), returns the change, or None for an
event that changes nothing this source keeps."""


EventReader = Callable[[CachedRecords], WebhookEvent | None]
"""One event read against the source's raw cache: the change it makes, or None when it changes nothing kept."""


@dataclass(frozen=True)
class StreamContext:
    """What a source's event stream (a connection the vendor pushes events over) is opened with."""

    name: str  # the source's name in the config
    config: Any  # the source's config table
    token: str  # the connection's credential, read from the environment variable the config names
    # Stores one event through the same path as a webhook's; True once it is in the raw cache (or known already):
    # only then is it acknowledged, so the vendor re-sends what was not stored.
    deliver: Callable[[EventReader], bool]


class OpenStream(Protocol):
    """A source's open event stream, as `brief serve` holds it."""

    def connected(self) -> bool: ...  # whether the connection is up now (it reconnects on its own)

    def close(self) -> None: ...


EventStream = Callable[[StreamContext], OpenStream]
"""A source's event stream: connects (raising `BriefError` with one line when it cannot), delivers each event
through `StreamContext.deliver`, reconnects on its own, and is closed through what it returns."""
