"""Whether the lead line's conversation is about the problem or change a question asks about (a near-miss refusal)."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from briefing import registry
from briefing.ask.extractive.evidence import Evidence, presentation, unit_text
from briefing.ask.extractive.releases import release_leads
from briefing.embed import Embedder
from briefing.errors import BriefError
from briefing.model import Chunk
from briefing.question.cues import aboutness_class, asks_fix
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
# The classes of question (`cues.aboutness_class`) capped by default; `[answer] aboutness` names others too. Fix
# questions held on the corpora that did not choose the threshold; release questions at RELEASE_BELOW, below every
# threshold a fold chose (docs/answering.md, "Refusal").
CAPPED = ("fix", "release")
# A release question ("Which release added X?") is held to what its lead line says of X: the question's X (the
# words left once the template is dropped) against the lead's own message or section, each of its lines, and its
# conversation's title and opening. Below RELEASE_BELOW the line names a version but announces other changes. Leaving
# one corpus out (`eval/subject_threshold.py --classes release`, on the release probes of `eval/probe_releases.py`)
# the folds pick 0.55, or 0.6 with the chat corpus left out, which then refuses one of its answerable dev questions;
# 0.5, below every fold's choice, is the largest threshold at which no answerable dev question of any corpus is
# refused and no probe answer of the chat or ticket corpora is lost (docs/answering.md, "Refusal").
RELEASE_BELOW = 0.5
# Question text: the template words of a release question ("In which CIDER release was", "added support for").
_RELEASE_TEMPLATE = re.compile(
    r"\b(?:in\s+|with\s+)?(?:which|what)\s+(?:[\w.-]+\s+){0,4}?(?:releases?|versions?|builds?|tags?|snapshots?)\b|"
    r"\b(?:first|did|does|do|was|were|is|are|has|have|had|get|got|it|they|them|in|with)\b|"
    r"\b(?:add|introduc|fix|start|ship|br(?:ing|ought)|land|includ|carr(?:y|ie)|enabl|support|resolv|let|allow|mak|"
    r"made|gav|giv)\w*(?:\s+(?:support|the\s+ability)\s+(?:for|to))?\b|[?!:;,]|\.(?!\d)",
    re.I,
)
# A lead unit is read line by line up to this many lines (a release announcement lists one change a line or a
# bullet), each without its links and credits.
RELEASE_LINES = 40
_LINES = re.compile(r"\n+|\s*\u2022\s*|<br\s*/?>")
# Line text that names no change: links and a release list's credits ("by @ana in #865").
_CREDITS = re.compile(r"\(?https?://\S+\)?|\s+by\s+@[^#\n]{1,40}?\s+in\s+#\d+|[*`]+")
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


def release_subject(text: str) -> str:
    """The X of "Which release added X?": the question without its template words; the whole question when nothing
    is left ("Which build fixed it?")."""
    left = " ".join(_RELEASE_TEMPLATE.sub(" ", text).split())
    return left if len(left) >= 3 else text


def release_similarity(question: Question, evidence: Sequence[Evidence], embedder: Embedder) -> float:
    """The best cosine of a release question's X (`release_subject`) with what the best line and the line that
    would lead the answer (`releases.release_leads`, a line naming a version) say: their own messages or sections,
    each of their lines, their chunks' titles and openings; 1.0 without evidence."""
    ranked = sorted(evidence, key=lambda e: (-e.score, e.n))
    if not ranked:
        return 1.0
    best = ranked[0]
    release_leads(question, ranked)
    texts: list[str] = []
    for first in [best] if ranked[0] is best else [best, ranked[0]]:
        chunk = first.chunk
        own = unit_text(first)
        opening = chunk.units[0].text if chunk.units else chunk.text
        lines = [" ".join(_CREDITS.sub(" ", line).split()) for line in _LINES.split(own)]
        lines = [line for line in lines if len(line.split()) >= 2][:RELEASE_LINES]
        texts += [t for t in (chunk.title, opening, own, *lines) if t.strip()]
    texts = list(dict.fromkeys(texts))
    if not texts:
        return 1.0
    q_vec = embedder.query_dense(release_subject(question.text))
    vectors = embedder.dense_cached(texts, max_chars=SUBJECT_MAX_CHARS)
    norms = np.linalg.norm(vectors, axis=1) * (np.linalg.norm(q_vec) or 1.0)
    return float(np.max(vectors @ q_vec / np.where(norms > 0, norms, 1.0)))


def subject_class(question: Question, capped: Sequence[str] = CAPPED) -> str:
    """The aboutness class of a one-part question that names no person and no item key ("" otherwise): "Which
    tickets did Gary fix last week?" asks for a person's records, not about one problem; "How was TIMOB-25266
    resolved?" names its conversation by key, so no wording of it is compared with the conversation's (a key
    absent from the context is refused as a missing name). A release question that asks for a fix ("Which build
    fixed X?") is a fix question where `capped` leaves release questions out."""
    if question.people or question.keys or len(question.parts) > 1:
        return ""
    found = aboutness_class(question.text)
    if found == "release" and "release" not in capped and asks_fix(question.text):
        return "fix"
    return found


def similarity(found: str, question: Question, evidence: Sequence[Evidence], embedder: Embedder) -> float:
    """The subject similarity of a question of class `found` (`release_similarity` or `subject_similarity`)."""
    if found == "release":
        return release_similarity(question, evidence, embedder)
    return subject_similarity(question, evidence, embedder)


def subject_miss(similarity: float, found: str = "fix") -> bool:
    """Whether the lead line's conversation is about another problem than the question (`SUBJECT_BELOW`), or a
    release question's lead line about other changes (`RELEASE_BELOW`)."""
    return similarity < (RELEASE_BELOW if found == "release" else SUBJECT_BELOW)
