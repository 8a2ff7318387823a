"""The source descriptor: everything the core knows about a source type, declared beside its connector.

Each package under `connectors/` declares one `SourceDescriptor` per config type at the top of its `__init__.py`
(its config model, its connector factory, its document kinds with their chunkers and limits, its refs, its
container, the words a question uses for it, its label in answers, what it supports, and which keys of its
chunks' metadata play the roles the core reads). The core reads descriptors through `briefing.registry` and
never names a source type or a source's metadata key itself.

This module is a contract that connectors import, so it stays light: pydantic and the standard library only.
"""

from __future__ import annotations

import builtins
import os
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, SecretStr

from briefing.errors import AuthError

# What a source can do beyond the basics; the CLI says so in one line when a run asks for more.
Capability = Literal["since", "until", "deletions", "scopes"]
# How an answer names the place a quote comes from (see `place`).
PlaceStyle = Literal["container", "title", "title_or_container", "section"]

# The roles a chunk's metadata can play for the core, by the type the core reads them as (`briefing.registry.meta`).
TextRole = Literal["thread_root", "section_path"]
FlagRole = Literal["cancelled", "all_day", "pull_request", "changed_later"]
RecordsRole = Literal["events", "review_waits"]
RefsRole = Literal["links"]
Role = TextRole | FlagRole | RecordsRole | RefsRole
# What each role means; a source that declares none of a role's key gives the role's empty value ("", False, []).
ROLES: Mapping[str, str] = {
    "thread_root": "text: the id of the message that opened the chunk's thread (the root's ref ends with it)",
    "section_path": "text: the chunk's heading path in its document ('Runbook > Rollback'); set: a sectioned text",
    "cancelled": "flag: the event (or this occurrence of it) was cancelled",
    "all_day": "flag: the event takes whole days, with no time of day",
    "pull_request": "flag: the item is a pull request, not an issue",
    "changed_later": "flag: the item changed after the moment its chunk stands for, and its source keeps no earlier "
    "state (a calendar event edited later): what it shows may be the later state",
    "events": "records: the item's lifecycle, {event, at, by?, ref?, from?, to?, version?} each",
    "review_waits": "records: reviews still requested on an open item as of the chunk, {by, at, ref} each",
    "links": "refs: native refs of the items the chunk links to (an event's agenda page and tickets)",
}


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SourceBase(StrictModel):
    """Keys every source accepts; each source's model narrows `type` to its own `Literal`."""

    type: str
    enabled: bool = True
    # Who else may see this source's items (briefing.access): addresses, handles, names or "everyone", added to
    # what the source itself records; all a source without access data (git, files) has. Unset: nobody more
    # (items the source says nothing about stay the workspace owner's).
    audience: list[str] | None = None


class ApiSource(SourceBase):
    """A source reached over HTTP; `base_url` points at the vendor, a self-hosted server or a test server."""

    base_url: str | None = None
    token_env: str | None = None
    user_env: str | None = None
    timeout_s: float = 30.0
    max_retries: int = 5


# Every secret value read in this process, so that errors, log lines and traces can be redacted (`redact`).
_KNOWN_SECRETS: set[str] = set()
# Shorter values would redact ordinary words; no real token is this short.
_MIN_SECRET_LEN = 6


def remember_secret(value: str | None) -> None:
    """Add a secret value to those `redact` removes."""
    if value and len(value) >= _MIN_SECRET_LEN:
        _KNOWN_SECRETS.add(value)


def redact(text: str) -> str:
    """`text` with every known secret value (and its URL-encoded form) replaced by `[redacted]`."""
    from urllib.parse import quote

    for value in sorted(_KNOWN_SECRETS, key=len, reverse=True):
        for form in {value, quote(value, safe="")}:
            if form in text:
                text = text.replace(form, "[redacted]")
    return text


# Set while a connector is built only to normalise what the raw cache holds (`brief reindex`): nothing is sent.
_NO_CONTACT: ContextVar[bool] = ContextVar("no_contact", default=False)


@contextmanager
def without_contact() -> Iterator[None]:
    """Build connectors that will not contact their source: a credential that is not set reads as empty
    instead of failing, since no request will carry it."""
    token = _NO_CONTACT.set(True)
    try:
        yield
    finally:
        _NO_CONTACT.reset(token)


def secret(env_name: str | None, *, setting: str) -> SecretStr:
    """Read a secret from the environment variable a setting names; the value never appears in errors."""
    if _NO_CONTACT.get() and not (env_name and os.environ.get(env_name)):
        return SecretStr("")
    if not env_name:
        raise AuthError(f"{setting} is not set: name the environment variable that holds the credential")
    value = os.environ.get(env_name)
    if not value:
        raise AuthError(f"environment variable {env_name} (from {setting}) is empty or unset: export it and retry")
    remember_secret(value)
    return SecretStr(value)


@dataclass(frozen=True)
class KindLimits:
    """A document kind's default chunk bounds (tokens come from the embedding model, not from here)."""

    max_chars: int = 1000
    max_items: int = 30
    gap_hours: float = 4.0
    topic_threshold: float = 0.0


@dataclass(frozen=True)
class DocumentKind:
    """One kind of document a source produces, and how it is chunked."""

    name: str
    chunker: str  # "module:function", a `briefing.model.Chunker`
    limits: KindLimits = field(default_factory=KindLimits)
    # Items are embedded one by one so that the chunker can split on topic shifts.
    topic_split: bool = False
    # A conversation that opens with a question or report (answers rank its replies above the opening post).
    threaded: bool = False
    # Limit field -> the `[chunking]` key that overrides it for this kind (kept for existing configs).
    config_keys: Mapping[str, str] = field(default_factory=dict)
    # A stream of unrelated posts (a channel's top-level messages) rather than one conversation: briefings take
    # each chunk (the chunker's burst of consecutive messages) as a conversation instead of the whole document.
    stream: bool = False
    # Something that happens at a time (a meeting): its chunk spans the occurrence, and "what meetings do we have
    # this week?" lists the ones that start in the window (`briefing.ask.listing`), past or to come.
    scheduled: bool = False
    # The chunker packs items greedily in (occurred_at, ref) order, each chunk `<key>::<n>` starting afresh at its
    # first item under a header that does not depend on the items: a long-lived writer may re-chunk only from the
    # last chunk that starts before the first changed item (`briefing.ingest.resume`).
    resumable: bool = False


@dataclass(frozen=True)
class Presentation:
    """How answers and briefings name this source's items."""

    label: str  # "Slack", "JIRA"
    place: PlaceStyle = "section"
    container_prefix: str = ""  # "#" for channels
    document_word: str = ""  # "wiki" -> 'wiki "Runbook", Rollback'
    # "who in where, when" (conversations) rather than 'where (who, when)' (documents).
    conversational: bool = False
    time_of_day: bool = False  # message streams read as timelines, with the time of day
    # Items dated by a day, not an instant (a document's date, stored as midnight UTC): named as that day, never
    # moved into the workspace's zone; every other source's times are instants, named on the workspace's day.
    dates_only: bool = False


@dataclass(frozen=True)
class Flag:
    """A flag role read off a value: set when the metadata key holds `value` (in any case), e.g. a status."""

    key: str
    value: str


@dataclass(frozen=True)
class SourceDescriptor:
    """One source type, as the config names it (`type = "slack_export"`)."""

    type: str
    config: builtins.type[SourceBase]
    # "module:function" building the connector from a `SourceContext`; None: accepted in config, no connector yet.
    factory: str | None
    # What chunks carry as `source_type` and refs start with; several config types can share one
    # (the Slack Web API and a Slack export both give "slack" chunks).
    family: str
    container: str  # what its items live in: channel, project, space, repository, folder, mailbox, calendar
    presentation: Presentation
    kinds: tuple[DocumentKind, ...] = ()
    # Regular expressions (case-insensitive, whole words) of the words a question uses for it: "in Slack", "tickets".
    words: tuple[str, ...] = ()
    # Words of `words` that are everyday nouns too: they name the source only after a determiner or preposition
    # ("in the files"); after a modifier ("delete files", "the Parquet file") they are the thing asked about.
    noun_words: tuple[str, ...] = ()
    # Regular expressions matching its refs (DESIGN.md "Native references").
    ref_patterns: tuple[str, ...] = ()
    supports: frozenset[Capability] = frozenset()
    # The chunks' containers are channels (a question's "#name" or "in name" finds them) rather than projects.
    container_is_channel: bool = False
    # Containers whose name says who talks privately (direct messages), as a full-match regular expression: a
    # name typed exactly still resolves, but no list of known names (an error's hint, the router) shows them.
    unlisted_containers: str = ""
    # Role -> the key of this source's chunk metadata that carries it (a `Flag` for a flag read off a value).
    # Every descriptor of one family declares the same, since a chunk names its family only.
    metadata: Mapping[Role, str | Flag] = field(default_factory=dict)
    # The state its items have over time (a ticket's status, assignee, versions...), when its chunker versions it:
    # one state chunk per interval, each hidden from its `valid_until` on, so a reader as of `now` sees the state
    # of then. Empty: its items carry no state that changes (a message, a file's text at a commit).
    history: tuple[str, ...] = ()
    # "module:function" turning one signed vendor webhook request into raw-cache records (`briefing.model.Webhook`),
    # for `brief serve`; None: the source is collected by batch runs only.
    webhook: str | None = None
    # Ways of authenticating its webhook besides the default one (`[serve.webhooks.<name>] auth`), e.g. "jwt".
    webhook_auth: tuple[str, ...] = ()
    # "module:function" opening a connection the vendor pushes events over (`briefing.model.EventStream`), for
    # `brief serve` (`[serve.streams.<name>]`); None: none.
    stream: str | None = None

    def owns_ref(self, ref: str) -> bool:
        return any(re.fullmatch(p, ref) for p in self.ref_patterns)


def read_text(metadata: Mapping[str, Any], where: str | Flag | None) -> str:
    """A text role's value ("" when undeclared or unset)."""
    key = where.key if isinstance(where, Flag) else where
    return str(metadata.get(key) or "") if key else ""


def read_flag(metadata: Mapping[str, Any], where: str | Flag | None) -> bool:
    """A flag role's value (False when undeclared or unset)."""
    if isinstance(where, Flag):
        return str(metadata.get(where.key) or "").upper() == where.value.upper()
    return bool(metadata.get(where)) if where else False


def read_records(metadata: Mapping[str, Any], where: str | Flag | None) -> list[dict[str, Any]]:
    """A records role's value: the objects of the list the key holds ([] when undeclared, unset or not a list)."""
    key = where.key if isinstance(where, Flag) else where
    value = metadata.get(key) if key else None
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list | tuple) else []


def read_refs(metadata: Mapping[str, Any], where: str | Flag | None) -> list[str]:
    """A refs role's value: each entry a ref, or an object's `key` ([] when undeclared, unset or not a list)."""
    key = where.key if isinstance(where, Flag) else where
    value = metadata.get(key) if key else None
    if not isinstance(value, list | tuple):
        return []
    refs = [v if isinstance(v, str) else str(v.get("key") or "") for v in value if isinstance(v, str | dict)]
    return [r for r in refs if r]


def not_installed(*modules: str) -> list[str]:
    """The named modules of an optional extra that cannot be imported here, asked without importing them (a parent
    package that is absent counts as absent)."""
    import importlib.util

    def absent(name: str) -> bool:
        try:
            return importlib.util.find_spec(name) is None
        except ImportError:
            return True

    return [name for name in modules if absent(name)]
