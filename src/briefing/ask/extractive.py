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
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from functools import partial
from zoneinfo import ZoneInfo

import numpy as np

from briefing import registry
from briefing.ask.rescoring import SentenceRescorer
from briefing.ask.segment import clean, sentences
from briefing.ask.vocabulary import Spread, Vocabulary
from briefing.embed import Embedder
from briefing.errors import BriefError
from briefing.index import Filter
from briefing.model import Chunk
from briefing.sources import Presentation
from briefing.textrules import STOPWORDS, find_ticket_keys, refusal

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

# --- segmentation: briefing.ask.segment (pysbd over masked blocks) ----------------------------------------
_EMOJI = re.compile(r"(?<![\w:]):[a-z0-9_+-]{2,40}:(?![\w:])")
_clean = clean
# The answer stage embeds each candidate sentence as `sentence_text` gives it, clipped to this many characters;
# ingest embeds the same texts into the vector cache (`briefing.warm`), so the keys are made here only.
SENTENCE_MAX_CHARS = 300


def sentence_text(ev: Evidence) -> str:
    return _clean(ev.text)


# --- words ----------------------------------------------------------------------------------------------------
# A commit hash as questions write it ("What does commit f8f7cf1 change?"): 7 to 40 hex digits, letters and digits.
_COMMIT = re.compile(r"(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}")
COMMIT_WEIGHT = 3.0


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
    r"\bhow\s+(?:many|much|long|big|large|fast|slow|often|bad|high|low|far)\b|\b(?:what|which)\s+(?:[\w-]+\s+)?"
    r"(?:percentage|size|number|limit|rate|latency|count|timeout|interval|factor|threshold|amount|cost|price)\b"
    r"|\bby\s+how\b|\bby\s+(?:roughly\s+)?what\s+factor\b",
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
    return [t for t in named_terms(question) if not any(re.search(p, text, re.I) for p in _term_patterns(t))]


def _term_patterns(term: str) -> list[str]:
    """How a named term may occur: as a word start; a version with or without its "v" ("0.8" in "v0.8.0"); a
    hyphenated compound by its named part ("Helm-deployed" is about Helm); an acronym's plural by its singular
    ("PRs" are there when the context says "PR #45")."""
    if re.search(r"\d", term) and re.fullmatch(r"[vV]?\d[\d.]*", term):
        return [rf"(?<![A-Za-z0-9.])v?{re.escape(term.lstrip('vV'))}(?!\d)"]
    patterns = [rf"(?<![A-Za-z0-9]){re.escape(term)}"]
    if re.fullmatch(r"[A-Z]{2,}s", term):
        patterns.append(rf"(?<![A-Za-z0-9]){re.escape(term[:-1])}\b")
    head = term.split("-")[0]
    if "-" in term and len(head) >= 3 and head[0].isupper() and not re.search(r"\d", term):
        patterns.append(rf"(?<![A-Za-z0-9]){re.escape(head)}\b")
    return patterns


_ASKS_VERSION = re.compile(r"\b(?:which|what)\s+(?:\w+\s+){0,5}?(?:version|release)s?\b|\bversion\s+(?:of|is)\b", re.I)
_ASKS_SETTING = re.compile(
    r"\b(?:which|what)\s+(?:\w+\s+){0,3}?(?:setting|flag|property|option|parameter|config(?:uration)?\s+key|"
    r"key|variable|field|env(?:ironment)?\s+var\w*)s?\b",
    re.I,
)
_ASKS_POLAR = re.compile(
    r"^\W*(?:is|are|was|were|does|do|did|can|could|will|would|should|has|have|had)\b(?!.*\b(?:or)\b)", re.I
)


def answer_type(question: str, intent: str) -> str:
    """What the answer is: a version, a setting, a number, a time, a person, or (empty) a statement."""
    if _ASKS_VERSION.search(question):
        return "version"
    if _ASKS_SETTING.search(question):
        return "setting"
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
    url: str = ""  # opens the unit itself (falls back to the chunk's link for indexes built before unit links)
    person: float = 0.0  # by, replying to or mentioning a person the question names
    follow: str = ""  # the sentences after this one in its unit: a short sentence is quoted with them
    piece: int = 0  # index of this sentence in its unit
    extra: str = ""  # another sentence of the same unit that holds question words the quote lacks
    extra_before: bool = False  # that sentence comes before this one in the unit
    items: str = ""  # the heads of the unit's list items the quote cuts off ("2. If AI is used, self-review")
    second: float | None = None  # the second model's cosine (`ask.rescoring`), for the lines it read
    whole: str = ""  # the whole message, when it is short enough to quote whole (`WHOLE_MESSAGE`)
    message: str = ""  # the unit's text with the rest of its message that other chunks hold (`_message`)

    @property
    def quote(self) -> str:
        """What the answer shows: the sentence, continued within its own unit while it is short ("... 1. ..."
        with the list after it, "The failure is caused by oversized footer metadata." with the cause after it)."""
        text = self.text
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


# P(the context answers the question): logistic weights fitted on the 259 questions of the three dev sets
# (sample, olake, olake GitHub; 77 unanswerable) with eval/calibrate_refusal.py; the threshold chosen by repeated
# stratified 5-fold cross-validation and by fitting on two sets and testing on the third (docs/answering.md,
# "Refusal"). `coverage` and `chunk_cover` pull apart: the question's words spread over several chunks,
# none holding most of them, is a near miss. The `vocab_*` features read the workspace's own vocabulary
# (briefing.ask.vocabulary); `head_any_absent` is a word of the thing asked for that no source holds (`asked_absent`).
CALIBRATION: dict[str, float] = {
    "bias": 2.41,
    "missing_named": -4.4,
    "window_empty": -3.93,
    "best_dense": 0.38,
    "coverage": -1.88,
    "chunk_cover": 1.0,
    "vocab_unknown": -1.33,
    "vocab_far": -2.26,
    "head_any_absent": -2.64,
}
# Without the workspace's vocabulary (an answerer built without an index, or `[retrieval] sparse = false`) the
# fourth fit is not valid: it leaves off-topic questions to the `vocab_*` features. The first fit is used then.
CALIBRATION_WITHOUT_VOCABULARY: dict[str, float] = {
    "bias": -1.64,
    "missing_named": -4.36,
    "window_empty": -3.34,
    "best_dense": 4.11,
    "coverage": 1.64,
}
# A quoted sentence shorter than this continues with the next sentences of its unit (cut at 320 characters).
QUOTE_MIN = 160
# A quote is cut at this many characters; it continues with at most this many sentences of its own unit.
QUOTE_LIMIT = 320
QUOTE_FOLLOW = 2
# Below this confidence (and above `min_evidence`) the answer is worded as "closest evidence".
HEDGE_BELOW = 0.6
WINDOW_BONUS = 0.1
# The weights of a sentence's score: dense similarity, rarity-weighted word overlap, the retriever's rank of its
# chunk, and the answer type the question asks for.
DENSE_WEIGHT = 0.6
LEXICAL_WEIGHT = 0.3
PRIOR_WEIGHT = 0.06
TYPED_WEIGHT = 0.08
BROAD_CUTOFF = 0.6
FACT_CUTOFF = 0.8
FACT_LINES = 3
# ... of which only the first two may open a new source: the third line only reads on in a source already quoted
# (a third source was more often off the point than not).
FACT_NEW_SOURCES = 2


# A question that asks for a number or a date ("How much ...?", "When is ...?") whose best sentences state none
# next to its words is not answered by them, whatever their similarity: "How much did we spend on AWS in July?"
# over a release note's date line. Its confidence is capped below any refusal threshold.
VETO_KINDS = frozenset({"number", "time"})
VETO_CAP = 0.05


# Off-topic questions ("Which wine goes well with fish?" over a data-engineering Slack) are refused whatever the
# linear score: the words that name their topic are in no indexed source, and the sentences retrieved for the
# rest (everyday words: "goes", "well", "small", "rule") are not about the question. Two forms, both requiring at
# least one topic word that no source holds (so the refusal can name it) and a low best sentence similarity:
# - at least OFF_TOPIC_ABSENT of the topic words are in no indexed source and no sentence reaches OFF_TOPIC_DENSE;
# - every topic word is absent or rare (at most RARE_CHUNKS chunks) and no sentence reaches OFF_TOPIC_RARE_DENSE.
# Measured on eval/offtopic_probes.jsonl and the dev sets (docs/answering.md, "Off-topic questions").
OFF_TOPIC_ABSENT = 0.5
OFF_TOPIC_DENSE = 0.3
OFF_TOPIC_RARE_DENSE = 0.4
# A word held by at most this many chunks of the whole workspace is rare there (a passing mention).
RARE_CHUNKS = 2
RARE_WORKSPACE = 50


def off_topic(features: dict[str, float]) -> bool:
    """Whether the question's own topic is one the workspace never talks about (the rule above); false without
    the workspace's vocabulary."""
    n = features.get("topic_n", 0.0)
    if not n or not features.get("topic_absent"):
        return False
    dense = features.get("best_dense", 0.0)
    absent = features["topic_absent"] / n
    rare = features.get("topic_rare", 0.0) / n
    # In a small workspace every word is in few chunks: "rare" says the topic is foreign only in a workspace of at
    # least RARE_WORKSPACE chunks (as the reader sees it).
    large = features.get("workspace_chunks", RARE_WORKSPACE) >= RARE_WORKSPACE
    return (absent >= OFF_TOPIC_ABSENT and dense < OFF_TOPIC_DENSE) or (
        rare >= 1.0 and large and dense < OFF_TOPIC_RARE_DENSE
    )


def confidence(features: dict[str, float]) -> float:
    weights = CALIBRATION if "vocab_unknown" in features else CALIBRATION_WITHOUT_VOCABULARY
    z = weights["bias"] + sum(w * features.get(k, 0.0) for k, w in weights.items() if k != "bias")
    p = 1.0 / (1.0 + math.exp(-z))
    capped = features.get("typed_miss") or features.get("off_topic") or features.get("head_miss")
    return min(p, VETO_CAP) if capped else p


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
        timezone: str = "UTC",
        vocabulary: Vocabulary | None = None,
        rescorer: SentenceRescorer | None = None,
    ) -> None:
        self.embedder = embedder
        self.rescorer = rescorer  # a second model's reading of the best lines (`ask.rescoring`), or None
        self.vocabulary = vocabulary  # the workspace's word spread (index-wide), for the confidence
        self.zone = ZoneInfo(timezone)  # answers name days and times in the workspace's zone
        self.pool = pool
        self.min_evidence = min_evidence
        self.max_sentences = max_sentences
        self.hedge_below = hedge_below
        self.whole_below = whole_below

    def candidates(self, context: Sequence[Chunk]) -> list[Evidence]:
        out: list[Evidence] = []
        for n, chunk in enumerate(context, 1):
            # Instants (messages, comments) read in the workspace's zone; a source without a time of day holds
            # dates (a page's date is midnight UTC), which stay the day they name.
            zone = self.zone if _presentation(chunk).time_of_day else UTC
            for i, unit in enumerate(chunk.units):
                at = (unit.at or chunk.start).astimezone(zone).isoformat()
                url = unit.url or chunk.url
                pieces = sentences(unit.text, whole_below=self.whole_below)
                for j, sent in enumerate(pieces):
                    ev = Evidence(n, unit.ref, sent, unit.author, at, chunk, unit=i, url=url, piece=j)
                    ev.follow = " ".join(pieces[j + 1 : j + 1 + QUOTE_FOLLOW])
                    out.append(ev)
            if not chunk.units and chunk.refs:
                for sent in sentences(chunk.text):
                    out.append(
                        Evidence(
                            n, chunk.refs[0], sent, None, chunk.start.astimezone(zone).isoformat(), chunk, url=chunk.url
                        )
                    )
        return out

    def score(
        self,
        question: str,
        evidence: list[Evidence],
        context: Sequence[Chunk],
        *,
        intent: str,
        window: tuple[datetime, datetime] | None = None,
        people: Sequence[str] = (),
        places: Sequence[str] = (),
        now: datetime | None = None,
        spread: dict[str, Spread] | None = None,
    ) -> dict[str, float]:
        """Score every sentence; return the question-level features the confidence is computed from. `spread` is
        the question's word spread (`question_spread`) when the caller has it already; else it is looked up."""
        if spread is None:
            spread = self.question_spread(question, people, now)
        q_words = content_words(question)
        n_chunks = max(len(context), 1)
        chunk_words = [content_words(c.text) | content_words(c.title) for c in context]
        # Rarity over the context itself: a word every chunk shares ("ledger") says little about which one
        # answers; paraphrase-prone question words weigh less when they are missing.
        weight: dict[str, float] = {}
        for w in q_words:
            df = sum(1 for words in chunk_words if w in words)
            weight[w] = math.log(1 + (n_chunks + 1) / (df + 0.5)) * (0.35 if w in _GENERIC else 1.0)
            if _COMMIT.fullmatch(w):
                weight[w] *= COMMIT_WEIGHT  # a commit's hash names one thing: the line that holds it is about it
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
        s_vecs = None
        if pool:
            q_vec = self.embedder.dense([question], query=True)[0]
            s_vecs = self.embedder.dense_cached([sentence_text(e) for e in pool], max_chars=SENTENCE_MAX_CHARS)
            for ev, cos in zip(pool, s_vecs @ q_vec, strict=True):
                ev.dense = float(cos)
        for ev in evidence:
            dense = ev.dense * (0.85 if len(ev.text) < 40 else 1.0)  # short rows and titles flatter the model
            ev.score = (
                DENSE_WEIGHT * dense
                + LEXICAL_WEIGHT * ev.lexical
                + PRIOR_WEIGHT * _prior(ev.n, n_chunks)
                + TYPED_WEIGHT * ev.typed
            )
            if window is not None and ev.at_iso:
                # The question names a time; evidence from then outranks a better-worded line from another week.
                inside = window[0] <= datetime.fromisoformat(ev.at_iso) < window[1]
                ev.score += WINDOW_BONUS if inside else -WINDOW_BONUS / 2
        _places_first(evidence, places)
        # The reply after a question inherits the question's score before the report discount: the report
        # discount is about its author's lines, not about the answer they drew.
        if not asks_about_asking(question):
            _answers_inherit(evidence)
        _discount_reports(evidence, kind, question)
        _pulls_first(evidence, question)
        _people_first(evidence, people)
        best = max(evidence, key=lambda e: e.score, default=None)
        # One chunk holding most of the question (an answer) vs the words spread over several (a near miss).
        chunk_cover = max((sum(weight[w] for w in q_words & words) / total for words in chunk_words), default=0.0)
        top = sorted(evidence, key=lambda e: -e.score)[:5]
        near = typed_near(question, kind, top, people)
        role = asked_role(question) if kind == "person" else ""
        role_miss = not role_stated(role, top, question)
        value = value_miss(question, kind, top)
        features = {
            "chunk_cover": chunk_cover if q_words else 0.0,
            "typed_top": float(any(e.typed for e in top)) if kind else 1.0,
            "best_score": best.score if best else 0.0,
            "best_dense": max((e.dense for e in evidence), default=0.0),
            "best_lexical": max((e.lexical for e in evidence), default=0.0),
            "coverage": coverage,
            "missing_named": 1.0 if missing_terms(question, context) else 0.0,
            "window_empty": 1.0 if window_empty(context, window) else 0.0,
            "top_dense": max((e.dense for e in evidence if e.n == 1), default=0.0),
            "best_rank": float(best.n) if best else 0.0,
            "typed_near": near,
            "typed_miss": 1.0 if (kind in VETO_KINDS and not near) or role_miss or value else 0.0,
            "value_miss": 1.0 if value else 0.0,
            "missing_share": missing_share(q_words, seen),
            **self._vocabulary_features(question, context, seen, people, now, s_vecs, spread),
        }
        if self.vocabulary is not None:
            # What a "which / what" question asks for, read against the workspace: its head noun in no source is a
            # refusal (`head_miss`, capped); any word of the phrase in no source is a feature of the fit.
            features["head_miss"] = 1.0 if head_miss(question, spread, seen) else 0.0
            features["head_any_absent"] = 1.0 if asked_absent(question, spread, seen) else 0.0
        features["off_topic"] = 1.0 if off_topic(features) else 0.0
        return features

    def _vocabulary_features(
        self,
        question: str,
        context: Sequence[Chunk],
        seen: set[str],
        people: Sequence[str],
        now: datetime | None,
        s_vecs: np.ndarray | None,
        spread: dict[str, Spread] | None,
    ) -> dict[str, float]:
        if self.vocabulary is None:
            return {}
        words = question_vocabulary(question, people)
        if spread is None:
            spread = self.question_spread(question, people, now)
        near: dict[str, float] = {}
        unknown = [w for w in words if w in spread and _off_context(w, spread[w], context, seen)]
        if unknown and s_vecs is not None and len(s_vecs):
            # How close each uncovered word comes to any scored sentence: a paraphrase ("switchover" for
            # "cutover") stays near the evidence, an off-topic word ("sourdough") does not.
            w_vecs = self.embedder.dense_cached(unknown, max_chars=300)  # words recur: the vector cache keeps them
            near = {w: float(v) for w, v in zip(unknown, (s_vecs @ w_vecs.T).max(axis=0), strict=True)}
        size = {"workspace_chunks": float(self.vocabulary.index.count(Filter(as_of=now)))}
        return {
            **vocabulary_features(words, spread, context, seen, near),
            **topic_features(words, spread, seen),
            **size,
        }

    def question_spread(self, question: str, people: Sequence[str], now: datetime | None) -> dict[str, Spread]:
        """Where the question's topic words occur in the workspace (empty without a vocabulary)."""
        if self.vocabulary is None:
            return {}
        return self.vocabulary.spread(question_vocabulary(question, people), now=now)

    def _may_name_words(self) -> bool:
        """Whether a refusal may name the question's words no source holds. Not under an access scope: "no indexed
        source mentions X" would speak for sources this reader may not see (the word may be in one of them)."""
        return self.vocabulary is not None and getattr(self.vocabulary.index, "readers", None) is None

    def answer(
        self,
        question: str,
        context: Sequence[Chunk],
        *,
        intent: str = "fact",
        scope: str = "",
        window: tuple[datetime, datetime] | None = None,
        people: Sequence[str] = (),
        places: Sequence[str] = (),
        now: datetime | None = None,
    ) -> ExtractiveAnswer:
        """Answer `question` from `context` (rank order); `window` is the question's time range, if any, and
        `people` the directory names it mentions (their messages, the replies to them and mentions of them
        count before similarity), `places` the channels or projects it names (their evidence counts first)."""
        evidence = self.candidates(context)
        window = window or _window_from_scope(scope)
        spread = self.question_spread(question, people, now) if evidence else {}
        features = (
            self.score(
                question,
                evidence,
                context,
                intent=intent,
                window=window,
                people=people,
                places=places,
                now=now,
                spread=spread,
            )
            if evidence
            else {}
        )
        evidence.sort(key=lambda e: (-e.score, e.n))
        best = evidence[0].score if evidence else 0.0
        conf = confidence(features) if evidence else 0.0
        features["confidence"] = conf
        broad = intent in {"what_happened", "summary"}
        parts = [] if broad or not evidence else question_parts(question)
        split: tuple[list[Evidence], list[tuple[str, Evidence | None]]] | None = None
        if len(parts) > 1:
            # A two-part question is answered part by part; it is refused only when no part is covered.
            split = self._parts(
                parts, evidence, context, intent=intent, window=window, people=people, places=places, now=now
            )
            if split[0]:
                conf = max(conf, self.hedge_below)
        if not evidence or conf < self.min_evidence:
            return ExtractiveAnswer(
                text=refusal(
                    scope,
                    _refusal_reason(
                        question,
                        intent,
                        features,
                        unknown_words(question, people, spread, context) if self._may_name_words() else [],
                    ),
                ),
                no_answer=True,
                best_score=best,
                evidence=evidence[:5],
                confidence=conf,
                features=features,
            )
        # The refusal is decided on MiniLM's scores (above); the second model only reorders the best lines.
        latest = intent == "latest" or bool(_ASKS_LATEST.search(question))
        if not (latest and self.rescorer is not None and self.rescorer.skip_latest) and self._rescore(
            question, evidence
        ):
            evidence.sort(key=lambda e: (-e.score, e.n))
        hedged = conf < self.hedge_below
        kind = answer_kind(question, intent)
        asks_asking = asks_about_asking(question)
        # Citation rules of `_select`: what a runner-up must add, and whether a help thread's report gives way.
        q_words = content_words(question) - _GENERIC
        # "What problem was raised in #help?" is answered by the report itself, unless it asks how it was fixed.
        asks_report = bool(_ASKS_ABOUT_REPORT.search(question)) and not _ASKS_FIX.search(question)
        if asks_report:
            _openers_lead(evidence)
            evidence.sort(key=lambda e: (-e.score, e.n))
        replies_first = not asks_asking and not asks_report and answer_type(question, intent) != "person"
        select = partial(self._select, skip_holding=not asks_asking, q_words=q_words, replies_first=replies_first)
        head: list[tuple[str, Evidence | None]] = []
        if split is not None:
            chosen, head = split
            lead = ""
        elif hedged:
            chosen = select(evidence, broad=broad, hedged=hedged)
            lead = "The sources do not answer this directly; the closest evidence:"
        elif broad:
            chosen = select(evidence, broad=True, hedged=False)
            chosen.sort(key=lambda e: e.at_iso or "")
            lead = "In time order:"
        elif intent == "latest" or _ASKS_LATEST.search(question):
            kind = _latest_kind(question, kind)
            chosen = self._latest(evidence, kind, now)
            newest = chosen[0]
            at = _when(newest)
            span = answer_span(question, kind, newest, context)
            stated = f"As of {at}: " if at else ""
            _add_neighbours([newest], evidence, question)
            _add_items([newest], question)
            quote = f'{_attribution(newest)}: "{_shown(newest)}"'
            head = [(f"{stated}{span}" if span else f"{stated}{quote}", newest)]
            if span and kind:
                # The newest statement of the asked value answers it; older ones are history, not evidence.
                chosen = chosen[:LATEST_WITH_VALUE]
            lead = ""
        else:
            pool = _in_window(evidence, window, now)
            chosen = select(pool, broad=False, hedged=False)
            top = chosen[0]
            span = "" if _payload(top) else answer_span(question, kind, top, context)
            if not span and kind in _LEAD_KINDS:
                chosen, top, span = _typed_lead(question, kind, chosen, pool, context)
            chosen = _same_document(question, chosen, pool)
            if span:
                head = [(span, top)]
            lead = ""
        _add_neighbours(chosen, evidence, question)
        _add_items(chosen, question)
        self._read_on(chosen, context, now)
        lines, cited, urls = _render(chosen, head)
        text = "\n".join(([lead] if lead else []) + lines)
        return ExtractiveAnswer(
            text=text,
            no_answer=False,
            cited=cited,
            urls=urls,
            evidence=chosen,
            best_score=best,
            confidence=conf,
            hedged=hedged,
            features=features,
            rescoring=self.rescorer.describe() if self.rescorer is not None else "",
        )

    def _read_on(self, chosen: Sequence[Evidence], context: Sequence[Chunk], now: datetime | None) -> None:
        """A document's quoted line that ends its chunk announcing what follows ("Q3 priorities 1.", "The steps
        are:") continues with the next chunk of the same document: the heads of its list items, or its first
        sentence. From the context when it holds that chunk, else read from the index (as of `now`)."""
        for ev in chosen:
            shown = _shown(ev)
            if ev.items or ev.whole or _presentation(ev.chunk).conversational or not _ends_chunk(ev, shown):
                continue
            opener = _OPENS_LIST.search(shown)
            if opener is None:
                continue
            nxt = self._next_chunk(ev.chunk, context, now)
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
                ev.items = _clean(first[0], limit=NEIGHBOUR_LIMIT) if first else ""

    def _next_chunk(self, chunk: Chunk, context: Sequence[Chunk], now: datetime | None) -> Chunk | None:
        wanted = chunk.ordinal + 1
        if chunk.ordinal < 0:
            return None
        found = next((c for c in context if c.doc_key == chunk.doc_key and c.ordinal == wanted), None)
        if found is not None or self.vocabulary is None:
            return found
        index = self.vocabulary.index
        if index.count(Filter(as_of=now, doc_keys=(chunk.doc_key,))) > READ_ON_CHUNKS:
            return None
        chunks = index.fetch(doc_keys=[chunk.doc_key], within=Filter(as_of=now))
        return next((c for c in chunks if c.ordinal == wanted), None)

    def _rescore(self, question: str, evidence: list[Evidence]) -> bool:
        """Whether the second model read (and moved) the best lines of `evidence`."""
        return bool(self.rescorer is not None and evidence and self.rescorer.rescore(question, evidence, sentence_text))

    def _earns_citation(self, ev: Evidence, chosen: Sequence[Evidence], ranked: Sequence[Evidence]) -> bool:
        """A runner-up of another unit is quoted only when the second model reads it close to the best line it
        read (`SentenceRescorer.cite_margin`); always without a rescorer or a margin."""
        if self.rescorer is None or not chosen or any(c.n == ev.n and c.unit == ev.unit for c in chosen):
            return True
        read = [e.second for e in ranked if e.second is not None]
        return not read or self.rescorer.keeps(max(read), ev)

    def _select(
        self,
        ranked: list[Evidence],
        *,
        broad: bool,
        hedged: bool,
        skip_holding: bool = True,
        q_words: AbstractSet[str] = frozenset(),
        replies_first: bool = False,
    ) -> list[Evidence]:
        """The best sentence, then close runners-up that add evidence (`_adds_evidence`). With `replies_first`, a
        help thread's starter is quoted only when no reply of that thread is close (`_replies_first`)."""
        best = ranked[0].score
        limit = 2 if hedged else (self.max_sentences if broad else min(FACT_LINES, self.max_sentences))
        # A timeline is about the period more than the wording: everything close to the best line belongs.
        cutoff = min(best * BROAD_CUTOFF, best - 0.15) if broad else best * FACT_CUTOFF
        # A holding reply ("thanks for reporting, we will check") states nothing: it is quoted only when no line
        # close to the best one says something.
        pool = [e for e in ranked if e.score >= cutoff]
        stating = [e for e in pool if not _holding(e)] if skip_holding else pool
        if replies_first:
            stating = _replies_first(stating, ranked)
        chosen: list[Evidence] = []
        for ev in stating or pool[:1] or ranked[:1]:
            if len(chosen) >= limit:
                break
            if _redundant(ev, chosen):
                continue
            if not broad and len(chosen) >= FACT_NEW_SOURCES and all(c.ref != ev.ref for c in chosen):
                continue
            if not broad and not self._earns_citation(ev, chosen, ranked):
                continue
            if not broad and chosen and not _adds_evidence(ev, chosen, best, q_words):
                continue
            chosen.append(ev)
        return _with_continuations(chosen, ranked)

    def _latest(self, ranked: list[Evidence], kind: str, now: datetime | None = None) -> list[Evidence]:
        """Newest first among the lines that state the state: close to the best score and, when the question asks
        for a value (a version, a number), holding one. A line that states the asked value is a candidate further
        down (`LATEST_VALUE_CUTOFF`): the newest tag reads "Tag v0.9.4 at commit ...", which scores below the
        announcement of the tag before it. Nothing stated after the question's `now` counts."""
        best = ranked[0].score
        stated = [e for e in ranked if e.lexical > 0 and not _after(e, now)]
        pool = [e for e in stated if e.score >= best * LATEST_CUTOFF]
        if kind in _LATEST_VALUE_KINDS:
            wide = [e for e in stated if e.score >= best * LATEST_VALUE_CUTOFF and _values(kind, e.text, "")]
            pool = wide or [e for e in pool if e.typed] or pool
        elif kind:
            pool = [e for e in pool if e.typed] or pool
        pool = pool or [e for e in ranked if not _after(e, now)][:1] or ranked[:1]
        pool.sort(key=lambda e: (e.at_iso or "", e.score), reverse=True)
        chosen: list[Evidence] = []
        for ev in pool:
            if len(chosen) >= FACT_LINES:
                break
            if not _redundant(ev, chosen):
                chosen.append(ev)
        return chosen

    def _parts(
        self,
        parts: list[str],
        evidence: list[Evidence],
        context: Sequence[Chunk],
        *,
        intent: str,
        window: tuple[datetime, datetime] | None,
        people: Sequence[str],
        places: Sequence[str] = (),
        now: datetime | None = None,
    ) -> tuple[list[Evidence], list[tuple[str, Evidence | None]]]:
        """One answer line per part of a two-part question, or a line saying the sources do not cover that part."""
        chosen: list[Evidence] = []
        head: list[tuple[str, Evidence | None]] = []
        topic = " ".join(sorted(content_words(parts[0]) - _GENERIC))
        for i, part in enumerate(parts):
            # "how was it fixed" says "it": the first part's topic words come along for scoring.
            query = part if i == 0 or len(content_words(part)) >= 3 else f"{part} ({topic})"
            scored = [replace(e) for e in evidence]
            # As of the question's `now`, like the whole question's score: the vocabulary counts no later chunk.
            features = self.score(
                query,
                scored,
                context,
                intent=_intent_of(part, intent),
                window=window,
                people=people,
                places=places,
                now=now,
            )
            scored.sort(key=lambda e: (-e.score, e.n))
            label = _label(part)
            if not scored or confidence(features) < self.min_evidence:
                head.append((f"{label}: the sources do not say.", None))
                continue
            if self._rescore(query, scored):
                scored.sort(key=lambda e: (-e.score, e.n))
            top = next((e for e in scored if not _redundant(e, chosen)), scored[0])
            span = answer_span(part, answer_kind(part, _intent_of(part, intent)), top, context)
            head.append((f"{label}: {span}" if span else f"{label}:", top))
            if not any(c.ref == top.ref and c.text == top.text for c in chosen):
                chosen.append(top)
        return chosen, head


# A number, setting or version question whose best line states no such value is led by the best line close to it
# that states one next to the question's words (the size "512 MB" over a PR list that names the writer).
_LEAD_KINDS = frozenset({"number", "version"})
# A pasted JSON payload ("name": "tst", "last_run_time": ...) is data someone showed, not a stated value.
_PAYLOAD_KEY = re.compile(r"\"[\w.-]+\"\s*:")


def _payload(ev: Evidence) -> bool:
    return len(_PAYLOAD_KEY.findall(ev.text)) >= 2


TYPED_LEAD_CUTOFF = 0.75


def _inside(ev: Evidence, window: tuple[datetime, datetime]) -> bool:
    """Stated inside the window, or naming one of its days ("I'm on leave 8-12 June", said on 5 June)."""
    if ev.at_iso and window[0] <= datetime.fromisoformat(ev.at_iso) < window[1]:
        return True
    return mentions_window(ev.text, window)


def _in_window(
    ranked: list[Evidence], window: tuple[datetime, datetime] | None, now: datetime | None
) -> list[Evidence]:
    """A fact question that names a past time ("two days ago", "the week of 8 June") is answered from that time:
    the lines stated in it or naming its days, when one of them shares a question word; else every line. The score
    only favours the window (WINDOW_BONUS), so a better-worded line from another week could still lead and fill
    the runner-up slots. A window that has not begun at `now` ("next quarter") asks about plans stated before it,
    so it restricts nothing."""
    if window is None or now is None or window[0] > now:
        return ranked
    inside = [e for e in ranked if _inside(e, window)]
    return inside if any(e.lexical > 0 for e in inside) else ranked


def _typed_lead(
    question: str, kind: str, chosen: list[Evidence], ranked: Sequence[Evidence], context: Sequence[Chunk]
) -> tuple[list[Evidence], Evidence, str]:
    """The chosen lines led by the best line within TYPED_LEAD_CUTOFF of the top that states a value of `kind` next
    to a question word, with that value; unchanged (and no value) when none does."""
    top = chosen[0]
    for ev in ranked:
        if ev.score < top.score * TYPED_LEAD_CUTOFF:
            break
        if ev is top or ev.lexical <= 0 or _holding(ev) or _payload(ev):
            continue
        span = answer_span(question, kind, ev, context)
        if span:
            rest = [e for e in chosen if not (e.n == ev.n and e.unit == ev.unit)]
            return [ev, *rest][: max(len(chosen), 1)], ev, span
    return chosen, top, ""


# A fact answer led by a document's paragraph also quotes the best other paragraph of that document that holds
# question words the lines shown lack, down to this share of the best score: one more line, no new ref cited.
SAME_DOC_CUTOFF = 0.6


def _same_document(question: str, chosen: list[Evidence], ranked: Sequence[Evidence]) -> list[Evidence]:
    """`chosen` and, for a document's answer, one more paragraph of the same document (see SAME_DOC_CUTOFF)."""
    top = chosen[0]
    if _presentation(top.chunk).conversational:
        return chosen
    q_words = content_words(question) - _GENERIC
    have = set().union(*(content_words(_shown(e)) for e in chosen))
    for ev in ranked:
        if ev.score < top.score * SAME_DOC_CUTOFF:
            break
        if ev.ref != top.ref or any(c.n == ev.n and c.unit == ev.unit for c in chosen):
            continue
        if (q_words & ev.words) - have:
            return [*chosen, ev]
    return chosen


def _with_continuations(chosen: list[Evidence], ranked: Sequence[Evidence]) -> list[Evidence]:
    """A chosen line that ends announcing what follows ("so this week's poll:") is quoted with the next message
    of its chunk, as a line and a citation of its own (the poll, by the poll app)."""
    out = list(chosen)
    for ev in chosen:
        if not _clean(ev.quote).rstrip().endswith(":"):
            continue
        nxt = next((e for e in ranked if e.n == ev.n and e.unit == ev.unit + 1), None)
        if nxt is not None and not any(c.n == nxt.n and c.unit == nxt.unit for c in out):
            out.insert(out.index(ev) + 1, nxt)
    return out


# A quote continues with one more sentence of its own unit when that sentence holds question words the quote
# lacks ("Yes. Every full refresh drops the table ..." after "No, we don't use Iceberg branches"): the same
# citation, more of what was asked. The sentence is shown after " … ", cut at this many characters.
NEIGHBOUR_LIMIT = 240


def _message(ev: Evidence, ranked: Sequence[Evidence]) -> str:
    """The text of `ev`'s unit, continued with the rest of its message that the next chunks of the context hold: a
    long message is cut across chunks ("feat(mongodb): capture full document on" | "delete via pre-images by ..."),
    each piece a unit with the message's ref, author and time, the first unit of the next chunk. Only
    conversations (a document's paragraphs share the document's ref); what came before the quoted piece is not
    added."""
    units = ev.chunk.units
    own = units[ev.unit].text if ev.unit < len(units) else ev.text
    if not _presentation(ev.chunk).conversational or ev.unit != len(units) - 1:
        return own
    first: dict[int, tuple[str, bool]] = {}  # ordinal -> (its first unit's text, the chunk is that unit alone)
    for other in ranked:
        chunk = other.chunk
        if other.unit != 0 or chunk is ev.chunk or chunk.doc_key != ev.chunk.doc_key or not chunk.units:
            continue
        if other.ref == ev.ref and other.author == ev.author and other.at_iso == ev.at_iso:
            first.setdefault(chunk.ordinal, (chunk.units[0].text, len(chunk.units) == 1))
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
    own = units[ev.unit].text if ev.unit < len(units) else ev.text
    quote = ev.quote
    if not ev.message.startswith(own) or len(ev.message) <= len(own):
        return quote
    tail = own.rstrip()[-40:]
    return f"{quote} {ev.message[len(own) :].strip()}" if quote.rstrip().endswith(tail) else quote


def _add_neighbours(chosen: Sequence[Evidence], ranked: Sequence[Evidence], question: str) -> None:
    """Each quoted line continued with what of its own message it leaves out that the question asks about (the
    clause past a cut, a neighbouring sentence); the first line's message shown whole when it is short."""
    q_words = content_words(question) - _GENERIC
    for i, ev in enumerate(chosen):
        ev.message = ev.message or _message(ev, ranked)
        if ev.extra or ev.whole:
            continue
        whole = _whole_message(ev) if i == 0 else ""
        if whole:
            ev.whole = whole
            continue
        cut = _clean(ev.quote, limit=QUOTE_LIMIT)
        shown = content_words(cut)
        window = _cut_window(_clean(_quote_on(ev), limit=1 << 20), len(cut), q_words - shown)
        if window:
            # A long message cut before the words asked about: the part that holds them follows the cut.
            ev.extra = window
            continue
        best: Evidence | None = None
        for other in ranked:  # best score first
            if other.n != ev.n or other.unit != ev.unit or other.piece == ev.piece or other.text in ev.quote:
                continue
            if (q_words & content_words(other.text)) - shown:
                best = other
                break
        if best is not None:
            ev.extra = best.text
            ev.extra_before = best.piece < ev.piece


# A quote that starts a list ("quick summary of the feedback, 1. ... 2. ... 3. ...") or is one of its items shows
# the items it cuts off, each by its head, after " … ": the same unit and citation, and the list is what was said.
_NUMBERED = re.compile(r"(?:^|(?<=[\s,:;(]))(\d{1,2})[.)]\s+(?=\S)")
_BULLET = re.compile(r"(?:^|(?<=\s))[•◦▪]\s*|^\s*[-*]\s+", re.M)
ITEM_HEAD = 110
ITEMS_LIMIT = 300


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


def _add_items(chosen: Sequence[Evidence], question: str) -> None:
    """A quoted line whose unit is a list it shows only in part continues with the heads of the missing items."""
    q_words = content_words(question) - _GENERIC
    for ev in chosen:
        units = ev.chunk.units
        if ev.items or ev.unit >= len(units):
            continue
        items = list_items(ev.message or units[ev.unit].text)
        if not items:
            continue
        shown = " ".join(_shown(ev).split()).lower()
        visible = [item[:30].lower() in shown for item in items]
        if not any(visible) or all(visible):
            continue
        missing = [i for i, seen in enumerate(visible) if not seen]
        # Items that hold question words the quote lacks come first when not all fit; shown in the list's order.
        wanted = q_words - content_words(shown)
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


# A quote that ends announcing a list or what follows: "Q3 priorities 1." (group 1: the list's first number), "The
# steps are:".
_OPENS_LIST = re.compile(r"(?:^|\s)(1[.)])\s*$|:\s*$")
# A document longer than this is not read for the chunk after a quote (the fetch reads the whole document).
READ_ON_CHUNKS = 200


def _ends_chunk(ev: Evidence, shown: str) -> bool:
    """The line as shown reaches the end of its chunk: it ends with the end of the chunk's last unit."""
    units = ev.chunk.units
    if not units or ev.unit != len(units) - 1 or shown.endswith("…"):
        return False
    return _clean(units[-1].text, limit=1 << 20).endswith(shown.rsplit(" … ", 1)[-1][-24:])


def _cut_window(full: str, shown_len: int, wanted: set[str]) -> str:
    """The stretch of `full` past the first `shown_len` characters that starts at the clause holding the first of
    the `wanted` question words, or "" when the cut drops none of them."""
    if len(full) <= shown_len or not wanted:
        return ""
    start = max(shown_len - 2, 0)
    for m in _TOKEN.finditer(full.lower(), start):
        if _stem(m[0].strip(".-")) in wanted:
            head = max(full.rfind(sep, start, m.start()) for sep in ("•", ". ", "; ", " - ", ": "))
            begin = head + 1 if head >= 0 and m.start() - head <= 120 else max(m.start() - 60, start)
            return full[begin:].strip(" •;:.-")
    return ""


def _whole_message(ev: Evidence) -> str:
    """A message's whole text, when it is one of a conversation's and no longer than `WHOLE_MESSAGE`; else "".
    A message is what a person said: its later sentences (the workaround after the problem) belong with the one
    quoted."""
    if WHOLE_MESSAGE <= 0 or not _presentation(ev.chunk).conversational:
        return ""
    text = _clean(ev.message or ev.text, limit=1 << 20)
    if len(text) > WHOLE_MESSAGE or len(text) <= len(_clean(ev.quote, limit=QUOTE_LIMIT)) + 1:
        return ""
    return text


# The first line of an answer, when it quotes a message of a conversation no longer than this (with the rest of it
# that the next chunks hold), shows the whole message: what a person said, the workaround after the problem.
WHOLE_MESSAGE = 800


def _shown(ev: Evidence) -> str:
    """The quoted text of a line: the sentence (continued while short), and the unit's neighbouring sentence that
    adds question words, in the unit's order."""
    if ev.whole:
        quote = ev.whole
        return f"{quote.removesuffix(' …')} … {ev.items}" if ev.items else quote
    quote = _clean(ev.quote, limit=QUOTE_LIMIT)
    if ev.extra:
        extra = _clean(ev.extra, limit=NEIGHBOUR_LIMIT)
        quote = f"{extra} … {quote}" if ev.extra_before else f"{quote.removesuffix(' …')} … {extra}"
    if ev.items:
        quote = f"{quote.removesuffix(' …')} … {ev.items}"
    return quote


# A runner-up from another conversation or document is cited only when it adds evidence for the question: it
# scores within this share of the best line, or states the asked kind of value, or holds a question word the lines
# before it lack, or is by (or about) a person the question names (docs/answering.md, "Citations").
RUNNER_CLOSE = 0.9


def _adds_evidence(ev: Evidence, chosen: Sequence[Evidence], best: float, q_words: AbstractSet[str]) -> bool:
    """Whether runner-up `ev` earns a line and a citation after `chosen`. A line of a conversation (a Slack thread,
    a ticket) or a document already quoted always may: it continues the evidence the answer leads with. A line from
    elsewhere that is merely on the topic ("(as per kafka's retention policy)" from another thread, the release
    that came before) is left out."""
    if any(ev.chunk.doc_key == c.chunk.doc_key or ev.ref == c.ref for c in chosen):
        return True
    if ev.score >= best * RUNNER_CLOSE or ev.typed or ev.person > 0:
        return True
    return bool((ev.words & q_words) - set().union(*(c.words for c in chosen)))


def _replies_first(pool: list[Evidence], ranked: Sequence[Evidence]) -> list[Evidence]:
    """`pool` without the starter's lines of each help thread (`_help_threads`) that also has a reply by someone
    else in `pool`: the report describes the problem and the reply answers it, so the reply leads and the report,
    which only restates the question, is not cited next to it."""
    threads = _help_threads(list(ranked))
    answered = {
        e.chunk.doc_key
        for e in pool
        if e.author and e.chunk.doc_key in threads and threads[e.chunk.doc_key] != e.author
    }
    return [e for e in pool if not (e.author and e.chunk.doc_key in answered and threads[e.chunk.doc_key] == e.author)]


def _redundant(ev: Evidence, chosen: Sequence[Evidence]) -> bool:
    if any(len(ev.words & c.words) / max(len(ev.words | c.words), 1) > 0.6 for c in chosen):
        return True
    return any(c.n == ev.n and c.unit == ev.unit for c in chosen)  # one line per message or paragraph


# "Latest state" questions that the constraint extractor files under another intent ("the newest version").
_ASKS_LATEST = re.compile(r"\b(?:newest|latest|most\s+recent|current(?:ly)?|now|still|stand(?:s)?\s+now)\b", re.I)
LATEST_CUTOFF = 0.8
# A line holding a value of the asked kind is a candidate down to this share of the best score.
LATEST_VALUE_CUTOFF = 0.6
_LATEST_VALUE_KINDS = frozenset({"version"})
# "the most recent tag / build / chart": a thing whose values are versions, though the question does not say
# "version".
_VERSIONED = re.compile(r"\b(?:tags?|releases?|versions?|charts?|builds?)\b", re.I)


def _latest_kind(question: str, kind: str) -> str:
    return "version" if not kind and _VERSIONED.search(question) else kind


def _after(ev: Evidence, now: datetime | None) -> bool:
    """Stated after the question's now (an index that holds later messages than the question is asked at)."""
    if now is None or not ev.at_iso:
        return False
    at = datetime.fromisoformat(ev.at_iso)
    if at.tzinfo is None or now.tzinfo is None:
        at, now = at.replace(tzinfo=None), now.replace(tzinfo=None)
    return at > now


LATEST_WITH_VALUE = 1
PERSON_AUTHOR = 0.15
PERSON_NEAR = 0.08


# Evidence from elsewhere keeps this share of its score (the named place's lines keep their order and cutoff).
PLACE_OTHER = 0.8


def _place(name: str) -> str:
    return name.strip().lstrip("#").lower()


def _places_first(evidence: list[Evidence], places: Sequence[str]) -> None:
    """Evidence from a channel or project the question names ("What was asked in #discussions ...") outranks
    a better-worded line from elsewhere, when the context holds any from there: the others are discounted."""
    wanted = {_place(p) for p in places if p}
    if not wanted or not any(_place(e.chunk.container) in wanted for e in evidence):
        return
    for ev in evidence:
        if _place(ev.chunk.container) not in wanted:
            ev.score *= PLACE_OTHER


def _people_first(evidence: list[Evidence], people: Sequence[str]) -> None:
    """Messages by a person the question names, replies to them and mentions of them outrank the rest."""
    if not people:
        return
    names = [p for p in people if p]
    firsts = {p.split()[0].lower() for p in names}
    full = {p.lower() for p in names}

    def by(author: str | None) -> bool:
        return bool(author) and (author.lower() in full or author.split()[0].lower() in firsts)  # type: ignore[union-attr]

    authors_at: dict[tuple[int, int], str | None] = {(e.n, e.unit): e.author for e in evidence}
    for ev in evidence:
        low = ev.text.lower()
        if by(ev.author):
            ev.person = PERSON_AUTHOR
        elif any(re.search(rf"(?<![\w]){re.escape(f)}\b", low) for f in firsts | full):
            ev.person = PERSON_NEAR
        elif by(authors_at.get((ev.n, ev.unit - 1))):
            ev.person = PERSON_NEAR
        ev.score += ev.person


_PART_SPLIT = re.compile(
    r"\?\s+(?=\w)|;\s*(?=\w)|,?\s+and\s+(?=(?:who|whom|what|when|where|why|how|which)\b)"
    r"|,\s+and\s+(?=(?:did|does|do|is|was|were|are|has|have|can|will|should)\b)",
    re.I,
)


def question_parts(question: str) -> list[str]:
    """The parts of a two-part question ("who reported it and how was it fixed?"), or the question alone."""
    parts = [p.strip(" ?,;") for p in _PART_SPLIT.split(question.strip())]
    parts = [p for p in parts if content_words(p) and len(p.split()) >= 2]
    # Both sides must ask something: "A user got an error ...; which setting ..." is one question with a preamble.
    if len(parts) < 2 or not all(_QUESTION_START.match(p) for p in parts):
        return [question]
    return parts[:3]


_QUESTION_START = re.compile(
    r"^\W*(?:who|whom|whose|what|when|where|why|how|which|did|does|do|is|was|were|are|has|have|can|could|will|"
    r"would|should)\b",
    re.I,
)


def _label(part: str) -> str:
    words = part.split()
    label = " ".join(words[:8]) + (" …" if len(words) > 8 else "")
    return label[:1].upper() + label[1:]


def _intent_of(part: str, intent: str) -> str:
    if _ASKS_PERSON.search(part):
        return "who"
    if _ASKS_TIME.search(part):
        return "when"
    return "fact" if intent in {"who", "when"} else intent


_ASKS = re.compile(r"\?(?:\s|$)")
# "What was asked in #discussions about ...?": the asking message is the answer, not a question to pass over.
_ASKS_ABOUT_ASKING = re.compile(r"\b(?:asked|ask|asks|asking|question(?:ed|s)?|inquir\w*|enquir\w*)\b", re.I)
# "the newcomer who asked to take #649": asking that only says who someone is, not what the question is about.
_ASKER_CLAUSE = re.compile(r"\b(?:who|that)\s+(?:had\s+|has\s+)?(?:asked|asks|inquired|enquired)\b", re.I)


def asks_about_asking(question: str) -> bool:
    """Whether the question is about what was asked ("What was asked in #help about ...?", "What did Ana ask?"),
    not about what someone who asked was told ("which issues were offered to the newcomer who asked to take #649?")."""
    return bool(_ASKS_ABOUT_ASKING.search(_ASKER_CLAUSE.sub(" ", question)))


# A question about what was reported ("What problem was raised yesterday?", "What did users complain about?").
_ASKS_ABOUT_REPORT = re.compile(
    r"\b(?:raised|reported|reporting|complain(?:ed|s|ing|ts?)?|ran\s+into|run\s+into|brought\s+up|flagged)\b", re.I
)


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


def _openers_lead(evidence: list[Evidence]) -> None:
    """For "What problem was raised ...": the message that opens a help thread states the problem; its starter's
    later messages ("Full logs of a new run") add to it. The opener's lines take the best score of its starter's
    lines in that thread, just above it, so the report is quoted from where it was raised."""
    threads = _help_threads(evidence)
    best: dict[str, float] = {}
    for ev in evidence:
        key = ev.chunk.doc_key
        if ev.author and threads.get(key) == ev.author:
            best[key] = max(best.get(key, 0.0), ev.score)
    for ev in evidence:
        key = ev.chunk.doc_key
        root = str(ev.chunk.metadata.get("thread_ts") or "")
        if key in best and root and ev.ref.endswith(f":{root}") and threads[key] == ev.author:
            ev.score = max(ev.score, best[key] + 1e-6)


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


# A question that asks for the cause, the fix or the advice ("Why did ...", "What was recommended ...", "which
# setting had to be raised", "What came of ...") is answered by a reply, never by the report it replies to.
_ASKS_FIX = re.compile(
    r"\b(?:why|fix(?:es|ed)?|solution|solved?|workaround|recommend\w*|suggest\w*|advi[cs]\w*|resolv\w*|"
    r"caus(?:e|ed|es|ing)|reason|turned\s+out|had\s+to|came\s+of|clears?|cure[ds]?|remed\w*)\b",
    re.I,
)
FIX_REPORT_WEIGHT = 0.65
# Replies that hold no answer: a promise to look, a request for logs, thanks for the report.
_HOLDING_REPLY = re.compile(
    r"\b(?:(?:we|i)(?:'ll| will| are| am|'re|'m)?\s+(?:check|look|get back|debug|investigat|pick|try)\w*|"
    r"get back to you|(?:can|could) you (?:please |pls |kindly )?(?:share|send|provide|confirm|check|post|try)|"
    r"please share|thanks? (?:you )?for (?:raising|reporting|flagging|sharing|the report)|looking into|"
    r"picked up this|on it\b)",
    re.I,
)
HOLDING_WEIGHT = 0.8
HOLDING_MAX = 200


# What makes a reply a holding one at selection: a promise to look or a request for more. Thanks for a report
# alone is not enough ("thanks for reporting this! It's working now" states the outcome).
_PROMISE = re.compile(
    r"\b(?:(?:we|i)(?:'ll| will| are| am|'re|'m)?\s+(?:check|look|get back|debug|investigat|pick|try)\w*|"
    r"get back to you|(?:can|could) you (?:please |pls |kindly )?(?:share|send|provide|confirm|check|post|try)|"
    r"please share|looking into|picked up this|on it\b|"
    r"(?:can|could|would) you\b[^.?!\n]{0,60}?\b(?:share|send|upload|attach|download)\b[^.?!\n]{0,40}?"
    r"\b(?:logs?|screenshots?|recording|payload|config|output|details)\b|please (?:send|upload|attach|download)\b)",
    re.I,
)


def _holding(ev: Evidence) -> bool:
    """A short chat reply that only promises to look or asks for more."""
    short = len(ev.text) <= HOLDING_MAX
    return short and _presentation(ev.chunk).conversational and bool(_PROMISE.search(ev.text))


# "Which PR / pull request added X?" is answered by a pull request: a line of a pull request's own record, or one
# that names a PR ("Merged payout-worker PR #57: ..."). The bug report the PR fixed describes X in the same words
# ("retried ... with no jitter") but is not the answer: such lines rank below by this factor.
_ASKS_PULL = re.compile(r"\bwhich\s+(?:\w+\s+)?(?:prs?|pull\s+requests?)\b", re.I)
_NAMES_PULL = re.compile(r"\b(?:PR|pull\s+request)\s*#?\d+|/pulls?/\d+", re.I)
PULL_MISS_WEIGHT = 0.8


def _pulls_first(evidence: list[Evidence], question: str) -> None:
    """Lines that neither belong to a pull request nor name one rank below those that do, for a "which PR"
    question (the rule above)."""
    if not _ASKS_PULL.search(question):
        return
    for ev in evidence:
        if not (ev.chunk.metadata or {}).get("is_pull_request") and not _NAMES_PULL.search(_unit_text(ev)):
            ev.score *= PULL_MISS_WEIGHT


def _discount_reports(evidence: list[Evidence], kind: str, question: str = "") -> None:
    """In a help thread the starter's messages describe the problem and the replies hold the fix, so the
    starter's lines rank below a reply of similar strength (unless the question asks who), and further below
    when the question asks for the cause or the fix. A short holding reply ("we will check and get back to you",
    "can you share the logs?") answers nothing and ranks below the replies that do."""
    fix = bool(_ASKS_FIX.search(question))
    if kind != "person":
        threads = _help_threads(evidence)
        weight = FIX_REPORT_WEIGHT if fix else REPORT_WEIGHT
        for ev in evidence:
            if ev.author and threads.get(ev.chunk.doc_key) == ev.author:
                ev.score *= weight
    if not asks_about_asking(question):
        for ev in evidence:
            short = len(ev.text) <= HOLDING_MAX
            if short and _presentation(ev.chunk).conversational and _HOLDING_REPLY.search(ev.text):
                ev.score *= HOLDING_WEIGHT


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


# Money questions want an amount of money, not any number ("How much did we spend on AWS?" is not answered by
# "4.61x cheaper" or a date).
_ASKS_MONEY = re.compile(
    r"\b(?:cost|costs|spend|spent|spending|price|priced|pricing|budget|funding|raised|revenue|salary|salaries|"
    r"dollars?|bill(?:ed|ing)?|invoice[sd]?|fee|fees|charge[sd]?|pay|paying)\b",
    re.I,
)
_MONEY = re.compile(
    r"[$€£¥₹]\s?\d|\d\s?(?:[$€£¥₹]|usd|eur|gbp|inr|dollars?|euros?|bucks|k\s*/\s*mo)\b|\b(?:usd|eur|gbp)\s?\d",
    re.I,
)
_ASKS_PAST = re.compile(r"\bwhen\s+(?:was|were|did)\b", re.I)
_HOW_MANY = re.compile(r"\bhow\s+(?:many|much)\s+((?:[\w-]+\s+){0,2}[\w-]+)", re.I)
NEAR_BEFORE = 48
NEAR_AFTER = 32


def _values(kind: str, text: str, q_low: str) -> list[re.Match[str]]:
    """The values of the asked kind in `text` that the question does not itself contain."""
    if kind == "number":
        found = [m for m in _QUANTITY.finditer(text) if m[0].strip() and not _VERSION.fullmatch(m[0].strip())]
    elif kind == "time":
        found = list(_DATE_IN_TEXT.finditer(text)) + list(_TIME.finditer(text))
    elif kind == "version":
        found = list(_VERSION.finditer(text))
    elif kind == "setting":
        found = list(_SETTING.finditer(text))
    else:
        return []
    return [m for m in found if m[0].strip().lower() not in q_low]


def _refusal_reason(question: str, intent: str, features: dict[str, float], unknown: Sequence[str]) -> str:
    """Why the question is refused, in words: the value the best lines lack, or the words no source holds (first
    for an off-topic question: its topic, not a missing number, is what the sources lack)."""
    if features.get("off_topic") and unknown:
        return "no indexed source mentions " + " or ".join(f"'{w}'" for w in unknown[:3])
    if (features.get("value_miss") or features.get("head_miss")) and unknown:
        # A word no source holds says more than the missing value shape ("no indexed source mentions 'cassandra'").
        return "no indexed source mentions " + " or ".join(f"'{w}'" for w in unknown[:3])
    if features.get("typed_miss"):
        return _veto_reason(question, intent, features)
    if unknown:
        return "no indexed source mentions " + " or ".join(f"'{w}'" for w in unknown[:3])
    return ""


def _veto_reason(question: str, intent: str, features: dict[str, float] | None = None) -> str:
    kind = answer_type(question, intent)
    role = asked_role(question) if kind == "person" else ""
    if role:
        held = {
            "review": "reviewed",
            "approve": "approved",
            "merge": "merged",
            "sign": "signed off",
            "own": "maintains or owns",
        }[role]
        return f"the closest sources do not say who {held} it"
    # The value shape named by the check that fired; the question's own words are not repeated (under an access
    # scope a refusal must not name them).
    shape = value_asked(question, kind) if features and features.get("value_miss") else ""
    shape = "issue or PR number" if shape == "reference" else shape
    shape = "amount" if shape == "rate" and _ASKS_MONEY.search(question) else shape  # "cost per month": an amount
    value = shape or ("amount" if _ASKS_MONEY.search(question) else ("date" if kind == "time" else "number"))
    return f"the closest sources state no {value} for what is asked"


# "Who reviewed / approved / merged X": the person asked for holds a role, and a line naming only the author
# ("PR #12 by dana, merged 3 May") does not say who held it. The role must be stated with someone in it.
_ASKS_ROLE = re.compile(
    r"\bwho\s+(?:\w+\s+){0,2}?(reviewed|reviews|approved|approves|merged|merges|signed\s+off|clicked\s+merge"
    r"|maintains|maintained|owns|owned|is\s+responsible\s+for|was\s+responsible\s+for|is\s+in\s+charge\s+of)\b",
    re.I,
)
_ROLE_STATED = {
    "review": re.compile(
        r"\breview(?:ed|er|ers)\b|\bapproved\b|\brequested\s+changes\b|\bLGTM\b|\bsigned[- ]off\b", re.I
    ),
    "approve": re.compile(r"\bapprov(?:ed|al|er)\b|\bLGTM\b|\bsigned[- ]off\b", re.I),
    # "merged by X", "X merged", or a merge commit (its author merged: "Merge branch 'master' into staging").
    "merge": re.compile(
        r"\bmerged\b[^.\n]{0,40}?\bby\s+\S|(?:^|[\s(])@?[A-Z][\w.-]*\s+merged\b|\bmerged\s+it\b"
        r"|\bMerge\s+(?:branch|pull\s+request|remote-tracking\s+branch)\b"
    ),
    "sign": re.compile(r"\bsign(?:ed)?[- ]off\b|\bapproved\b", re.I),
    # "Who maintains / owns X": a line must say someone maintains, owns or is responsible for it; the author of a
    # message about X (a user asking for logs) is not its owner.
    "own": re.compile(
        r"\bmaintain(?:s|ed|ers?|ership)?\b|\bown(?:s|ed|ers?|ership)\b|\bresponsible\s+for\b|\bin\s+charge\s+of\b"
        r"|\bpoint\s+of\s+contact\b|\bPOC\b|\bDRI\b",
        re.I,
    ),
}


def asked_role(question: str) -> str:
    """The role a "who" question asks about ("review", "approve", "merge", "sign", "own"), or empty."""
    m = _ASKS_ROLE.search(question)
    if not m:
        return ""
    verb = m[1].lower()
    if verb.startswith(("maintain", "own", "is ", "was ")):
        return "own"
    return (
        "review"
        if verb.startswith("review")
        else "approve"
        if verb.startswith("approv")
        else ("sign" if verb.startswith("signed") else "merge")
    )


_NUMBERED_REF = re.compile(r"#(\d+)|\b(?:PR|pull\s+request|issue)\s+#?(\d+)", re.I)


def role_stated(role: str, top: Sequence[Evidence], question: str = "") -> bool:
    """Whether one of the best lines states who held `role` (always true when no role is asked). When the question
    names the PR or issue ("Who clicked merge on PR #1136?"), the line must be about it: its message or its
    chunk's title names that number (a merge commit of another branch says nothing about #1136)."""
    if not role:
        return True
    numbers = {a or b for a, b in _NUMBERED_REF.findall(question)}
    for ev in top:
        if numbers:
            about = _unit_text(ev) + "\n" + ev.chunk.title
            if not any(re.search(rf"(?<![\w.]){n}(?!\d)", about) for n in numbers):
                continue
        if _ROLE_STATED[role].search(_clean(ev.text, limit=2000)):
            return True
    return False


_ASKS_BYTES = re.compile(r"\bhow\s+much\s+(?:[\w-]+\s+)?(?:memory|ram|storage|disk|heap)\b", re.I)
_BYTES = re.compile(r"\d\s?(?:[kmgtp]i?b|bytes)\b", re.I)
_ASKS_FREQUENCY = re.compile(r"\bhow\s+often\b", re.I)
_FREQUENCY = re.compile(
    r"\b(?:hourly|daily|nightly|weekly|fortnightly|monthly|quarterly|yearly|annually|frequency|cron|once|twice"
    r"|every\s+(?:\d+\s+)?(?:second|minute|hour|day|night|week|month|quarter|year|run|sync)s?"
    r"|(?:a|an|per)\s+(?:second|minute|hour|day|week|month|quarter|year))\b",
    re.I,
)


def typed_near(question: str, kind: str, top: Sequence[Evidence], people: Sequence[str] = ()) -> float:
    """1 when one of the best sentences holds the kind of value the question asks for next to the question's own
    words: a number beside the counted noun ("how many customers" wants "40 customers"), an amount of money for a
    cost, a date stated in the text for "when" (the message's own date does not count), a person for "who".
    A question that asks for no value gets 1 (the feature says nothing then)."""
    if kind not in {"number", "time", "version", "setting", "person"}:
        return 1.0
    if kind == "person":
        return float(any(e.typed for e in top))
    if kind == "time" and _ASKS_PAST.search(question):
        return 1.0  # "When was v0.9.2 released?": the announcement's own date answers it
    texts = [_clean(ev.text, limit=2000) for ev in top]
    # The value's unit measures what is asked: "how much memory" is answered by "31.76 GB" whether or not the line
    # says "memory" ("OLake Go averaged about 31.76 GB"); "how often" by a frequency, which is often a word.
    if _ASKS_BYTES.search(question) and any(_BYTES.search(t) for t in texts):
        return 1.0
    if _ASKS_FREQUENCY.search(question) and any(_FREQUENCY.search(t) for t in texts):
        return 1.0
    q_low = question.lower()
    money = kind == "number" and bool(_ASKS_MONEY.search(question))
    counted = _HOW_MANY.search(question)
    anchors = content_words(counted[1]) - _GENERIC if counted and not money else set()
    # A person the question names is not what the value is about: every line of theirs names them ("When is Aiko
    # taking her holiday?" is not answered by "10:00 ... Aiko on call").
    names = {_stem(p) for person in people for p in re.split(r"[\s._-]+", person.lower()) if p}
    anchors = anchors or (content_words(question) - _GENERIC - names)
    for ev in top:
        text = _clean(ev.text, limit=2000)
        if money and not _MONEY.search(text):
            continue
        spots = [m.start() for m in _TOKEN.finditer(text.lower()) if _stem(m[0].strip(".-")) in anchors]
        for value in _values(kind, text, q_low):
            if any(-NEAR_BEFORE <= at - value.start() <= NEAR_AFTER + len(value[0]) for at in spots):
                return 1.0
    return 0.0


# What a question asks for, beyond `answer_type`, that its best sentences must state for the question to be answered
# (the refusal's answer-type check; `value_miss`): an amount of money for "what was the dollar cost / total
# funding / salary range", a version next to the product named for "which Debezium version", a rate for "how many
# rows per second", an issue or PR number for "which issue number". Each is a value shape, not a topic: no word of
# the workspace is listed.
_ASKS_AMOUNT = re.compile(
    r"\b(?:what|which)\s+(?:(?:is|was|were|are|will)\s+)?(?:(?:the|a|an|its|their|our)\s+)?(?:[\w-]+\s+){0,2}?"
    r"(cost|costs|price|prices|pricing|budget|funding|salary|salaries|fee|fees|discount|dollars?|revenue|spend|bill)"
    # The phrase ends at the money word ("the dollar cost of", "what discount did") or goes on with a value word
    # ("salary range", "funding raised"): "what pricing model", "which cost optimisations" ask for no amount.
    r"(?=\s*(?:[?,.;:]|$)|\s+(?:of|for|per|in|at|to|on|from|with|did|does|do|was|is|were|are|will|has|have|had|"
    r"range|estimate|raised|paid|quoted|amount|figure|total)\b)",
    re.I,
)
_ASKS_REFERENCE = re.compile(
    r"\b(?:issue|pr|pull\s+request|ticket|bug)\s+(?:number|id|no\.?)(?!\w)"
    # "Which PR fixed ...", "which ticket tracks ...": the answer is a reference, whatever else the lines say.
    r"|\bwhich\s+(?:\w+\s+)?(?:prs?|pull\s+requests?|issues?|tickets?)\b",
    re.I,
)
# Contact details: a phone number wants digits in a phone's shape, an email address an address.
_ASKS_PHONE = re.compile(r"\b(?:phone|telephone|fax|dial-in)(?:\s+(?:number|no\.?))?\b", re.I)
_PHONE = re.compile(r"(?<![\w.])\+?\(?\d[\d ()./-]{6,}\d(?![\w.])")
_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_ASKS_EMAIL = re.compile(r"\be-?mail\s+address(?:es)?\b", re.I)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


def _phone(text: str) -> bool:
    """Whether `text` holds a phone number: an international "+49 30 1234567", or nine digits or more in one run of
    digits, spaces and dashes that is not a date."""
    for m in _PHONE.finditer(text):
        if _ISO_DAY.search(m[0]):
            continue
        if m[0].startswith("+") or sum(ch.isdigit() for ch in m[0]) >= 9:
            return True
    return False


# An issue or PR number as written; ticket keys ("PLAT-12") are read by briefing.textrules, the one key rule.
_REFERENCE = re.compile(r"#\d+|/(?:issues|pull|pulls)/\d+|\b(?:PR|issue|ticket)\s+\d+", re.I)
_PERCENT = re.compile(r"\d\s?(?:%|percent\b)", re.I)
# A plain count (not a factor such as "4.61x", not part of a version or a date): "a budget of 40 nodes".
_COUNT = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w.]|\.\d)")
_ASKS_VERSION_OF = re.compile(r"\b(?:which|what)\s+((?:[\w.-]+\s+){0,4}?)(?:version|release)s?\b", re.I)
_ASKS_A_RATE = re.compile(
    r"\bper\s+(?:second|sec|minute|min|hour|day|week|month|year)\b|\b(?:what|which)\s+(?:(?:is|was|were|are|will)\s+)?"
    r"(?:(?:the|a|an|its|their|our)\s+)?(?:[\w-]+\s+){0,2}?rates?"
    # "what retry rate did", "the error rate of"; not "what rate limiting strategy" (a rate limit is a setting).
    r"(?=\s*(?:[?,.;:]|$)|\s+(?:of|for|per|in|at|to|on|from|with|did|does|do|was|is|were|are|will|has|have|had)\b)",
    re.I,
)
_RATE = re.compile(
    r"\d\s?(?:%|percent\b)"
    r"|\d\s?(?:[kmb]\s?)?(?:\w+\s?)?/\s?(?:s|sec|second|min|minute|h|hr|hour|d|day|wk|week|mo|month|yr|year)\b"
    r"|\d[^.\n]{0,30}\b(?:per|an?|each)\s+(?:second|sec|minute|min|hour|day|week|month|year)\b"
    r"|\d\s?[km]?\s?(?:rps|qps|tps|ops|eps)\b",
    re.I,
)


def value_asked(question: str, kind: str) -> str:
    """The value shape `value_miss` checks for this question: "amount", "version" (of a named product), "rate",
    "reference" (an issue, PR or ticket number), or empty."""
    if _ASKS_AMOUNT.search(question):
        return "amount"
    if kind == "version" and _version_of(question):
        return "version"
    if _ASKS_A_RATE.search(question):
        return "rate"
    if _ASKS_REFERENCE.search(question):
        return "reference"
    if _ASKS_PHONE.search(question) and re.search(r"\b(?:what|which)\b", question, re.I):
        return "phone number"
    if _ASKS_EMAIL.search(question):
        return "email address"
    return ""


def _version_of(question: str) -> set[str]:
    """The words naming the product whose version is asked ("Which Debezium version ..." -> {"debezium"})."""
    m = _ASKS_VERSION_OF.search(question)
    return content_words(m[1]) - _GENERIC if m else set()


def value_miss(question: str, kind: str, top: Sequence[Evidence]) -> str:
    """The value shape the question asks for (`value_asked`) when none of the best sentences states it, else
    empty: no sentence with an amount of money (or a percentage) for a cost question; no version within a few
    words of the product named ("Which Debezium version was the user running?" over OLake's own release notes);
    no percentage or per-unit value for a rate; no "#123", issue link or ticket key for "which issue number"."""
    asked = value_asked(question, kind)
    if not asked:
        return ""
    texts = [_clean(ev.text, limit=2000) for ev in top]
    if asked == "amount":
        # Money, a percentage, or a count stated with the asked word itself ("a budget of 40 nodes": not every
        # budget is money).
        match = _ASKS_AMOUNT.search(question)
        word = _stem(match[1].lower()) if match else ""
        stated = any(_MONEY.search(t) or _PERCENT.search(t) or _counted(t, word) for t in texts)
    elif asked == "rate":
        stated = any(_RATE.search(t) for t in texts)
    elif asked in {"reference", "phone number", "email address"}:
        # A reference or a contact detail is often a link or a line after the sentence that names it ("You can
        # also check the PR: .../pull/951"): the whole message (and its chunk's title) is read.
        whole = [_clean(_unit_text(ev), limit=4000) + "\n" + ev.chunk.title for ev in top]
        if asked == "reference":
            stated = any(_REFERENCE.search(t) or find_ticket_keys(t) for t in whole)
        else:
            stated = any(_phone(t) if asked == "phone number" else bool(_EMAIL.search(t)) for t in whole)
    else:
        product = _version_of(question)
        q_low = question.lower()
        stated = any(_near_product(text, product, q_low) for text in texts)
    return "" if stated else asked


def _unit_text(ev: Evidence) -> str:
    """The whole unit (message, comment, section) a sentence was cut from."""
    return ev.chunk.units[ev.unit].text if ev.chunk.units and ev.unit < len(ev.chunk.units) else ev.chunk.text


def _counted(text: str, word: str) -> bool:
    """Whether `text` states a count within a few words of `word` ("budget" in "a budget of 40 nodes")."""
    low = text.lower()
    spots = [m.start() for m in _TOKEN.finditer(low) if _stem(m[0].strip(".-")) == word]
    return any(-NEAR_BEFORE <= at - n.start() <= NEAR_AFTER + len(n[0]) for n in _COUNT.finditer(low) for at in spots)


# A product named with a bare major version: "Postgres 15", "MySQL 8", "Java 17", "Trino 435", "version 3".
_MAJOR_AFTER = re.compile(r"\s*(?:v|version\s+)?\d+(?:\.\d+)*\b", re.I)


def _near_product(text: str, product: set[str], q_low: str) -> bool:
    """Whether `text` states a version within a few words of one of the `product` words (or a bare major version
    right after one: "Postgres 15")."""
    low = text.lower()
    named = [m for m in _TOKEN.finditer(low) if _stem(m[0].strip(".-")) in product]
    majors = [_MAJOR_AFTER.match(low, m.end()) for m in named]
    if any(major and major[0].strip() not in q_low for major in majors):
        return True
    values = _values("version", text, q_low)
    return any(-NEAR_BEFORE <= m.start() - v.start() <= NEAR_AFTER + len(v[0]) for v in values for m in named)


# The thing a "which / what" question asks for: the words between "which / what" (and "is the") and the verb or
# preposition that ends the phrase ("Which Okta group was mapped ..." -> okta group; "What is the p99 latency of
# ..." -> p99 latency). Its last word is the head noun: what the answer is an instance of.
_AUX = r"(?:did|does|do|was|is|were|are|has|have|had|will|can|could|should|would)"
_ASKED_PHRASE = re.compile(
    # "Which Okta group was ...", "What compression codec does ...", "Which PR fixed ...": the words before the verb.
    rf"^\W*(?:which|what)\s+(?!{_AUX}\b)((?:[\w.'-]+\s+){{0,3}}?[\w.'-]+?)(?:'s)?(?=\s+(?:{_AUX}|\w+ed)\b)"
    # "What is the p99 latency of ...", "What was the outcome?": the words after "is the" up to a preposition.
    rf"|^\W*(?:which|what)\s+(?:is|was|were|are)\s+(?:(?:the|a|an|its|their|our|your)\s+)?"
    r"((?:[\w.'-]+\s+){0,3}?[\w.'-]+?)(?:'s)?"
    r"(?=\s+(?:of|for|in|at|on|from|with|to|that|between|by|after|before|during|when)\b|\s*[?,.;:]|\s*$)",
    re.I,
)
_PREPOSITION = frozenset("of for in at on from with to that between by after before during when out".split())
# "What is the p99 latency of the mobile app's login screen?": the entity the asked attribute belongs to; "What is
# our policy on pets in the office?", "What are the rules about parking?": the subject the asked thing is about.
_OF_PHRASE = re.compile(
    r"^\W*(?:which|what)\s+(?:is|was|were|are)\s+(?:(?:the|a|an|its|their|our|your)\s+)?(?:[\w.'-]+\s+){0,3}?"
    r"[\w.'-]+?\s+(?:of|on|about|regarding|concerning)\s+(?:(?:the|a|an|its|their|our|your)\s+)?"
    r"((?:[\w.'-]+\s+){0,4}?[\w.'-]+?)(?:'s)?"
    r"(?=\s+(?:of|for|in|at|on|from|with|to|that|between|by|after|before|during|when)\b|\s*[?,.;:]|\s*$)",
    re.I,
)


def asked_of(question: str) -> list[str]:
    """The content words of what the asked attribute belongs to, in "What is the A of E?" ("the p99 latency of the
    mobile app's login screen" -> mobile app login screen), or of what it is about, in "What is the A on / about E?"
    ("our policy on pets" -> pets): the entity the question presupposes."""
    m = _OF_PHRASE.search(question)
    if not m:
        return []
    words = [t.strip(".-'") for t in _TOKEN.findall(m[1].lower())]
    return [w for w in words if len(w) > 1 and w not in STOPWORDS and w not in _QUESTION_WORDS and w not in _GENERIC]


def asked_head(question: str) -> list[str]:
    """The content words of the phrase a "which / what" question asks for (`_ASKED_PHRASE`), in order; empty when
    the question has no such phrase ("What did Duke find ...", "Who ...", "When ...")."""
    m = _ASKED_PHRASE.search(question)
    if not m:
        return []
    words: list[str] = []
    for tok in _TOKEN.findall((m[1] or m[2]).lower()):
        tok = tok.strip(".-'")
        if tok in _PREPOSITION:
            break
        words.append(tok)
    # The phrase must end in a noun that names the thing: not a filler word ("what open work"), not a participle
    # ("what was released").
    if not words or words[-1] in STOPWORDS or words[-1] in _QUESTION_WORDS or words[-1] in _GENERIC:
        return []
    if len(words) == 1 and words[0].endswith("ed"):
        return []
    return [w for w in words if len(w) > 1 and w not in STOPWORDS and w not in _QUESTION_WORDS and w not in _GENERIC]


def question_vocabulary(question: str, people: Sequence[str] = ()) -> list[str]:
    """The question's topic words to look up in the workspace's vocabulary: content words of three letters or
    more, hyphenated ones by their parts, without numbers, calendar words, role titles, the question's own
    paraphrase vocabulary, or the names of people it mentions (a name is in a message's author, not its text)."""
    names = {p.lower() for person in people for p in re.split(r"[\s._-]+", person) if p}
    out: list[str] = []
    for tok in _TOKEN.findall(question.lower()):
        for part in tok.strip(".-").split("-"):
            part = part.strip("._")
            if (
                len(part) < 3
                or not part.isalpha()
                or part in STOPWORDS
                or part in _QUESTION_WORDS
                or part in _GENERIC
                or part in _CALENDAR
                or part in _ROLES
                or part in names
            ):
                continue
            out.append(part)
    return list(dict.fromkeys(out))


def _off_context(word: str, found: Spread, context: Sequence[Chunk], seen: set[str]) -> bool:
    """The word is in no context chunk and, if the index holds it at all, only in rare documents outside the
    context (a common word's documents are not all listed: it counts as covered)."""
    if _stem(word) in seen or found.docs & {c.doc_key for c in context}:
        return False
    return found.complete


def vocabulary_features(
    words: Sequence[str],
    spread: dict[str, Spread],
    context: Sequence[Chunk],
    seen: set[str],
    near: dict[str, float] | None = None,
) -> dict[str, float]:
    """How much of the question the workspace does not hold at all (`vocab_unknown`), or holds only in
    documents the context does not draw on (`vocab_stray`: a rare word, every document of it known, none of
    them in the context). A word found in the context (or its stem) is covered whatever the index says.
    `vocab_far` weighs each such word by how far it is from every scored sentence (1 - its best cosine, from
    `near`; a word without a similarity counts as far)."""
    looked = [w for w in words if w in spread]
    out = dict.fromkeys(("vocab_unknown", "vocab_unknown_any", "vocab_stray", "vocab_off", "vocab_far"), 0.0)
    if not looked:
        return out
    near = near or {}
    unknown = stray = 0
    far = 0.0
    for w in looked:
        found = spread[w]
        if not _off_context(w, found, context, seen):
            continue
        far += 1.0 - max(0.0, near.get(w, 0.0))
        if found.absent:
            unknown += 1
        else:
            stray += 1
    n = len(looked)
    out.update(
        vocab_unknown=unknown / n,
        vocab_unknown_any=1.0 if unknown else 0.0,
        vocab_stray=stray / n,
        vocab_off=(unknown + stray) / n,
        vocab_far=far / n,
    )
    return out


def topic_features(words: Sequence[str], spread: dict[str, Spread], seen: set[str]) -> dict[str, float]:
    """Counts of the question's topic words (those the index tokenises): found in the context, common in the
    workspace (more chunks than the lookup limit), rare there, or absent."""
    looked = [w for w in words if w in spread]
    return {
        "topic_n": float(len(looked)),
        "topic_seen": float(sum(1 for w in looked if _stem(w) in seen)),
        "topic_common": float(sum(1 for w in looked if not spread[w].complete)),
        "topic_absent": float(sum(1 for w in looked if spread[w].absent)),
        "topic_rare": float(sum(1 for w in looked if spread[w].complete and spread[w].chunks <= RARE_CHUNKS)),
    }


def unknown_words(
    question: str, people: Sequence[str], spread: dict[str, Spread], context: Sequence[Chunk] = ()
) -> list[str]:
    """The question's topic words that no indexed document holds and no context chunk shows (for the
    refusal's wording: a word only in a title is not in the sparse index, yet the sources do show it)."""
    words = question_vocabulary(question, people)
    seen = set().union(*(content_words(c.text) | content_words(c.title) for c in context)) if context else set()
    return [w for w in words if w in spread and spread[w].absent and _stem(w) not in seen]


def missing_share(q_words: set[str], seen: set[str]) -> float:
    """The share of the question's topic words (content words, not paraphrase-prone ones) that no context chunk
    contains: "parental" and "leave" in "What is the parental leave policy?" over a data-engineering Slack."""
    topic = {w for w in q_words if w not in _GENERIC and len(w) > 2}
    return sum(1 for w in topic if w not in seen) / len(topic) if topic else 0.0


# Nouns that name a kind of information rather than a thing ("What are the main problems with the pool?", "What
# gap did the review find?"): the sources state a problem without calling it one, so their absence refuses nothing.
_ABSTRACT = frozenset(
    """problem issue gap reason cause result outcome effect impact risk concern question answer advice suggestion
    recommendation approach option alternative step idea lesson takeaway trend pattern theme topic highlight progress
    blocker benefit drawback downside upside limitation tradeoff trade-off requirement expectation goal priority
    decision feedback change difference improvement difficulty challenge complaint mistake error failure fix
    solution workaround news""".split()
)
# Words that rank or qualify what is asked rather than name it ("the main problems", "the biggest risk").
_QUALIFIERS = frozenset("main key major biggest top common usual typical important notable overall general".split())


def _abstract(word: str) -> bool:
    """Whether `word` names a kind of information or qualifies it (`_ABSTRACT`, `_QUALIFIERS`), not a thing."""
    return any(w in _ABSTRACT or w in _QUALIFIERS for w in (word, word.removesuffix("s"), word.removesuffix("es")))


def asked_absent(question: str, spread: dict[str, Spread], seen: set[str]) -> list[str]:
    """The words of the phrase a "which / what" question asks for (`asked_head`), or of the entity it belongs to
    (`asked_of`), that no context chunk holds and no indexed source mentions ("parental" in "What is the parental
    leave policy?", "laptop" in "Which laptop model ..."): the thing presupposed is not one the workspace speaks of.
    A weaker sign than `head_miss` (a modifier can be a paraphrase), so it is a feature of the fitted confidence,
    not a cap."""
    words = [w for w in asked_head(question) + asked_of(question) if not _abstract(w)]
    return [w for w in words if w in spread and spread[w].absent and _stem(w) not in seen]


def head_miss(question: str, spread: dict[str, Spread], seen: set[str]) -> str:
    """The noun naming what a "which / what" question asks for (`asked_head`: "codec" in "What compression codec
    does ...") when no context chunk holds it and no indexed source mentions it, else empty. The sources then
    never speak of that kind of thing, whatever else of the question they share."""
    head = asked_head(question)
    if not head:
        return ""
    word = head[-1]
    if _abstract(word):
        return ""
    found = spread.get(word)
    if found is None or not found.absent or _stem(word) in seen:
        return ""
    return word


def _prior(n: int, n_chunks: int) -> float:
    return 1.0 - (n - 1) / max(n_chunks, 1)


def _typed(kind: str, text: str, names: set[str]) -> float:
    if kind == "version":
        return 1.0 if _VERSION.search(text) else 0.0
    if kind == "setting":
        return 1.0 if _SETTING.search(text) else 0.0
    if kind == "number":
        return 1.0 if _NUMBER.search(_EMOJI.sub("", text)) else 0.0
    if kind == "time":
        return 1.0 if _TIME.search(text) else 0.0
    if kind == "person":
        return 1.0 if _PERSON.search(text) or any(re.search(rf"\b{re.escape(n)}\b", text) for n in names) else 0.0
    return 0.0


# --- the answer itself: a span of the best sentence ---------------------------------------------------------
_VERSION = re.compile(r"(?<![\w.])v?\d+\.\d+(?:\.\d+)*(?:-[a-z0-9.]+)?(?![\w.]*\d)", re.I)
_SETTING = re.compile(
    r"`([^`\n]{2,60})`|(?<![\w-])(--?[a-z][\w-]+(?:=\S+)?)|(?<![\w.])([a-z][a-z0-9]*(?:[_.][a-z0-9]+)+(?:\s*[:=]\s*[\w.\"-]+)?)",
)
_QUANTITY_PATTERN = (
    r"(?<![\w.$€£¥₹])[~≈]?[$€£¥₹]?\d(?:[\d,]*\d)?(?:\.\d+)?\s?(?:%|×|x\b|k\b|m\b|(?:gb|mb|kb|tb|gib|mib|mi|gi|ms|s|sec|secs|seconds?|"
    r"min|mins|minutes?|h|hrs?|hours?|days?|weeks?|months?|years?|rows?|records?|times|threads?|cores?|"
    r"nodes?|pods?|files?|tables?|rps|ops|mbps|gbps)\b)?(?:/s\b|\s+per\s+\w+)?"
)
_QUANTITY = re.compile(_QUANTITY_PATTERN, re.I)
# For the answer span: "4 billion rows" is one quantity, so its "4" never answers "by what factor".
_SCALED_QUANTITY = re.compile(
    _QUANTITY_PATTERN.replace(r"(?:\.\d+)?", r"(?:\.\d+)?(?:\s(?:thousand|million|billion|trillion|bn)\b)?", 1), re.I
)
_NEGATION = re.compile(
    r"\b(?:not|no|never|cannot|can't|can’t|isn't|isn’t|doesn't|doesn’t|don't|don’t|won't|won’t|aren't|wasn't|"
    r"weren't|haven't|hasn't|unsupported|impossible|no\s+longer)\b",
    re.I,
)
_RESOLVED = re.compile(r"\b(?:fixed|resolved|no\s+longer|removed|solved)\b", re.I)
# A negation denies what the question asks only where it governs the question's words: it opens the line ("No,
# we never ...", "Not yet.") or one of the question's words follows it in the same clause within NEGATION_SCOPE
# words ("is not on Aurora", "don't use Iceberg branches"). "moved to Aurora this morning with no merchant impact"
# confirms the move: its "no" is about the impact.
NEGATION_SCOPE = 5
_CLAUSE_TOKEN = re.compile(r"[\w'’-]+|[.;:!?]")


def negates(text: str, q_words: set[str]) -> bool:
    """Whether `text` denies what a question of `q_words` (its `content_words`) asks (the rule above)."""
    tokens = _CLAUSE_TOKEN.findall(text.lower())
    for i, tok in enumerate(tokens):
        if not _NEGATION.fullmatch(tok):
            continue
        if i == 0:
            return True
        for after in tokens[i + 1 : i + 1 + NEGATION_SCOPE]:
            if after in ".;:!?":
                break
            if content_words(after) & q_words:
                return True
    return False


_DATE_IN_TEXT = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*"
    r"(?:\s+\d{4})?\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?"
    r"(?:,?\s+\d{4})?\b",
    re.I,
)


def answer_kind(question: str, intent: str) -> str:
    """`answer_type`, or "yesno" for a polar question ("Does the UI need internet access ...?")."""
    kind = answer_type(question, intent)
    if kind == "person" and intent != "who" and _relative_who(question):
        # "Which starter issues were offered to the newcomer who asked ...?" asks for the issues, not a person.
        return ""
    if not kind and _ASKS_POLAR.search(question):
        return "yesno"
    return kind


_WH = re.compile(r"\b(?:who|whom|whose|which|what|where|how|why|when)\b", re.I)
# "which engineer / member / person ..." asks for a person whatever follows.
_PERSON_HEAD = re.compile(
    r"\b(?:which|what)\s+(?:\w+\s+)?(?:person|people|engineer|developer|member|user|contributor|maintainer|"
    r"teammate|colleague|manager|lead|reviewer|author|owner|one|of\s+(?:them|us|the))s?\b",
    re.I,
)


def _relative_who(question: str) -> bool:
    """The question asks with another word and says "who" only in a relative clause ("the newcomer who asked")."""
    first = _WH.search(question)
    if first is None or first[0].lower().startswith("who") or _PERSON_HEAD.search(question):
        return False
    return bool(re.search(r"\b[a-z]\w*\s+who\b", question[first.end() :], re.I))


def _near(text: str, matches: list[re.Match[str]], q_words: set[str]) -> re.Match[str] | None:
    """The match with most of the question's words around it ("pool size of 60"), then the closest one; the
    first match when no question word occurs. A bare "(7)" is a reference, not a value."""
    matches = [
        m for m in matches if not (text[max(m.start() - 1, 0) : m.start()] == "(" and text[m.end() :][:1] == ")")
    ]
    if not matches:
        return None
    spots = [(m.start(), _stem(m[0].strip(".-"))) for m in _TOKEN.finditer(text.lower())]
    spots = [(at, w) for at, w in spots if w in q_words]
    if not spots:
        return matches[0]

    # A question word belongs to the value it stands next to: one value's window ends where the next one starts
    # ("data files target 512 MB and delete files 64 MB": "data files" is the 512's, not the 64's).
    ordered = sorted(matches, key=lambda m: m.start())
    bounds = {
        id(m): (ordered[i - 1].end() if i else 0, ordered[i + 1].start() if i + 1 < len(ordered) else len(text))
        for i, m in enumerate(ordered)
    }

    def rank(m: re.Match[str]) -> tuple[int, int, int]:
        low, high = bounds[id(m)]
        around = {w for at, w in spots if -48 <= at - m.start() <= 24 and low <= at < high}
        return (-len(around), min(abs(m.start() - at) for at, _ in spots), m.start())

    return min(matches, key=rank)


def answer_span(question: str, kind: str, ev: Evidence, context: Sequence[Chunk]) -> str:
    """The value the question asks for, taken from the evidence sentence (its version, number, setting, name,
    date, or yes / no); empty when the sentence has none, so the sentence itself leads the answer."""
    text = _clean(ev.text, limit=2000)
    q_low = question.lower()
    q_words = content_words(question)
    if kind == "version":
        found = [m for m in _VERSION.finditer(text) if m[0].lower().lstrip("v") not in q_low]
        hit = _near(text, found, q_words)
        return hit[0] if hit else ""
    if kind == "setting":
        found = [m for m in _SETTING.finditer(text) if (m[1] or m[2] or m[3] or "").lower() not in q_low]
        found = [m for m in found if not _VERSION.fullmatch(m[0]) and "://" not in m[0] and "/" not in m[0]]
        hit = _near(text, found, q_words)
        return (hit[1] or hit[2] or hit[3]).strip() if hit else ""
    if kind == "number":
        found = _numbers(question, text, q_low)
        hit = _near(text, found, q_words)
        return _with_noun(text, hit, q_words) if hit else ""
    if kind == "time":
        dates = [m for m in _DATE_IN_TEXT.finditer(text) if m[0].lower() not in q_low]
        # "moves from Thu 28 May to Tue 9 June": the date it moved to is the one that holds.
        dates = [m for m in dates if not _MOVED_FROM.search(text[max(m.start() - 12, 0) : m.start()])] or dates
        hit = _near(text, dates, q_words)
        if hit:
            return hit[0]
        # The message's own date answers "when was it released?", never "when is it planned?".
        past = bool(_ASKS_PAST.search(question)) or not _ASKS_TIME.search(question)
        return f"{_when(ev, year=True)} (the date of the message)" if ev.at_iso and past else ""
    if kind == "person":
        return _person_in(question, ev, context)
    if kind == "yesno" and ev.lexical >= 0.3 and not _ASKS.search(text):
        negated = negates(text, q_words) != bool(_NEGATION.search(question))
        if re.search(r"\bstill\b", q_low) and _RESOLVED.search(text):
            negated = not negated
        return "No" if negated else "Yes"
    return ""


# A factor question ("by roughly what factor", "how many times faster") is answered by a factor ("4.6x"), a
# percentage question by a percentage ("38 %"); never by another quantity of the same sentence ("4 billion rows").
_ASKS_FACTOR = re.compile(
    r"\bfactor\b|\bhow\s+many\s+times\b|\bratio\b|\btimes\s+(?:faster|slower|cheaper|more|less|bigger|smaller)\b", re.I
)
_ASKS_PERCENT = re.compile(r"\bpercent(?:age)?s?\b|\bwhat\s+share\b|\bwhat\s+proportion\b", re.I)
_FACTOR = re.compile(r"(?:×|x|\btimes)$", re.I)
# A throughput ("rows per second"); a cost per month is an amount, not a rate.
_ASKS_RATE = re.compile(r"\bper\s+(?:second|sec|minute|min|hour|s)\b|/s\b|\ba\s+second\b", re.I)


_MOVED_FROM = re.compile(r"\bfrom\s+(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+)?$", re.I)


def _numbers(question: str, text: str, q_low: str) -> list[re.Match[str]]:
    """The quantities of `text` that can answer a number question: not the question's own, not a version, an
    identifier ("#1035"), a time of day or a name's number ("PostgreSQL 15"), and of the asked shape (a factor, a
    percentage, a rate); for "how many X" a number of X when the sentence has one."""
    dates = [(m.start(), m.end()) for m in _DATE_IN_TEXT.finditer(text)]
    found = [
        m
        for m in _SCALED_QUANTITY.finditer(text)
        if m[0].strip()
        and m[0].strip().lower() not in q_low
        and not _VERSION.fullmatch(m[0].strip())
        and not any(a <= m.start() < b for a, b in dates)
        and text[max(m.start() - 1, 0) : m.start()] not in {"#", "/", "-", "=", ":"}
        and text[m.end() : m.end() + 1] != ":"  # "05" of "05:30" is a time
        and not _NAMED_NUMBER.search(text[: m.start()] + "\0")
    ]
    # A question of a shape (a factor, a percentage, a rate) takes only a value of that shape: a sentence without
    # one gives no span, and the quote itself leads.
    if _ASKS_FACTOR.search(question):
        return [m for m in found if _FACTOR.search(m[0].strip())]
    if _ASKS_PERCENT.search(question):
        return [m for m in found if m[0].strip().endswith("%")]
    if _ASKS_RATE.search(question) and not _ASKS_MONEY.search(question):
        return [m for m in found if _ASKS_RATE.search(m[0])]
    counted = _HOW_MANY.search(question)
    if counted:
        # "How many minutes ...?" is answered by a number of minutes when the sentence has one.
        nouns = {_stem(w) for w in counted[1].lower().split()} - STOPWORDS
        of_noun = [m for m in found if _counts(text, m, nouns)]
        return of_noun or found
    return found


# A bare number right after a capitalised word inside a sentence names something ("PostgreSQL 15", "Tier 2").
_NAMED_NUMBER = re.compile(r"(?<=[a-z,;] )[A-Z][A-Za-z]+ \0$")


def _counts(text: str, m: re.Match[str], nouns: set[str]) -> bool:
    """The quantity is a number of one of `nouns`: its unit or the word after it ("22 minutes", "430 clients")."""
    words = [_stem(w) for w in re.findall(r"[a-z]+", m[0].lower())]
    after = re.match(r"\s*([A-Za-z-]+)", text[m.end() :])
    if after:
        words.append(_stem(after[1].lower()))
    return any(w in nouns or (len(w) > 2 and any(n.startswith(w) or w.startswith(n) for n in nouns)) for w in words)


def _with_noun(text: str, hit: re.Match[str], q_words: set[str]) -> str:
    """A bare count keeps the noun it counts when that noun is the question's ("60 connections" for "how many
    connections"), so the first line reads as an answer, not a number."""
    value = hit[0].strip()
    if re.search(r"[^\d.,~≈\s]", value):
        return value
    after = re.match(r"\s+((?:[\w-]+\s+)?[\w-]+)", text[hit.end() :])
    if after:
        tokens = after[1].split()
        for i, tok in enumerate(tokens):
            if _stem(tok.lower()) in q_words:
                return f"{value} {' '.join(tokens[: i + 1])}"
    return value


# "Who posts / announced / asked / shared ...": the act is the message itself, so its author answers.
_ASKS_POSTER = re.compile(
    r"^\W*who\s+(?:usually\s+|first\s+)?(?:posts?|posted|announces?|announced|asks?|asked|shares?|shared)\b", re.I
)


def _person_in(question: str, ev: Evidence, context: Sequence[Chunk]) -> str:
    """A person the sentence names (a known author or an @mention) that the question does not, else its author."""
    q_low = question.lower()
    if ev.author and _ASKS_POSTER.search(question):
        # "Who posts the release announcements?": the one who wrote the line, not someone it mentions.
        return ev.author
    known = {a for c in context for a in c.authors if a and " " in a}
    # Where the line names each known person: by full name, or by a first name only one of them has ("On call:
    # Lena (swapped)" names Lena Vogt). A first name that is also a calendar word ("May") is not read as a name, and
    # one after "with" is the other party ("On call this week (swapped with Lena)", written by the one on call).
    by_first: dict[str, set[str]] = {}
    for name in known:
        by_first.setdefault(name.split()[0], set()).add(name)
    named: list[tuple[int, str]] = []
    for name in known:
        if name.lower() in q_low or name.split()[0].lower() in q_low:
            continue
        if name in ev.text:
            named.append((ev.text.find(name), name))
            continue
        first = name.split()[0]
        if len(by_first[first]) == 1 and first.lower() not in _CALENDAR:
            m = re.search(rf"(?<!\w)(?<!\bwith ){re.escape(first)}\b", ev.text)
            if m:
                named.append((m.start(), name))
    if named:
        return min(named)[1]
    mention = re.search(r"@([A-Z][\w.-]*(?: [A-Z][\w-]*)?)", ev.text)
    if mention and mention[1].lower() not in q_low:
        return mention[1]
    return ev.author or ""


def _when(ev: Evidence, *, year: bool = True) -> str:
    if not ev.at_iso:
        return ""
    return _day(datetime.fromisoformat(ev.at_iso), with_time=False, with_year=year)


# --- rendering ------------------------------------------------------------------------------------------------
def _day(at: datetime, *, with_time: bool, with_year: bool) -> str:
    text = f"{at:%a} {at.day} {at:%b}"
    if with_year:
        text += f" {at.year}"
    if with_time:
        text += f", {at:%H:%M} {at.tzname() or 'UTC'}"
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


def _attribution(ev: Evidence, *, with_time: bool = False, with_year: bool = False) -> str:
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


def _render(
    chosen: list[Evidence], head: Sequence[tuple[str, Evidence | None]] = ()
) -> tuple[list[str], dict[int, list[str]], dict[int, str]]:
    """Answer lines first (`head`: the value or a part's answer, each cited), then one quoted line per piece.

    Markers number the quoted units themselves (a message, a comment, a section), in order of appearance, so
    that each `[n]` opens exactly the unit it quotes.
    """
    days = [e.at_iso[:10] for e in chosen if e.at_iso]
    years = {d[:4] for d in days}
    with_time = len(days) != len(set(days))  # same-day lines need the time to read as a timeline
    lines: list[str] = []
    cited: dict[int, list[str]] = {}
    urls: dict[int, str] = {}
    numbers: dict[tuple[str, str], int] = {}

    def marker(ev: Evidence) -> int:
        key = (ev.ref, ev.url)
        if key not in numbers:
            numbers[key] = len(numbers) + 1
            cited[numbers[key]] = [ev.ref]
            urls[numbers[key]] = ev.url
        return numbers[key]

    quoted = {id(ev) for _, ev in head if ev is not None and _quoted_in_head(_, ev)}
    for text, ev in head:
        if ev is None:
            lines.append(text)
        elif id(ev) in quoted:
            lines.append(f"{text} [{marker(ev)}]")
        else:
            attribution = _attribution(ev, with_time=with_time, with_year=len(years) > 1)
            joiner = " " if text.endswith(":") else " — "
            lines.append(f'{text}{joiner}{attribution}: "{_shown(ev)}" [{marker(ev)}]')
    shown = {id(ev) for _, ev in head if ev is not None}
    for ev in chosen:
        if id(ev) in shown:
            continue
        attribution = _attribution(ev, with_time=with_time, with_year=len(years) > 1)
        # Quoted: the evidence is shown as what a source said, never as the answer's own words.
        lines.append(f'- {attribution}: "{_shown(ev)}" [{marker(ev)}]')
    return lines, cited, urls


def _quoted_in_head(text: str, ev: Evidence) -> bool:
    """A head line that already quotes its evidence (the "As of ...: <quote>" form)."""
    return text.endswith('"') and _shown(ev) in text
