"""The extractive answerer: score a question's evidence, refuse or answer, and compose the cited lines."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from briefing.ask.extractive.aboutness import CAPPED, similarity, subject_class, subject_miss
from briefing.ask.extractive.acts import unsaid_lead
from briefing.ask.extractive.contentless import contentless_gives_way
from briefing.ask.extractive.coverage import unknown_words
from briefing.ask.extractive.disagreement import disagreeing, holders_asked, with_sides
from briefing.ask.extractive.evidence import (
    SENTENCE_MAX_CHARS,
    Evidence,
    ExtractiveAnswer,
    candidates,
    sentence_text,
)
from briefing.ask.extractive.exchanges import addressed_reply_leads
from briefing.ask.extractive.extractors import answer_span
from briefing.ask.extractive.features import question_features, with_off_topic, workspace_features
from briefing.ask.extractive.openings import (
    asker_gives_way,
    earliest_reply_lead,
    matched_thread_lead,
    opening_gives_way,
    opening_reply_lead,
    restated_item_lead,
    restated_thread_lead,
    starter_gives_way,
)
from briefing.ask.extractive.outcome import (
    as_of_day,
    last_word,
    leading,
    named_item_latest,
    named_only,
    outcome_first,
    spread_messages,
    state_first,
    titled_only,
)
from briefing.ask.extractive.part_answers import answer_parts
from briefing.ask.extractive.quoting import add_items, add_neighbours, read_on, shown
from briefing.ask.extractive.ranking import openers_lead, rerank
from briefing.ask.extractive.refusal import (
    HEDGE_BELOW,
    VETO_CAP,
    confidence,
    refusal_reason,
)
from briefing.ask.extractive.releases import release_leads
from briefing.ask.extractive.render import attribution, render
from briefing.ask.extractive.salience import rank_by_centrality, whole_summary, worded
from briefing.ask.extractive.scoring import score_sentences, word_weights
from briefing.ask.extractive.selection import (
    LATEST_WITH_VALUE,
    LEAD_KINDS,
    latest,
    payload,
    same_document,
    select,
    typed_lead,
)
from briefing.ask.extractive.windowed import INSIDE_CLOSE, in_window, outside_lead, window_from_scope
from briefing.ask.learned import apply as learned
from briefing.ask.learned.model import AnswerModel
from briefing.ask.vocabulary import Spread, Vocabulary
from briefing.embed import Embedder
from briefing.model import Chunk
from briefing.question.acts import asks_closed_item
from briefing.question.answer_type import extra_of
from briefing.question.model import Question
from briefing.question.terms import GENERIC
from briefing.question.timewindow import local_window
from briefing.question.words import ASKS_OUTCOME
from briefing.textrules import refusal

if TYPE_CHECKING:
    from briefing.ask.rescoring import SentenceRescorer
    from briefing.view import View

# Answer types a line that says nothing may still answer: its writer or time ("Who approved it?"), or its "LGTM"
# (a yes/no or status question).
WRITER_ANSWERS = frozenset({"person", "time", "yesno", "yes_no", "status"})


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
        model: AnswerModel | None = None,
        learned_refusal: bool = True,
        aboutness: Sequence[str] = CAPPED,
        windowed: bool = True,
        inside_close: float = INSIDE_CLOSE,
    ) -> None:
        # `[answer] ranker = "learned"`: the trained ranker and refusal model replace the hand-set sentence weights,
        # the reranking rules and the fitted confidence (`briefing.ask.learned`); None: the rules.
        self.model = model
        self.learned_refusal = learned_refusal and model is not None  # else the fitted confidence decides
        self.embedder = embedder
        self.rescorer = rescorer  # a second model's reading of the best lines (`ask.rescoring`), or None
        self.vocabulary = vocabulary  # the workspace's word spread (index-wide), for the confidence
        self.zone = ZoneInfo(timezone)  # answers name days and times in the workspace's zone
        self.pool = pool
        self.min_evidence = min_evidence
        self.max_sentences = max_sentences
        self.hedge_below = hedge_below
        self.whole_below = whole_below
        self.aboutness = frozenset(aboutness)  # the question classes the subject cap refuses (`aboutness`)
        self.windowed = windowed  # a timeline and a hedged answer are drawn from the asked window too
        self.inside_close = inside_close  # an asked window's line with no question word answers this close to the best

    def candidates(self, context: Sequence[Chunk]) -> list[Evidence]:
        return candidates(context, self.zone, self.whole_below)

    def _reads(self, view: View | None) -> View | None:
        """The view the answerer reads the index through: none without the workspace's vocabulary (an answerer
        built without an index, or `[retrieval] sparse = false`, answers from the context alone)."""
        return view if self.vocabulary is not None else None

    def question_spread(self, question: Question, view: View | None) -> dict[str, Spread]:
        """Where the question's topic words occur in the workspace as `view` sees it (empty without one)."""
        reads = self._reads(view)
        if self.vocabulary is None or reads is None:
            return {}
        return self.vocabulary.spread(extra_of(question)["topic_words"], view=reads)

    def score(
        self,
        question: Question,
        evidence: list[Evidence],
        context: Sequence[Chunk],
        *,
        window: tuple[datetime, datetime] | None = None,
        spread: dict[str, Spread] | None = None,
        view: View | None = None,
    ) -> dict[str, float]:
        """Score every sentence; return the question-level features the confidence is computed from. `window` is
        the time the answer is about; `spread` the question's word spread (`question_spread`) when the caller has
        it already, else it is looked up through `view`."""
        reads = self._reads(view)
        if spread is None:
            spread = self.question_spread(question, reads)
        words = word_weights(question, context)
        vectors = score_sentences(question, evidence, context, words, self.embedder, pool=self.pool, window=window)
        probabilities: list[float] = []
        if self.model is None:
            rerank(question, evidence)
        else:
            # The learned ranker re-scores the rules' order (the rules, places and people first included, run
            # inside it) with its general features.
            probabilities = learned.rank(self.model, question, evidence, window)
        features = question_features(question, evidence, context, words, window)
        features.update(self._subject(question, evidence))
        if self.model is not None:
            features.update(learned.best_two(probabilities))
        if reads is not None:
            features.update(workspace_features(question, context, words, vectors, spread, self.embedder, reads))
        return with_off_topic(features)

    def _subject(self, question: Question, evidence: Sequence[Evidence]) -> dict[str, float]:
        """For a question of a class the answerer caps (`aboutness.subject_class`, `[answer] aboutness`): how close
        the lead line's conversation subject is to it, its class (`subject_<class>`), and whether it is about
        another problem (`subject_miss`, a cap). A two-part question is checked part by part (`part_answers`): the whole
        of it names two subjects, and a cap on the whole would let no other part through."""
        found = subject_class(question, tuple(self.aboutness))
        if found not in self.aboutness:
            return {}
        near = similarity(found, question, evidence, self.embedder)
        return {"lead_subject": near, "subject_" + found: 1.0, "subject_miss": float(subject_miss(near, found))}

    def answer(
        self, question: Question, context: Sequence[Chunk], *, scope: str = "", view: View | None = None
    ) -> ExtractiveAnswer:
        """Answer `question` from `context` (rank order): its time window favours evidence from then, the people it
        names (their messages, the replies to them and mentions of them) and the places it names count first.
        `scope` words a refusal (and gives the window when the question has none); `view` is how the answerer
        reads the workspace's vocabulary and the rest of a quoted document."""
        asked = extra_of(question)
        intent = question.intent
        now = question.now
        evidence = self.candidates(context)
        time = question.window
        # In the workspace's zone: a day a line names is that zone's day, like the asked window's days.
        window = (
            local_window((time.start, time.end), self.zone) if time is not None else window_from_scope(scope, self.zone)
        )
        spread = self.question_spread(question, view) if evidence else {}
        features = self.score(question, evidence, context, window=window, spread=spread, view=view) if evidence else {}
        evidence.sort(key=lambda e: (-e.score, e.n))
        best = evidence[0].score if evidence else 0.0
        conf = self.confidence(features) if evidence else 0.0
        broad = intent in {"what_happened", "summary"}
        if broad and question.keys and evidence and not features.get("item_miss"):
            # A summary of an item the sources hold is answerable however its words score: its key may be all the
            # question says of it ("What were the main points raised in #41?").
            if whole_summary(question, named_only(question, evidence)):
                conf = max(conf, self.hedge_below)
        features["confidence"] = conf
        split: tuple[list[Evidence], list[tuple[str, Evidence | None]], bool] | None = None
        if not broad and evidence and len(question.parts) > 1:
            # A two-part question is answered part by part; it is refused only when no part is covered.
            split = answer_parts(self, question, evidence, context, window=window, view=view, whole=conf)
            if split[0]:
                conf = max(conf, self.hedge_below)
        if not evidence or conf < self.refuse_below():
            reads = self._reads(view)
            # A refusal names the question's words no source holds, but not under an access scope: "no indexed
            # source mentions X" would speak for sources this reader may not see (the word may be in one of them).
            # Under a scope it names no word of the question at all, not even the names its context lacks.
            scoped = view is not None and view.readers is not None
            unknown = unknown_words(question, spread, context) if reads is not None and not scoped else []
            return ExtractiveAnswer(
                text=refusal(scope, refusal_reason(question, features, unknown, () if scoped else context)),
                no_answer=True,
                best_score=best,
                evidence=evidence[:5],
                confidence=conf,
                features=features,
            )
        # The refusal is decided on MiniLM's scores (above); the second model only reorders the best lines.
        newest_asked = intent == "latest" or asked["latest"]
        if not (newest_asked and self.rescorer is not None and self.rescorer.skip_latest) and self.rescore(
            question, evidence
        ):
            evidence.sort(key=lambda e: (-e.score, e.n))
        hedged = conf < self.hedge_below
        kind = asked["span_kind"]
        # The question's words: what a neighbouring line or list item must add to be read on (`add_neighbours`).
        q_words = set(asked["words"]) - GENERIC
        # "What problem was raised in #help?" is answered by the report itself, unless it asks how it was fixed.
        if asked["asks_report"]:
            openers_lead(evidence)
            evidence.sort(key=lambda e: (-e.score, e.n))
        # The issue a change closes is named by the change's own description ("Closes #516"), not by a reply to it.
        replies_first = (
            not asked["about_asking"]
            and not asked["asks_report"]
            and question.answer_type != "person"
            and not asks_closed_item(question)
        )
        choose = partial(
            select,
            max_sentences=self.max_sentences,
            rescorer=self.rescorer,
            skip_holding=not asked["about_asking"],
            replies_first=replies_first,
        )
        head: list[tuple[str, Evidence | None]] = []
        differ: list[tuple[str, Evidence]] = []
        # A question that names a past time is answered from then (`windowed.in_window`), a timeline too.
        pool, outside = in_window(evidence, window, now, close=self.inside_close)
        wide = pool if self.windowed else evidence
        if split is not None:
            chosen, head, outside = split
            lead = ""
        elif hedged:
            chosen = choose(wide, broad=broad, hedged=hedged)
            lead = "The sources do not answer this directly; the closest evidence:"
        elif broad:
            # A timeline of an item the question names (by key or by title) is that item's.
            about = titled_only(question, named_only(question, wide))
            if whole_summary(question, about):
                # A summary of the conversation as a whole: its central lines, not those nearest the key's words.
                about = worded(about)
                rank_by_centrality(about, self.embedder)
                about.sort(key=lambda e: (-e.score, e.n))
            chosen = choose(about, broad=True, hedged=False)
            # A timeline of one item quotes each of its messages once (`outcome.spread_messages`) and ends with its
            # last word, how it ended (`outcome.last_word`).
            chosen = spread_messages(chosen, about)
            chosen = last_word(chosen, wide, self.max_sentences)
            chosen.sort(key=lambda e: e.at_iso or "")
            lead = "In time order:"
        elif newest_asked:
            kind = asked["latest_kind"]
            chosen = latest(wide, kind, now, names=asked["named"])
            # Of an item the question names, its latest message that states something is where it stands.
            if not kind:
                chosen = leading(named_item_latest(question, wide), chosen)
            newest = chosen[0]
            at = as_of_day(newest, now)  # a state record speaks for the latest day it states
            span = answer_span(question, kind, newest, context)
            stated = f"As of {at}: " if at else ""
            add_neighbours([newest], evidence, q_words)
            add_items([newest], q_words)
            quote = f'{attribution(newest)}: "{shown(newest)}"'
            head = [(f"{stated}{span}" if span else f"{stated}{quote}", newest)]
            if span and kind:
                # The newest statement of the asked value answers it; older ones are history, not evidence.
                chosen = chosen[:LATEST_WITH_VALUE]
            lead = ""
        else:
            if replies_first:
                opening_reply_lead(pool)
                starter_gives_way(pool, fix=asked["asks_fix"])
                addressed_reply_leads(pool, fix=asked["asks_fix"])
                remedy = asked["asks_fix"] and not asked["asks_cause"] and not question.people
                opening_gives_way(pool, fix=asked["asks_fix"], remedy=remedy)
                earliest_reply_lead(pool)
                matched_thread_lead(pool)
                restated_thread_lead(pool, q_words)
                restated_item_lead(pool, q_words, fix=asked["asks_fix"])
            elif asked["asks_answerer"]:
                # "Who answered the question about X?": a reply by someone other than the asker leads whatever its
                # words, in a channel (`addressed_reply_leads`) and in a thread or an item (`asker_gives_way`).
                addressed_reply_leads(pool, fix=True)
                asker_gives_way(pool)
            release_leads(question, pool)
            # A lead that says nothing of its own ("Thanks!", a mail's envelope) gives way (`WRITER_ANSWERS`).
            if not {kind, question.answer_type} & WRITER_ANSWERS:
                contentless_gives_way(pool, q_words)
            chosen = choose(pool, broad=False, hedged=False)
            if not kind and ASKS_OUTCOME.search(question.text):
                chosen = outcome_first(chosen, pool)  # how the item ended leads (`outcome.outcome_first`)
            chosen = state_first(question, chosen, pool)  # "Is X fixed?": X's state leads
            top = chosen[0]
            span = "" if payload(top) else answer_span(question, kind, top, context)
            if not span and kind in LEAD_KINDS:
                chosen, top, span = typed_lead(question, kind, chosen, pool, context)
            chosen = same_document(question, chosen, pool)
            differ = disagreeing(question, kind, top, pool, context, now) if span else []
            if differ:
                # The best sources state different values for what is asked: each is shown, cited, newest first.
                chosen = with_sides(chosen, differ)
            elif span:
                head = [(span, top)]
            lead = ""
        if outside and self.windowed and time is not None:
            # Lines from another time are not presented as the asked window's.
            lead = outside_lead(chosen, time.label, (time.start, time.end)) or lead
        add_neighbours(chosen, evidence, q_words)
        add_items(chosen, q_words)
        read_on(chosen, context, self._reads(view))
        lines, cited, urls = render(chosen, head, differ, holders=bool(differ) and holders_asked(question, kind))
        if split is None and not lead:
            lead = unsaid_lead(question, chosen)
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

    def confidence(self, features: dict[str, float]) -> float:
        """P(the context answers): the learned refusal model's, or the fitted logistic confidence of the rules; the
        workspace-vocabulary caps (an off-topic question, an asked thing no source holds) apply to both."""
        if self.model is None or not self.learned_refusal:
            return confidence(features)
        p = learned.confidence(self.model, features)
        return min(p, VETO_CAP) if features.get("off_topic") or features.get("head_miss") else p

    def refuse_below(self) -> float:
        return self.model.threshold if self.model is not None and self.learned_refusal else self.min_evidence

    def rescore(self, question: Question, evidence: list[Evidence]) -> bool:
        """Whether the second model read (and moved) the best lines of `evidence`."""
        if self.rescorer is None or not evidence:
            return False
        return bool(self.rescorer.rescore(question.text, evidence, sentence_text, max_chars=SENTENCE_MAX_CHARS))
