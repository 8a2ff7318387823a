"""What a question asks for: the shape of the value (answer type), the thing asked about, a person's role, parts."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypedDict, cast

from briefing.question import asked, cues, shape
from briefing.question.parts import Part, part_queries, question_parts
from briefing.question.terms import ordered_content_words
from briefing.question.value_kind import asks_cause, value_kind
from briefing.question.words import SUMMARY_SHAPE

if TYPE_CHECKING:
    from briefing.question.constraints import Constraints
    from briefing.question.model import Question

# Question text: the words that say what kind of value the answer is (a number, a time, a person, a version, a
# setting; "how long ago" asks when, not for a number), and a yes/no question that offers no alternative ("Is X
# enabled?", not "Is it X or Y?").
_ASKS_NUMBER = re.compile(
    r"\bhow\s+(?:many|much|long(?!\s+ago)|big|large|fast|slow|often|bad|high|low|far)\b|\b(?:what|which)\s+(?:[\w-]+\s+)?"
    r"(?:percentage|size|number|limit|rate|latency|count|timeout|interval|factor|threshold|amount|cost|price)\b"
    r"|\bby\s+how\b|\bby\s+(?:roughly\s+)?what\s+factor\b",
    re.I,
)
_ASKS_TIME = re.compile(
    r"^\W*when\b|\bwhen\s+(?:did|was|is|were|will|does|do)\b|\bwhat\s+(?:date|time|day)\b|\bhow\s+long\s+ago\b", re.I
)
_ASKS_PERSON = re.compile(r"^\W*(?:who|whom|whose)\b|\bwho\b", re.I)
_ASKS_VERSION = re.compile(r"\b(?:which|what)\s+(?:\w+\s+){0,5}?(?:version|release)s?\b|\bversion\s+(?:of|is)\b", re.I)
_ASKS_SETTING = re.compile(
    r"\b(?:which|what)\s+(?:\w+\s+){0,3}?(?:setting|flag|property|option|parameter|config(?:uration)?\s+key|"
    r"key|variable|field|env(?:ironment)?\s+var\w*)s?\b",
    re.I,
)
# "Which company / organisation / vendor ...": the answer names an organisation (not "which customer", who is often
# a person).
_ASKS_ORGANISATION = re.compile(
    r"\b(?:which|what)\s+(?:[\w-]+\s+){0,2}?(?:compan(?:y|ies)|organi[sz]ations?|vendors?|firms?|employers?|"
    r"startups?|universit(?:y|ies)|banks?|agenc(?:y|ies)|institutions?|businesses)\b",
    re.I,
)
# "Which engineer / person / developer <did> ... ?" at the start of a question asks for a person, whatever the verb;
# the noun must be followed by a verb (a past form, an auxiliary, a common irregular one), so "What developer tools
# do we use?" asks for tools. Nouns that name a role ("Which reviewers ...") are read with their role
# (`asked.asks_role_holders`).
_ASKS_BY_PERSON_NOUN = re.compile(
    r"^\W*(?:which|what)\s+(?:\w+\s+)?(?:person|people|engineers?|developers?|contributors?|teammates?|"
    r"colleagues?)\s+(?=\w+ed\b|(?:is|was|are|were|has|have|had|did|does|do|will|can|could|"
    r"should|would|knows?|owns?|wrote|writes|made|makes|took|takes|gave|led|leads|runs?|ran|broke|built|sent|said|"
    r"asked|found|set|got|brought)\b)",
    re.I,
)
_ASKS_POLAR = re.compile(
    r"^\W*(?:is|are|was|were|does|do|did|can|could|will|would|should|has|have|had)\b(?!.*\b(?:or)\b)", re.I
)


def answer_type(question: str, intent: str) -> str:
    """What the answer is: a version, a setting, a number, a time, a person, an organisation, or (empty) a
    statement."""
    if asked.asks_role_holders(question):
        return "person"  # "Which engineers approved the 2.0 release?" asks for people, not the release
    if _ASKS_ORGANISATION.search(question):
        return "organisation"
    if _ASKS_BY_PERSON_NOUN.search(question):
        return "person"  # "Which engineer fixed the export?", "Which person closed it?"
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


# Question text: a question word anywhere in it.
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


def answer_kind(question: str, intent: str) -> str:
    """`answer_type`, or "yesno" for a polar question ("Does the UI need internet access ...?"): the value the
    answer's first line states."""
    kind = answer_type(question, intent)
    if kind == "person" and intent != "who" and _relative_who(question):
        # "Which starter issues were offered to the newcomer who asked ...?" asks for the issues, not a person.
        return ""
    if not kind and _ASKS_POLAR.search(question):
        return "yesno"
    return kind


def intent_of(part: str, intent: str) -> str:
    """The intent of one part of a two-part question: who or when by its own words, else the whole's."""
    if _ASKS_PERSON.search(part):
        return "who"
    if _ASKS_TIME.search(part):
        return "when"
    return "fact" if intent in {"who", "when"} else intent


class Extra(TypedDict):
    """The detector outputs a `Question` carries in `extra`, by name (the answer stage reads them)."""

    words: tuple[str, ...]  # the question's content words, in its order (`terms.ordered_content_words`)
    commits: frozenset[str]  # those of its words that are commit hashes
    span_kind: str  # the value the first answer line states (`answer_kind`: the answer type, or "yesno")
    latest_kind: str  # the value a latest-state answer states (a version for "the newest tag")
    value_kind: str  # the extractor of that value (`value_kind`: span_kind, or duration, amount, status, link)
    value_shape: str  # the value shape the best lines must state (`shape.value_asked`)
    amount_word: str  # the money word an amount question asks for ("budget")
    product: frozenset[str]  # the product whose version is asked ("debezium")
    number_shape: str  # factor, percent or rate: the shape a number must have
    counted_nouns: frozenset[str]  # what "how many X" counts
    value_anchors: frozenset[str]  # the words the asked value must stand next to
    money: bool  # asks about money
    asks_past: bool  # "when was / did ...": the message's own date answers it
    asks_time: bool  # asks when, or for a date
    asks_bytes: bool  # "how much memory / disk"
    asks_frequency: bool  # "how often"
    asks_poster: bool  # "who posted / announced ...": the author answers it
    asks_answerer: bool  # "who answered / helped ...": the author of the reply answers it
    role_holders: str  # "many": the asked role has several holders at once (reviewers); "one" (an assignee); ""
    about_asking: bool  # asks what was asked ("What did Ana ask?")
    asks_report: bool  # asks what was reported, not how it was fixed
    asks_fix: bool  # asks for the cause, the fix or the advice
    asks_cause: bool  # asks why (`value_kind.asks_cause`): the reason, not the fix
    asks_pull: bool  # "which PR ...": a pull request answers it
    latest: bool  # asks for the latest state in its words ("newest", "currently")
    negated: bool  # asked in the negative
    still: bool  # asks whether something still holds
    numbers: frozenset[str]  # issue and PR numbers it names
    named: tuple[str, ...]  # names, products and identifiers it mentions
    topic_words: tuple[str, ...]  # words to look up in the workspace's vocabulary
    asked_of: tuple[str, ...]  # the entity the asked attribute belongs to
    part_readings: tuple[Part, ...]  # each part of a two-part question, read as a question


def extra_of(question: Question) -> Extra:
    """The question's detector outputs, typed."""
    if "words" not in question.extra:
        raise ValueError("this Question was not built by briefing.question.parse: it carries no detector outputs")
    return cast(Extra, question.extra)


# The form a who-answered question is read in (`cues.asks_answerer`): a person.
ANSWERER_FORM = "Who answered?"


def _fields(whole: str, intent: str, people: Sequence[str], asks: str | None = None) -> dict[str, Any]:
    """The detector outputs of a question: what it asks and in which form from the sentence that asks (`asks`,
    `parts.asked_sentence`), what it is about (its words, names and numbers) from the `whole` text."""
    text = whole if asks is None else asks
    # "Who answered the question "how long before it is in brew?"?" asks for a person: the question it quotes or names
    # says what it is about, not the form of the answer (no duration, number, time or version is asked).
    form = ANSWERER_FORM if cues.asks_answerer(text) else text
    kind = answer_type(form, intent)
    span_kind = answer_kind(form, intent)
    # "What were the main points of X?": the summary's shape is no word of what it is about.
    whole = SUMMARY_SHAPE.sub(" ", whole)
    words = ordered_content_words(whole)
    extra: Extra = {
        "words": words,
        "commits": asked.commit_words(words),
        "span_kind": span_kind,
        "latest_kind": cues.latest_kind(form, span_kind),
        "value_kind": value_kind(form, span_kind),
        "value_shape": shape.value_asked(form, kind),
        "amount_word": shape.amount_word(form),
        "product": asked.version_of(text),
        "number_shape": shape.number_shape(form),
        "counted_nouns": shape.counted_nouns(form),
        "value_anchors": shape.value_anchors(form, kind, people),
        "money": shape.asks_money(form),
        "asks_past": shape.asks_past(text),
        "asks_time": bool(_ASKS_TIME.search(form)),
        "asks_bytes": shape.asks_bytes(form),
        "asks_frequency": shape.asks_frequency(form),
        "asks_poster": cues.asks_poster(text),
        "asks_answerer": cues.asks_answerer(text),
        "role_holders": asked.role_holders(text, kind),
        "about_asking": cues.asks_about_asking(text),
        "asks_report": cues.asks_report(text),
        "asks_fix": cues.asks_fix(text),
        "asks_cause": asks_cause(text),
        "asks_pull": cues.asks_pull(text),
        "latest": cues.asks_latest(form),
        "negated": cues.negated(text),
        "still": cues.asks_still(form),
        "numbers": asked.numbered_refs(whole),
        "named": tuple(asked.named_terms(whole)),
        "topic_words": tuple(asked.question_vocabulary(whole, people)),
        "asked_of": tuple(asked.asked_of(whole)),
        "part_readings": (),
    }
    return {
        "answer_type": kind,
        # The asked phrase is read where the text begins: after a statement, the head noun of a paraphrase ("What is
        # the usual culprit?") is no word the sources must hold (`coverage.head_miss`).
        "asked": " ".join(asked.asked_head(whole)),
        "role": asked.asked_role(text),
        "parts": (),
        "extra": dict(extra),
    }


def read(text: str, constraints: Constraints, asks: str | None = None) -> dict[str, Any]:
    """The `Question` fields this module fills (answer_type, asked, role, parts, extra), by name; `asks` is the
    sentence that asks when a statement comes first (`parts.asked_sentence`)."""
    people = tuple(constraints.people)
    fields = _fields(text, constraints.intent, people, asks)
    parts = question_parts(asks or text)
    if len(parts) > 1:
        # Each part is scored with the statement said before the question, if any: "We use boot-tools-deps. What is
        # its newest version, and which option does it add?" asks both parts about boot-tools-deps.
        statement = text[: text.rfind(asks)].strip() if asks and asks != text and asks in text else ""
        readings = []
        for part, query in zip(parts, part_queries(parts), strict=True):
            intent = intent_of(part, constraints.intent)
            scored = f"{statement} {query}" if statement else query
            readings.append(
                Part(part, scored, intent, _fields(scored, intent, people, query), _fields(part, intent, people))
            )
        fields["parts"] = tuple(parts)
        fields["extra"]["part_readings"] = tuple(readings)
    return fields
