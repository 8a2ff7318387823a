"""What each quoted line shows: its sentence, the rest of a short message, the clause or list items a cut drops."""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING

from briefing.ask.extractive.evidence import QUOTE_LIMIT, Evidence, presentation, spoken
from briefing.ask.extractive.heads import without_head
from briefing.ask.segment import clean, sentences
from briefing.index import Filter
from briefing.model import Chunk
from briefing.question.terms import TOKEN, content_words, stem

if TYPE_CHECKING:
    from briefing.view import View

# A quote continues with one more sentence of its own unit when that sentence holds question words the quote
# lacks ("Yes. Every full refresh drops the table ..." after "No, we don't use Iceberg branches"): the same
# citation, more of what was asked. The sentence is shown after " … ", cut at this many characters.
NEIGHBOUR_LIMIT = 240
# The first line of an answer, when it quotes a message of a conversation no longer than this (with the rest of it
# that the next chunks hold), shows the whole message: what a person said, the workaround after the problem.
WHOLE_MESSAGE = 800
# A quote that starts a list ("quick summary of the feedback, 1. ... 2. ... 3. ...") or is one of its items shows
# the items it cuts off, each by its head, after " … ": the same unit and citation, and the list is what was said.
# Unit text: a numbered item's mark ("1. ", "2) ") and a bullet's ("• ", "- ").
_NUMBERED = re.compile(r"(?:^|(?<=[\s,:;(]))(\d{1,2})[.)]\s+(?=\S)")
_BULLET = re.compile(r"(?:^|(?<=\s))[•◦▪]\s*|^\s*[-*]\s+", re.M)
ITEM_HEAD = 110
ITEMS_LIMIT = 300
# A quote that ends announcing a list or what follows: "Q3 priorities 1." (group 1: the list's first number), "The
# steps are:".
_OPENS_LIST = re.compile(r"(?:^|\s)(1[.)])\s*$|:\s*$")
# A document longer than this is not read for the chunk after a quote (the fetch reads the whole document).
READ_ON_CHUNKS = 200


def message(ev: Evidence, ranked: Sequence[Evidence]) -> str:
    """The text of `ev`'s unit, continued with the rest of its message that the next chunks of the context hold: a
    long message is cut across chunks ("feat(mongodb): capture full document on" | "delete via pre-images by ..."),
    each piece a unit with the message's ref, author and time, the first unit of the next chunk. Only
    conversations (a document's paragraphs share the document's ref); what came before the quoted piece is not
    added."""
    units = ev.chunk.units
    own = spoken(ev.chunk, units[ev.unit].text) if ev.unit < len(units) else ev.text
    if not presentation(ev.chunk).conversational or ev.unit != len(units) - 1:
        return own
    first: dict[int, tuple[str, bool]] = {}  # ordinal -> (its first unit's text, the chunk is that unit alone)
    for other in ranked:
        chunk = other.chunk
        if other.unit != 0 or chunk is ev.chunk or chunk.doc_key != ev.chunk.doc_key or not chunk.units:
            continue
        if other.ref == ev.ref and other.author == ev.author and other.at_iso == ev.at_iso:
            first.setdefault(chunk.ordinal, (spoken(chunk, chunk.units[0].text), len(chunk.units) == 1))
    text = own
    at = ev.chunk.ordinal + 1
    while at in first:
        piece, alone = first[at]
        text = _joined(text, piece)
        if not alone:
            break
        at += 1
    return text


def _joined(text: str, piece: str) -> str:
    """`text` continued by `piece`; chunks may overlap, so a piece that starts with the end of `text` continues
    past that end (an overlap of at least 20 characters)."""
    for k in range(min(len(text), len(piece), 600), 19, -1):
        if text.endswith(piece[:k]):
            return text + piece[k:]
    return f"{text} {piece}"


def _quote_on(ev: Evidence) -> str:
    """The quote, and when it reaches the end of its unit, the rest of its message that another chunk holds."""
    units = ev.chunk.units
    own = spoken(ev.chunk, units[ev.unit].text) if ev.unit < len(units) else ev.text
    quote = ev.quote
    if not ev.message.startswith(own) or len(ev.message) <= len(own):
        return quote
    tail = own.rstrip()[-40:]
    return f"{quote} {ev.message[len(own) :].strip()}" if quote.rstrip().endswith(tail) else quote


def add_neighbours(chosen: Sequence[Evidence], ranked: Sequence[Evidence], q_words: AbstractSet[str]) -> None:
    """Each quoted line continued with what of its own message it leaves out that the question (its topic words
    `q_words`) asks about (the clause past a cut, a neighbouring sentence); the first line's message shown whole
    when it is short."""
    for i, ev in enumerate(chosen):
        ev.message = ev.message or message(ev, ranked)
        if ev.extra or ev.whole:
            continue
        whole = _whole_message(ev) if i == 0 else ""
        if whole:
            ev.whole = whole
            continue
        cut = clean(ev.quote, limit=QUOTE_LIMIT)
        seen = content_words(cut)
        window = _cut_window(clean(_quote_on(ev), limit=1 << 20), len(cut), set(q_words) - seen)
        if window:
            # A long message cut before the words asked about: the part that holds them follows the cut.
            ev.extra = window
            continue
        best: Evidence | None = None
        for other in ranked:  # best score first
            if other.n != ev.n or other.unit != ev.unit or other.piece == ev.piece or other.text in ev.quote:
                continue
            if (q_words & content_words(other.text)) - seen:
                best = other
                break
        if best is not None:
            ev.extra = best.text
            ev.extra_before = best.piece < ev.piece


def list_items(text: str) -> list[str]:
    """The items of an enumerated list in a unit's text ("1. ... 2. ...", "• ..." or "- ..." lines), in order;
    empty when the text holds fewer than two. Numbers count as a list only in sequence from 1 (not "v0.9 2.")."""
    marks: list[tuple[int, int]] = []
    expect = 1
    for m in _NUMBERED.finditer(text):
        if int(m[1]) == expect:
            marks.append((m.start(), m.end()))
            expect += 1
    if len(marks) < 2:
        marks = [(m.start(), m.end()) for m in _BULLET.finditer(text)]
    if len(marks) < 2:
        return []
    ends = [start for start, _ in marks[1:]] + [len(text)]
    items = [clean(text[end:stop], limit=100_000) for (_, end), stop in zip(marks, ends, strict=True)]
    return [item for item in items if item]


def add_items(chosen: Sequence[Evidence], q_words: AbstractSet[str]) -> None:
    """A quoted line whose unit is a list it shows only in part continues with the heads of the missing items."""
    for ev in chosen:
        units = ev.chunk.units
        if ev.items or ev.unit >= len(units):
            continue
        items = list_items(ev.message or spoken(ev.chunk, units[ev.unit].text))
        if not items:
            continue
        flat = " ".join(shown(ev).split()).lower()
        visible = [item[:30].lower() in flat for item in items]
        if not any(visible) or all(visible):
            continue
        missing = [i for i, seen in enumerate(visible) if not seen]
        # Items that hold question words the quote lacks come first when not all fit; shown in the list's order.
        wanted = q_words - content_words(flat)
        order = sorted(missing, key=lambda i: (not (wanted & content_words(items[i])), i))
        keep: list[int] = []
        size = 0
        for i in order:
            head = clean(items[i], limit=ITEM_HEAD)
            if keep and size + len(head) > ITEMS_LIMIT:
                continue
            keep.append(i)
            size += len(head) + 2
        heads = [clean(items[i], limit=ITEM_HEAD) for i in sorted(keep)]
        ev.items = "; ".join(heads) + (" …" if len(keep) < len(missing) else "")


def _ends_chunk(ev: Evidence, quoted: str) -> bool:
    """The line as shown reaches the end of its chunk: it ends with the end of the chunk's last unit."""
    units = ev.chunk.units
    if not units or ev.unit != len(units) - 1 or quoted.endswith("…"):
        return False
    return clean(units[-1].text, limit=1 << 20).endswith(quoted.rsplit(" … ", 1)[-1][-24:])


def _cut_window(full: str, shown_len: int, wanted: set[str]) -> str:
    """The stretch of `full` past the first `shown_len` characters that starts at the clause holding the first of
    the `wanted` question words, or "" when the cut drops none of them."""
    if len(full) <= shown_len or not wanted:
        return ""
    start = max(shown_len - 2, 0)
    for m in TOKEN.finditer(full.lower(), start):
        if stem(m[0].strip(".-")) in wanted:
            head = max(full.rfind(sep, start, m.start()) for sep in ("•", ". ", "; ", " - ", ": "))
            begin = head + 1 if head >= 0 and m.start() - head <= 120 else max(m.start() - 60, start)
            return full[begin:].strip(" •;:.-")
    return ""


def _whole_message(ev: Evidence) -> str:
    """A message's whole text, when it is one of a conversation's and no longer than `WHOLE_MESSAGE`; else "".
    A message is what a person said: its later sentences (the workaround after the problem) belong with the one
    quoted."""
    if WHOLE_MESSAGE <= 0 or not presentation(ev.chunk).conversational:
        return ""
    text = clean(without_head(ev.message or ev.text, ev.author, ev.first_line), limit=1 << 20)
    if len(text) > WHOLE_MESSAGE or len(text) <= len(clean(ev.quote, limit=QUOTE_LIMIT)) + 1:
        return ""
    return text


def shown(ev: Evidence) -> str:
    """The quoted text of a line: the sentence (continued while short), and the unit's neighbouring sentence that
    adds question words, in the unit's order."""
    if ev.whole:
        quote = ev.whole
        return f"{quote.removesuffix(' …')} … {ev.items}" if ev.items else quote
    quote = clean(ev.quote, limit=QUOTE_LIMIT)
    if ev.extra:
        extra = clean(ev.extra, limit=NEIGHBOUR_LIMIT)
        quote = f"{extra} … {quote}" if ev.extra_before else f"{quote.removesuffix(' …')} … {extra}"
    if ev.items:
        quote = f"{quote.removesuffix(' …')} … {ev.items}"
    return quote


def read_on(chosen: Sequence[Evidence], context: Sequence[Chunk], view: View | None) -> None:
    """A document's quoted line that ends its chunk announcing what follows ("Q3 priorities 1.", "The steps
    are:") continues with the next chunk of the same document: the heads of its list items, or its first
    sentence. From the context when it holds that chunk, else read through `view` (none without one)."""
    for ev in chosen:
        quoted = shown(ev)
        if ev.items or ev.whole or presentation(ev.chunk).conversational or not _ends_chunk(ev, quoted):
            continue
        opener = _OPENS_LIST.search(quoted)
        if opener is None:
            continue
        nxt = _next_chunk(ev.chunk, context, view)
        if nxt is None or not nxt.units:
            continue
        text = nxt.units[0].text
        items = list_items(f"1. {text}" if opener[1] else text)
        if items:
            heads: list[str] = []
            for item in items:
                head = clean(item, limit=ITEM_HEAD)
                if heads and sum(len(h) + 2 for h in heads) + len(head) > ITEMS_LIMIT:
                    break
                heads.append(head)
            more = len(heads) < len(items) and not heads[-1].endswith("…")
            ev.items = "; ".join(heads) + (" …" if more else "")
        else:
            first = sentences(text)
            ev.items = clean(first[0], limit=NEIGHBOUR_LIMIT) if first else ""


def _next_chunk(chunk: Chunk, context: Sequence[Chunk], view: View | None) -> Chunk | None:
    wanted = chunk.ordinal + 1
    if chunk.ordinal < 0:
        return None
    found = next((c for c in context if c.doc_key == chunk.doc_key and c.ordinal == wanted), None)
    if found is not None or view is None:
        return found
    if view.count(Filter(doc_keys=(chunk.doc_key,))) > READ_ON_CHUNKS:
        return None
    return next((c for c in view.fetch(doc_keys=[chunk.doc_key]) if c.ordinal == wanted), None)
