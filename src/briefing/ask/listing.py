"""Which documents of a kind came out in a period: "Which blog posts came out in July?", "What release notes were
published last month?".

The answer is a list of documents, not a fact inside one: the top-k chunks retrieval hands the answerer hold the
sections nearest the question's words, often of one post, never the set of posts dated in the period. So when a
question asks which documents of a kind came out, were published or released in a time window, the answer reads the
index for the documents (not conversations) whose own date falls in the window, as the question's `now` sees them,
of the kind the question names (a folder or project such as `blog/` or `release/`), and lists each: its title, its
author and date, its opening sentence, cited by its own first unit.

Only an answer the ordinary path gave is replaced (a refusal stays a refusal), and only when at least one document
of the kind is dated in the window; a question that also names a topic ("posts about Kafka") lists only the
documents that mention every topic word.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from briefing import registry
from briefing.ask.extractive import _GENERIC, ExtractiveAnswer, _presentation, _stem, _title, content_words
from briefing.ask.segment import clean, sentences
from briefing.index import Filter, Index
from briefing.model import Chunk

# "which (engineering) blog posts came out", "what release notes were published", "which ADRs did we write".
_KINDS = (
    r"blog\s+posts?|posts?|articles?|blogs?|releases?|release\s+notes?|changelogs?|documents?|docs|pages?|"
    r"design\s+docs?|adrs?|rfcs?|runbooks?|reports?|newsletters?|announcements?|guides?|tutorials?"
)
_ASKS_LISTING = re.compile(
    rf"^\W*(?:which|what)\s+((?:[\w-]+\s+){{0,3}}?(?:{_KINDS}))((?:\s+(?:about|on|covering)\s+[^?]*?)?)\s+"
    r"(?:came\s+out|went\s+(?:out|live)|(?:were|was|got|have\s+been|has\s+been)\s+(?:published|released|posted|"
    r"written|shipped|put\s+out|added|announced)|did\s+(?:we|they|the\s+\w+)\s+(?:publish|release|post|write|ship)|"
    r"appeared)\b(.*)$",
    re.I,
)
# A topic after the period or the verb: "... in July about Kafka", "... on schema changes".
_TOPIC = re.compile(r"\b(?:about|on|covering|regarding|concerning)\s+(.+)$", re.I)
# A kind's other names for the folder (or project) its documents live in.
_SYNONYMS = {
    "post": {"blog", "post", "article", "news"},
    "article": {"blog", "post", "article", "news"},
    "blog": {"blog", "post", "article", "news"},
    "release": {"release", "changelog"},
    "changelog": {"release", "changelog"},
    "doc": {"doc", "document", "page"},
    "document": {"doc", "document", "page"},
}
MAX_LISTED = 12
LEAD_LIMIT = 200
# Below this many words a sentence is a title or a caption, not the document's opening sentence.
LEAD_MIN_WORDS = 8
_PLACEHOLDER = re.compile(r"^\W*(?:image|file|attachment)\s*:", re.I)


def asked_listing(question: str) -> tuple[str, set[str], set[str]] | None:
    """(the kind as the question words it, its folder names, the topic words) when the question asks which
    documents of a kind came out; None otherwise."""
    m = _ASKS_LISTING.search(question.strip())
    if m is None:
        return None
    kind_words = {_stem(w.lower()) for w in re.findall(r"[A-Za-z]+", m[1])}
    kind_words |= {w.rstrip("s") for w in kind_words}
    names = set(kind_words)
    for w in kind_words:
        names |= _SYNONYMS.get(w, set())
    topic = _TOPIC.search(m[2]) or _TOPIC.search(m[3])
    topic_words = content_words(topic[1]) - _GENERIC if topic else set()
    return " ".join(m[1].split()), names, topic_words


def _conversational(source_type: str) -> bool:
    family = registry.family(source_type)
    return family is None or family.presentation.conversational


def _lead(chunks: Sequence[Chunk], title: str) -> tuple[str, str, str]:
    """(opening sentence, ref, url) of a document: its first sentence of some length that is not its title."""
    first = chunks[0]
    ref = first.units[0].ref if first.units else (first.refs[0] if first.refs else first.doc_key)
    url = (first.units[0].url if first.units else "") or first.url
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


def render(
    documents: Sequence[Sequence[Chunk]], kind: str, label: str, answer: ExtractiveAnswer
) -> ExtractiveAnswer:
    """The documents as the answer: a lead with their number, kind and period, then one cited line each."""
    shown = documents[:MAX_LISTED]
    more = f" ({len(documents) - len(shown)} more not shown)" if len(documents) > len(shown) else ""
    relative = label.split()[0].lower() in {"last", "this", "past", "yesterday", "today"} if label else False
    period = (f" {label}" if relative else f" in {label}") if label else " in the period asked about"
    lines = [f"{len(documents)} {kind} dated{period}{more}, oldest first:"]
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
) -> tuple[ExtractiveAnswer, list[str]] | None:
    """`answer` as the list of the documents of the asked kind dated in the question's window, with their keys;
    None when the question asks no such thing, names no period, was refused, or no such document is dated there."""
    if answer.no_answer or window is None:
        return None
    asked = asked_listing(question)
    documents = listed_documents(question, window, index, now, projects) if asked is not None else []
    if asked is None or not documents:
        return None
    return render(documents, asked[0], label, answer), [cs[0].doc_key for cs in documents]
