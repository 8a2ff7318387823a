"""The offline answer stage: select, attribute, order and cite evidence sentences; never invent text.

Each context chunk gets a number; every sentence of its units (a message, a paragraph) is scored against the
question by embedding similarity and content-word overlap. The best sentences, above a calibrated evidence
threshold, become the answer, each with who/when/where and its `[n]` citation. Below the threshold the answer
says the sources do not cover the question and cites nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from briefing.embed import STOPWORDS, Embedder
from briefing.model import Chunk

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[*`@#])|\n+")
_TOKEN = re.compile(r"[a-z0-9][a-z0-9_.-]*[a-z0-9]|[a-z0-9]")
_QUESTION_WORDS = frozenset(
    """what who whom whose when where which why how did does do was were is are has have had happen happened
    tell me about any anyone anything there we our us you your it its they their be been being can could should
    would will shall may might must week month day today yesterday last past since ago recently latest current
    currently now still please know""".split()
)


def content_words(text: str) -> set[str]:
    words = set()
    for tok in _TOKEN.findall(text.lower()):
        tok = tok.strip(".-")
        if len(tok) < 2 or tok in STOPWORDS or tok in _QUESTION_WORDS:
            continue
        words.add(_stem(tok))
    return words


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


_MARKUP = re.compile(r"\*\*|__|<br\s*/?>|^#+\s+|^>\s+", re.MULTILINE)


def sentences(text: str) -> list[str]:
    out = []
    for part in _SENTENCE.split(text):
        part = _MARKUP.sub("", part).strip(" -*\t")
        if len(part) >= 12:
            out.append(part)
    return out


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


@dataclass
class ExtractiveAnswer:
    text: str
    no_answer: bool
    cited: dict[int, list[str]] = field(default_factory=dict)
    evidence: list[Evidence] = field(default_factory=list)
    best_score: float = 0.0


def _where(chunk: Chunk) -> str:
    if chunk.source_type == "slack":
        return f"in #{chunk.container}" if chunk.container else "in Slack"
    if chunk.source_type == "files":
        return f'in "{chunk.title}"'
    if chunk.source_type == "jira":
        return f"on {chunk.title.split(':')[0]}" if chunk.title else "in JIRA"
    if chunk.source_type == "confluence":
        return f'in the wiki page "{chunk.title}"'
    if chunk.source_type in {"github", "git"}:
        return f"in {chunk.title or chunk.container}"
    return f"in {chunk.source_type}"


def _attribution(ev: Evidence) -> str:
    when = ev.at_iso[:10] if ev.at_iso else ""
    who = ev.author or ""
    where = _where(ev.chunk)
    if ev.chunk.source_type == "slack" or ev.chunk.source_type in {"jira", "github"}:
        parts = [p for p in (f"{who}" if who else "", where, f"on {when}" if when else "") if p]
        return " ".join(parts)
    parts = [where]
    if who:
        parts.append(f"by {who}")
    if when:
        parts.append(f"({when})")
    return " ".join(parts)


class ExtractiveAnswerer:
    def __init__(self, embedder: Embedder, *, min_evidence: float, max_sentences: int, pool: int = 40) -> None:
        self.embedder = embedder
        self.pool = pool
        self.min_evidence = min_evidence
        self.max_sentences = max_sentences

    def candidates(self, context: Sequence[Chunk]) -> list[Evidence]:
        out: list[Evidence] = []
        for n, chunk in enumerate(context, 1):
            units = chunk.units or []
            for unit in units:
                for sent in sentences(unit.text) or ([unit.text.strip()] if unit.text.strip() else []):
                    out.append(
                        Evidence(
                            n=n,
                            ref=unit.ref,
                            text=sent,
                            author=unit.author,
                            at_iso=unit.at.isoformat() if unit.at else None,
                            chunk=chunk,
                        )
                    )
            if not units:
                for sent in sentences(chunk.text):
                    out.append(
                        Evidence(
                            n=n,
                            ref=chunk.refs[0],
                            text=sent,
                            author=None,
                            at_iso=chunk.start.isoformat(),
                            chunk=chunk,
                        )
                    )
        return out

    def score(self, question: str, evidence: list[Evidence], ranks: Sequence[float]) -> None:
        """Lexical overlap for every sentence; embedding similarity for the most promising `pool` of them."""
        if not evidence:
            return
        q_words = content_words(question)
        for ev in evidence:
            words = content_words(ev.text)
            ev.lexical = len(q_words & words) / len(q_words) if q_words else 0.0
            prior = ranks[ev.n - 1] if ev.n - 1 < len(ranks) else 0.0
            ev.score = 0.4 * ev.lexical + 0.1 * prior
        # Embedding every sentence of every context chunk costs seconds on a laptop CPU; the pool keeps the
        # sentences that share words with the question or come from the best-ranked chunks.
        pool = sorted(evidence, key=lambda e: -(e.lexical + 0.5 * (ranks[e.n - 1] if e.n - 1 < len(ranks) else 0)))
        pool = pool[: self.pool]
        q_vec = self.embedder.dense([question], query=True)[0]
        s_vecs = self.embedder.dense_cached([e.text for e in pool], max_chars=300)
        for ev, cos in zip(pool, s_vecs @ q_vec, strict=True):
            ev.dense = float(cos)
            ev.score += 0.6 * float(cos)

    def answer(
        self,
        question: str,
        context: Sequence[Chunk],
        *,
        intent: str = "fact",
        scope: str = "",
    ) -> ExtractiveAnswer:
        evidence = self.candidates(context)
        ranks = [1.0 - i / max(len(context), 1) for i in range(len(context))]
        self.score(question, evidence, ranks)
        evidence.sort(key=lambda e: -e.score)
        best = evidence[0].score if evidence else 0.0
        broad = intent in {"what_happened", "summary"}
        threshold = self.min_evidence * (0.8 if broad else 1.0)
        if not evidence or best < threshold:
            searched = f" (searched {scope})" if scope else ""
            return ExtractiveAnswer(
                text=f"The sources do not cover this{searched}: nothing in the indexed material answers it.",
                no_answer=True,
                best_score=best,
                evidence=evidence[:5],
            )
        chosen: list[Evidence] = []
        seen_words: list[set[str]] = []
        cutoff = max(threshold * 0.9, best * (0.6 if broad else 0.75))
        for ev in evidence:
            if ev.score < cutoff or len(chosen) >= self.max_sentences:
                break
            words = content_words(ev.text)
            if any(len(words & prev) / max(len(words | prev), 1) > 0.7 for prev in seen_words):
                continue
            chosen.append(ev)
            seen_words.append(words)
        if broad or intent == "latest":
            chosen.sort(key=lambda e: e.at_iso or "", reverse=(intent == "latest"))
        lines = []
        cited: dict[int, list[str]] = {}
        for ev in chosen:
            lines.append(f"- {_attribution(ev)}: {ev.text} [{ev.n}]")
            refs = cited.setdefault(ev.n, [])
            if ev.ref not in refs:
                refs.append(ev.ref)
        lead = "Most recent first:" if intent == "latest" else ("In time order:" if broad else "From the sources:")
        return ExtractiveAnswer(
            text=lead + "\n" + "\n".join(lines),
            no_answer=False,
            cited=cited,
            evidence=chosen,
            best_score=best,
        )
