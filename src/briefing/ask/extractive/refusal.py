"""Refusal: the calibrated confidence that the context answers, its caps, and why a refused question is refused."""

from __future__ import annotations

import math
from collections.abc import Sequence

from briefing.ask.extractive.coverage import missing_terms
from briefing.ask.extractive.support import role_asked
from briefing.model import Chunk
from briefing.question.answer_type import extra_of
from briefing.question.model import Question

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
# Below this confidence (and above `min_evidence`) the answer is worded as "closest evidence".
HEDGE_BELOW = 0.6
# A question that asks for a number or a date ("How much ...?", "When is ...?") whose best sentences state none
# next to its words is not answered by them, whatever their similarity: "How much did we spend on AWS in July?"
# over a release note's date line. Its confidence is capped below any refusal threshold. So is a question that asks
# which company or organisation when its best lines name none at all (`organisations`): "Which company hired Ana?"
# over "I just got my first full-time job".
VETO_KINDS = frozenset({"number", "time", "organisation"})
VETO_CAP = 0.05
# Off-topic questions ("Which wine goes well with fish?" over a data-engineering Slack) are refused whatever the
# linear score: the words that name their topic are in no indexed source, and the sentences retrieved for the
# rest (everyday words: "goes", "well", "small", "rule") are not about the question. Two forms, both requiring at
# least one topic word that no source holds (so the refusal can name it) and a low best sentence similarity:
# - at least OFF_TOPIC_ABSENT of the topic words are in no indexed source and no sentence reaches OFF_TOPIC_DENSE;
# - every topic word is absent or rare (at most `coverage.RARE_CHUNKS` chunks) and no sentence reaches
#   OFF_TOPIC_RARE_DENSE.
# Measured on eval/offtopic_probes.jsonl and the dev sets (docs/answering.md, "Off-topic questions").
OFF_TOPIC_ABSENT = 0.5
OFF_TOPIC_DENSE = 0.3
OFF_TOPIC_RARE_DENSE = 0.4
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


# The features that cap the confidence whatever the linear score (`subject_miss`: a fix question whose lead line
# is in a conversation about another problem, `aboutness`).
CAPS = ("typed_miss", "off_topic", "head_miss", "subject_miss")


def confidence(features: dict[str, float]) -> float:
    weights = CALIBRATION if "vocab_unknown" in features else CALIBRATION_WITHOUT_VOCABULARY
    z = weights["bias"] + sum(w * features.get(k, 0.0) for k, w in weights.items() if k != "bias")
    p = 1.0 / (1.0 + math.exp(-z))
    return min(p, VETO_CAP) if any(features.get(k) for k in CAPS) else p


def unsupported(features: dict[str, float]) -> bool:
    """Whether a part of a two-part question lacks support of its own: its value, role or item is not in its best
    lines, the thing it asks for is in no source, a name it uses is in no context chunk, or its period is empty."""
    keys = ("typed_miss", "off_topic", "head_miss", "missing_named", "window_empty")
    return any(features.get(k) for k in keys)


def refusal_reason(
    question: Question, features: dict[str, float], unknown: Sequence[str], context: Sequence[Chunk] = ()
) -> str:
    """Why the question is refused, in words: the value the best lines lack, or the words no source holds (first
    for an off-topic question: its topic, not a missing number, is what the sources lack), or the names the
    question uses that none of the closest sources (`context`) holds."""
    if features.get("off_topic") and unknown:
        return "no indexed source mentions " + " or ".join(f"'{w}'" for w in unknown[:3])
    if (features.get("value_miss") or features.get("head_miss")) and unknown:
        # A word no source holds says more than the missing value shape ("no indexed source mentions 'cassandra'").
        return "no indexed source mentions " + " or ".join(f"'{w}'" for w in unknown[:3])
    if features.get("item_miss"):
        # Not the item's own words: under an access scope a refusal must not name them.
        return "the closest sources are not about the item the question names"
    if features.get("typed_miss"):
        return _veto_reason(question, features)
    if unknown:
        return "no indexed source mentions " + " or ".join(f"'{w}'" for w in unknown[:3])
    missing = missing_terms(question, context) if context and features.get("missing_named") else []
    if missing:
        # The context is what this reader may see, so naming what it lacks speaks for no other source.
        return "the closest sources do not name " + " or ".join(f"'{w}'" for w in missing[:3])
    if features.get("subject_miss"):
        if features.get("subject_release"):
            return "the closest release notes are about other changes"
        return "the closest sources are about a different problem"
    return ""


_HELD = {
    "review": "reviewed",
    "approve": "approved",
    "merge": "merged",
    "sign": "signed off",
    "own": "maintains or owns",
}


def _veto_reason(question: Question, features: dict[str, float]) -> str:
    kind = question.answer_type
    role = role_asked(question)
    if role:
        return f"the closest sources do not say who {_HELD[role]} it"
    # The value shape named by the check that fired; the question's own words are not repeated (under an access
    # scope a refusal must not name them).
    money = extra_of(question)["money"]
    shape = extra_of(question)["value_shape"] if features.get("value_miss") else ""
    shape = "issue or PR number" if shape == "reference" else shape
    shape = "amount" if shape == "rate" and money else shape  # "cost per month": an amount
    if kind == "organisation" and not shape:
        return "the closest sources name no organisation for what is asked"
    value = shape or ("amount" if money else ("date" if kind == "time" else "number"))
    return f"the closest sources state no {value} for what is asked"


# What each signal that lowers the confidence says, in words, for the trace (`signals`).
_SIGNALS = {
    "off_topic": "the question's topic is in no indexed source",
    "head_miss": "no indexed source holds the thing asked for",
    "typed_miss": "the best lines state no value of the kind asked next to the question's words",
    "item_miss": "the closest sources are not about the item the question names",
    "subject_miss": "the lead line's conversation is about another problem",
    "missing_named": "a name the question uses is in none of the closest sources",
    "window_empty": "nothing in the closest sources is from the asked period",
    "vocab_unknown": "some question words are in no indexed source",
}


def signals(features: dict[str, float]) -> list[str]:
    """The signals that lowered the confidence of an answer (`features` as the trace holds them), in words."""
    return [words for name, words in _SIGNALS.items() if features.get(name)]
