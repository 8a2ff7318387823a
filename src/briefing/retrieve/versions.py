"""Versions in questions and chunks: which chunks name a version exactly, and which stated the newest of a series."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from briefing.model import Chunk
from briefing.question.constraints import version_match
from briefing.retrieve.model import Hit
from briefing.retrieve.query import FILLER
from briefing.retrieve.units import unit_context
from briefing.textrules import STOPWORDS

if TYPE_CHECKING:
    from briefing.question.constraints import Constraints

# A chunk whose title or header names exactly a version the question names ("v0.8.0", not v0.8.1 or v0.8.10) gets
# this many times the ticket boost, as a named ticket's own item does (its direct and ticket boosts); a chunk whose
# text names it gets VERSION_MENTION times. The chunks that name it are also fetched and fused as one more list.
VERSION_ITEM = 2.5
VERSION_MENTION = 0.5
# "The most recent Helm chart version", "the latest tag": of the best NEWEST_FROM hits, those that state a version of
# the thing the question names (a question word right before the version: "Helm v0.0.26", "Tag v0.9.4") form a
# series, and the one stated last (as of now) takes the first place.
NEWEST_FROM = 20
# How many chunks the series search (the question's naming words alone) looks at.
SERIES_LIMIT = 50
_NEWEST = re.compile(r"\b(?:most\s+recent|latest|newest)\b", re.I)
# A version as items state it; two parts without a "v" ("4.6x", "0.4") are numbers.
_STATED_VERSION = re.compile(r"(?<![\w.])(?:v\d+\.\d+|\d+\.\d+\.\d+)(?:\.\d+)*(?![\w-]|\.\d)", re.I)
# The word that names what a version is of: "Helm v0.0.26", "chart version 0.0.22", "Tag v0.9.4".
_NAMED_BEFORE = re.compile(r"([A-Za-z][A-Za-z0-9_-]*)[\s:#(\"'*_]*(?:(?:version|ver)\s*)?$", re.I)
_NOT_A_NAME = frozenset(
    "version versions ver v the a an of to is was that which what most recent latest newest".split()
)


def asks_newest(question: str, constraints: Constraints | None) -> bool:
    """ "The most recent X version", "the latest tag": the question asks for the newest of a series it does not name."""
    return bool(NEWEST_FROM and constraints is not None and not constraints.versions and _NEWEST.search(question))


def question_names(question: str, constraints: Constraints | None = None) -> set[str]:
    """The words of the question that may name what a version is of (not its channel, people, time or keys)."""
    if constraints is not None:
        for kind, span in sorted(constraints.spans, key=lambda s: -s[1].start):
            if kind in {"channel", "person", "time", "ticket", "pr"}:
                question = question[: span.start] + " " + question[span.end :]
    words = {w.lower().rstrip("s") for w in re.findall(r"[A-Za-z][A-Za-z0-9_-]*", question)}
    return {w for w in words if len(w) > 1 and w not in STOPWORDS and w not in _NOT_A_NAME and w not in FILLER}


def stated_versions(chunk: Chunk, names: set[str]) -> datetime | None:
    """When the chunk last states a version of one of `names` (the word before the version), or None."""
    pieces = [(chunk.title, chunk.end)] + [(u.text, u.at or chunk.end) for u in chunk.units]
    latest: datetime | None = None
    for text, at in pieces:
        for m in _STATED_VERSION.finditer(text):
            before = _NAMED_BEFORE.search(text[max(0, m.start() - 40) : m.start()])
            if before and before[1].lower().rstrip("s") in names and (latest is None or at > latest):
                latest = at
    return latest


def newest_version_first(ranked: list[Hit], question: str, constraints: Constraints | None = None) -> list[Hit]:
    """For "the most recent X version / tag", the best hit stating X's newest version moves to the first place.

    Release announcements and tags share one template, so similarity does not tell v0.0.26 from v0.0.21, and
    a linear recency boost over all candidates barely separates two releases a week apart. Only the hits that
    state a version right after a word of the question count, and at least two must (a series to pick from). A
    channel, source or person the question names must match ("announced in #announcements").
    """
    names = question_names(question, constraints)
    if not names or not ranked:
        return ranked
    needed = set()
    if constraints is not None:
        needed = {
            kind
            for kind, named in (
                ("container", constraints.channels or constraints.projects),
                ("source", constraints.sources),
                ("person", constraints.people),
            )
            if named
        }
    pool = [
        n for n, hit in enumerate(ranked) if (n < NEWEST_FROM or "series" in hit.origin) and needed <= set(hit.boosts)
    ]
    stated = [(at, n) for n in pool if (at := stated_versions(ranked[n].chunk, names))]
    if len(stated) < 2:
        return ranked
    _, pick = max(stated, key=lambda t: (t[0], -t[1]))
    if pick == 0:
        return ranked
    hit = ranked[pick]
    lift = ranked[0].score - hit.score + 1e-3
    hit.boosts["newest"] = round(lift, 4)
    hit.score += lift
    return [hit] + [h for n, h in enumerate(ranked) if n != pick]


def one_item_per_document(hits: list[Hit], mention: float) -> None:
    """Of a document's chunks that name the version in their title, only the best keeps the item boost.

    Every section of "release/v0.9.0.md" is titled v0.9.0; the version says which item, and the question's other
    words say which part of it. The others keep the boost of a mention.
    """
    best: dict[str, Hit] = {}
    for hit in sorted(hits, key=lambda h: -h.score):
        if hit.boosts.get("version", 0.0) <= mention:
            continue
        if hit.chunk.doc_key not in best:
            best[hit.chunk.doc_key] = hit
            continue
        hit.score -= hit.boosts["version"] - mention
        hit.boosts["version"] = mention


def exact_versions(constraints: Constraints) -> list[str]:
    """The versions of the question that name one release ("v0.8.0"). A two-part one ("the v0.9 notes") names a
    release line: boosting every chunk of the line took the places of the item the question asked about."""
    return [v for v in constraints.versions if v.count(".") >= 2]


def names_version(chunk: Chunk, versions: Sequence[str]) -> int:
    """2 when the chunk's title or header line names one of `versions` exactly, 1 when only its text does, else 0."""
    patterns = [version_match(v) for v in versions]
    subject = f"{chunk.title}\n{unit_context(chunk)}"
    if any(p.search(subject) for p in patterns):
        return 2
    if _STATED_VERSION.search(subject):
        return 0  # another version's item ("release v0.8.1": merged after v0.8.0) only mentions it in passing
    return 1 if any(p.search(chunk.text) for p in patterns) else 0
