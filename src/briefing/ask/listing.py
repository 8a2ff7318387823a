"""Which documents or records of a kind came out in a period, listed from the index rather than from sentences.

"Which blog posts came out in July?", "What release notes were published last month?": the answer is a list of
documents, not a fact inside one: the top-k chunks retrieval hands the answerer hold the sections nearest the
question's words, often of one post, never the set of posts dated in the period. So when a question asks which
documents of a kind came out, were published or released in a time window, the answer reads the index for the
documents (not conversations) whose own date falls in the window, as the question's `now` sees them, of the kind
the question names (a folder or project such as `blog/` or `release/`), and lists each: its title, its author and
date, its opening sentence, cited by its own first unit.

The same for tracker records by what happened to them: "Which PRs were merged in the first week of June?", "Which
issues were opened last week?" list the pull requests (or issues) whose merged (opened, closed) event falls in the
window, each cited by its own record. "The first (second, ..., last) week of" a month narrows a month's window to
those seven days.

Only an answer the ordinary path gave is replaced (a refusal stays a refusal), and only when at least one document
of the kind is dated in the window; a question that also names a topic ("posts about Kafka") lists only the
documents that mention every topic word.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence, Sized
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, tzinfo
from typing import TYPE_CHECKING, Any

from briefing import registry
from briefing.ask.extractive import _GENERIC, ExtractiveAnswer, _stem, _title, content_words
from briefing.ask.segment import clean, sentences
from briefing.index import Filter
from briefing.model import Chunk
from briefing.question.timewindow import local_day
from briefing.textrules import own_words

if TYPE_CHECKING:
    from briefing.question.listings import DocumentsAsked, RecordsAsked
    from briefing.view import View

# How far into a month "the first (second, ...) week of" it starts, in days.
_WEEK_START = {"first": 0, "second": 7, "third": 14, "fourth": 21}
# Words that name one kind of document, and the folder (or project) its documents live in: English words of the
# question, read against folder names, not the registry's document kinds.
_SYNONYM_GROUPS = ("blog post article news", "release changelog", "doc document page")
_SYNONYMS = {word: set(group.split()) for group in _SYNONYM_GROUPS for word in group.split()}
MAX_LISTED = 12
LEAD_LIMIT = 200
# Below this many words a sentence is a title or a caption, not the document's opening sentence.
LEAD_MIN_WORDS = 8
_PLACEHOLDER = re.compile(r"^\W*(?:image|file|attachment)\s*:", re.I)


def folder_names(asked: DocumentsAsked) -> tuple[set[str], set[str]]:
    """(the folder names the asked kind of document lives in, the topic words) of a listing question."""
    kind_words = {_stem(w.lower()) for w in re.findall(r"[A-Za-z]+", asked.kind)}
    kind_words |= {w.rstrip("s") for w in kind_words}
    names = set(kind_words)
    for w in kind_words:
        names |= _SYNONYMS.get(w, set())
    topic_words = content_words(asked.topic) - _GENERIC if asked.topic else set()
    return names, topic_words


def _conversational(source_type: str) -> bool:
    family = registry.family(source_type)
    return family is None or family.presentation.conversational


def cited(chunk: Chunk) -> tuple[str, str]:
    """(ref, url) a listed document or record is cited by: its first unit, else its first ref or its key."""
    ref = chunk.units[0].ref if chunk.units else (chunk.refs[0] if chunk.refs else chunk.doc_key)
    return ref, (chunk.units[0].url if chunk.units else "") or chunk.url


def _lead(chunks: Sequence[Chunk], title: str) -> tuple[str, str, str]:
    """(opening sentence, ref, url) of a document: its first sentence of some length that is not its title."""
    first = chunks[0]
    ref, url = cited(first)
    for chunk in chunks[:4]:
        for unit in chunk.units:
            # A reply's lines quoting earlier text are not its author's: the lead is the document's own words.
            own = own_words(unit.text) if _conversational(chunk.source_type) else unit.text
            for sent in sentences(own):
                text = clean(sent, limit=LEAD_LIMIT)
                if len(text.split()) < LEAD_MIN_WORDS or _PLACEHOLDER.match(text) or text.startswith("("):
                    continue
                if text.lower().startswith(title.lower()) and len(text) < len(title) + 20:
                    continue
                return text, unit.ref, unit.url or chunk.url
    return "", ref, url


def whole(view: View, keys: Sequence[str]) -> dict[str, list[Chunk]]:
    """The documents of `keys`, each as its chunks in order."""
    docs: dict[str, list[Chunk]] = {}
    for chunk in view.fetch(doc_keys=sorted(keys)):
        docs.setdefault(chunk.doc_key, []).append(chunk)
    for chunks in docs.values():
        chunks.sort(key=lambda c: (c.ordinal, c.chunk_id))
    return docs


def listed_documents(
    asked: DocumentsAsked, window: tuple[datetime, datetime], view: View, projects: Sequence[str] = ()
) -> list[list[Chunk]]:
    """The documents (each as its chunks in order) of the asked kind dated in `window`, oldest first."""
    names, topic = folder_names(asked)
    wanted = names | {_stem(p.lower().strip("#")) for p in projects if p}
    documents = tuple(t for t in registry.families() if not _conversational(t))
    if not documents:
        return []
    keys: set[str] = set()
    for chunk in view.chunks(Filter(source_types=documents, start=window[0], end=window[1])):
        if not window[0] <= chunk.start < window[1]:
            continue  # overlapping the window is not dated in it
        folder = _stem(str(chunk.container or chunk.doc_key.partition(":")[2].partition("/")[0]).lower())
        if folder.strip("#") in wanted:
            keys.add(chunk.doc_key)
    if not keys:
        return []
    out = []
    for chunks in whole(view, sorted(keys)).values():
        if topic:
            words = set().union(*(content_words(c.text) | content_words(c.title) for c in chunks))
            if topic - words:
                continue
        out.append(chunks)
    out.sort(key=lambda cs: (min(c.start for c in cs), cs[0].doc_key))
    return out


def narrowed(window: tuple[datetime, datetime], week_of: str) -> tuple[tuple[datetime, datetime], str]:
    """The window, narrowed to the week the question names inside a month ("the first week of June": 1 to 7
    June), with that narrowing in words; unchanged when it names none or the window is not a month or longer."""
    if not week_of or window[1] - window[0] < timedelta(days=28):
        return window, ""
    if week_of == "last":
        start = window[1] - timedelta(days=7)
    else:
        start = window[0] + timedelta(days=_WEEK_START[week_of])
    return (start, min(start + timedelta(days=7), window[1])), f"the {week_of} week of"


@dataclass(frozen=True)
class Period:
    """The window a listing of a period reads, as the question asked it: its bounds narrowed to the week of a month
    it names ("the first week of June"), the words its lead says it in ("last week", "in the first week of June"),
    and the workspace's zone its days are named in."""

    window: tuple[datetime, datetime]
    words: str
    zone: tzinfo

    @classmethod
    def asked(cls, window: tuple[datetime, datetime], label: str, week_of: str, zone: tzinfo) -> Period:
        span, narrowing = narrowed(window, week_of)
        return cls(span, period_words(label, narrowing), zone)


def listed_records(
    asked: RecordsAsked, window: tuple[datetime, datetime], view: View
) -> list[tuple[datetime, list[Chunk]]]:
    """The records whose asked event falls in `window` by `now`, each with that event's time, oldest first."""
    events = record_events(asked, window, view)
    if not events:
        return []
    found = [(events[key][0], chunks) for key, chunks in whole(view, sorted(events)).items()]
    found.sort(key=lambda pair: (pair[0], pair[1][0].doc_key))
    return found


def record_events(
    asked: RecordsAsked, window: tuple[datetime, datetime], view: View
) -> dict[str, tuple[datetime, str]]:
    """Record key -> (the time of its first asked event in `window` by `now`, who made it)."""
    when: dict[str, tuple[datetime, str]] = {}
    for chunk in view.chunks(Filter(start=window[0], end=window[1])):
        if registry.meta(chunk, "pull_request") != asked.pulls:
            continue
        for ev in registry.meta(chunk, "events"):
            if not isinstance(ev, dict) or ev.get("event") != asked.event or not ev.get("at"):
                continue
            if asked.by and not same_person(str(ev.get("by") or ""), asked.by):
                continue
            at = datetime.fromisoformat(str(ev["at"]))
            # A record's events are its metadata, which the view does not cut: a later merge is not one yet.
            if (
                window[0] <= at < window[1]
                and at <= view.now
                and (chunk.doc_key not in when or at < when[chunk.doc_key][0])
            ):
                when[chunk.doc_key] = (at, str(ev.get("by") or ""))
    return when


def most_first(groups: Mapping[str, Sized]) -> tuple[list[tuple[str, Any]], list[str], str]:
    """The groups of a "who did the most" answer: (person, their records) by most records, then name; the people tied
    for the most; and those people named ("Ana", "Ana and Bo", "Ana, Bo and Cy")."""
    ranked = sorted(groups.items(), key=lambda pair: (-len(pair[1]), pair[0]))
    top = [who for who, records in ranked if len(records) == len(ranked[0][1])] if ranked else []
    names = top[0] if len(top) == 1 else f"{', '.join(top[:-1])} and {top[-1]}" if top else ""
    return ranked, top, names


def same_person(who: str, asked: str) -> bool:
    """Whether an event's actor is the person a question names: the same login or name, or the same first name where
    one of the two is a single word ("Andrew" is Andrew Murray; "Andrew Jeffery" is not)."""
    mine, theirs = who.casefold().split(), asked.casefold().split()
    if not mine or not theirs:
        return False
    return mine == theirs or (min(len(mine), len(theirs)) == 1 and mine[0] == theirs[0])


def render_records(
    records: Sequence[tuple[datetime, Sequence[Chunk]]],
    kind: str,
    event: str,
    period: str,
    answer: ExtractiveAnswer,
    by: str = "",
    *,
    zone: tzinfo,
) -> ExtractiveAnswer:
    """Tracker records as the answer: a lead with their number, kind, event (and whose, `by`) and period, then one
    cited line each, its day named in `zone` (the workspace's)."""
    shown = records[:MAX_LISTED]
    more = f" ({len(records) - len(shown)} more not shown)" if len(records) > len(shown) else ""
    whose = f" by {by}" if by else ""
    lines = [f"{len(records)} {kind} {event}{whose} {period}{more}, oldest first:"]
    refs: dict[int, list[str]] = {}
    urls: dict[int, str] = {}
    for n, (at, chunks) in enumerate(shown, 1):
        first = chunks[0]
        title = clean(first.title, limit=160) or first.doc_key
        author = next((u.author for c in chunks for u in c.units if u.author), None) or next(
            (a for c in chunks for a in c.authors), ""
        )
        day = local_day(at, zone)
        detail = ", ".join(p for p in (author, f"{event} {day:%a} {day.day} {day:%b}") if p)
        lines.append(f'- "{title}" ({detail}) [{n}]')
        ref, urls[n] = cited(first)
        refs[n] = [ref]
    return replace(answer, text="\n".join(lines), cited=refs, urls=urls)


def period_words(label: str, narrowing: str) -> str:
    """The period as a listing's lead says it: "last week", "in July", "in the first week of June"."""
    if narrowing:
        return f"in {narrowing} {label}" if label else "in that week"
    relative = (
        label.split()[0].lower() in {"last", "this", "past", "next", "coming", "yesterday", "today", "tomorrow"}
        if label
        else False
    )
    return (label if relative else f"in {label}") if label else "in the period asked about"


def render(
    documents: Sequence[Sequence[Chunk]], kind: str, label: str, answer: ExtractiveAnswer, zone: tzinfo
) -> ExtractiveAnswer:
    """The documents as the answer: a lead with their number, kind and period, then one cited line each, its day
    named in `zone` (the workspace's)."""
    shown = documents[:MAX_LISTED]
    more = f" ({len(documents) - len(shown)} more not shown)" if len(documents) > len(shown) else ""
    lines = [f"{len(documents)} {kind} dated {label}{more}, oldest first:"]
    refs: dict[int, list[str]] = {}
    urls: dict[int, str] = {}
    for n, chunks in enumerate(shown, 1):
        title, _ = _title(chunks[0])
        title = clean(title, limit=160) or chunks[0].doc_key
        lead, ref, url = _lead(chunks, title)
        when = local_day(min(c.start for c in chunks), zone)
        author = next((u.author for c in chunks for u in c.units if u.author), None) or next(
            (a for c in chunks for a in c.authors), ""
        )
        detail = ", ".join(p for p in (author, f"{when:%a} {when.day} {when:%b}") if p)
        quote = f': "{lead}"' if lead else ""
        lines.append(f'- "{title}" ({detail}){quote} [{n}]')
        refs[n] = [ref]
        urls[n] = url
    return replace(answer, text="\n".join(lines), cited=refs, urls=urls)


def answer_listing(
    documents: DocumentsAsked | None,
    records: RecordsAsked | None,
    answer: ExtractiveAnswer,
    *,
    window: tuple[datetime, datetime],
    label: str,
    week_of: str,
    view: View,
    projects: Sequence[str] = (),
    zone: tzinfo,
) -> tuple[ExtractiveAnswer, list[str]] | None:
    """`answer` as the list of the documents (or records) asked for in the question's window, with their keys;
    None when it was refused, or nothing of the kind is dated there."""
    window, narrowing = narrowed(window, week_of)
    period = period_words(label, narrowing)
    if answer.no_answer:
        return None
    listed = listed_documents(documents, window, view, projects) if documents is not None else []
    if documents is not None and listed:
        return render(listed, documents.kind, period, answer, zone), [cs[0].doc_key for cs in listed]
    found = listed_records(records, window, view) if records is not None else []
    if records is not None and found:
        told = render_records(found, records.kind, records.event, period, answer, by=records.by, zone=zone)
        return told, [cs[0].doc_key for _, cs in found]
    return None
