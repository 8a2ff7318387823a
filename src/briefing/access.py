"""Who may see what: the principal model, each chunk's readers, and the scope every read applies.

Connectors record, per document or item, who may see it where the source says so (`briefing.model` reader
tokens: `EVERYONE`, `MEMBERS`, `reader_id(...)`, `reader_email(...)`). At processing time (`assign`) those are
resolved into reader ids stored on each chunk:

- `everyone`: anyone who uses this workspace;
- `members:<source name>`: every person that source lists (a Slack workspace's users);
- `<source name>/<native id>`: one account, its identity key in the people directory (`briefing.people`);
- `mailbox:<address>`: one mailbox;
- `person:<hash>`: the person that account or mailbox belongs to, when the directory knows it.

A principal (`principal_for`) is a person of the directory; the ids it holds are its person id, every identity
key and address it has, the `members:` group of every source that lists it, and `everyone`. A read as that
principal keeps only chunks whose readers share an id with it: a hard Qdrant filter (`Filter.readers`) applied
before anything is ranked. A chunk without readers matches no principal: only the workspace owner (who reads
without a scope) sees it. The owner is `[workspace] owner`; a run without `--as` runs as the owner.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from briefing.errors import ConfigError, InputError
from briefing.model import EVERYONE, MEMBERS, Chunk, Document
from briefing.people import PersonRecord, find, find_all, records_for

if TYPE_CHECKING:
    from briefing.index import Index
    from briefing.settings import Settings


@dataclass(frozen=True)
class Principal:
    """Who a read is for. `readers` None: the workspace owner, who sees everything."""

    name: str
    person_id: str | None
    readers: tuple[str, ...] | None

    @property
    def owner(self) -> bool:
        return self.readers is None

    def describe(self) -> dict[str, Any]:
        """The scope as the trace names it: who, and which rule applied (never what it hid)."""
        if self.owner:
            return {"principal": self.name, "scope": "workspace owner: every indexed chunk"}
        return {
            "principal": self.name,
            "person": self.person_id,
            "scope": "chunks whose source lets this person read them; chunks without access data are the owner's",
        }


def principal_ids(record: PersonRecord) -> tuple[str, ...]:
    """Every reader id a person holds (see the module docstring)."""
    ids = {EVERYONE, record.id}
    for identity in record.identities:
        ids.add(identity.key)
        ids.add(f"{MEMBERS}:{identity.source}")
        ids.update(f"mailbox:{e.lower()}" for e in identity.emails)
    return tuple(sorted(ids))


def _candidates(found: Sequence[PersonRecord]) -> str:
    return "; ".join(f"{r.name or '?'} ({r.id}: {', '.join(r.emails) or r.identities[0].key})" for r in found)


def lookup(records: Sequence[PersonRecord], term: str, what: str = "--as") -> PersonRecord:
    """The one person `term` names; empty, blank, unknown or ambiguous is an `InputError` naming the candidates."""
    if not term or not term.strip() or any(ord(c) < 32 or ord(c) == 127 for c in term):
        raise InputError(
            f"{what} {term!r} names nobody: give an address, handle, identity key or person id that `brief people` "
            "lists"
        )
    found = find_all(records, term)
    if not found:
        raise InputError(
            f"{what} '{term}' matches nobody in the people directory: use an address, handle or name that "
            "`brief people` lists"
        )
    if len(found) > 1:
        raise InputError(
            f"{what} '{term}' is ambiguous, it matches {len(found)} people: {_candidates(found)}; use an address "
            "or person id"
        )
    return found[0]


def owner_record(settings: Settings, records: Sequence[PersonRecord]) -> PersonRecord | None:
    """The person `[workspace] owner` names, or None when it is unset; an owner nobody knows is a config error."""
    term = settings.workspace.owner
    if not term:
        return None
    found = find_all(records, term) if term.strip() else []
    if len(found) != 1 and records:
        where = settings.config_path or "the config"
        why = "matches nobody" if not found else f"is ambiguous ({_candidates(found)})"
        raise ConfigError(
            f"{where}: [workspace] owner = '{term}' {why} in the people directory: use an address or person id "
            "that `brief people` lists"
        )
    return found[0] if found else None


def principal_for(settings: Settings, acting_as: str | None = None) -> Principal:
    """The principal a command runs as: `acting_as` (`--as PERSON`), else the workspace owner.

    Only an absent `--as` means the owner; an empty, blank, unknown or ambiguous one is an error (exit 10)."""
    acting_as = acting_as if acting_as is not None else settings.acting_as
    owner_term = settings.workspace.owner or "workspace owner"
    if acting_as is None:
        return Principal(name=owner_term, person_id=None, readers=None)
    records = records_for(settings)
    record = lookup(records, acting_as)
    owner = owner_record(settings, records)
    if owner is not None and owner.id == record.id:
        return Principal(name=record.name, person_id=record.id, readers=None)
    return Principal(name=record.name, person_id=record.id, readers=principal_ids(record))


def shared_scope(settings: Settings, principal: Principal) -> Principal:
    """What a principal may show where others read along (a shared channel): only what every member of the
    workspace may read (`everyone`, and the member groups of the sources this person belongs to), never a
    private channel's, a DM's or a restricted item's text."""
    groups = [f"{MEMBERS}:{name}" for name in settings.sources]
    held = principal.readers if principal.readers is not None else (EVERYONE, *groups)
    readers = tuple(sorted(r for r in held if r == EVERYONE or r.startswith(f"{MEMBERS}:")))
    return Principal(name=f"{principal.name} (shared channel)", person_id=principal.person_id, readers=readers)


def open_index(settings: Settings, principal: Principal | None = None) -> Index:
    """The workspace index, every read through it scoped to the principal (the command's, by default)."""
    from briefing.index import Index

    principal = principal or principal_for(settings)
    return Index.open(settings).restrict(principal.readers)


# -- at processing time -----------------------------------------------------------------------------------------


class Resolver:
    """Turns a source's reader tokens into stored reader ids, through the people directory."""

    def __init__(self, source: str, records: Sequence[PersonRecord]) -> None:
        self.source = source
        self.by_key = {i.key: r.id for r in records for i in r.identities}
        self.by_email = {e.lower(): r.id for r in records for e in r.emails}
        self.records = records

    def resolve(self, tokens: Iterable[str]) -> list[str]:
        out: set[str] = set()
        for token in tokens:
            if token == EVERYONE:
                out.add(EVERYONE)
            elif token == MEMBERS:
                out.add(f"{MEMBERS}:{self.source}")
            elif token.startswith("id:"):
                key = f"{self.source}/{token[3:]}"
                out.add(key)
                if key in self.by_key:
                    out.add(self.by_key[key])
            elif token.startswith("mailbox:"):
                address = token[8:].strip().lower()
                out.add(f"mailbox:{address}")
                if address in self.by_email:
                    out.add(self.by_email[address])
            elif token:
                out.add(token)  # an id already resolved (`person:...`, `members:...`)
        return sorted(out)

    def audience(self, terms: Sequence[str]) -> list[str]:
        """A configured `audience` (addresses, handles, names, `everyone`) as reader ids; unknown names add none."""
        out: set[str] = set()
        for term in terms:
            if term.strip().lower() == EVERYONE:
                out.add(EVERYONE)
                continue
            record = find(self.records, term)
            if record is not None:
                out.add(record.id)
            elif "@" in term:
                out.add(f"mailbox:{term.strip().lower()}")
        return sorted(out)


def assign(
    chunks: Sequence[Chunk],
    documents: Sequence[Document],
    source: str,
    records: Sequence[PersonRecord],
    audience: Sequence[str] | None,
) -> None:
    """Give every chunk its readers: those of the items it covers where they differ (a reader must be allowed
    every one of them), else its document's; plus the source's configured `audience`, which is all it gets when
    the source records nothing. Neither: no readers (the owner only)."""
    resolver = Resolver(source, records)
    extra = resolver.audience(audience) if audience is not None else None
    by_doc: dict[str, list[str] | None] = {}
    by_item: dict[str, list[str]] = {}
    for doc in documents:
        by_doc[doc.key] = resolver.resolve(doc.readers) if doc.readers is not None else None
        for item in doc.items:
            own = item.metadata.get("readers")
            if isinstance(own, list | tuple):
                by_item[item.ref] = resolver.resolve(str(t) for t in own)
    for chunk in chunks:
        readers = by_doc.get(chunk.doc_key)
        own = [by_item[r] for r in chunk.refs if r in by_item]
        if own:
            # A chunk is shown whole, so a reader must be allowed every item in it.
            common = set(own[0]).intersection(*own[1:])
            readers = sorted(common & set(readers)) if readers is not None else sorted(common)
        if extra is not None:
            readers = sorted(set(readers or ()) | set(extra))
        chunk.readers = readers


def changed_readers(
    chunks: Sequence[Chunk], stored: Mapping[str, Any], unchanged: set[str]
) -> dict[str, list[str] | None]:
    """Unchanged chunks whose stored readers differ from their new ones (a member joined or left upstream)."""
    out: dict[str, list[str] | None] = {}
    for chunk in chunks:
        if chunk.chunk_id in unchanged:
            old = stored.get(chunk.chunk_id)
            old = sorted(old) if isinstance(old, list) else None
            if old != chunk.readers:
                out[chunk.chunk_id] = chunk.readers
    return out


def visible_chunks(settings: Settings, principal: Principal, index: Index | None = None) -> dict[str, int]:
    """Per source, how many indexed chunks the principal may see (`brief sources --as`); `index` is one already
    open and scoped to that principal."""
    from briefing.index import Filter

    if index is not None:
        return {name: index.count(Filter(source_names=(name,))) for name in settings.sources}
    with open_index(settings, principal) as opened:
        return {name: opened.count(Filter(source_names=(name,))) for name in settings.sources}


def scoped_run(run: Mapping[str, Any], visible: int) -> dict[str, Any]:
    """A source's last-run record as a non-owner may see it: when, and how many chunks they can read; the
    counts and failure samples of the whole source (which name hidden items) are the owner's."""
    return {"finished_at": run.get("finished_at"), "chunks": visible}
