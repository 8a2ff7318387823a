"""Evidence candidates: every sentence of the context's units, numbered by chunk, and the answer they make."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC
from zoneinfo import ZoneInfo

from briefing import registry
from briefing.ask.extractive.heads import past_head, without_head
from briefing.ask.header import is_header
from briefing.ask.segment import clean, sentences
from briefing.model import Chunk
from briefing.sources import Presentation
from briefing.textrules import own_words

# The answer stage embeds each candidate sentence as `sentence_text` gives it, clipped to this many characters;
# ingest embeds the same texts into the vector cache (`briefing.warm`), so the keys are made here only.
SENTENCE_MAX_CHARS = 300
# A quoted sentence shorter than this continues with the next sentences of its unit (cut at 320 characters).
QUOTE_MIN = 160
# A quote is cut at this many characters; it continues with at most this many sentences of its own unit.
QUOTE_LIMIT = 320
QUOTE_FOLLOW = 2


@dataclass
class Evidence:
    n: int
    ref: str
    text: str
    author: str | None
    at_iso: str | None
    chunk: Chunk
    score: float = 0.0
    dense: float = 0.0
    lexical: float = 0.0
    typed: float = 0.0
    unit: int = 0  # index of the unit in its chunk, to find the neighbouring message
    words: set[str] = field(default_factory=set)
    url: str = ""  # opens the unit itself (falls back to the chunk's link for indexes built before unit links)
    person: float = 0.0  # by, replying to or mentioning a person the question names
    follow: str = ""  # the sentences after this one in its unit: a short sentence is quoted with them
    piece: int = 0  # index of this sentence in its unit
    extra: str = ""  # another sentence of the same unit that holds question words the quote lacks
    extra_before: bool = False  # that sentence comes before this one in the unit
    items: str = ""  # the heads of the unit's list items the quote cuts off ("2. If AI is used, self-review")
    second: float | None = None  # the second model's cosine (`ask.rescoring`), for the lines it read
    whole: str = ""  # the whole message, when it is short enough to quote whole (`quoting.WHOLE_MESSAGE`)
    message: str = ""  # the unit's text with the rest of its message that other chunks hold (`quoting.message`)

    @property
    def first_line(self) -> str:
        """The first line of the unit this sentence was cut from."""
        units = self.chunk.units
        return units[self.unit].text.split("\n", 1)[0] if units and self.unit < len(units) else ""

    @property
    def quote(self) -> str:
        """What the answer shows: the sentence, continued within its own unit while it is short ("... 1. ..."
        with the list after it, "The failure is caused by oversized footer metadata." with the cause after it); a
        sentence that is only the unit's head (a mail's stamp and envelope) shows the sentences after it instead."""
        text = without_head(self.text, self.author, self.first_line) if self.piece == 0 else self.text
        rest = past_head(text, self.author, self.first_line)
        if rest == "" and self.follow:
            # A sentence that is only the unit's head: the words after it are what was said.
            return past_head(self.follow, self.author, self.first_line) or self.follow
        text = rest or text
        if len(text) < QUOTE_MIN and self.follow:
            text = f"{text} {self.follow}"
        return text


@dataclass
class ExtractiveAnswer:
    text: str
    no_answer: bool
    cited: dict[int, list[str]] = field(default_factory=dict)
    urls: dict[int, str] = field(default_factory=dict)
    evidence: list[Evidence] = field(default_factory=list)
    best_score: float = 0.0
    confidence: float = 0.0
    hedged: bool = False
    features: dict[str, float] = field(default_factory=dict)
    rescoring: str = ""  # how a second model reread the best lines (`ask.rescoring`), or why it did not


def field_rows(ev: Evidence) -> bool:
    """Whether the line is its item's field rows ("Type: Bug | Status: Closed | Reporter: Ian Taylor") or the
    record sentence a pull request's or issue's header opens with, in the item's own unit (`is_header`): the
    tracker's record, not words its opener wrote."""
    return ev.ref == ev.chunk.doc_key and is_header(ev.text)


def sentence_text(ev: Evidence) -> str:
    return clean(ev.text)


def presentation(chunk: Chunk) -> Presentation:
    source = registry.family(chunk.source_type)
    return source.presentation if source is not None else Presentation(label=chunk.source_type)


def names_item(chunk: Chunk, key: str) -> bool:
    """Whether `chunk` belongs to the item `key` names: a ticket key ("PLAT-7") or a pull request or issue
    number ("519" of "github:acme/api#519")."""
    doc = chunk.doc_key
    return doc == key or doc.endswith((f":{key}", f"/{key}", f"#{key}")) or chunk.title.startswith(f"{key}:")


def about_item(ev: Evidence, keys: Sequence[str]) -> bool:
    """Whether the line is about an item of `keys`: a line of the item itself, or one that names it ("PLAT-7 is
    deployed", "see #519")."""
    for key in keys:
        if names_item(ev.chunk, key):
            return True
        written = f"#{key}" if key.isdigit() else key
        # Sentence text: the key written as a word of its own ("PLAT-7 is deployed", "see #519").
        if re.search(rf"(?<![\w-]){re.escape(written)}(?![\w-])", ev.text, re.I):
            return True
    return False


def unit_text(ev: Evidence) -> str:
    """The whole unit (message, comment, section) a sentence was cut from."""
    return ev.chunk.units[ev.unit].text if ev.chunk.units and ev.unit < len(ev.chunk.units) else ev.chunk.text


def spoken(chunk: Chunk, text: str) -> str:
    """What a unit of `chunk` says in its author's own words: in a conversation (a reply, comment, mail), the lines
    it quotes from earlier messages are not its author's and are no candidates; a document's quote is its own. A
    unit whose words are all quoted (or cannot be told from the quote) stays as it is."""
    if not presentation(chunk).conversational:
        return text
    return own_words(text) or text


def candidates(context: Sequence[Chunk], zone: ZoneInfo, whole_below: int) -> list[Evidence]:
    """Every sentence of every unit of `context`, numbered by its chunk's place (1-based)."""
    out: list[Evidence] = []
    for n, chunk in enumerate(context, 1):
        # Instants (messages, comments, changes, mails) read in the workspace's zone, as the asked window's days are;
        # a source dated by days (a document's date is midnight UTC) keeps the day it names.
        tz = UTC if presentation(chunk).dates_only else zone
        for i, unit in enumerate(chunk.units):
            at = (unit.at or chunk.start).astimezone(tz).isoformat()
            url = unit.url or chunk.url
            pieces = sentences(spoken(chunk, unit.text), whole_below=whole_below)
            for j, sent in enumerate(pieces):
                ev = Evidence(n, unit.ref, sent, unit.author, at, chunk, unit=i, url=url, piece=j)
                ev.follow = " ".join(pieces[j + 1 : j + 1 + QUOTE_FOLLOW])
                out.append(ev)
        if not chunk.units and chunk.refs:
            for sent in sentences(chunk.text):
                out.append(
                    Evidence(n, chunk.refs[0], sent, None, chunk.start.astimezone(tz).isoformat(), chunk, url=chunk.url)
                )
    return out
