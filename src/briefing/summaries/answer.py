"""`brief summarize TOPIC`: search the summaries, then quote the best conversations' own units as of now, cited."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from briefing.digest import text as tx
from briefing.embed import Embedder
from briefing.errors import NotConfiguredError
from briefing.index import Filter, Index
from briefing.model import Chunk
from briefing.question.terms import content_words, names_title
from briefing.settings import Settings
from briefing.summaries.build import units_of
from briefing.summaries.store import summary_settings
from briefing.view import as_of

if TYPE_CHECKING:
    from briefing.view import View


@dataclass
class SummaryLine:
    title: str
    text: str
    citations: list[dict[str, Any]]
    doc_key: str
    score: float
    chunks: list[Chunk] = field(default_factory=list)  # the chunk of each citation, in order (not serialised)

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "text": self.text, "conversation": self.doc_key, "citations": self.citations}


@dataclass
class Summary:
    topic: str
    now: datetime
    lines: list[SummaryLine]
    searched: int  # summaries in the summary index
    matched: int  # summaries the query path returned
    timings_ms: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "topic": self.topic,
            "now": self.now.isoformat(),
            "lines": [line.to_json() for line in self.lines],
            "summaries_searched": self.searched,
            "summaries_matched": self.matched,
            "timings_ms": dict(self.timings_ms),
        }


def _terms(topic: str) -> set[str]:
    from briefing.digest.conversation import topic_terms

    return topic_terms(topic)


def _relevance(sentence: str, terms: set[str]) -> float:
    from briefing.digest.conversation import topic_terms

    have = topic_terms(sentence)
    return len(terms & have) / len(terms) if terms else 0.0


# A topic that names a conversation by its title (`terms.names_title`) gets the summary of the conversation it names
# most closely (and of any other of the same title: a patch series' next version), over up to NAMED_LINES of its
# messages.
NAMED_LINES = 8


def named_by_title(topic: str, own: list[Chunk]) -> float:
    """How closely `topic` names the conversation of chunks `own` by its title (`terms.names_title`; 0: not)."""
    return names_title(content_words(topic), min((c.title for c in own if c.title), key=len, default=""))


def answer(
    settings: Settings,
    index: Index | View,
    embedder: Embedder,
    topic: str,
    *,
    now: datetime,
    conversations: int = 6,
    per_conversation: int = 2,
) -> Summary:
    """The best summaries for `topic` (the one query path over the summary index), then each conversation's own
    units as of `now`: per conversation one line, its sentences quoted from the exact units and cited to them."""
    from briefing.errors import IndexError_
    from briefing.retrieve import Retriever, SearchQuery

    if not settings.digest.summaries:
        raise NotConfiguredError(
            "conversation summaries are off ([digest] summaries = false): set it to true and run `brief ingest`, "
            "or ask the question with `brief ask`"
        )
    t0 = time.perf_counter()
    with Index.open(summary_settings(settings)) as summaries:
        if not summaries.exists() or summaries.count() == 0:
            raise IndexError_(
                f"workspace '{settings.workspace.name}' has no conversation summaries yet: run `brief ingest` "
                "(summaries are computed at ingest)"
            )
        # The same reader as the conversations: a summary, and every count, only of what they may read.
        summaries.restrict(index.readers)
        total = summaries.count()
        found = Retriever(settings.retrieval, summaries, embedder).retrieve(
            SearchQuery(topic, now=now, k=conversations * 2)
        )
    t1 = time.perf_counter()
    best: list[tuple[str, float]] = []
    for hit in found.hits:
        if hit.chunk.doc_key not in dict(best):
            best.append((hit.chunk.doc_key, hit.score))
    best = best[:conversations]
    terms = _terms(topic)
    lines: list[SummaryLine] = []
    n = 1
    if best:
        chunks = as_of(index, now).chunks(Filter(doc_keys=tuple(k for k, _ in best)))
        by_doc: dict[str, list[Chunk]] = {}
        for chunk in chunks:
            by_doc.setdefault(chunk.doc_key, []).append(chunk)
        closeness = {key: named_by_title(topic, by_doc[key]) for key, _ in best if key in by_doc}
        closest = max(closeness.values(), default=0.0)
        named = [(key, score) for key, score in best if closest and closeness.get(key) == closest]
        if named:
            best = named
            per_conversation = max(per_conversation, NAMED_LINES // len(named))
        for key, score in best:
            own = by_doc.get(key)
            if not own:
                continue  # written after `now`, or gone since the summary was made
            units = units_of(own)
            # The opening says what the conversation is about; of a conversation the topic names, the last message
            # also says how it ended.
            ends = {0, len(units) - 1} if named else {0}
            scored = []
            for i, (unit, chunk) in enumerate(units):
                sentence, value = tx.best_sentence(unit.text)
                if value <= 0 or not sentence:
                    continue
                scored.append(
                    (2.0 * _relevance(unit.text, terms) + value + (0.3 if i in ends else 0.0), i, sentence, unit, chunk)
                )
            if not scored:
                continue
            chosen = sorted(sorted(scored, key=lambda s: -s[0])[:per_conversation], key=lambda s: s[1])
            parts = []
            cites = []
            used: list[Chunk] = []
            for _, _, sentence, unit, chunk in chosen:
                used.append(chunk)
                who = f"{unit.author}: " if unit.author else ""
                parts.append(f'{who}"{sentence}" [{n}]')
                cites.append({"n": n, "refs": [unit.ref], "url": unit.url or chunk.url})
                n += 1
            # The conversation's own title: its shortest section path ends with it ("Space > Page > Section").
            name = min((c.title for c in own if c.title), key=lambda t: (t.count(" > "), len(t)), default="")
            title = tx.short(name.split(" > ")[-1].strip() or own[0].title, 120)
            # Many quotes of one conversation read better one a line than in one run-on line.
            if len(parts) > 2:
                text = f"{title}:" + "".join(f"\n  - {p}" for p in parts)
            else:
                text = f"{title} — " + "; ".join(parts)
            lines.append(SummaryLine(title, text, cites, key, round(score, 4), used))
    return Summary(
        topic=topic,
        now=now,
        lines=lines,
        searched=total,
        matched=len(best),
        timings_ms={
            "summaries": round((t1 - t0) * 1000, 1),
            "drill_down": round((time.perf_counter() - t1) * 1000, 1),
        },
    )


def render(summary: Summary, fmt: str, *, sources: bool = True) -> str:
    """`summary` as text, Markdown or JSON; without `sources` the text leaves out the list of cited refs (an ask
    prints its citations itself)."""
    if fmt == "json":
        return json.dumps(summary.to_json(), ensure_ascii=False) + "\n"
    md = fmt == "md"
    head = f"Summary: {tx.neutral(summary.topic)}"
    out = [f"# {head}" if md else head, ""]
    if not summary.lines:
        out.append(
            f'No conversation is about "{tx.neutral(summary.topic)}" '
            f"(searched {summary.searched} conversation summaries as of {summary.now:%Y-%m-%d %H:%M %Z})."
        )
        return "\n".join(out) + "\n"
    out.append(
        f"{len(summary.lines)} conversation{'' if len(summary.lines) == 1 else 's'}, from {summary.searched} "
        "conversation summaries; "
        f"as of {summary.now:%Y-%m-%d %H:%M %Z}"
    )
    out.append("")
    for line in summary.lines:
        text = line.text
        if md:
            for c in line.citations:
                if c["url"]:
                    text = text.replace(f"[{c['n']}]", f"[[{c['n']}]]({c['url']})", 1)
        out.append(f"- {text}")
    out.append("")
    for line in summary.lines if sources else ():
        for c in line.citations:
            out.append(
                f"[{c['n']}] {' '.join(c['refs'])}" + (f" {c['url']}" if c["url"] else "") + ("  " if md else "")
            )
    return "\n".join(out).rstrip() + "\n"
