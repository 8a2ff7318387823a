"""One person record per human across every source: Slack users, JIRA/Confluence accounts, GitHub logins, git
authors, email addresses and calendar attendees.

Identities (what each source reported, kept in its state file) are joined only by verified links, because a joined
identity reads everything its person may read: the same e-mail address, the configured aliases
(`[people.aliases] "Dana Levi" = ["dlevi", "dana@old.example.com"]`) and `brief people merge`. A display name is
chosen by whoever owns the account, so the same full name only suggests a merge (`suggestions`, shown by
`brief people`); it never joins two identities. Corrections made with
`brief people merge A B` and `brief people split X` are kept in the workspace's `people.json` and applied after
the automatic matching, so they survive every re-ingest, and take effect on the stored chunks at once (`restamp`:
payloads only, nothing re-embedded). Person ids are stable: derived from the group's first
e-mail address (or first identity), not from the order of ingestion.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from briefing.errors import InputError
from briefing.model import Chunk, Person
from briefing.textrules import visible

if TYPE_CHECKING:
    from briefing.index import Index
    from briefing.settings import Settings


@dataclass(frozen=True)
class Identity:
    """One source's view of a person: `key` is `<source name>/<the source's person id>`."""

    key: str
    source: str
    name: str
    handles: tuple[str, ...] = ()
    emails: tuple[str, ...] = ()


@dataclass
class PersonRecord:
    id: str
    name: str
    identities: list[Identity] = field(default_factory=list)

    @property
    def emails(self) -> list[str]:
        return sorted({e for i in self.identities for e in i.emails})

    @property
    def handles(self) -> list[str]:
        return sorted({h for i in self.identities for h in i.handles})

    @property
    def names(self) -> list[str]:
        return list(dict.fromkeys(i.name for i in self.identities if i.name))

    def person(self) -> Person:
        """The record as the constraint extractor knows people: every name and handle it goes by."""
        others = tuple(n for n in self.names if n != self.name)
        return Person(id=self.id, name=self.name, handles=tuple(self.handles) + others, emails=tuple(self.emails))

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "emails": self.emails,
            "handles": self.handles,
            "identities": [
                {"key": i.key, "source": i.source, "name": i.name, "handles": list(i.handles), "emails": list(i.emails)}
                for i in self.identities
            ],
        }


def full_name_key(name: str) -> str | None:
    """A comparable full name ("Levi, Dana" and "dana  levi" agree), or None for a single word or an address."""
    if not name or "@" in name:
        return None
    if "," in name:
        last, _, first = name.partition(",")
        name = f"{first} {last}"
    folded = unicodedata.normalize("NFKD", name)
    folded = "".join(c for c in folded if not unicodedata.combining(c)).casefold()
    words = re.findall(r"[^\W\d_]+", folded)
    if len(words) < 2 or all(len(w) == 1 for w in words[1:]):
        return None  # "Dana", "Dana L." : too little to tell two people apart
    return " ".join(words)


@dataclass
class Corrections:
    """Manual merges and splits of identity keys, applied after automatic matching; JSON in the workspace.

    A split identity takes part in no automatic match (it stays alone unless merged by hand); a merge joins the
    people of two identities whatever the automatic rules said.
    """

    merges: list[tuple[str, str]] = field(default_factory=list)
    splits: list[str] = field(default_factory=list)

    @classmethod
    def load(cls, path: Path) -> Corrections:
        if not path.exists():
            return cls()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls(
                merges=[(str(a), str(b)) for a, b in data.get("merges", [])], splits=list(data.get("splits", []))
            )
        except (OSError, ValueError, TypeError) as exc:
            raise InputError(f"{path}: the people corrections file is unreadable ({exc}): fix or delete it") from None

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"merges": self.merges, "splits": self.splits}, indent=2) + "\n", encoding="utf-8")
        tmp.replace(path)


class _Union:
    def __init__(self, keys: Iterable[str]) -> None:
        self.parent = {k: k for k in keys}

    def find(self, key: str) -> str:
        while self.parent[key] != key:
            self.parent[key] = self.parent[self.parent[key]]
            key = self.parent[key]
        return key

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def identities_from(source: str, people: Sequence[Mapping[str, Any]]) -> list[Identity]:
    """The identities a source's state file lists (`Person` records as saved by the pipeline)."""
    out = []
    for raw in people:
        out.append(
            Identity(
                key=f"{source}/{raw['id']}",
                source=source,
                name=visible(str(raw.get("name") or "")),
                handles=tuple(str(h) for h in raw.get("handles", ())),
                emails=tuple(str(e).lower() for e in raw.get("emails", ())),
            )
        )
    return out


def _matches(identity: Identity, term: str) -> bool:
    term = term.strip()
    low = term.lower()
    return (
        identity.key == term
        or low in identity.emails
        or low.lstrip("@") in {h.lower().lstrip("@") for h in identity.handles}
        or identity.name.lower() == low
    )


def resolve(
    identities: Sequence[Identity],
    *,
    aliases: Mapping[str, Sequence[str]] | None = None,
    corrections: Corrections | None = None,
) -> list[PersonRecord]:
    """Group identities into people; see the module docstring for the rules and their order."""
    corrections = corrections or Corrections()
    by_key = {i.key: i for i in identities}
    union = _Union(by_key)
    split = {k for k in corrections.splits if k in by_key}
    auto = [i for i in identities if i.key not in split]

    def join(group: Iterable[Identity]) -> None:
        members = [g.key for g in group]
        for other in members[1:]:
            union.union(members[0], other)

    by_email: dict[str, list[Identity]] = {}
    for identity in auto:
        for addr in identity.emails:
            by_email.setdefault(addr, []).append(identity)
    for group in by_email.values():
        join(group)
    for canonical, names in (aliases or {}).items():
        join(i for i in auto if any(_matches(i, t) for t in [canonical, *names]))
    for a, b in corrections.merges:
        if a in by_key and b in by_key:
            union.union(a, b)
    groups: dict[str, list[Identity]] = {}
    for identity in identities:
        groups.setdefault(union.find(identity.key), []).append(identity)
    records = [_record(members, aliases or {}) for members in groups.values()]
    return sorted(records, key=lambda r: (r.name.lower(), r.id))


def _stable_id(members: Sequence[Identity]) -> str:
    emails = sorted(e for m in members for e in m.emails)
    anchor = emails[0] if emails else min(m.key for m in members)
    return "person:" + hashlib.sha256(anchor.encode()).hexdigest()[:10]


def _record(members: list[Identity], aliases: Mapping[str, Sequence[str]]) -> PersonRecord:
    for canonical, names in aliases.items():
        if any(_matches(m, t) for m in members for t in [canonical, *names]):
            name = canonical
            break
    else:
        # The fullest name any source gives (a display name beats a login or an address).
        named = [_display(m.name) for m in members if m.name and "@" not in m.name]
        name = max(named, key=lambda n: (len(n.split()) > 1, named.count(n), len(n)), default="") or members[0].name
    return PersonRecord(id=_stable_id(members), name=name, identities=sorted(members, key=lambda m: m.key))


def _display(name: str) -> str:
    """ "Levi, Dana" as "Dana Levi"."""
    last, comma, first = name.partition(",")
    return f"{first.strip()} {last.strip()}" if comma and first.strip() and " " not in last.strip() else name


def find_all(records: Sequence[PersonRecord], term: str) -> list[PersonRecord]:
    """Every person a term names: an exact person id or identity key alone, else each address, handle or name."""
    exact = [r for r in records if r.id == term or any(i.key == term for i in r.identities)]
    if exact:
        return exact
    low = term.strip().lower()
    return [
        r for r in records if any(_matches(i, term) for i in r.identities) or (low and r.name.strip().lower() == low)
    ]


def find(records: Sequence[PersonRecord], term: str) -> PersonRecord | None:
    """The person a command-line argument names: a person id, an identity key, an address, a handle or a name;
    None when nobody or several people match (`find_all` names them)."""
    found = find_all(records, term) if term.strip() else []
    return found[0] if len(found) == 1 else None


def suggestions(records: Sequence[PersonRecord]) -> list[tuple[PersonRecord, PersonRecord]]:
    """Pairs of people with the same full name: candidates for `brief people merge`, never merged automatically."""
    by_name: dict[str, list[PersonRecord]] = {}
    for record in records:
        for key in {full_name_key(n) for n in record.names} - {None}:
            by_name.setdefault(str(key), []).append(record)
    pairs: dict[tuple[str, str], tuple[PersonRecord, PersonRecord]] = {}
    for group in by_name.values():
        for left, right in zip(group, group[1:], strict=False):
            if left.id != right.id:
                pairs.setdefault((left.id, right.id), (left, right))
    return list(pairs.values())


def merge(corrections: Corrections, left: PersonRecord, right: PersonRecord) -> None:
    """Record that two people are one; an earlier split of any of their identities is undone."""
    a, b = left.identities[0].key, right.identities[0].key
    if (a, b) not in corrections.merges:
        corrections.merges.append((a, b))
    keys = {i.key for i in [*left.identities, *right.identities]}
    corrections.splits = [k for k in corrections.splits if k not in keys]


def split(corrections: Corrections, identity: Identity, person: PersonRecord) -> None:
    """Record that an identity is someone of its own; a merge that named it keeps the rest of its person."""
    if identity.key not in corrections.splits:
        corrections.splits.append(identity.key)
    stays = next((i.key for i in person.identities if i.key != identity.key), None)
    merges: list[tuple[str, str]] = []
    for a, b in corrections.merges:
        left, right = (stays if a == identity.key else a), (stays if b == identity.key else b)
        if left is not None and right is not None and left != right:
            merges.append((left, right))
    corrections.merges = merges


def find_identity(records: Sequence[PersonRecord], term: str) -> Identity | None:
    """The one identity a term names (its key, an address or a handle), or None when none or several match."""
    found = [i for r in records for i in r.identities if _matches(i, term)]
    exact = [i for i in found if i.key == term]
    if exact:
        return exact[0]
    return found[0] if len(found) == 1 else None


def corrections_path(settings: Settings) -> Path:
    return settings.workspace_home / "people.json"


def records_for(settings: Settings) -> list[PersonRecord]:
    """Every configured source's identities (from its state file), resolved with the aliases and corrections."""
    from briefing.store import SourceState

    identities: list[Identity] = []
    for name in settings.sources:
        identities += identities_from(name, SourceState.for_source(settings, name).data.get("people", []))
    corrections = Corrections.load(corrections_path(settings))
    return resolve(identities, aliases=settings.people.aliases, corrections=corrections)


_Annotation = tuple[list[str], list[str], list[str]]


def _annotator(records: Sequence[PersonRecord]) -> Callable[[Sequence[str], str], _Annotation]:
    """(author names as the source gave them, text) -> (authors with person names added, person ids, mentions)."""
    lookup: dict[str, PersonRecord] = {}
    for record in records:
        for identity in record.identities:
            for term in [identity.name, *identity.handles, *identity.emails]:
                if term:
                    lookup.setdefault(term.lower().lstrip("@"), record)
    spoken = sorted(
        {(n, r.id) for r in records for n in r.names if full_name_key(n)}
        | {(e, r.id) for r in records for e in r.emails},
        key=lambda t: -len(t[0]),
    )
    pattern = (
        re.compile(r"(?<![\w@.])(" + _trie([n for n, _ in spoken]) + r")(?![\w@])", re.IGNORECASE) if spoken else None
    )
    ids_by_term = {n.lower(): pid for n, pid in spoken}

    def apply(names: Sequence[str], text: str) -> _Annotation:
        authors = list(names)
        found = [lookup[a.lower().lstrip("@")] for a in names if a.lower().lstrip("@") in lookup]
        people = list(dict.fromkeys(r.id for r in found))
        for record in found:
            if record.name not in authors:
                authors.append(record.name)
        mentions = {ids_by_term[m.group(1).lower()] for m in pattern.finditer(text)} if pattern else set()
        return authors, people, sorted(mentions - set(people))

    return apply


def _trie(terms: Sequence[str]) -> str:
    """The terms as one case-insensitive alternation shaped as a trie: it matches what `longest|...|short` matches
    (the longest term that fits at a position, falling back to shorter ones) without trying every term at every
    position; with a thousand people (a mailing list) the flat alternation took 2 ms a chunk, this 0.05 ms."""
    root: dict[str, Any] = {}
    for term in terms:
        node = root
        for char in term:
            low = char.lower()
            node = node.setdefault(low if len(low) == 1 else char, {})
        node[""] = {}

    def pattern(node: dict[str, Any]) -> str:
        branches = [re.escape(char) + pattern(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return pattern(root)


def annotate(chunks: Sequence[Chunk], records: Sequence[PersonRecord]) -> None:
    """Give every chunk its authors and mentioned people as person ids (`metadata["people"]`, `["mentions"]`).

    An author known under another name also gets the person's name in `authors`, so a question naming the
    person finds what they wrote in every source. The names the source gave are kept (`metadata["author_names"]`)
    so that a later merge or split can redo this on the stored chunks (`restamp`).
    """
    apply = _annotator(records)
    for chunk in chunks:
        names = list(chunk.authors)
        chunk.authors, chunk.metadata["people"], chunk.metadata["mentions"] = apply(names, chunk.text)
        chunk.metadata["author_names"] = names


def restamp(index: Index, records: Sequence[PersonRecord]) -> int:
    """Redo `annotate` on every stored chunk (after `brief people merge|split`); returns how many changed.

    Only payloads are written: nothing is re-embedded, so a correction takes effect at once.
    """
    apply = _annotator(records)
    updates: dict[str, dict[str, Any]] = {}
    for point in index.scroll(fields=["chunk_id", "authors", "text", "metadata"]):
        payload = point.payload
        metadata = dict(payload.get("metadata") or {})
        names = list(metadata.get("author_names") or payload.get("authors") or [])
        authors, people, mentions = apply(names, str(payload.get("text", "")))
        if (authors, people, mentions) != (payload.get("authors"), metadata.get("people"), metadata.get("mentions")):
            metadata.update(people=people, mentions=mentions, author_names=names)
            updates[str(payload["chunk_id"])] = {"authors": authors, "metadata": metadata}
    if updates:
        index.set_payloads(updates)
    return len(updates)
