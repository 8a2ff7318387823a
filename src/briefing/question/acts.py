"""What a question asks about an act: the people it names as the ones who did it, the state change it asks about.

Both are read from the parsed question on demand (its text and the people its constraints name), so an answer
stage can ask them of any `Question`, also of one built before they existed.
"""

from __future__ import annotations

import re

from briefing.question.asked import PEOPLE_ASKED
from briefing.question.model import Question

# Question text: an auxiliary verb right before a named person and their verb makes that person the doer of the act
# asked about ("What did Chris Barber change", "Why did rohan-wire close", "Where has Ana said"); "Who replied to
# Ana" and "What did the team ask Ana" name Ana as someone else's object.
_AUX = r"(?:did|does|do|has|have|had|will|would|could|can|should)"
# Question text: the reason or the successor of a change of an item's state is asked ("Why was it reopened?",
# "What was the reason for closing it?", "What superseded PR #610?", "In favour of what was it dropped?").
_ASKS_REASON = re.compile(r"\bwhy\b|\bhow\s+come\b|\breasons?\b|\bsupersed\w*|\breplac\w*|\bin\s+favou?r\s+of\b", re.I)
# Question text: who made a change of an item's state ("Who closed the ticket about ...?", "Who verified the fix?"):
# the person who announced it in a comment ("Verified the fix in 6.2.0. Closing.") did, not its reporter; "Which
# person closed ...?" asks the same.
_ASKS_WHO_CHANGED = re.compile(
    rf"^\W*(?:who|{PEOPLE_ASKED}|(?:which|what)\s+person)\s+(?:\w+\s+){{0,2}}?"
    r"(?:closed|re-?opened|reverted|resolved|rejected|declined|abandoned|withdrew|verified)\b",
    re.I,
)
# Question text: the change, by family: reopening; reverting; closing in any of its forms (a ticket resolved,
# rejected, declined, abandoned, superseded, replaced, marked a duplicate or won't-fix).
CHANGES = {
    "reopen": re.compile(r"\bre-?open\w*", re.I),
    "verify": re.compile(r"\bverif(?:y|ied|ies|ying|ication)\b", re.I),
    "revert": re.compile(r"\b(?:revert\w*|roll(?:ed|ing)?\s+back|back(?:ed|ing)?\s+out)\b", re.I),
    "close": re.compile(
        r"\b(?:clos(?:e|ed|es|ing)|resolv(?:e|ed|es|ing)|reject\w*|declin\w*|abandon\w*|withdr[ae]wn?|"
        r"supersed\w*|replac\w*|obsolet\w*|won'?t\s+fix|duplicate|drop(?:ped|ping)?|in\s+favou?r\s+of)\b",
        re.I,
    ),
}


# Question text: the item a change closed is asked ("Which issue did the PR about X close?", "What bug does PR #57
# fix?", "Which tickets did the retry change resolve?").
_ASKS_CLOSED_ITEM = re.compile(
    r"\b(?:which|what)\s+(?:\w+\s+)?(?:issues?|tickets?|bugs?)\b.*\b(?:clos|fix|resolv|address)\w*", re.I
)


# Question text: a verb of speech right after a named doer ("What did Hans say", "What has Ana written", "What did
# Chris suggest"): the question asks for that person's words.
_SPEECH = (
    r"(?:say|said|write|wrote|written|comment\w*|think|thought|suggest\w*|propos\w*|mention\w*|ask\w*|repl\w*|"
    r"answer\w*|note[ds]?|recommend\w*|explain\w*|post\w*|add|added)"
)
# Question text: the one item those words were about, named by its kind ("about the ticket about X", "on the PR
# that adds Y", "in the Android bug about Z"); what follows it describes the item.
_ON_ITEM = re.compile(
    r"\b(?:about|on|in|under|regarding|for|to)\s+(?:the|that|this|a)?\s*(?:\w+\s+)?"
    r"(?:ticket|issue|bug|pr|pull\s+request|merge\s+request|mr|story|task|epic)\b(?:\s+(?:about|on|that|for|where|"
    r"which|with|called|titled|named))?",
    re.I,
)


def written(question: Question, person: str) -> tuple[str, ...]:
    """The ways the question writes `person`: their name, and the handle or first name it used for them
    ("What did hknoechel say" names "Hans Knöchel" as "hknoechel"), longest first."""
    pairs = getattr(question.constraints, "person_forms", ())  # none in a question read before they were kept
    forms = {person.strip(), *(form.strip() for name, form in pairs if name == person)}
    return tuple(sorted((f for f in forms if f), key=lambda f: (-len(f), f)))


def _as_written(question: Question, person: str) -> str:
    """A pattern matching any way the question writes `person`."""
    return "(?:" + "|".join(re.escape(f) for f in written(question, person)) + ")"


# Question text: a person's words asked for by what they gave, after the name's possessive ("Hans's take on", "Ana's
# comments on", "Ewan's view of"), or by their weighing in ("How did Hans weigh in on ...").
_OPINION = (
    r"(?:'s|’s|')\s+(?:take|views?|opinions?|thoughts|comments?|feedback|position|stance|input|response|reply|"
    r"suggestions?|remarks?)\b"
)


def speakers(question: Question) -> tuple[str, ...]:
    """The doers whose words the question asks for ("What did Hans say / suggest / reply ...", "What was Hans's take
    on ...", "How did Hans weigh in on ..."), in its order."""
    text = question.text

    def asked(person: str) -> bool:
        said = _as_written(question, person)
        spoke = rf"\b{_AUX}\s+{said}\s+(?:{_SPEECH}|weigh(?:ed)?\s+in)\b"
        return bool(re.search(spoke, text, re.I) or re.search(rf"\b{said}{_OPINION}", text, re.I))

    return tuple(p for p in doers(question) if asked(p))


def said_on_item(question: Question) -> tuple[tuple[str, ...], str]:
    """For "What did <person> say (write, suggest) about the ticket about <description>?": the people whose words
    are asked and the words that describe the item ("" when the question names it by key only); no people when the
    question asks for no one's words about one item."""
    text = question.text
    said = speakers(question)
    on_item = _ON_ITEM.search(text)
    if not said or not (on_item or question.keys):
        return (), ""
    return said, text[on_item.end() :] if on_item else ""


# Question text: a verb of speech aimed at someone ("reply to Matt Berg", "answer Ana", "tell Hans", "ask Ewan"):
# that person is the one addressed, not the one whose words are asked.
_TO = r"(?:repl\w*|respon\w*|answer\w*|sa(?:y|id)|wr(?:ite|ote|itten)|tell|told|ask\w*|suggest\w*|recommend\w*)"


def addressees(question: Question) -> tuple[str, ...]:
    """For "What did <doer> reply (say, write) to <person> about X?" or "What did <doer> tell <person>?": the people
    addressed, in the question's order; none when the question names no doer. Their own lines ask or report what
    the doer's words answer."""
    named = doers(question)
    if not named:
        return ()
    text = question.text
    return tuple(
        p
        for p in question.people
        if p and p not in named and re.search(rf"\b{_TO}\s+(?:to\s+)?{_as_written(question, p)}\b", text, re.I)
    )


def asks_closed_item(question: Question) -> bool:
    """Whether the question asks which issue (ticket, bug) a change closed, fixed or resolved."""
    return bool(_ASKS_CLOSED_ITEM.search(question.text))


def doers(question: Question) -> tuple[str, ...]:
    """The people the question names as the ones who did what it asks about ("Where did raphaelrobert suggest
    ...?", "What was raphaelrobert's take on ...?" name raphaelrobert), in the question's order; none when it names
    people only otherwise."""
    text = question.text
    found = []
    for person in question.people:
        said = _as_written(question, person) if person.strip() else ""
        if said and re.search(rf"\b{_AUX}\s+{said}(?:'s)?\s+[a-z]|\b{said}{_OPINION}", text, re.I):
            found.append(person)
    return tuple(found)


def change_asked(question: Question) -> str:
    """The family of the state change ("reopen", "verify", "revert", "close") whose reason, successor or maker the
    question asks for; "" when it asks for none of them. A question naming two families asks about the first one
    it names."""
    text = question.text
    if not _ASKS_REASON.search(text) and not _ASKS_WHO_CHANGED.search(text):
        return ""
    at = {family: m.start() for family, rule in CHANGES.items() if (m := rule.search(text))}
    return min(at, key=lambda family: at[family]) if at else ""
