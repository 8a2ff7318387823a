"""Which documents of a kind came out in a period: "Which blog posts came out in July?", "What release notes were
published last month?".

The answer is a list of documents, not a fact inside one: the top-k chunks retrieval hands the answerer hold the
sections nearest the question's words, often of one post, never the set of posts dated in the period. So when a
question asks which documents of a kind came out, were published or released in a time window, the answer reads the
index for the documents (not conversations) whose own date falls in the window, as the question's `now` sees them,
of the kind the question names (a folder or project such as `blog/` or `release/`), and lists each: its title, its
author and date, its opening sentence, cited by its own first unit.

"When is the next standup?" is the first occurrence to come of the meetings whose title holds its words.

Meetings by when they happen: "What meetings do we have this week?", "Any 1:1s tomorrow?", "What's on the
calendar next week?" list the occurrences of scheduled kinds (calendar events) that start in the window, past or
still to come (an event is visible once it was put in the calendar), in time order, each with its time, organiser
and place, cited by its own event. A person the question names keeps the meetings that name them (organiser or
attendee); "meetings about X" keeps those that mention X.

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
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from briefing import registry
from briefing.ask.extractive import _GENERIC, ExtractiveAnswer, _stem, _title, content_words
from briefing.ask.segment import clean, sentences
from briefing.index import Filter, Index
from briefing.model import Chunk
from briefing.question.words import (
    AGENDA_TOPIC,
    ASKS_AGENDA,
    ASKS_EVENTS,
    ASKS_LISTING,
    ASKS_NEXT,
    EVENT_OF,
    LISTING_TOPIC,
    MEETING_WORDS,
    PULL,
    WEEK_OF,
)

# How far into a month "the first (second, ...) week of" it starts, in days.
_WEEK_START = {"first": 0, "second": 7, "third": 14, "fourth": 21}
# Words that name one kind of document, and the folder (or project) its documents live in: English words of the
# question, read against folder names, not the registry's document kinds.
_SYNONYM_GROUPS = ("blog post article news", "release changelog", "doc document page")
_SYNONYMS = {word: set(group.split()) for group in _SYNONYM_GROUPS for word in group.split()}
MAX_LISTED = 12
# A week of daily stand-ups and the rest fits; a month says how many more there are.
MAX_MEETINGS = 20
LEAD_LIMIT = 200
# Below this many words a sentence is a title or a caption, not the document's opening sentence.
LEAD_MIN_WORDS = 8
_PLACEHOLDER = re.compile(r"^\W*(?:image|file|attachment)\s*:", re.I)


def asked_listing(question: str) -> tuple[str, set[str], set[str]] | None:
    """(the kind as the question words it, its folder names, the topic words) when the question asks which
    documents of a kind came out; None otherwise."""
    m = ASKS_LISTING.search(question.strip())
    if m is None:
        return None
    kind_words = {_stem(w.lower()) for w in re.findall(r"[A-Za-z]+", m[1])}
    kind_words |= {w.rstrip("s") for w in kind_words}
    names = set(kind_words)
    for w in kind_words:
        names |= _SYNONYMS.get(w, set())
    topic = LISTING_TOPIC.search(m[2]) or LISTING_TOPIC.search(m[3])
    topic_words = content_words(topic[1]) - _GENERIC if topic else set()
    return " ".join(m[1].split()), names, topic_words


def _conversational(source_type: str) -> bool:
    family = registry.family(source_type)
    return family is None or family.presentation.conversational


def _cited(chunk: Chunk) -> tuple[str, str]:
    """(ref, url) a listed document or record is cited by: its first unit, else its first ref or its key."""
    ref = chunk.units[0].ref if chunk.units else (chunk.refs[0] if chunk.refs else chunk.doc_key)
    return ref, (chunk.units[0].url if chunk.units else "") or chunk.url


def _cancelled(chunk: Chunk) -> bool:
    return str(chunk.metadata.get("status") or "").upper() == "CANCELLED"


def _lead(chunks: Sequence[Chunk], title: str) -> tuple[str, str, str]:
    """(opening sentence, ref, url) of a document: its first sentence of some length that is not its title."""
    first = chunks[0]
    ref, url = _cited(first)
    for chunk in chunks[:4]:
        for unit in chunk.units:
            for sent in sentences(unit.text):
                text = clean(sent, limit=LEAD_LIMIT)
                if len(text.split()) < LEAD_MIN_WORDS or _PLACEHOLDER.match(text) or text.startswith("("):
                    continue
                if text.lower().startswith(title.lower()) and len(text) < len(title) + 20:
                    continue
                return text, unit.ref, unit.url or chunk.url
    return "", ref, url


def listed_documents(
    question: str, window: tuple[datetime, datetime], index: Index, now: datetime, projects: Sequence[str] = ()
) -> list[list[Chunk]]:
    """The documents (each as its chunks in order) of the asked kind dated in `window`, oldest first."""
    asked = asked_listing(question)
    if asked is None or window[0] > now:
        return []
    _, names, topic = asked
    wanted = names | {_stem(p.lower().strip("#")) for p in projects if p}
    documents = tuple(t for t in registry.families() if not _conversational(t))
    if not documents:
        return []
    # The stored dates first (a few fields), then the matching documents whole, as `now` sees them.
    keys: set[str] = set()
    for record in index.scroll(
        Filter(source_types=documents, start=window[0], end=window[1]),
        fields=["doc_key", "start", "container", "source_type"],
    ):
        p = record.payload
        start = datetime.fromisoformat(p["start"])
        if not (window[0] <= start < window[1]) or start > now:
            continue
        folder = _stem(str(p.get("container") or str(p["doc_key"]).partition(":")[2].partition("/")[0]).lower())
        if folder.strip("#") in wanted:
            keys.add(str(p["doc_key"]))
    if not keys:
        return []
    docs: dict[str, list[Chunk]] = {}
    for chunk in index.fetch(doc_keys=sorted(keys), within=Filter(as_of=now)):
        docs.setdefault(chunk.doc_key, []).append(chunk)
    out = []
    for chunks in docs.values():
        chunks.sort(key=lambda c: (c.ordinal, c.chunk_id))
        if topic:
            words = set().union(*(content_words(c.text) | content_words(c.title) for c in chunks))
            if topic - words:
                continue
        out.append(chunks)
    out.sort(key=lambda cs: (min(c.start for c in cs), cs[0].doc_key))
    return out


def narrowed(question: str, window: tuple[datetime, datetime]) -> tuple[tuple[datetime, datetime], str]:
    """The window, narrowed to the week the question names inside a month ("the first week of June": 1 to 7
    June), with that narrowing in words; unchanged when it names none or the window is not a month or longer."""
    m = WEEK_OF.search(question)
    if m is None or window[1] - window[0] < timedelta(days=28):
        return window, ""
    which = m[1].lower()
    if which == "last":
        start = window[1] - timedelta(days=7)
    else:
        start = window[0] + timedelta(days=_WEEK_START[which])
    return (start, min(start + timedelta(days=7), window[1])), f"the {which} week of"


def listed_records(
    question: str, window: tuple[datetime, datetime], index: Index, now: datetime
) -> tuple[str, str, list[tuple[datetime, list[Chunk]]]]:
    """(the kind as the question words it, the event, the records whose event falls in `window` with its time,
    oldest first) for "which PRs were merged ..."; an empty list when the question asks no such thing."""
    m = ASKS_EVENTS.search(question.strip())
    if m is None or window[0] > now:
        return "", "", []
    event = EVENT_OF.get(m[2].lower(), "opened")
    pulls = bool(PULL.search(m[1]))
    when: dict[str, datetime] = {}
    for record in index.scroll(Filter(start=window[0], end=window[1]), fields=["doc_key", "metadata"]):
        meta = record.payload.get("metadata")
        if not isinstance(meta, dict) or bool(meta.get("is_pull_request")) != pulls:
            continue
        for ev in meta.get("events") or []:
            if not isinstance(ev, dict) or ev.get("event") != event or not ev.get("at"):
                continue
            at = datetime.fromisoformat(str(ev["at"]))
            if window[0] <= at < window[1] and at <= now:
                key = str(record.payload["doc_key"])
                when[key] = min(when.get(key, at), at)
    if not when:
        return "", "", []
    docs: dict[str, list[Chunk]] = {}
    for chunk in index.fetch(doc_keys=sorted(when), within=Filter(as_of=now)):
        docs.setdefault(chunk.doc_key, []).append(chunk)
    found = [(when[k], sorted(cs, key=lambda c: (c.ordinal, c.chunk_id))) for k, cs in docs.items()]
    found.sort(key=lambda pair: (pair[0], pair[1][0].doc_key))
    return " ".join(m[1].split()), event, found


def asked_agenda(question: str) -> set[str] | None:
    """The topic words ("meetings about the cutover": cutover) when the question asks which meetings happen in its
    window; None when it asks no such thing."""
    if ASKS_AGENDA.search(question.strip()) is None:
        return None
    about = AGENDA_TOPIC.search(question)
    return content_words(about[1]) - _GENERIC if about else set()


def _scheduled_families() -> tuple[str, ...]:
    return tuple(
        name
        for name in registry.families()
        if (found := registry.family(name)) is not None and any(k.scheduled for k in found.kinds)
    )


def has_calendar(index: Index, now: datetime) -> bool:
    """Whether the index holds any event of a scheduled kind as of `now` (a calendar is configured and ingested)."""
    families = _scheduled_families()
    return bool(families) and index.count(Filter(source_types=families, as_of=now)) > 0


def listed_meetings(
    topic: set[str], window: tuple[datetime, datetime], index: Index, now: datetime, people: Sequence[str] = ()
) -> list[Chunk]:
    """The occurrences of scheduled kinds that start in `window` and were in the calendar at `now`, in time order:
    one chunk each (an occurrence's first), kept when they name every person asked and hold the `topic` words (of
    `asked_agenda`)."""
    families = _scheduled_families()
    if not families:
        return []
    first: dict[str, Chunk] = {}
    for chunk in index.chunks(Filter(source_types=families, start=window[0], end=window[1], as_of=now)):
        if not window[0] <= chunk.start < window[1]:
            continue  # overlapping the window is not starting in it (a leave that began last week)
        text = chunk.text.lower()
        if any(p.lower() not in text and p not in chunk.authors for p in people):
            continue
        if topic and topic - (content_words(chunk.text) | content_words(chunk.title)):
            continue
        key = chunk.refs[0] if chunk.refs else chunk.doc_key
        if key not in first or (chunk.ordinal, chunk.chunk_id) < (first[key].ordinal, first[key].chunk_id):
            first[key] = chunk
    return sorted(first.values(), key=lambda c: (c.start, c.title, c.doc_key))


def next_meeting(question: str, index: Index, now: datetime) -> Chunk | None:
    """The first occurrence starting after `now`, as the calendar held it at `now`, of the scheduled events whose
    title holds every word of "when is the next <words>?"; None when the question asks no such thing or none is
    found (within a year)."""
    m = ASKS_NEXT.search(question.strip())
    if m is None:
        return None
    families = _scheduled_families()
    if not families:
        return None
    words = content_words(m[1]) - _GENERIC - MEETING_WORDS
    if not words:
        return None
    found: Chunk | None = None
    for chunk in index.chunks(Filter(source_types=families, start=now, end=now + timedelta(days=366), as_of=now)):
        if chunk.start < now or _cancelled(chunk):
            continue
        if words - content_words(chunk.title) or (found is not None and chunk.start >= found.start):
            continue
        found = chunk
    return found


def answer_next_meeting(
    question: str, answer: ExtractiveAnswer, *, index: Index, now: datetime, zone: ZoneInfo | None = None
) -> ExtractiveAnswer | None:
    """`answer` as the next occurrence of the meeting asked about ("When is the next standup?"), cited by its
    occurrence; None when the question asks no such thing or the calendar holds none to come."""
    found = next_meeting(question, index, now)
    if found is None:
        return None
    line = _meeting_line(found, zone or ZoneInfo("UTC"))
    ref, url = _cited(found)
    return replace(answer, text=f"{line} [1]", cited={1: [ref]}, urls={1: url}, no_answer=False)


def _meeting_line(chunk: Chunk, zone: ZoneInfo) -> str:
    """ "Tue 16 Jun 13:00-15:00 UTC: Q3 planning (organiser Priya Raman)": when, what, by whom."""
    start, end = chunk.start.astimezone(zone), chunk.end.astimezone(zone)
    if chunk.metadata.get("all_day"):
        when = f"{start:%a} {start.day} {start:%b}, all day"
    else:
        until = f"-{end:%H:%M}" if end > start and end.date() == start.date() else ""
        when = f"{start:%a} {start.day} {start:%b} {start:%H:%M}{until} {start.tzname() or 'UTC'}"
    title = clean(_title(chunk)[0], limit=160) or chunk.doc_key
    status = " (cancelled)" if _cancelled(chunk) else ""
    organiser = f" (organiser {chunk.authors[0]})" if chunk.authors else ""
    return f"{when}: {title}{status}{organiser}"


def render_meetings(
    meetings: Sequence[Chunk], period: str, zone: ZoneInfo, answer: ExtractiveAnswer, narrowing: str = ""
) -> ExtractiveAnswer:
    """Meetings as the answer: a lead with their number, what narrowed them (" with Ana", " about cutover") and
    the period, then one cited line each, in time order."""
    shown = meetings[:MAX_MEETINGS]
    more = f" ({len(meetings) - len(shown)} more not shown)" if len(meetings) > len(shown) else ""
    noun = "meeting" if len(meetings) == 1 else "meetings"
    lines = [f"{len(meetings)} {noun}{narrowing} {period}{more}, in time order:"]
    cited: dict[int, list[str]] = {}
    urls: dict[int, str] = {}
    for n, chunk in enumerate(shown, 1):
        lines.append(f"- {_meeting_line(chunk, zone)} [{n}]")
        ref, urls[n] = _cited(chunk)
        cited[n] = [ref]
    return replace(answer, text="\n".join(lines), cited=cited, urls=urls, no_answer=False)


def render_records(
    records: Sequence[tuple[datetime, Sequence[Chunk]]], kind: str, event: str, period: str, answer: ExtractiveAnswer
) -> ExtractiveAnswer:
    """Tracker records as the answer: a lead with their number, kind, event and period, then one cited line each."""
    shown = records[:MAX_LISTED]
    more = f" ({len(records) - len(shown)} more not shown)" if len(records) > len(shown) else ""
    lines = [f"{len(records)} {kind} {event} {period}{more}, oldest first:"]
    cited: dict[int, list[str]] = {}
    urls: dict[int, str] = {}
    for n, (at, chunks) in enumerate(shown, 1):
        first = chunks[0]
        title = clean(first.title, limit=160) or first.doc_key
        author = next((u.author for c in chunks for u in c.units if u.author), None) or next(
            (a for c in chunks for a in c.authors), ""
        )
        detail = ", ".join(p for p in (author, f"{event} {at:%a} {at.day} {at:%b}") if p)
        lines.append(f'- "{title}" ({detail}) [{n}]')
        ref, urls[n] = _cited(first)
        cited[n] = [ref]
    return replace(answer, text="\n".join(lines), cited=cited, urls=urls)


def _period(label: str, narrowing: str) -> str:
    if narrowing:
        return f"in {narrowing} {label}" if label else "in that week"
    relative = (
        label.split()[0].lower() in {"last", "this", "past", "next", "coming", "yesterday", "today", "tomorrow"}
        if label
        else False
    )
    return (label if relative else f"in {label}") if label else "in the period asked about"


def render(documents: Sequence[Sequence[Chunk]], kind: str, label: str, answer: ExtractiveAnswer) -> ExtractiveAnswer:
    """The documents as the answer: a lead with their number, kind and period, then one cited line each."""
    shown = documents[:MAX_LISTED]
    more = f" ({len(documents) - len(shown)} more not shown)" if len(documents) > len(shown) else ""
    lines = [f"{len(documents)} {kind} dated {label}{more}, oldest first:"]
    cited: dict[int, list[str]] = {}
    urls: dict[int, str] = {}
    for n, chunks in enumerate(shown, 1):
        title, _ = _title(chunks[0])
        title = clean(title, limit=160) or chunks[0].doc_key
        lead, ref, url = _lead(chunks, title)
        when = min(c.start for c in chunks)
        author = next((u.author for c in chunks for u in c.units if u.author), None) or next(
            (a for c in chunks for a in c.authors), ""
        )
        detail = ", ".join(p for p in (author, f"{when:%a} {when.day} {when:%b}") if p)
        quote = f': "{lead}"' if lead else ""
        lines.append(f'- "{title}" ({detail}){quote} [{n}]')
        cited[n] = [ref]
        urls[n] = url
    return replace(answer, text="\n".join(lines), cited=cited, urls=urls)


def answer_listing(
    question: str,
    answer: ExtractiveAnswer,
    *,
    window: tuple[datetime, datetime] | None,
    label: str,
    index: Index,
    now: datetime,
    projects: Sequence[str] = (),
    people: Sequence[str] = (),
    zone: ZoneInfo | None = None,
) -> tuple[ExtractiveAnswer, list[str]] | None:
    """`answer` as the list of the documents of the asked kind dated in the question's window, with their keys;
    None when the question asks no such thing, names no period, was refused, or no such document is dated there.
    Meetings ("what meetings do we have this week?") are listed even where the sentences were refused: the
    calendar, not a sentence, answers, and an empty window is said in words."""
    if window is None:
        return None
    window, narrowing = narrowed(question, window)
    period = _period(label, narrowing)
    topic = asked_agenda(question)
    if topic is not None:
        who = f" with {' and '.join(people)}" if people else ""
        narrowing = who + (f" about {' '.join(sorted(topic))}" if topic else "")
        meetings = listed_meetings(topic, window, index, now, people)
        if meetings:
            shown = render_meetings(meetings, period, zone or ZoneInfo("UTC"), answer, narrowing)
            return shown, list(dict.fromkeys(c.doc_key for c in meetings))
        if has_calendar(index, now):
            # An empty window in a calendar that exists is an answer, not a refusal (as briefings say "Nothing in").
            text = f"No meetings{narrowing} {period} in the calendar."
            return replace(answer, text=text, cited={}, urls={}, no_answer=False), []
    if answer.no_answer:
        return None
    asked = asked_listing(question)
    documents = listed_documents(question, window, index, now, projects) if asked is not None else []
    if asked is not None and documents:
        return render(documents, asked[0], period, answer), [cs[0].doc_key for cs in documents]
    kind, event, records = listed_records(question, window, index, now)
    if records:
        return render_records(records, kind, event, period, answer), [cs[0].doc_key for _, cs in records]
    return None
