"""The briefing engine: a window and a scope -> every conversation active in it -> ranked, cited lines.

Items are enumerated by time (a payload filter and a scroll through `Index.chunks`, never similarity top-k), as
of `now`. Chunks are grouped into conversations from their own fields and their source's descriptor: a document
(a thread, a ticket, a PR, a page, an email thread) is one conversation, and a document kind marked `stream` (a
channel's top-level messages) gives one conversation per chunk, the chunker's burst of consecutive messages.
Only units written inside the window are cited; earlier ones (a thread's root from last week) give context.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from briefing import registry
from briefing.digest import text as tx
from briefing.digest.model import Cited, Digest, Line, Scope, Section
from briefing.errors import BriefError
from briefing.index import Filter, Index, doc_id
from briefing.model import Chunk, Unit
from briefing.sources import DocumentKind, Presentation
from briefing.textrules import STOPWORDS

if TYPE_CHECKING:
    from briefing.digest.llm import LineWriter

_TOKEN = re.compile(r"[a-z0-9][a-z0-9_.#/-]*[a-z0-9]|[a-z0-9]")


@dataclass(frozen=True)
class Seen:
    """One unit with what it needs to be cited: its chunk's link and its time (the chunk's when it has none)."""

    unit: Unit
    at: datetime
    url: str
    chunk: Chunk


@dataclass(frozen=True)
class Transition:
    """A change of state the source's own history records: a ticket's status (from -> to), a PR merged or closed,
    a page created or updated to a version; who, when, and the unit it is cited to (chunk metadata "events")."""

    event: str
    at: datetime
    by: str | None
    ref: str
    before: str | None = None
    after: str | None = None
    version: int | None = None

    def describe(self) -> str:
        who = f" by {self.by}" if self.by else ""
        if self.event == "status":
            return f"{self.before or '(none)'} → {self.after or '(none)'}{who}"
        if self.event == "updated" and self.version:
            return f"updated to version {self.version}{who}"
        return f"{self.event}{who}"


def transitions(chunks: Iterable[Chunk]) -> list[Transition]:
    """Every recorded transition of these chunks, once each, in time order."""
    found: dict[tuple[str, str, str, str], Transition] = {}
    for chunk in chunks:
        for raw in chunk.metadata.get("events") or []:
            if not isinstance(raw, dict) or not raw.get("event") or not raw.get("at"):
                continue
            try:
                at = datetime.fromisoformat(str(raw["at"]).replace("Z", "+00:00"))
            except ValueError:
                continue
            if at.tzinfo is None:
                continue
            version = raw.get("version")
            made = Transition(
                event=str(raw["event"]),
                at=at,
                by=str(raw["by"]) if raw.get("by") else None,
                ref=str(raw.get("ref") or chunk.doc_key),
                before=str(raw["from"]) if raw.get("from") else None,
                after=str(raw["to"]) if raw.get("to") else None,
                version=version if isinstance(version, int) else None,
            )
            found.setdefault((made.event, made.at.isoformat(), made.ref, made.after or ""), made)
    return sorted(found.values(), key=lambda t: (t.at, t.ref))


@dataclass
class Conversation:
    key: str
    doc_key: str
    source_type: str
    kind: str
    container: str
    title: str
    units: list[Seen] = field(default_factory=list)  # inside the window, in time order
    earlier: list[Seen] = field(default_factory=list)  # of the same conversation, before the window
    tickets: set[str] = field(default_factory=set)
    threaded: bool = False
    stream: bool = False
    changes: list[Transition] = field(default_factory=list)  # recorded transitions inside the window

    @property
    def opener(self) -> Seen:
        return self.earlier[0] if self.earlier else self.units[0]

    @property
    def opened_in_window(self) -> bool:
        return not self.earlier

    def people(self) -> list[str]:
        return list(dict.fromkeys(s.unit.author for s in self.units if s.unit.author))

    def text(self) -> str:
        return "\n".join([self.title, *(s.unit.text for s in (*self.earlier, *self.units))])


def _kind(name: str) -> DocumentKind | None:
    try:
        return registry.kind(name)
    except BriefError:
        return None


def _presentation(source_type: str) -> Presentation:
    found = registry.family(source_type)
    return found.presentation if found is not None else Presentation(label=source_type)


def unit_url(chunk: Chunk, unit: Unit) -> str:
    """The link that opens one unit (`Unit.url`: a message permalink, a comment), else its chunk's link."""
    return unit.url or chunk.url


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def topic_terms(topic: str) -> set[str]:
    return {_stem(w.strip(".-")) for w in _TOKEN.findall(topic.lower()) if len(w) > 1 and w not in STOPWORDS}


def matches_topic(conversation: Conversation, terms: set[str]) -> bool:
    """Most of the topic's words occur in the conversation (all of them for a one- or two-word topic)."""
    if not terms:
        return True
    tokens = _TOKEN.findall(conversation.text().lower())
    # "ledger-api#431" and "kestrelpay/ledger-api" also name "ledger-api".
    parts = [p for t in tokens for p in re.split(r"[#/.:]", t) if p]
    have = {_stem(w.strip(".-")) for w in (*tokens, *parts)}
    found = len(terms & have)
    return found == len(terms) if len(terms) <= 2 else found / len(terms) >= 0.6


def _seen(chunk: Chunk) -> list[Seen]:
    return [Seen(u, u.at or chunk.start, unit_url(chunk, u), chunk) for u in chunk.units]


def _dedupe(seen: Iterable[Seen]) -> list[Seen]:
    """One entry per unit (a unit repeated in overlapping chunks counts once), in time order; the pieces of a long
    message split over chunks stay, in the order of their chunks."""
    out: dict[tuple[str, str], Seen] = {}
    for s in seen:
        out.setdefault((s.unit.ref, s.unit.text), s)
    return sorted(out.values(), key=lambda s: (s.at, s.unit.ref, _piece(s.chunk)))


def _piece(chunk: Chunk) -> int:
    """Where a piece of a message split over chunks comes in the message: its chunk's place in the conversation
    (the number the chunk id ends with). A document's sections share one ref and time and keep the order they
    were read in."""
    return chunk.ordinal if _presentation(chunk.source_type).conversational else 0


def messages(units: Sequence[Seen]) -> int:
    """How many messages the units are: a long message split over chunks is one."""
    return len({s.unit.ref for s in units})


class Briefer:
    """Builds digests over one index; `max_lines` caps the lines shown, the rest is listed under `more`."""

    def __init__(
        self,
        index: Index,
        *,
        timezone: str = "UTC",
        max_lines: int = 40,
        burst_minutes: float = 30,
        writer: LineWriter | None = None,
    ) -> None:
        self.index = index
        self.writer = writer  # with an LLM configured: writes each line from the same evidence (digest.llm)
        self.burst_gap = timedelta(minutes=burst_minutes)
        self.timezone = timezone
        self.zone = ZoneInfo(timezone)
        self.max_lines = max_lines
        self._now = datetime.max.replace(tzinfo=ZoneInfo("UTC"))  # the digest being written's `now`

    # -- enumerate and group ----------------------------------------------------------------------------------
    def conversations(
        self, start: datetime, end: datetime, now: datetime, scope: Scope, *, forward: bool = False
    ) -> list[Conversation]:
        """Every conversation with a unit in [start, min(end, now)) inside the scope.

        `forward`: the window may reach past `now` ("what's planned next week"): what is scheduled in it and was
        entered before `now` (a calendar event written last week for next Tuesday) counts; nothing written later.
        """
        end = end if forward else min(end, now)
        if end <= start:
            return []
        flt = Filter(
            as_of=now,
            start=start,
            end=end,
            source_types=scope.sources,
            containers=scope.containers,
        )
        chunks = self.index.chunks(flt)
        if scope.tickets:
            wanted = set(scope.tickets)
            # A mention is a key ("PLAT-7") or a qualified ref ("<family>:owner/repo#12"): compare the ids.
            chunks = [c for c in chunks if wanted & {doc_id(t) for t in c.tickets} or doc_id(c.doc_key) in wanted]
        kinds = {c.kind: _kind(c.kind) for c in chunks}
        # Whole documents for the conversations that began before the window (a thread's root, a ticket's body).
        whole = sorted({c.doc_key for c in chunks if not (kinds[c.kind] and kinds[c.kind].stream)})  # type: ignore[union-attr]
        context: dict[str, list[Chunk]] = {}
        if whole:
            for chunk in self.index.chunks(Filter(as_of=now, doc_keys=tuple(whole))):
                context.setdefault(chunk.doc_key, []).append(chunk)
        found: dict[str, Conversation] = {}
        # A long post is split over several chunks of its stream: the pieces are one conversation, not one each.
        posted: dict[tuple[str, str], str] = {}
        for chunk in chunks:
            kind = kinds[chunk.kind]
            stream = bool(kind and kind.stream)
            key = chunk.chunk_id if stream else chunk.doc_key
            if stream:
                refs = [(chunk.doc_key, u.ref) for u in chunk.units]
                key = next((posted[r] for r in refs if r in posted), key)
                posted.update(dict.fromkeys(refs, key))
            conv = found.get(key)
            if conv is None:
                conv = found[key] = Conversation(
                    key=key,
                    doc_key=chunk.doc_key,
                    source_type=chunk.source_type,
                    kind=chunk.kind,
                    container=chunk.container,
                    title=chunk.title,
                    threaded=bool(kind and kind.threaded),
                    stream=stream,
                )
            conv.tickets.update(chunk.tickets)
            conv.units.extend(_seen(chunk))
        out = []
        for conv in found.values():
            own = context.get(conv.doc_key, [])
            every = _dedupe([s for c in own for s in _seen(c)] + conv.units)
            if conv.stream:
                every = _dedupe(conv.units)
            else:
                conv.changes = [t for t in transitions(own) if start <= t.at < end]
                every = _dedupe(every + self._change_units(conv.changes, every, own))
            conv.units = [s for s in every if start <= s.at < end]
            conv.earlier = [s for s in every if s.at < start]
            if conv.units:
                out.extend(self._bursts(conv) if conv.stream else [conv])
        if scope.people:
            people = {p.lower() for p in scope.people}
            out = [c for c in out if any((s.unit.author or "").lower() in people for s in c.units)]
        terms = topic_terms(scope.topic)
        return [c for c in out if matches_topic(c, terms)]

    @staticmethod
    def _change_units(changes: list[Transition], every: list[Seen], chunks: list[Chunk]) -> list[Seen]:
        """A unit to cite for each transition no unit records at its time (a merge, a page version)."""
        have = {(s.unit.ref, s.at) for s in every}
        out: list[Seen] = []
        for change in changes:
            if (change.ref, change.at) in have or not chunks:
                continue
            home = next((s for s in every if s.unit.ref == change.ref), None)
            chunk = home.chunk if home is not None else chunks[0]
            url = home.url if home is not None else chunk.url
            unit = Unit(change.ref, change.describe(), change.by, change.at, url)
            out.append(Seen(unit, change.at, url, chunk))
        return out

    def _bursts(self, conv: Conversation) -> list[Conversation]:
        """A stream chunk split where its posts are more than `burst_gap` apart: each burst is a conversation."""
        groups: list[list[Seen]] = [[]]
        for seen in conv.units:
            if groups[-1] and seen.at - groups[-1][-1].at > self.burst_gap:
                groups.append([])
            groups[-1].append(seen)
        if len(groups) == 1:
            return [conv]
        return [
            Conversation(
                key=f"{conv.key}@{group[0].unit.ref}",
                doc_key=conv.doc_key,
                source_type=conv.source_type,
                kind=conv.kind,
                container=conv.container,
                title=conv.title,
                units=group,
                tickets=conv.tickets,
                threaded=conv.threaded,
                stream=True,
            )
            for group in groups
        ]

    # -- rank ---------------------------------------------------------------------------------------------------
    @staticmethod
    def score(conv: Conversation) -> float:
        units = conv.units
        if _presentation(conv.source_type).conversational or conv.stream:
            texts = " ".join(s.unit.text for s in units)
        else:  # a page mentions everything somewhere: what it is about is its title and its opening
            texts = " ".join([conv.title, units[0].unit.text])
        found = tx.signals(texts)
        people = len(conv.people())
        # A page's sections are not activity: a document counts once, a conversation by its messages.
        activity = messages(units) if _presentation(conv.source_type).conversational else 1
        value = math.log1p(activity) + 0.6 * math.log1p(max(people - 1, 0))
        value += 1.2 * ("incident" in found) + 1.0 * ("decided" in found) + 0.8 * ("released" in found)
        value += 0.5 * bool(found & {"resolved", "merged", "status"})
        value += 0.5 * bool(conv.changes)  # a recorded transition (status, merge, close, new version)
        if conv.opened_in_window:
            value += 0.2
        if conv.threaded and len({s.unit.author for s in units}) == 1 and tx.is_question(units[-1].unit.text):
            value += 0.5  # a question nobody has answered yet
        if all(tx.is_filler(s.unit.text) for s in units):
            value -= 1.0
        return value

    # -- write --------------------------------------------------------------------------------------------------
    def _day(self, at: datetime) -> str:
        local = at.astimezone(self.zone)
        return f"{local:%a} {local.day} {local:%b}"

    def _when(self, first: datetime, last: datetime) -> str:
        a, b = self._day(first), self._day(last)
        return a if a == b else f"{a} to {b}"

    def section_title(self, conv: Conversation) -> str:
        shown = _presentation(conv.source_type)
        if shown.container_prefix and conv.container:
            return f"{shown.container_prefix}{conv.container}"
        if conv.container:
            return f"{shown.label}: {conv.container}"
        return shown.label

    def about(self, conv: Conversation) -> str:
        shown = _presentation(conv.source_type)
        if shown.place in ("container",) or conv.stream or conv.threaded:
            # The whole opening post, though a long one is split over chunks (its first piece may be a pasted log).
            ref = conv.opener.unit.ref
            post = "\n".join(s.unit.text for s in (*conv.earlier, *conv.units) if s.unit.ref == ref)
            return tx.gist(post) or tx.short(conv.title)
        # The document's own title: its shortest section path ends with it ("Space > Parent > Page").
        titles = [s.chunk.title for s in (*conv.earlier, *conv.units) if s.chunk.title] or [conv.title]
        title = min(titles, key=lambda t: (t.count(" > "), len(t))).split(" > ")[-1].strip()
        return tx.short(title or tx.gist(conv.opener.unit.text))

    def outcome(self, conv: Conversation) -> tuple[Seen | None, str, str]:
        """The unit that says what happened (the resolution from the last replies), its sentence, the status."""
        units = conv.units
        opener = conv.opener
        replies = units[1:] if conv.opened_in_window else units
        # The other pieces of a long opening post (split over chunks) are the post itself, not replies to it.
        replies = [s for s in replies if s.unit.ref != opener.unit.ref]
        if not replies or not _presentation(conv.source_type).conversational:
            if conv.stream or not _presentation(conv.source_type).conversational:
                best = max(units, key=lambda s: tx.best_sentence(s.unit.text)[1])
                sentence, value = tx.best_sentence(best.unit.text)
                status = "updated" if conv.earlier else ("added" if not conv.stream else "posted")
                if units[0].at > self._now:
                    status = "scheduled"  # a forward window: entered before now, taking place after it
                if conv.stream:
                    status = self._post_status(units)
                # A post's other pieces are the post (one message); a document's other sections say what it holds.
                if best is opener or (conv.stream and best.unit.ref == opener.unit.ref) or value <= 0:
                    return None, "", status
                return best, sentence, status
            status = "open, no reply yet" if tx.is_question(opener.unit.text) else self._post_status(units)
            return None, "", status
        n = len(replies)
        ranked = []
        for i, s in enumerate(replies):
            sentence, value = tx.best_sentence(s.unit.text)
            if value <= 0:
                continue
            found = tx.signals(s.unit.text)
            value += 0.6 * (i + 1) / n  # the later, the more it says how things stand
            value += 0.8 * bool(found & {"resolved", "decided", "merged", "released"})
            if s.unit.author and s.unit.author != opener.unit.author:
                value += 0.1
            ranked.append((value, i, s, sentence, found))
        if not ranked:
            return None, "", self._open_status(conv)
        _, _, best, sentence, _ = max(ranked, key=lambda r: (r[0], r[1]))
        late = tx.signals(" ".join(s.unit.text for s in replies[-3:]))
        for status in ("resolved", "decided", "merged", "released"):
            if status in late:
                return best, sentence, status
        return best, sentence, self._open_status(conv)

    def change_status(self, changes: Sequence[Transition]) -> str:
        """What the history says happened in the window: "In Progress → Done by Sam", "merged by sam"."""
        statuses = [c for c in changes if c.event == "status"]
        if statuses:
            chain = [statuses[0].before or "(none)", *(c.after or "(none)" for c in statuses)]
            who = list(dict.fromkeys(c.by for c in statuses if c.by))
            return " → ".join(chain) + (f" by {', '.join(who)}" if who else "")
        last = changes[-1]
        if last.event == "updated" and any(c.event == "created" for c in changes):
            first = next(c for c in changes if c.event == "created")
            return f"created by {first.by or 'someone'}, {last.describe()}"
        return last.describe()

    @staticmethod
    def _post_status(units: Sequence[Seen]) -> str:
        """A post or a burst of posts: what it announces (a decision, a release, an incident), else "posted"."""
        found = tx.signals(" ".join(s.unit.text for s in units))
        for status in ("decided", "released", "merged", "resolved", "incident"):
            if status in found:
                return status
        return "posted"

    @staticmethod
    def _open_status(conv: Conversation) -> str:
        last = conv.units[-1]
        opener = conv.opener.unit.author
        asked = tx.is_question(tx.gist(conv.opener.unit.text))
        if len(conv.units) > 1 and tx.is_question(last.unit.text) and last.unit.author:
            return f"open, waiting on an answer to {last.unit.author}"
        if asked and opener and last.unit.author and last.unit.author != opener:
            return f"answered by {last.unit.author}, not yet confirmed by {opener}"
        if asked:
            return "open, no answer yet"
        return "discussed"

    def line(self, conv: Conversation, first_n: int) -> Line:
        """One conversation as one line; citation numbers start at `first_n`."""
        about = self.about(conv)
        best, sentence, status = self.outcome(conv)
        # A recorded transition (not the opening, which the line's head already cites) is the line's status.
        moves = [c for c in conv.changes if c.event != "opened"]
        change = moves[-1] if moves else None
        if change is not None:
            status = self.change_status(moves)
            if best is not None and best.unit.ref == change.ref and _presentation(conv.source_type).conversational:
                best, sentence = None, ""  # the transition itself, or the item's attribute lines restating it
        cites: list[Cited] = []
        chunks: list[Chunk] = []
        n = first_n

        def cite(seen: Seen) -> str:
            nonlocal n
            for c in cites:
                if c.refs == [seen.unit.ref]:
                    return f"[{c.n}]"
            cites.append(Cited(n=n, refs=[seen.unit.ref], url=seen.url))
            chunks.append(seen.chunk)
            n += 1
            return f"[{cites[-1].n}]"

        opener = conv.opener
        if not _presentation(conv.source_type).conversational and not conv.stream:
            head = f'"{about}"'
        elif conv.opened_in_window:
            head = f"{about} {cite(opener)}"
        else:
            head = f"{about} (from {self._day(opener.at)})"
        people = conv.people()
        shown = ", ".join(people[:3]) + (f" +{len(people) - 3}" if len(people) > 3 else "")
        conversational = _presentation(conv.source_type).conversational
        count = messages(conv.units) if conversational else len(conv.units)
        noun = "message" if conversational else "section"
        when = self._when(conv.units[0].at, conv.units[-1].at)
        meta = "; ".join(p for p in (shown, when, f"{count} {noun}{'s' if count != 1 else ''}") if p)
        body = f"{head} — {status}"
        if change is not None:
            at_change = next((s for s in conv.units if s.unit.ref == change.ref and s.at == change.at), None)
            if at_change is not None:
                body += f" ({self._day(change.at)}) {cite(at_change)}"
        if best is not None and sentence and not _presentation(conv.source_type).conversational and not conv.stream:
            by = (
                f" by {best.unit.author}" if best.unit.author and not (change and change.by == best.unit.author) else ""
            )
            body += f'{by}: "{sentence}" {cite(best)}'
        elif best is not None and sentence:
            who = best.unit.author or "unknown"
            body += f': {who}: "{sentence}" {cite(best)}'
        elif not cites:
            body += f" {cite(conv.units[-1])}"
        return Line(
            text=f"{body} ({meta})",
            occurred_at=conv.units[0].at,
            citations=cites,
            title=about,
            key=conv.key,
            status=status,
            people=people,
            score=self.score(conv),
            last_at=conv.units[-1].at,
            section=self.section_title(conv),
            chunks=chunks,
        )

    # -- the digest ---------------------------------------------------------------------------------------------
    def digest(
        self,
        start: datetime,
        end: datetime,
        *,
        now: datetime,
        scope: Scope = Scope(),  # noqa: B008 - frozen, never mutated
        searched: str = "",
        max_lines: int | None = None,
        forward: bool = False,
    ) -> Digest:
        t0 = time.perf_counter()
        self._now = now
        convs = self.conversations(start, end, now, scope, forward=forward)
        if not forward:
            end = min(end, now)
        t1 = time.perf_counter()
        limit = self.max_lines if max_lines is None else max_lines
        ranked = sorted(convs, key=lambda c: (-self.score(c), -c.units[-1].at.timestamp(), c.key))
        if end > now:  # what is ahead reads in the order it will happen
            ranked = sorted(convs, key=lambda c: (c.units[0].at, -self.score(c), c.key))
        shown, rest = ranked[:limit], ranked[limit:]
        # Numbered in reading order: sections by their most important line, lines most important first.
        by_section: dict[str, list[Conversation]] = {}
        for conv in shown:
            by_section.setdefault(self.section_title(conv), []).append(conv)
        sections: list[Section] = []
        n = 1
        for title, group in by_section.items():
            section = Section(title=title)
            for conv in group:
                made = self.line(conv, n)
                if self.writer is not None:
                    made = self.writer.rewrite(conv, made, n, self._day)
                n += len(made.citations)
                section.lines.append(made)
            sections.append(section)
        more = [f"{self.section_title(c)}: {self.about(c)}" for c in rest]
        evidence = list({s.chunk.chunk_id: s.chunk for c in ranked for s in c.units}.values())
        return Digest(
            start=start,
            end=end,
            now=now,
            scope=scope,
            sections=sections,
            more=more,
            searched=searched or self.describe(start, end, scope),
            conversations=len(convs),
            timezone=self.timezone,
            evidence=evidence,
            timings_ms={
                "enumerate": round((t1 - t0) * 1000, 1),
                "write": round((time.perf_counter() - t1) * 1000, 1),
            },
        )

    def describe(
        self, start: datetime, end: datetime, scope: Scope, places: Sequence[str] = (), sources: Sequence[str] = ()
    ) -> str:
        first = start.astimezone(self.zone).date()
        last = (end - timedelta(microseconds=1)).astimezone(self.zone).date()
        span = f"{first}" if first == last else f"{first} to {last}"
        parts = [", ".join(scope.sources or sources) or "all sources", span]
        if scope.describe(places):
            parts.append(scope.describe(places))
        return "; ".join(parts)


def window_label(start: datetime, end: datetime, timezone: str) -> str:
    zone = ZoneInfo(timezone)
    first = start.astimezone(zone)
    last = (end - timedelta(microseconds=1)).astimezone(zone)
    if first.date() == last.date():
        return f"on {first:%a} {first.date()}"
    return f"between {first:%a} {first.date()} and {last:%a} {last.date()}"


def nothing(
    scope: Scope, start: datetime, end: datetime, timezone: str, searched: str, places: Sequence[str] = ()
) -> str:
    """The answer for an empty window: what was searched, not a refusal."""
    where = ", ".join(places or scope.containers)
    place = f" in {where}" if where else ""
    who = f" from {', '.join(scope.people)}" if scope.people else ""
    about = f' about "{scope.topic}"' if scope.topic else ""
    return f"Nothing{about}{place}{who} {window_label(start, end, timezone)} (searched: {searched})."
