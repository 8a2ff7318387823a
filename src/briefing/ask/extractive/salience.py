"""A summary of one conversation asked for as a whole: its lines ranked by what the conversation is about.

"Summarize the discussion in #605", 'What happened with "<its title>"?': the question names the conversation and
nothing within it, so how close a line comes to the question's words says little (it ranks a bare "Good point,
updated!" beside a design argument). Such a summary adds each line's centrality to its score: the cosine of the
line to the centroid of the conversation (one vector per message, its lines averaged, so a long message does not
outweigh the rest), the classic centroid summariser. A discussion is who said what, so each writer's further
messages give way a little to other writers', and a bare review record ("review: commented by lee") is no line.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

import numpy as np

from briefing.ask.extractive.acts import bare_review
from briefing.ask.extractive.evidence import SENTENCE_MAX_CHARS, Evidence, sentence_text
from briefing.embed import Embedder
from briefing.question.answer_type import extra_of
from briefing.question.model import Question
from briefing.question.terms import GENERIC, content_words

# The words that ask for a summary of a conversation rather than name something in it.
SUMMARY_WORDS = frozenset(
    content_words(
        "summarize summarise summary summaries recap overview digest discussion discuss discussed conversation thread "
        "happen happened going talk talked said say people give tell brief briefing update updates latest so far "
        "main key major important point points raise raised argument arguments theme themes highlight highlights "
        "concern concerns takeaway takeaways gist"
    )
)
# How much a line's centrality counts against its score for the question, in a whole-conversation summary.
CENTRAL_WEIGHT = 1.0
# The share of the lines that must be one conversation's for a summary of it.
ONE_SHARE = 0.8
# What each further message of the same writer loses in a whole-conversation summary.
AUTHOR_REPEAT = 0.05
# Lines shorter than this say too little to stand for the conversation ("ok", a bare link).
MIN_CHARS = 25


def whole_summary(question: Question, lines: Sequence[Evidence]) -> bool:
    """Whether `question` asks for a summary of one conversation as a whole: `lines` are one conversation's (at
    least ONE_SHARE of them), and every word the question asks with is its key, a word of its title, or a word that
    asks for a summary."""
    docs = Counter(ev.chunk.doc_key for ev in lines)
    if not docs:
        return False
    key, n = docs.most_common(1)[0]
    if n < ONE_SHARE * len(lines):
        return False
    keys = {k.lower() for k in question.keys} | {p for k in question.keys for p in k.lower().split("-")}
    titles = {w for ev in lines if ev.chunk.doc_key == key for w in content_words(ev.chunk.title)}
    asked = set(extra_of(question)["words"]) - GENERIC - SUMMARY_WORDS - keys - titles
    return not {w for w in asked if not w.isdigit()}


def rank_by_centrality(lines: list[Evidence], embedder: Embedder) -> None:
    """Add each line's centrality in its conversation (`doc_key`) to its score, in place: the cosine of the line
    to the mean of the conversation's message vectors, weighed by CENTRAL_WEIGHT. Short lines get none."""
    by_doc: dict[str, list[Evidence]] = defaultdict(list)
    for ev in lines:
        if len(ev.text.strip()) >= MIN_CHARS:
            by_doc[ev.chunk.doc_key].append(ev)
    for doc_lines in by_doc.values():
        if len(doc_lines) < 3:
            continue
        vectors = embedder.dense_cached([sentence_text(ev) for ev in doc_lines], max_chars=SENTENCE_MAX_CHARS)
        per_message: dict[str, list[np.ndarray]] = defaultdict(list)
        for ev, vec in zip(doc_lines, vectors, strict=True):
            per_message[ev.ref].append(vec)
        centre = np.mean([np.mean(vs, axis=0) for vs in per_message.values()], axis=0)
        norm = float(np.linalg.norm(centre))
        if norm == 0.0:
            continue
        for ev, cos in zip(doc_lines, vectors @ (centre / norm), strict=True):
            ev.score += CENTRAL_WEIGHT * float(cos)
        _spread_people(doc_lines)


def _spread_people(lines: Sequence[Evidence]) -> None:
    """A summary of a discussion covers who said what: each writer's messages after their best one lose
    AUTHOR_REPEAT a place (their second best message, twice that their third), in place."""
    best: dict[str, float] = {}
    for ev in lines:
        best[ev.ref] = max(best.get(ev.ref, float("-inf")), ev.score)
    place: dict[str, int] = {}
    by_author: dict[str, int] = defaultdict(int)
    for ref in sorted(best, key=lambda r: -best[r]):
        author = next(ev.author for ev in lines if ev.ref == ref) or ""
        place[ref] = by_author[author]
        by_author[author] += 1
    for ev in lines:
        ev.score -= AUTHOR_REPEAT * place[ev.ref]


def worded(lines: list[Evidence]) -> list[Evidence]:
    """`lines` without the bare review verdicts that only say a person reviewed or commented ("review: commented by
    lee", "[2022-02-15 21:10] lee reviewed"): a summary says what was said. An approval or a request for changes
    is a verdict worth a line and stays."""
    return [ev for ev in lines if not bare_review(ev.text)]
