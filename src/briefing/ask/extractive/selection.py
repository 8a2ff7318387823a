"""Which ranked lines the answer quotes: the best, the runner-ups that add evidence, the newest."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from briefing.ask.extractive.evidence import Evidence, presentation
from briefing.ask.extractive.extractors import answer_span
from briefing.ask.extractive.quoting import shown
from briefing.ask.extractive.ranking import help_threads, holding
from briefing.ask.extractive.values import VERSION, values
from briefing.ask.segment import clean
from briefing.model import Chunk
from briefing.question.answer_type import extra_of
from briefing.question.model import Question
from briefing.question.terms import GENERIC, content_words

if TYPE_CHECKING:
    from briefing.ask.rescoring import SentenceRescorer
    from briefing.question.parts import Part

BROAD_CUTOFF = 0.6
FACT_CUTOFF = 0.8
FACT_LINES = 3
# ... of which only the first two may open a new source: the third line only reads on in a source already quoted
# (a third source was more often off the point than not).
FACT_NEW_SOURCES = 2
# A runner-up from another conversation or document is cited only when it adds evidence for the question: it
# scores within this share of the best line, or states the asked kind of value, or is by (or about) a person the
# question names (docs/answering.md, "Citations"). Holding a question word the lines before it lack is not enough:
# on the train halves such runner-ups were the gold unit once in six.
RUNNER_CLOSE = 0.9
LATEST_CUTOFF = 0.8
# A line holding a value of the asked kind is a candidate down to this share of the best score.
LATEST_VALUE_CUTOFF = 0.6
LATEST_VALUE_KINDS = frozenset({"version"})
LATEST_WITH_VALUE = 1
# A number, setting or version question whose best line states no such value is led by the best line close to it
# that states one next to the question's words (the size "512 MB" over a PR list that names the writer).
LEAD_KINDS = frozenset({"number", "version"})
TYPED_LEAD_CUTOFF = 0.75
# A fact answer led by a document's paragraph also quotes the best other paragraph of that document that holds
# question words the lines shown lack, down to this share of the best score: one more line, no new ref cited.
SAME_DOC_CUTOFF = 0.6
# Unit text: a pasted JSON payload ("name": "tst", "last_run_time": ...) is data someone showed, not a stated value.
_PAYLOAD_KEY = re.compile(r"\"[\w.-]+\"\s*:")


def payload(ev: Evidence) -> bool:
    return len(_PAYLOAD_KEY.findall(ev.text)) >= 2


def select(
    ranked: list[Evidence],
    *,
    broad: bool,
    hedged: bool,
    max_sentences: int,
    rescorer: SentenceRescorer | None = None,
    skip_holding: bool = True,
    replies_first: bool = False,
) -> list[Evidence]:
    """The best sentence, then close runners-up that add evidence (`adds_evidence`). With `replies_first`, a
    help thread's starter is quoted only when no reply of that thread is close (`_replies_first`)."""
    best = ranked[0].score
    limit = 2 if hedged else (max_sentences if broad else min(FACT_LINES, max_sentences))
    # A timeline is about the period more than the wording: everything close to the best line belongs.
    cutoff = min(best * BROAD_CUTOFF, best - 0.15) if broad else best * FACT_CUTOFF
    # A holding reply ("thanks for reporting, we will check") states nothing: it is quoted only when no line
    # close to the best one says something.
    pool = [e for e in ranked if e.score >= cutoff]
    stating = [e for e in pool if not holding(e)] if skip_holding else pool
    if replies_first:
        stating = _replies_first(stating, ranked)
    chosen: list[Evidence] = []
    for ev in stating or pool[:1] or ranked[:1]:
        if len(chosen) >= limit:
            break
        if redundant(ev, chosen):
            continue
        if not broad and len(chosen) >= FACT_NEW_SOURCES and all(c.ref != ev.ref for c in chosen):
            continue
        if not broad and not _earns_citation(ev, chosen, ranked, rescorer):
            continue
        if not broad and chosen and not adds_evidence(ev, chosen, best):
            continue
        chosen.append(ev)
    return _with_continuations(chosen, ranked)


def _earns_citation(
    ev: Evidence, chosen: Sequence[Evidence], ranked: Sequence[Evidence], rescorer: SentenceRescorer | None
) -> bool:
    """A runner-up of another unit is quoted only when the second model reads it close to the best line it
    read (`SentenceRescorer.cite_margin`); always without a rescorer or a margin."""
    if rescorer is None or not chosen or any(c.n == ev.n and c.unit == ev.unit for c in chosen):
        return True
    read = [e.second for e in ranked if e.second is not None]
    return not read or rescorer.keeps(max(read), ev)


def adds_evidence(ev: Evidence, chosen: Sequence[Evidence], best: float) -> bool:
    """Whether runner-up `ev` earns a line and a citation after `chosen`. A line of a conversation (a Slack thread,
    a ticket) or a document already quoted always may: it continues the evidence the answer leads with. A line from
    elsewhere that is merely on the topic ("(as per kafka's retention policy)" from another thread, the release
    that came before) is left out."""
    if any(ev.chunk.doc_key == c.chunk.doc_key or ev.ref == c.ref for c in chosen):
        return True
    return ev.score >= best * RUNNER_CLOSE or bool(ev.typed) or ev.person > 0


def _replies_first(pool: list[Evidence], ranked: Sequence[Evidence]) -> list[Evidence]:
    """`pool` without the starter's lines of each help thread (`help_threads`) that also has a reply by someone
    else in `pool`: the report describes the problem and the reply answers it, so the reply leads and the report,
    which only restates the question, is not cited next to it."""
    threads = help_threads(list(ranked))
    answered = {
        e.chunk.doc_key
        for e in pool
        if e.author and e.chunk.doc_key in threads and threads[e.chunk.doc_key] != e.author
    }
    return [e for e in pool if not (e.author and e.chunk.doc_key in answered and threads[e.chunk.doc_key] == e.author)]


def redundant(ev: Evidence, chosen: Sequence[Evidence]) -> bool:
    if any(len(ev.words & c.words) / max(len(ev.words | c.words), 1) > 0.6 for c in chosen):
        return True
    return any(c.n == ev.n and c.unit == ev.unit for c in chosen)  # one line per message or paragraph


def _with_continuations(chosen: list[Evidence], ranked: Sequence[Evidence]) -> list[Evidence]:
    """A chosen line that ends announcing what follows ("so this week's poll:") is quoted with the next message
    of its chunk, as a line and a citation of its own (the poll, by the poll app)."""
    out = list(chosen)
    for ev in chosen:
        if not clean(ev.quote).rstrip().endswith(":"):
            continue
        nxt = next((e for e in ranked if e.n == ev.n and e.unit == ev.unit + 1), None)
        if nxt is not None and not any(c.n == nxt.n and c.unit == nxt.unit for c in out):
            out.insert(out.index(ev) + 1, nxt)
    return out


def after(ev: Evidence, now: datetime | None) -> bool:
    """Stated after the question's now (an index that holds later messages than the question is asked at)."""
    if now is None or not ev.at_iso:
        return False
    at = datetime.fromisoformat(ev.at_iso)
    if at.tzinfo is None or now.tzinfo is None:
        at, now = at.replace(tzinfo=None), now.replace(tzinfo=None)
    return at > now


# Line text: a version and the word written right before it, which names whose version it is when capitalised
# ("OLake Helm v0.0.24", "Dirac 1.2.29"; "Tag v0.9.4" and "merged: v0.9.3" name no product).
_VERSIONED = re.compile(r"([A-Za-z][\w-]*)[\s:]+v?\d+\.\d+")
# Words before a version that name no product ("Tag v0.9.4", "release 0.7.0", "in 0.9.1").
_NO_PRODUCT = frozenset(
    "tag tags release releases released version versions build builds v and or to from in of the a an on at is "
    "was be since until before after with for by new latest newest current".split()
)


def others_version(ev: Evidence, names: Sequence[str]) -> bool:
    """Whether the line states the version of something other than `names` and none of theirs: a version written
    after a word that names another product ("OLake Helm v0.0.24" when the question names OLake Workers), none
    after one of `names` ("Tag v0.9.4" and "go version 1.25.13" name no product)."""
    owners = {m[1].lower() for m in _VERSIONED.finditer(ev.text) if m[1][0].isupper()} - _NO_PRODUCT
    named = {n.lower() for n in names}
    return bool(owners) and not owners & named


def latest(ranked: list[Evidence], kind: str, now: datetime | None = None, names: Sequence[str] = ()) -> list[Evidence]:
    """Newest first among the lines that state the state: close to the best score and, when the question asks
    for a value (a version, a number), holding one. A line that states the asked value is a candidate further
    down (`LATEST_VALUE_CUTOFF`): the newest tag reads "Tag v0.9.4 at commit ...", which scores below the
    announcement of the tag before it. Nothing stated after the question's `now` counts. When the question
    `names` what it asks the state of ("the newest OLake Workers release"), a line that states only other
    products' versions is no candidate (`others_version`): several products announce releases in the same
    channel, and the newest of another product is not the answer."""
    best = ranked[0].score
    names = [n for n in names if not VERSION.fullmatch(n)]
    stated = [e for e in ranked if e.lexical > 0 and not after(e, now)]
    pool = [e for e in stated if e.score >= best * LATEST_CUTOFF]
    if kind in LATEST_VALUE_KINDS:
        wide = [e for e in stated if e.score >= best * LATEST_VALUE_CUTOFF and values(kind, e.text, "")]
        pool = wide or [e for e in pool if e.typed] or pool
    elif kind:
        pool = [e for e in pool if e.typed] or pool
    if names and any(others_version(e, names) for e in pool):
        # Another product's lines are no candidates; the named product's are, however far down they rank.
        own = [e for e in pool if not others_version(e, names)]
        further = [
            e
            for e in stated
            if not others_version(e, names) and (kind not in LATEST_VALUE_KINDS or values(kind, e.text, ""))
        ]
        pool = own or further or pool
    pool = pool or [e for e in ranked if not after(e, now)][:1] or ranked[:1]
    pool.sort(key=lambda e: (e.at_iso or "", e.score), reverse=True)
    chosen: list[Evidence] = []
    for ev in pool:
        if len(chosen) >= FACT_LINES:
            break
        if not redundant(ev, chosen):
            chosen.append(ev)
    return chosen


def typed_lead(
    question: Question, kind: str, chosen: list[Evidence], ranked: Sequence[Evidence], context: Sequence[Chunk]
) -> tuple[list[Evidence], Evidence, str]:
    """The chosen lines led by the best line within TYPED_LEAD_CUTOFF of the top that states a value of `kind` next
    to a question word, with that value; unchanged (and no value) when none does."""
    top = chosen[0]
    for ev in ranked:
        if ev.score < top.score * TYPED_LEAD_CUTOFF:
            break
        if ev is top or ev.lexical <= 0 or holding(ev) or payload(ev):
            continue
        span = answer_span(question, kind, ev, context)
        if span:
            rest = [e for e in chosen if not (e.n == ev.n and e.unit == ev.unit)]
            return [ev, *rest][: max(len(chosen), 1)], ev, span
    return chosen, top, ""


def same_document(question: Question, chosen: list[Evidence], ranked: Sequence[Evidence]) -> list[Evidence]:
    """`chosen` and, for a document's answer, one more paragraph of the same document (see SAME_DOC_CUTOFF)."""
    top = chosen[0]
    if presentation(top.chunk).conversational:
        return chosen
    q_words = set(extra_of(question)["words"]) - GENERIC
    have = set().union(*(content_words(shown(e)) for e in chosen))
    for ev in ranked:
        if ev.score < top.score * SAME_DOC_CUTOFF:
            break
        if ev.ref != top.ref or any(c.n == ev.n and c.unit == ev.unit for c in chosen):
            continue
        if (q_words & ev.words) - have:
            return [*chosen, ev]
    return chosen


def newest_part(scored: list[Evidence], part: Part, question: Question) -> Evidence | None:
    """For a part of `question` that asks for the newest state in its own words ("What is its newest version, and
    ...?"), the line `latest` takes from the part's evidence (`scored`, best first), about the names the part is
    scored with (a statement said first names them: "We run OLake Go. What is its newest version, and ...?");
    None for any other part."""
    answered = part.as_answered(question)
    asked = extra_of(answered)
    if not scored or not asked["latest"]:  # the part's own words ask it, not the whole question's intent
        return None
    names = extra_of(part.as_scored(question))["named"]
    return latest(scored, asked["latest_kind"], question.now, names=names)[0]
