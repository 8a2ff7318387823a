"""The thing a question asks about: the asked phrase and its entity, the names it uses, a person's role, its topic."""

from __future__ import annotations

import re
from collections.abc import Sequence

from briefing.question.terms import CALENDAR, GENERIC, QUESTION_WORDS, ROLES, TOKEN, content_words
from briefing.textrules import STOPWORDS

# Question text: one name-like token (letters and digits, with inner dots, hyphens and hashes: "v0.9", "c#").
_NAME_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.#-]*[A-Za-z0-9]|[A-Za-z0-9]")


# Question text: where a sentence begins (the start, or after a full stop, question or exclamation mark, colon or
# semicolon, or a line break): a capital there says nothing of a name ("The sync stalled. What fixed it?").
_SENTENCE_START = re.compile(r"(?:^|[.!?;:]\s+|\n\s*)$")


def named_terms(question: str) -> list[str]:
    """Names, products and identifiers the question mentions ("Kafka", "Frankfurt", "3.0", "ADR-0007")."""
    out = []
    for m in _NAME_TOKEN.finditer(question):
        tok = m[0]
        low = tok.lower()
        if low in CALENDAR or low in ROLES or tok.isdigit():
            continue
        versioned = bool(re.search(r"\d", tok) and re.search(r"[A-Za-z.]", tok))
        starts = _SENTENCE_START.search(question[max(0, m.start() - 3) : m.start()]) is not None
        # A quoted sentence starts at its quote: 'Who helped with "How do I ...?"' names no "How".
        quoted = question[max(0, m.start() - 1) : m.start()] in {'"', "“", "'", "‘"}
        starts = starts or (quoted and (low in QUESTION_WORDS or low in STOPWORDS))
        if versioned or (not starts and tok[0].isupper()) or (len(tok) >= 2 and tok.isupper()):
            out.append(tok)
    return out


def question_vocabulary(question: str, people: Sequence[str] = ()) -> list[str]:
    """The question's topic words to look up in the workspace's vocabulary: content words of three letters or
    more, hyphenated ones by their parts, without numbers, calendar words, role titles, the question's own
    paraphrase vocabulary, or the names of people it mentions (a name is in a message's author, not its text)."""
    names = {p.lower() for person in people for p in re.split(r"[\s._-]+", person) if p}
    out: list[str] = []
    for tok in TOKEN.findall(question.lower()):
        for part in tok.strip(".-").split("-"):
            part = part.strip("._")
            if (
                len(part) < 3
                or not part.isalpha()
                or part in STOPWORDS
                or part in QUESTION_WORDS
                or part in GENERIC
                or part in CALENDAR
                or part in ROLES
                or part in names
            ):
                continue
            out.append(part)
    return list(dict.fromkeys(out))


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


def _naming(word: str) -> bool:
    return len(word) > 1 and word not in STOPWORDS and word not in QUESTION_WORDS and word not in GENERIC


def asked_of(question: str) -> list[str]:
    """The content words of what the asked attribute belongs to, in "What is the A of E?" ("the p99 latency of the
    mobile app's login screen" -> mobile app login screen), or of what it is about, in "What is the A on / about E?"
    ("our policy on pets" -> pets): the entity the question presupposes."""
    m = _OF_PHRASE.search(question)
    if not m:
        return []
    words = [t.strip(".-'") for t in TOKEN.findall(m[1].lower())]
    return [w for w in words if _naming(w)]


def asked_head(question: str) -> list[str]:
    """The content words of the phrase a "which / what" question asks for (`_ASKED_PHRASE`), in order; empty when
    the question has no such phrase ("What did Duke find ...", "Who ...", "When ...")."""
    m = _ASKED_PHRASE.search(question)
    if not m:
        return []
    words: list[str] = []
    for tok in TOKEN.findall((m[1] or m[2]).lower()):
        tok = tok.strip(".-'")
        if tok in _PREPOSITION:
            break
        words.append(tok)
    # The phrase must end in a noun that names the thing: not a filler word ("what open work"), not a participle
    # ("what was released").
    if not words or words[-1] in STOPWORDS or words[-1] in QUESTION_WORDS or words[-1] in GENERIC:
        return []
    if len(words) == 1 and words[0].endswith("ed"):
        return []
    return [w for w in words if _naming(w)]


# "Which reviewers / people / engineers ...": a question that asks for people by a noun, as "who" asks for them.
# Question text: "which" or "what", a word at most ("core", "team"), and a noun of people, singular or plural.
PEOPLE_ASKED = (
    r"(?:which|what)\s+(?:\w+\s+)?(?:people|persons?|reviewers?|engineers?|maintainers?|developers?|members?)"
)

# "Who reviewed / approved / merged X", "Which people reviewed X": the person asked for holds a role, and a line
# naming only the author ("PR #12 by dana, merged 3 May") does not say who held it.
_ASKS_ROLE = re.compile(
    rf"\b(?:who|{PEOPLE_ASKED})\s+(?:\w+\s+){{0,2}}?(reviewed|reviews|approved|approves|merged|merges|signed\s+off|clicked\s+merge"
    r"|maintains|maintained|owns|owned|is\s+responsible\s+for|was\s+responsible\s+for|is\s+in\s+charge\s+of)\b",
    re.I,
)


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


# How many people hold the role a person question asks about at once. Several review, approve, test, attend, take
# part in or reply to the same thing ("Who reviewed the retry PR?": two reviewers are both the answer); one owns,
# is assigned, leads, reports or merges it at a time ("Who is assigned to the login ticket?": two names stated at
# different times are a change, or a disagreement). Question text: the role as a verb or a noun; the first one the
# question names is the one asked.
_MANY_HOLDERS = re.compile(
    r"\b(?:review(?:ed|s|ing|ers?)?|approv(?:ed|es|ing|ers?|als?)|ack(?:ed|s)|test(?:ed|ers?)|"
    r"requested\s+changes|sign(?:ed)?\s+off|attend(?:ed|s|ing|ees?)|participa(?:nts?|ted|ting|tes)|"
    r"took\s+part|take\s+part|replied|replies|responded|commented|chimed\s+in|involved)\b",
    re.I,
)
# Question text: a role one person holds at a time, as a verb or a noun ("assigned", "owner", "led", "reporter").
_ONE_HOLDER = re.compile(
    r"\b(?:assign(?:ed|ees?)|own(?:s|ed|ers?)|responsible|in\s+charge|lead(?:s|ing)?|led|reported|reporter|"
    r"filed|opened|created|merged|mergers?|maintain(?:s|ed|ers?))\b",
    re.I,
)


# Question text: taking part in work on something, which names no role of its own ("working on", "handling").
WORKING_ON = r"(?:working|worked|work)\s+on|doing|handling|taking\s+care\s+of|contribut(?:ed|ing)\s+to"

# "Which reviewers approved X?", "Which people are assigned to X?", "Which engineers are working on X?": people
# asked for by a noun and the role they hold or the work they do, as a verb right after it (an auxiliary between);
# the verb, not the noun, names the role.
_PEOPLE_ROLE = re.compile(
    rf"\b{PEOPLE_ASKED}\s+(?:(?:have|has|had|did|do|does|is|are|was|were)\s+)?"
    rf"(?=(?:{_MANY_HOLDERS.pattern}|{_ONE_HOLDER.pattern}|\b(?:{WORKING_ON})\b))",
    re.I,
)


def asks_role_holders(question: str) -> bool:
    """Whether the question asks which people hold a role by a people noun ("Which reviewers approved X?")."""
    return _PEOPLE_ROLE.search(question) is not None


def role_holders(question: str, answer_type: str) -> str:
    """ "many" when a person question asks for a role several people hold at once (reviewers, approvers, testers,
    attendees, participants, those who replied), "one" for a role one person holds at a time (owner, assignee,
    lead, reporter, merger, maintainer), "" when it asks for no role or not for a person."""
    if answer_type != "person":
        return ""
    people = _PEOPLE_ROLE.search(question)
    if people is not None:
        question = question[people.end() :]
    many, one = _MANY_HOLDERS.search(question), _ONE_HOLDER.search(question)
    if many and (one is None or many.start() < one.start()):
        return "many"
    return "one" if one else ""


# "Who clicked merge on PR #1136?": the issue or PR numbers a question names.
_NUMBERED_REF = re.compile(r"#(\d+)|\b(?:PR|pull\s+request|issue)\s+#?(\d+)", re.I)


def numbered_refs(question: str) -> frozenset[str]:
    """The issue and PR numbers the question names ("#1136", "PR 57"), as digits."""
    return frozenset(a or b for a, b in _NUMBERED_REF.findall(question))


# Question text: "which <thing> version / release", and the words that name the thing.
_ASKS_VERSION_OF = re.compile(r"\b(?:which|what)\s+((?:[\w.-]+\s+){0,4}?)(?:version|release)s?\b", re.I)
# Question text: "what did Sean Corfield release", "what has the team released": "release" is the verb and the words
# before it are who released, not the product whose version is asked.
_RELEASE_VERB = re.compile(r"(?:did|does|do|has|have|had|will|would|is|was|were|are)\s", re.I)


def version_of(question: str) -> frozenset[str]:
    """The words naming the product whose version is asked ("Which Debezium version ..." -> {"debezium"}); none
    when "release" is the question's verb ("What did Sean Corfield release for Boot?")."""
    m = _ASKS_VERSION_OF.search(question)
    if not m or _RELEASE_VERB.match(m[1]):
        return frozenset()
    return frozenset(content_words(m[1]) - GENERIC)


# A commit hash as questions write it ("What does commit f8f7cf1 change?"): 7 to 40 hex digits, letters and digits.
_COMMIT = re.compile(r"(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}")


def commit_words(words: Sequence[str]) -> frozenset[str]:
    """The question's content words that are commit hashes: each names one thing."""
    return frozenset(w for w in words if _COMMIT.fullmatch(w))
