"""Whether the lead line's conversation is about the problem a fix question asks about (a near-miss refusal)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from briefing import registry
from briefing.ask.extractive.evidence import Evidence, presentation, unit_text
from briefing.embed import Embedder
from briefing.errors import BriefError
from briefing.model import Chunk
from briefing.question.cues import aboutness_class
from briefing.question.model import Question

# "What is the fix for X?", "How was X resolved?", "Why does X happen?" is answered inside the conversation whose
# subject is X: a ticket titled X, a thread that opens by reporting X. When the line that would lead the answer
# sits in a conversation whose title and opening message are both far from the question (best MiniLM cosine
# below SUBJECT_BELOW; in a channel's stream of posts or a document's section, the line's own message or paragraph
# counts as its subject too), it answers another problem of the same product: the conversation about X is not in the
# sources (yet). The confidence is then capped. Chosen leaving one corpus out (`eval/subject_threshold.py`) on the
# thread probes asked the day before their conversation began (`eval/probe_refusals.py`): every fold picks 0.4, the
# largest threshold at which no answerable dev question of the corpora fitted on is refused; 0.425 already refuses
# some, so one step below it (docs/answering.md, "Refusal").
SUBJECT_BELOW = 0.375
# The classes of question (`cues.aboutness_class`) capped by default; `[answer] aboutness` names others too. Only fix
# questions held on the corpora that did not choose the threshold (docs/answering.md, "Refusal").
CAPPED = ("fix",)
# The title and opening message are read up to this many characters (the model reads fewer tokens anyway).
SUBJECT_MAX_CHARS = 600


def lead(evidence: Sequence[Evidence]) -> Evidence | None:
    """The line that leads the answer before any rescoring: the best score, the earlier chunk on a tie."""
    return min(evidence, key=lambda e: (-e.score, e.n), default=None)


def several_subjects(chunk: Chunk) -> bool:
    """Whether the chunk's units are each about their own thing: a stream of unrelated posts (a channel's
    top-level messages) or a document's section (release notes list one fix a paragraph)."""
    try:
        stream = registry.kind(chunk.kind).stream
    except BriefError:
        stream = False
    return stream or not presentation(chunk).conversational


def subject_similarity(question: Question, evidence: Sequence[Evidence], embedder: Embedder) -> float:
    """The best cosine of the question with the lead line's conversation subject: its chunk's title, or its
    chunk's first message (a thread's opening report, a ticket's description), or, in a chunk of several subjects
    (`several_subjects`), the lead's own message or paragraph; 1.0 without evidence (nothing to compare)."""
    first = lead(evidence)
    if first is None:
        return 1.0
    chunk = first.chunk
    opening = chunk.units[0].text if chunk.units else chunk.text
    own = unit_text(first) if several_subjects(chunk) else ""
    texts = [t for t in (chunk.title, opening, own) if t.strip()]
    if not texts:
        return 1.0
    q_vec = embedder.query_dense(question.text)
    vectors = embedder.dense_cached(texts, max_chars=SUBJECT_MAX_CHARS)
    norms = np.linalg.norm(vectors, axis=1) * (np.linalg.norm(q_vec) or 1.0)
    return float(np.max(vectors @ q_vec / np.where(norms > 0, norms, 1.0)))


def subject_class(question: Question) -> str:
    """The aboutness class of a one-part question that names no person ("" otherwise): "Which tickets did Gary fix
    last week?" asks for a person's records, not about one problem."""
    if question.people or len(question.parts) > 1:
        return ""
    return aboutness_class(question.text)


def subject_miss(similarity: float) -> bool:
    """Whether the lead line's conversation is about another problem than the question (`SUBJECT_BELOW`)."""
    return similarity < SUBJECT_BELOW
