"""The offline answer stage: select, attribute, order and cite evidence sentences; never invent text.

Each context chunk gets a number; every sentence of its units (a message, a paragraph) is scored against the
question by embedding similarity, rarity-weighted word overlap and the answer type the question asks for (a
number, a time, a person). A calibrated confidence over question-level features (docs/answering.md) decides
between three outcomes: an answer, a hedged "closest evidence" answer, or "the sources do not cover this",
which cites nothing. Answer lines carry who, when and where, and their `[n]` citation.

The stage reads the parsed `briefing.question.Question`, never the question's string again. Its modules:
`evidence` (the candidate sentences), `scoring` and `ranking` (their scores), `values` (the value asked for in a
sentence), `checks`, `coverage`, `features` and `refusal` (whether to answer), `selection`, `quoting` and `render`
(which lines, showing what, cited how), `answerer` (the stage in order).
"""

from briefing.ask.extractive.answerer import ExtractiveAnswerer
from briefing.ask.extractive.checks import typed_near
from briefing.ask.extractive.coverage import missing_terms
from briefing.ask.extractive.evidence import SENTENCE_MAX_CHARS, Evidence, ExtractiveAnswer, sentence_text
from briefing.ask.extractive.evidence import presentation as _presentation
from briefing.ask.extractive.quoting import WHOLE_MESSAGE, list_items
from briefing.ask.extractive.refusal import HEDGE_BELOW, VETO_CAP, confidence, off_topic
from briefing.ask.extractive.render import title as _title
from briefing.ask.segment import clean as _clean
from briefing.question.terms import GENERIC as _GENERIC
from briefing.question.terms import content_words
from briefing.question.terms import stem as _stem

__all__ = [
    "HEDGE_BELOW",
    "SENTENCE_MAX_CHARS",
    "VETO_CAP",
    "WHOLE_MESSAGE",
    "Evidence",
    "ExtractiveAnswer",
    "ExtractiveAnswerer",
    "_GENERIC",
    "_clean",
    "_presentation",
    "_stem",
    "_title",
    "confidence",
    "content_words",
    "list_items",
    "missing_terms",
    "off_topic",
    "sentence_text",
    "typed_near",
]
