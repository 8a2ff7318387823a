"""The offline answer stage: select, attribute, order and cite evidence sentences; never invent text.

Each context chunk gets a number; every sentence of its units (a message, a paragraph) is scored against the
question by embedding similarity, rarity-weighted word overlap and the answer type the question asks for (a
number, a time, a person). A calibrated confidence over question-level features (docs/answering.md) decides
between three outcomes: an answer, a hedged "closest evidence" answer, or "the sources do not cover this",
which cites nothing. Answer lines carry who, when and where, and their `[n]` citation.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from briefing import registry
from briefing.embed import Embedder
from briefing.errors import BriefError
from briefing.model import Chunk
from briefing.sources import Presentation
from briefing.textrules import STOPWORDS, refusal

_TOKEN = re.compile(r"[a-z0-9][a-z0-9_.-]*[a-z0-9]|[a-z0-9]")
_QUESTION_WORDS = frozenset(
    """what who whom whose when where which why how did does do was were is are has have had happen happened
    tell me about any anyone anything there we our us you your it its they their be been being can could should
    would will shall may might must week month day today yesterday last past since ago recently latest current
    currently now still please know""".split()
)
# Question vocabulary that paraphrases rather than names the topic: missing from the evidence it says little.
_GENERIC = frozenset(
    """many much long big bigger large fast slow often old new get got go going gone use used show shown say said
    give make made take thing things way lot kind sort part point set put keep come came find found look like
    want need first next one two time times happen anything something someone everyone team people work working
    worked summary summarise summarize overview recap update status stand stands plan planned actually really
    right wrong bad good worst best""".split()
)

# --- segmentation ---------------------------------------------------------------------------------------------
_BLOCK_START = re.compile(r"^\s*(?:[-*•]\s+|\d{1,2}[.)]\s+|\||#{1,6}\s|>|```)")
_ABBREVIATIONS = frozenset(
    "e.g i.e etc vs approx cf incl est min max mr mrs ms dr no nr fig jan feb mar apr jun jul aug sep sept oct "
    "nov dec mon tue wed thu fri sat sun".split()
)
_BOUNDARY = re.compile(r"[.!?][\"')\]*_]*\s+(?=[A-Z0-9\"'(\[*`@#:_])")


def _blocks(text: str) -> list[str]:
    """Paragraphs, list items and table rows, with hard-wrapped lines joined back into one line."""
    out: list[str] = []
    current: list[str] = []
    header: list[str] = []
    in_code = False

    def flush() -> None:
        if current:
            out.append(" ".join(current))
            current.clear()

    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("```"):
            flush()
            in_code = not in_code
            continue
        if in_code:
            # Commands and config are evidence too ("which flag sets read-only?"), one line each.
            if line:
                out.append(line)
            continue
        if not line:
            flush()
            header = []
            continue
        if line.startswith("|"):
            flush()
            cells = [c.strip() for c in line.strip("|").split("|")]
            if any(cells) and all(re.fullmatch(r":?-{2,}:?", c) for c in cells if c):
                continue
            if not header:
                header = cells
                continue
            pairs = [f"{h}: {c}" if h else c for h, c in zip(header, cells, strict=False) if c]
            out.append("; ".join(pairs))
            continue
        if line.startswith("#"):
            flush()
            continue  # headings are already in the chunk title
        if _BLOCK_START.match(line):
            flush()
        current.append(line.lstrip(">").strip() if line.startswith(">") else line)
    flush()
    return out


def split_sentences(block: str) -> list[str]:
    """Sentence boundaries that survive "e.g.", "v2.5.0", "05:30 UTC." and initials."""
    out: list[str] = []
    start = 0
    for m in _BOUNDARY.finditer(block):
        before = block[start : m.start() + 1].rstrip(".!?\"')]*_")
        last = before.rsplit(None, 1)[-1].lower() if before.split() else ""
        if last.rstrip(".") in _ABBREVIATIONS or (len(last) == 1 and last.isalpha()):
            continue
        out.append(block[start : m.end()].strip())
        start = m.end()
    out.append(block[start:].strip())
    return [s for s in out if s]


def sentences(text: str, *, whole_below: int = 0) -> list[str]:
    """Evidence-sized pieces of a unit's text; fragments ("moved from", "Impact:") join their successor.

    A unit of plain prose shorter than `whole_below` characters stays whole: a short message reads better, and
    cites the same ref, as one piece ("OOM-killed ... Raised the limit to 768 Mi.").
    """
    blocks = _blocks(text)
    if whole_below and blocks and not _STRUCTURED.search(text):
        joined = " ".join(blocks)
        if len(_clean(joined)) <= whole_below:
            return [joined] if len(_clean(joined)) >= 12 else []
    pieces = [s for block in blocks for s in split_sentences(block)]
    merged: list[str] = []
    carry = ""
    for i, piece in enumerate(pieces):
        piece = carry + " " + piece if carry else piece
        carry = ""
        if (len(piece) < 25 or piece.endswith(":")) and i < len(pieces) - 1:
            carry = piece
            continue
        merged.append(piece)
    if carry:
        merged.append(carry)
    return [p for p in merged if len(_clean(p)) >= 12]


_STRUCTURED = re.compile(r"^\s*(?:\||```)", re.MULTILINE)
_EMOJI = re.compile(r"(?<![\w:]):[a-z0-9_+-]{2,40}:(?![\w:])")
_FAKE_CITATION = re.compile(r"\[(\d+)\]")


def _clean(text: str, limit: int = 320) -> str:
    """The sentence as shown: one line, no emoji codes or emphasis markers, no bracket numbers to mistake for a
    citation; cut at a word boundary when long."""
    text = _EMOJI.sub("", text).replace("**", "").replace("<br>", " ")
    text = re.sub(r"(?<!\w)\*(\S[^*]*\S|\S)\*(?!\w)", r"\1", text)
    text = _FAKE_CITATION.sub(r"(\1)", text)
    text = " ".join(text.split()).strip(" -")
    if len(text) > limit:
        text = text[:limit].rsplit(" ", 1)[0] + " …"
    return text


# --- words ----------------------------------------------------------------------------------------------------
def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def content_words(text: str) -> set[str]:
    words = set()
    for tok in _TOKEN.findall(text.lower()):
        tok = tok.strip(".-")
        if len(tok) < 2 or tok in STOPWORDS or tok in _QUESTION_WORDS:
            continue
        words.add(_stem(tok))
        if "-" in tok:  # "money-movement" also matches "money" and "movement"
            words.update(_stem(p) for p in tok.split("-") if len(p) > 2 and p not in STOPWORDS)
    return words


_NUMBER = re.compile(r"\d")
_TIME = re.compile(
    r"\b(?:\d{1,2}:\d{2}|\d{4}-\d{2}-\d{2}|(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?|"
    r"jan(?:uary)?|feb(?:ruary)?|march|april|may|june|july|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|"
    r"nov(?:ember)?|dec(?:ember)?|tomorrow|tonight|morning|afternoon|noon|weekly|daily)\b",
    re.I,
)
_PERSON = re.compile(r"@\w|\b[A-Z][a-z]+ [A-Z][a-z]+\b")
_ASKS_NUMBER = re.compile(
    r"\bhow\s+(?:many|much|long|big|large|fast|slow|often|bad|high|low|far)\b|\bwhat\s+(?:percentage|size|"
    r"number|limit|version|rate|latency)\b|\bby\s+how\b",
    re.I,
)
_ASKS_TIME = re.compile(r"^\W*when\b|\bwhen\s+(?:did|was|is|were|will|does|do)\b|\bwhat\s+(?:date|time|day)\b", re.I)
_ASKS_PERSON = re.compile(r"^\W*(?:who|whom|whose)\b|\bwho\b", re.I)


_NAME_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.#-]*[A-Za-z0-9]|[A-Za-z0-9]")
_CALENDAR = frozenset(
    "january february march april may june july august september october november december monday tuesday "
    "wednesday thursday friday saturday sunday".split()
)
# Roles are named in messages by the person ("Ruth"), rarely by title; their absence says nothing.
_ROLES = frozenset("ceo cto cfo coo cio ciso vp em pm tpm sre qa hr it ic".split())


def named_terms(question: str) -> list[str]:
    """Names, products and identifiers the question mentions ("Kafka", "Frankfurt", "3.0", "ADR-0007")."""
    out = []
    for i, tok in enumerate(_NAME_TOKEN.findall(question)):
        low = tok.lower()
        if low in _CALENDAR or low in _ROLES or tok.isdigit():
            continue
        versioned = bool(re.search(r"\d", tok) and re.search(r"[A-Za-z.]", tok))
        if versioned or (i > 0 and tok[0].isupper()) or (len(tok) >= 2 and tok.isupper()):
            out.append(tok)
    return out


def missing_terms(question: str, context: Sequence[Chunk]) -> list[str]:
    """Named terms of the question that no context chunk contains (as a word start, case-insensitive)."""
    text = "\n".join(f"{c.title}\n{c.text}" for c in context)
    return [t for t in named_terms(question) if not re.search(rf"(?<![A-Za-z0-9]){re.escape(t)}", text, re.I)]


def answer_type(question: str, intent: str) -> str:
    if _ASKS_NUMBER.search(question):
        return "number"
    if intent == "when" or _ASKS_TIME.search(question):
        return "time"
    if intent == "who" or _ASKS_PERSON.search(question):
        return "person"
    return ""


# --- evidence -------------------------------------------------------------------------------------------------
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


@dataclass
class ExtractiveAnswer:
    text: str
    no_answer: bool
    cited: dict[int, list[str]] = field(default_factory=dict)
    evidence: list[Evidence] = field(default_factory=list)
    best_score: float = 0.0
    confidence: float = 0.0
    hedged: bool = False
    features: dict[str, float] = field(default_factory=dict)


# P(the context answers the question): logistic weights fitted on eval/sample_dev.jsonl plus 30 off-topic
# questions, thresholds chosen by repeated stratified 5-fold cross-validation (docs/answering.md).
CALIBRATION: dict[str, float] = {
    "bias": -1.64,
    "missing_named": -4.36,
    "window_empty": -3.34,
    "best_dense": 4.11,
    "coverage": 1.64,
}
# Below this confidence (and above `min_evidence`) the answer is worded as "closest evidence".
HEDGE_BELOW = 0.6
WINDOW_BONUS = 0.1
BROAD_CUTOFF = 0.6
FACT_CUTOFF = 0.8
FACT_LINES = 3


def confidence(features: dict[str, float]) -> float:
    z = CALIBRATION["bias"] + sum(w * features.get(k, 0.0) for k, w in CALIBRATION.items() if k != "bias")
    return 1.0 / (1.0 + math.exp(-z))


class ExtractiveAnswerer:
    """Answers from context chunks alone; one instance can serve many questions."""

    def __init__(
        self,
        embedder: Embedder,
        *,
        min_evidence: float,
        max_sentences: int,
        pool: int = 128,
        hedge_below: float = HEDGE_BELOW,
        whole_below: int = 300,
    ) -> None:
        self.embedder = embedder
        self.pool = pool
        self.min_evidence = min_evidence
        self.max_sentences = max_sentences
        self.hedge_below = hedge_below
        self.whole_below = whole_below

    def candidates(self, context: Sequence[Chunk]) -> list[Evidence]:
        out: list[Evidence] = []
        for n, chunk in enumerate(context, 1):
            for i, unit in enumerate(chunk.units):
                at = (unit.at or chunk.start).isoformat()
                for sent in sentences(unit.text, whole_below=self.whole_below):
                    out.append(Evidence(n, unit.ref, sent, unit.author, at, chunk, unit=i))
            if not chunk.units and chunk.refs:
                for sent in sentences(chunk.text):
                    out.append(Evidence(n, chunk.refs[0], sent, None, chunk.start.isoformat(), chunk))
        return out

    def score(
        self,
        question: str,
        evidence: list[Evidence],
        context: Sequence[Chunk],
        *,
        intent: str,
        window: tuple[datetime, datetime] | None = None,
    ) -> dict[str, float]:
        """Score every sentence; return the question-level features the confidence is computed from."""
        q_words = content_words(question)
        n_chunks = max(len(context), 1)
        chunk_words = [content_words(c.text) | content_words(c.title) for c in context]
        # Rarity over the context itself: a word every chunk shares ("ledger") says little about which one
        # answers; paraphrase-prone question words weigh less when they are missing.
        weight: dict[str, float] = {}
        for w in q_words:
            df = sum(1 for words in chunk_words if w in words)
            weight[w] = math.log(1 + (n_chunks + 1) / (df + 0.5)) * (0.35 if w in _GENERIC else 1.0)
        total = sum(weight.values()) or 1.0
        seen = set().union(*chunk_words) if chunk_words else set()
        coverage = sum(weight[w] for w in q_words if w in seen) / total if q_words else 0.0
        kind = answer_type(question, intent)
        names = {a.split()[0] for c in context for a in c.authors if a}
        for ev in evidence:
            ev.words = content_words(ev.text)
            ev.lexical = sum(weight[w] for w in q_words & ev.words) / total if q_words else 0.0
            ev.typed = _typed(kind, ev.text, names)
        pool = sorted(evidence, key=lambda e: -(e.lexical + 0.5 * _prior(e.n, n_chunks) + 0.2 * e.typed))
        pool = pool[: self.pool]
        if pool:
            q_vec = self.embedder.dense([question], query=True)[0]
            s_vecs = self.embedder.dense_cached([_clean(e.text) for e in pool], max_chars=300)
            for ev, cos in zip(pool, s_vecs @ q_vec, strict=True):
                ev.dense = float(cos)
        for ev in evidence:
            dense = ev.dense * (0.85 if len(ev.text) < 40 else 1.0)  # short rows and titles flatter the model
            ev.score = 0.6 * dense + 0.3 * ev.lexical + 0.06 * _prior(ev.n, n_chunks) + 0.08 * ev.typed
            if window is not None and ev.at_iso:
                # The question names a time; evidence from then outranks a better-worded line from another week.
                inside = window[0] <= datetime.fromisoformat(ev.at_iso) < window[1]
                ev.score += WINDOW_BONUS if inside else -WINDOW_BONUS / 2
        _discount_reports(evidence, kind)
        _answers_inherit(evidence)
        best = max(evidence, key=lambda e: e.score, default=None)
        return {
            "best_score": best.score if best else 0.0,
            "best_dense": max((e.dense for e in evidence), default=0.0),
            "best_lexical": max((e.lexical for e in evidence), default=0.0),
            "coverage": coverage,
            "missing_named": 1.0 if missing_terms(question, context) else 0.0,
            "window_empty": 1.0 if window_empty(context, window) else 0.0,
            "top_dense": max((e.dense for e in evidence if e.n == 1), default=0.0),
            "best_rank": float(best.n) if best else 0.0,
        }

    def answer(
        self,
        question: str,
        context: Sequence[Chunk],
        *,
        intent: str = "fact",
        scope: str = "",
        window: tuple[datetime, datetime] | None = None,
    ) -> ExtractiveAnswer:
        """Answer `question` from `context` (rank order); `window` is the question's time range, if any."""
        evidence = self.candidates(context)
        window = window or _window_from_scope(scope)
        features = self.score(question, evidence, context, intent=intent, window=window) if evidence else {}
        evidence.sort(key=lambda e: (-e.score, e.n))
        best = evidence[0].score if evidence else 0.0
        conf = confidence(features) if evidence else 0.0
        features["confidence"] = conf
        if not evidence or conf < self.min_evidence:
            return ExtractiveAnswer(
                text=refusal(scope),
                no_answer=True,
                best_score=best,
                evidence=evidence[:5],
                confidence=conf,
                features=features,
            )
        hedged = conf < self.hedge_below
        broad = intent in {"what_happened", "summary"}
        chosen = self._select(evidence, broad=broad, hedged=hedged)
        if broad or intent == "latest":
            chosen.sort(key=lambda e: e.at_iso or "", reverse=(intent == "latest"))
        lines, cited = _render(chosen)
        if hedged:
            lead = "The sources do not answer this directly; the closest evidence:"
        elif intent == "latest":
            lead = "Most recent first:"
        elif broad:
            lead = "In time order:"
        else:
            lead = "From the sources:"
        return ExtractiveAnswer(
            text=lead + "\n" + "\n".join(lines),
            no_answer=False,
            cited=cited,
            evidence=chosen,
            best_score=best,
            confidence=conf,
            hedged=hedged,
            features=features,
        )

    def _select(self, ranked: list[Evidence], *, broad: bool, hedged: bool) -> list[Evidence]:
        """The best sentence, then close runners-up that add something (another message, another source)."""
        best = ranked[0].score
        limit = 2 if hedged else (self.max_sentences if broad else min(FACT_LINES, self.max_sentences))
        # A timeline is about the period more than the wording: everything close to the best line belongs.
        cutoff = min(best * BROAD_CUTOFF, best - 0.15) if broad else best * FACT_CUTOFF
        chosen: list[Evidence] = []
        for ev in ranked:
            if len(chosen) >= limit or ev.score < cutoff:
                break
            if any(len(ev.words & c.words) / max(len(ev.words | c.words), 1) > 0.6 for c in chosen):
                continue
            if any(c.n == ev.n and c.unit == ev.unit for c in chosen):
                continue  # one line per message or paragraph keeps the answer short
            chosen.append(ev)
        return chosen


_ASKS = re.compile(r"\?(?:\s|$)")


def _answers_inherit(evidence: list[Evidence]) -> None:
    """A message that asks ("Where do I find the staging logs?") is not the answer; the reply after it likely is."""
    by_unit: dict[tuple[int, int], list[Evidence]] = {}
    for ev in evidence:
        by_unit.setdefault((ev.n, ev.unit), []).append(ev)
    for ev in evidence:
        if not _ASKS.search(_clean(ev.text)):
            continue
        asked = ev.score
        ev.score *= 0.7
        for reply in by_unit.get((ev.n, ev.unit + 1), []):
            if reply.author != ev.author:
                reply.score = max(reply.score, 0.95 * asked)


_STARTER = re.compile(r"thread started by ([^:\n]+): ([^\n]*)")
# A thread that opens with a question or a problem report: its starter describes, the others answer.
_HELP = re.compile(
    r"\?|\b(?:help|how (?:can|do|to|should)|any idea|anyone|unable|can'?t|cannot|not working|error|issue|"
    r"problem|wrong|bug|strange|weird|(?:un)?expected|incorrect\w*|not (?:\w+ )?(?:correctly|right)|"
    r"fail(?:s|ed|ing|ure)?|crash\w*|stuck|trying|wondering|question|is there|hi team|hey team|hello|hi all)\b",
    re.I,
)
# Chosen on the odd-numbered half of eval/olake_dev.jsonl (0.7 ties there on keywords, with lower citation
# precision on both sets); see docs/answering.md.
REPORT_WEIGHT = 0.8


def _threaded(kind_name: str) -> bool:
    try:
        return registry.kind(kind_name).threaded
    except BriefError:
        return False


def _help_threads(evidence: list[Evidence]) -> dict[str, str]:
    """doc_key -> starter of each Slack thread that opens with a question or a problem report and has a reply
    from someone else in the context."""
    starters: dict[str, str] = {}
    asks: set[str] = set()
    replied: set[str] = set()
    for ev in evidence:
        chunk = ev.chunk
        m = _STARTER.search(chunk.text[:600]) if _threaded(chunk.kind) else None
        if not m:
            continue
        starter = starters.setdefault(chunk.doc_key, m[1].strip())
        root = str(chunk.metadata.get("thread_ts") or "")
        if _HELP.search(m[2]) or (root and ev.ref.endswith(root) and _HELP.search(ev.text)):
            asks.add(chunk.doc_key)
        if ev.author and ev.author != starter:
            replied.add(chunk.doc_key)
    return {key: who for key, who in starters.items() if key in asks and key in replied}


def _discount_reports(evidence: list[Evidence], kind: str) -> None:
    """In a help thread the starter's messages describe the problem and the replies hold the fix, so the
    starter's lines rank below a reply of similar strength (unless the question asks who)."""
    if kind == "person":
        return
    threads = _help_threads(evidence)
    for ev in evidence:
        if ev.author and threads.get(ev.chunk.doc_key) == ev.author:
            ev.score *= REPORT_WEIGHT


_MONTH_NUMBER = {
    name: i
    for i, name in enumerate(
        "jan feb mar apr may jun jul aug sep oct nov dec".split(),
        1,
    )
}
_DAY_MONTH = re.compile(
    r"\b(\d{4})-(\d{2})-(\d{2})\b|\b(\d{1,2})\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|"
    r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\s+(\d{1,2})\b|"
    r"\b(january|february|march|april|june|july|august|september|october|november|december)\b",
    re.I,
)


def mentions_window(text: str, window: tuple[datetime, datetime]) -> bool:
    """Whether `text` names a day (or, for a window of weeks, a month) inside `window`."""
    start, end = window
    for m in _DAY_MONTH.finditer(text):
        try:
            if m[1]:
                day = datetime(int(m[1]), int(m[2]), int(m[3]), tzinfo=UTC)
            elif m[4] or m[7]:
                month = _MONTH_NUMBER[(m[5] or m[6]).lower()[:3]]
                day = datetime(start.year, month, int(m[4] or m[7]), tzinfo=UTC)
            else:
                if (end - start).days < 20:
                    continue
                day = datetime(start.year, _MONTH_NUMBER[m[8].lower()[:3]], 1, tzinfo=UTC)
                if day <= start < day + timedelta(days=31) or start <= day < end:
                    return True
                continue
        except ValueError:
            continue
        if start <= day < end:
            return True
    return False


def window_empty(context: Sequence[Chunk], window: tuple[datetime, datetime] | None) -> bool:
    """The question names a period, and nothing in the context happened in it or mentions a day in it."""
    if window is None:
        return False
    for chunk in context:
        for unit in chunk.units or ():
            at = unit.at or chunk.start
            if window[0] <= at < window[1] or mentions_window(unit.text, window):
                return False
        if not chunk.units and (window[0] <= chunk.start < window[1] or mentions_window(chunk.text, window)):
            return False
    return True


_SCOPE_WINDOW = re.compile(r"(?:^|; )(\d{4}-\d{2}-\d{2})(?: to (\d{4}-\d{2}-\d{2}))?(?=;|$)")


def _window_from_scope(scope: str) -> tuple[datetime, datetime] | None:
    """The days the search covered, from the scope line ("files, slack; 2026-06-08 to 2026-06-14; in #x"),
    last day included; used when the caller passes no `window`."""
    m = _SCOPE_WINDOW.search(scope)
    if not m:
        return None
    start = datetime.fromisoformat(m[1]).replace(tzinfo=UTC)
    last = datetime.fromisoformat(m[2] or m[1]).replace(tzinfo=UTC)
    return start, max(last, start) + timedelta(days=1)


def _prior(n: int, n_chunks: int) -> float:
    return 1.0 - (n - 1) / max(n_chunks, 1)


def _typed(kind: str, text: str, names: set[str]) -> float:
    if kind == "number":
        return 1.0 if _NUMBER.search(_EMOJI.sub("", text)) else 0.0
    if kind == "time":
        return 1.0 if _TIME.search(text) else 0.0
    if kind == "person":
        return 1.0 if _PERSON.search(text) or any(re.search(rf"\b{re.escape(n)}\b", text) for n in names) else 0.0
    return 0.0


# --- rendering ------------------------------------------------------------------------------------------------
def _day(at: datetime, *, with_time: bool, with_year: bool) -> str:
    text = f"{at:%a} {at.day} {at:%b}"
    if with_year:
        text += f" {at.year}"
    if with_time:
        text += f", {at:%H:%M} UTC"
    return text


def _title(chunk: Chunk) -> tuple[str, str]:
    """(document title, section path) from "Title > Section > Sub"."""
    parts = [p.strip() for p in chunk.title.split(" > ")]
    return parts[0], " › ".join(parts[1:])


def _presentation(chunk: Chunk) -> Presentation:
    source = registry.family(chunk.source_type)
    return source.presentation if source is not None else Presentation(label=chunk.source_type)


def _where(chunk: Chunk) -> str:
    """The place a quote comes from, the way its source names places ("#payments", "PLAT-7 ...", 'wiki "X"')."""
    shown = _presentation(chunk)
    if shown.place == "container":
        return f"{shown.container_prefix}{chunk.container}" if chunk.container else shown.label
    title, section = _title(chunk)
    if shown.place == "title":
        return title or shown.label
    if shown.place == "title_or_container":
        return title or chunk.container
    place = f'"{title}"' if title else chunk.source_type
    if shown.document_word:
        place = f"{shown.document_word} {place}"
    return f"{place}, {section}" if section else place


def _attribution(ev: Evidence, *, with_time: bool, with_year: bool) -> str:
    at = datetime.fromisoformat(ev.at_iso) if ev.at_iso else None
    shown = _presentation(ev.chunk)
    when = _day(at, with_time=with_time and shown.time_of_day, with_year=with_year) if at else ""
    who = ev.author or ""
    where = _where(ev.chunk)
    if shown.conversational:
        head = f"{who} in {where}" if who else where
        return f"{head}, {when}" if when else head
    detail = ", ".join(p for p in (who, when) if p)
    return f"{where} ({detail})" if detail else where


def _render(chosen: list[Evidence]) -> tuple[list[str], dict[int, list[str]]]:
    days = [e.at_iso[:10] for e in chosen if e.at_iso]
    years = {d[:4] for d in days}
    with_time = len(days) != len(set(days))  # same-day lines need the time to read as a timeline
    lines: list[str] = []
    cited: dict[int, list[str]] = {}
    for ev in chosen:
        attribution = _attribution(ev, with_time=with_time, with_year=len(years) > 1)
        # Quoted: the evidence is shown as what a source said, never as the answer's own words.
        lines.append(f'- {attribution}: "{_clean(ev.text)}" [{ev.n}]')
        refs = cited.setdefault(ev.n, [])
        if ev.ref not in refs:
            refs.append(ev.ref)
    return lines, cited
