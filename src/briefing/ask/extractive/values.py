"""Values in evidence sentences by answer type: the version, number, setting, date, person or yes / no asked for."""

from __future__ import annotations

import re
from collections.abc import Sequence

from briefing.ask.extractive.evidence import Evidence, presentation
from briefing.ask.extractive.heads import without_head
from briefing.ask.extractive.organisations import organisations
from briefing.ask.extractive.render import when
from briefing.ask.item_state import asked_state, state_of
from briefing.ask.segment import clean
from briefing.model import Chunk
from briefing.question.answer_type import extra_of
from briefing.question.cues import NEGATION, asks_release
from briefing.question.model import Question
from briefing.question.shape import PER_SECOND
from briefing.question.terms import CALENDAR, TOKEN, content_words, stem
from briefing.textrules import STOPWORDS

# Sentence text: any digit; a time, weekday, month or schedule word; a person's mention or full name.
_NUMBER = re.compile(r"\d")
TIME = re.compile(
    r"\b(?:\d{1,2}:\d{2}|\d{4}-\d{2}-\d{2}|(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?|"
    r"jan(?:uary)?|feb(?:ruary)?|march|april|may|june|july|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|"
    r"nov(?:ember)?|dec(?:ember)?|tomorrow|tonight|morning|afternoon|noon|weekly|daily)\b",
    re.I,
)
_PERSON = re.compile(r"@\w|\b[A-Z][a-z]+ [A-Z][a-z]+\b")
# Sentence text: the address a reply opens with, up to two capitalised words: an @mention ("@Ana Ruiz ", "@ana: "),
# or a greeting and a name ("Hi, Bibby:", "Hello Ana,", "Hey @Avinash Kumar,", "Dear Rob,").
_ADDRESS = re.compile(
    r"^\s*(?:@[\w.-]+(?: [A-Z][\w-]*)?[,:]?|(?i:hi|hello|hey|dear)\b,?\s+@?[\w.-]+(?: [A-Z][\w-]*)?[,:!]?)\s*"
)
# Sentence text before an @mention that credits the one mentioned: "Thanks @Ryan", "thank you @Ana", "kudos to @Ben".
_THANKS_BEFORE = re.compile(r"\b(?:thanks|thank\s+you|thx|ty|cheers|kudos|credit)(?:\s+(?:to|so\s+much))?\W*$", re.I)
# Slack emoji codes (":tada:"), whose digits are no number.
_EMOJI = re.compile(r"(?<![\w:]):[a-z0-9_+-]{2,40}:(?![\w:])")
# Sentence text: a version ("v0.9.2", "3.10-rc1"); a setting (`code`, a --flag, a dotted or snake_case key).
VERSION = re.compile(r"(?<![\w.])v?\d+\.\d+(?:\.\d+)*(?:-[a-z0-9.]+)?(?![\w.]*\d)", re.I)
SETTING = re.compile(
    r"`([^`\n]{2,60})`|(?<![\w-])(--?[a-z][\w-]+(?:=\S+)?)|(?<![\w.])([a-z][a-z0-9]*(?:[_.][a-z0-9]+)+(?:\s*[:=]\s*[\w.\"-]+)?)",
)
# Sentence text: a quantity with its unit ("512 MB", "4.6x", "$40k", "22 minutes", "3k rows/s"); not the digits
# that open an identifier or a hash ("795adb81415a", "1080p").
_QUANTITY_PATTERN = (
    r"(?<![\w.$€£¥₹])[~≈]?[$€£¥₹]?\d(?:[\d,]*\d)?(?:\.\d+)?\s?(?:%|×|x\b|k\b|m\b|(?:gb|mb|kb|tb|gib|mib|mi|gi|ms|s|sec|secs|seconds?|"
    r"min|mins|minutes?|h|hrs?|hours?|days?|weeks?|months?|years?|rows?|records?|times|threads?|cores?|"
    r"nodes?|pods?|files?|tables?|rps|ops|mbps|gbps)\b)?(?:/s\b|\s+per\s+\w+)?(?![a-z\d_])"
)
QUANTITY = re.compile(_QUANTITY_PATTERN, re.I)
# For the answer span: "4 billion rows" is one quantity, so its "4" never answers "by what factor".
_SCALED_QUANTITY = re.compile(
    _QUANTITY_PATTERN.replace(r"(?:\.\d+)?", r"(?:\.\d+)?(?:\s(?:thousand|million|billion|trillion|bn)\b)?", 1), re.I
)
# Sentence text: a date as written ("2026-06-08", "8 June", "Jun 8th, 2026").
DATE_IN_TEXT = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*"
    r"(?:\s+\d{4})?\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?"
    r"(?:,?\s+\d{4})?\b",
    re.I,
)
# Sentence text: "moves from Thu 28 May to ...": the date before "from" is the one given up.
_MOVED_FROM = re.compile(r"\bfrom\s+(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+)?$", re.I)
# Sentence text: a bare number right after a capitalised word inside a sentence names something ("PostgreSQL 15").
_NAMED_NUMBER = re.compile(r"(?<=[a-z,;] )[A-Z][A-Za-z]+ \0$")
# Sentence text: a problem stated as over ("fixed", "no longer").
_RESOLVED = re.compile(r"\b(?:fixed|resolved|no\s+longer|removed|solved)\b", re.I)
# A stated quantity that is a factor ("4.6x", "3×", "ten times").
_FACTOR = re.compile(r"(?:×|x|\btimes)$", re.I)
# Sentence text: a line that asks (a "?" at a word's end).
ASKS = re.compile(r"\?(?:\s|$)")
# Sentence text: code, inline or fenced, whose "?" asks nothing (a SQL placeholder "= ?", a predicate "`nil?`").
_CODE = re.compile(r"```.*?(?:```|$)|`[^`\n]*`", re.S)


def asks(text: str) -> bool:
    """Whether the sentence asks: a "?" at a word's end outside code (`ASKS`, `_CODE`)."""
    return bool(ASKS.search(_CODE.sub(" ", text)))


# A negation denies what the question asks only where it governs the question's words: it opens the line ("No,
# we never ...", "Not yet.") or one of the question's words follows it in the same clause within NEGATION_SCOPE
# words ("is not on Aurora", "don't use Iceberg branches"). "moved to Aurora this morning with no merchant impact"
# confirms the move: its "no" is about the impact.
NEGATION_SCOPE = 5
# Sentence text: words and clause ends.
_CLAUSE_TOKEN = re.compile(r"[\w'’-]+|[.;:!?]")


def typed(kind: str, text: str, names: set[str]) -> float:
    """1 when the sentence holds a value of the asked kind (the names are the context's authors' first names)."""
    if kind == "version":
        return 1.0 if VERSION.search(text) else 0.0
    if kind == "setting":
        return 1.0 if SETTING.search(text) else 0.0
    if kind == "number":
        return 1.0 if _NUMBER.search(_EMOJI.sub("", text)) else 0.0
    if kind == "time":
        return 1.0 if TIME.search(text) else 0.0
    if kind == "organisation":
        return 1.0 if organisations(text, "", names) else 0.0
    if kind == "person":  # a mention, a full name, or an author's first name as a word of the sentence
        return 1.0 if _PERSON.search(text) or any(re.search(rf"\b{re.escape(n)}\b", text) for n in names) else 0.0
    return 0.0


def values(kind: str, text: str, q_low: str) -> list[re.Match[str]]:
    """The values of the asked kind in `text` that the question (lowercased: `q_low`) does not itself contain."""
    if kind == "number":
        found = [m for m in QUANTITY.finditer(text) if m[0].strip() and not VERSION.fullmatch(m[0].strip())]
    elif kind == "time":
        found = list(DATE_IN_TEXT.finditer(text)) + list(TIME.finditer(text))
    elif kind == "version":
        found = list(VERSION.finditer(text))
    elif kind == "setting":
        found = list(SETTING.finditer(text))
    else:
        return []
    return [m for m in found if m[0].strip().lower() not in q_low]


def negates(text: str, q_words: set[str] | frozenset[str]) -> bool:
    """Whether `text` denies what a question of `q_words` (its `content_words`) asks (the rule above)."""
    tokens = _CLAUSE_TOKEN.findall(text.lower())
    for i, tok in enumerate(tokens):
        if not NEGATION.fullmatch(tok):
            continue
        if i == 0:
            return True
        for after in tokens[i + 1 : i + 1 + NEGATION_SCOPE]:
            if after in ".;:!?":
                break
            if content_words(after) & q_words:
                return True
    return False


def near(text: str, matches: list[re.Match[str]], q_words: set[str] | frozenset[str]) -> re.Match[str] | None:
    """The match with most of the question's words around it ("pool size of 60"), then the closest one; the
    first match when no question word occurs. A bare "(7)" is a reference, not a value."""
    matches = [
        m for m in matches if not (text[max(m.start() - 1, 0) : m.start()] == "(" and text[m.end() :][:1] == ")")
    ]
    if not matches:
        return None
    spots = [(m.start(), stem(m[0].strip(".-"))) for m in TOKEN.finditer(text.lower())]
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


def reading(question: Question, ev: Evidence) -> tuple[str, str, set[str]]:
    """What every extractor reads: the sentence as shown (uncut), the question lowercased, its content words."""
    return clean(ev.text, limit=2000), question.text.lower(), set(extra_of(question)["words"])


def titled_version(chunk: Chunk) -> str:
    """The version or versions a document's title names ("Fusion v0.1.3 release notes": "v0.1.3"; "OLake Go (v0.7.0
    - v0.7.8)": "v0.7.0 - v0.7.8"); "" for a conversation, whose title is its opening words."""
    if presentation(chunk).conversational:
        return ""
    found = list(VERSION.finditer(chunk.title))
    return chunk.title[found[0].start() : found[-1].end()] if found else ""


def version_span(question: Question, ev: Evidence, context: Sequence[Chunk]) -> str:
    """The version next to the question's words that the question does not name itself; for "Which release added
    X?" answered by a document's line that names none, the version(s) its title names (`titled_version`: a
    release-notes section lists its changes under its release)."""
    text, q_low, q_words = reading(question, ev)
    found = [m for m in VERSION.finditer(text) if m[0].lower().lstrip("v") not in q_low]
    hit = near(text, found, q_words)
    if hit or VERSION.search(text) or not asks_release(question.text):
        return hit[0] if hit else ""
    titled = titled_version(ev.chunk)
    return titled if titled and titled.lower().lstrip("v") not in q_low else ""


def setting_span(question: Question, ev: Evidence, context: Sequence[Chunk]) -> str:
    """The setting (`code`, a --flag, a dotted or snake_case key) next to the question's words; not a version, a
    URL or a path."""
    text, q_low, q_words = reading(question, ev)
    found = [m for m in SETTING.finditer(text) if (m[1] or m[2] or m[3] or "").lower() not in q_low]
    found = [m for m in found if not VERSION.fullmatch(m[0]) and "://" not in m[0] and "/" not in m[0]]
    hit = near(text, found, q_words)
    return (hit[1] or hit[2] or hit[3]).strip() if hit else ""


def number_span(question: Question, ev: Evidence, context: Sequence[Chunk]) -> str:
    """The quantity of the asked shape next to the question's words, with the noun it counts (`_numbers`)."""
    text, q_low, q_words = reading(question, ev)
    hit = near(text, _numbers(question, text, q_low), q_words)
    return _with_noun(text, hit, q_words) if hit else ""


def time_span(question: Question, ev: Evidence, context: Sequence[Chunk]) -> str:
    """The date stated next to the question's words (the one moved to, not from); for a past event without one,
    the message's own date, marked as such."""
    text, q_low, q_words = reading(question, ev)
    asked = extra_of(question)
    dates = [m for m in DATE_IN_TEXT.finditer(text) if m[0].lower() not in q_low]
    # "moves from Thu 28 May to Tue 9 June": the date it moved to is the one that holds.
    dates = [m for m in dates if not _MOVED_FROM.search(text[max(m.start() - 12, 0) : m.start()])] or dates
    hit = near(text, dates, q_words)
    if hit:
        return hit[0]
    # The message's own date answers "when was it released?", never "when is it planned?".
    past = asked["asks_past"] or not asked["asks_time"]
    return f"{when(ev, year=True)}{MESSAGE_DATE}" if ev.at_iso and past else ""


# The mark of a date read off the message, not its text (`time_span`).
MESSAGE_DATE = " (the date of the message)"


def yesno_span(question: Question, ev: Evidence, context: Sequence[Chunk]) -> str:
    """Yes or No: the item's state as of now where the evidence unit states it (`item_state`); else whether the
    sentence (on the question's words, not itself a question) denies what is asked, given only when it states the
    asked predicate (no confirmation read off a line that merely names the item)."""
    text, _, q_words = reading(question, ev)
    asked = extra_of(question)
    state = asked_state(question.text)
    if state and ev.unit < len(ev.chunk.units):
        unit = ev.chunk.units[ev.unit]
        found = state_of(ev.chunk, unit, state)
        # The item is the one asked about when its own text (title, description) holds most of the question's
        # other words; the sentence itself may hold few ("This allows applications to ..." of the PR asked about).
        topic = q_words - content_words(state)
        own = " ".join([ev.chunk.title, *(u.text for u in ev.chunk.units if u.ref == unit.ref)])
        own_words = content_words(re.sub(r"[_-]", " ", own))  # "application_data" says "application data"
        if found is not None and len(topic & own_words) >= _ITEM_SHARE * len(topic):
            return f"{'Yes' if found.holds else 'No'} ({found.says})"
    if ev.lexical < 0.3 or asks(text):
        return ""
    predicate = _PREDICATE.search(question.text) or _STILL.search(question.text)
    if predicate and not states(text, predicate[1]) and not (asked["still"] and _RESOLVED.search(text)):
        return ""
    negated = negates(text, q_words) != asked["negated"]
    if asked["still"] and _RESOLVED.search(text):
        negated = not negated
    return "No" if negated else "Yes"


# Question text: a copular or perfect polar question whose last word is a participle or a state ("Is running it
# without a Docker socket supported?", "Was the patch accepted?", "Is it still open?"): what it asks of its subject.
_PREDICATE = re.compile(
    r"^\W*(?:is|are|was|were|has|have|had)\b.*?\b([a-z]+ed|open|done)(?:\s+(?:yet|already|now|today))?\s*\?\s*$",
    re.I,
)
# "Is ADR-0007 still in force?", "Does the form still reject digits?": the first word after "still" (past a
# preposition or article) is what is asked to hold still.
_STILL = re.compile(r"\bstill\s+(?:(?:in|on|at|a|an|the|being)\s+)*([a-z]+)", re.I)
# The share of the question's other words an item's own text must hold for its state to answer the question.
_ITEM_SHARE = 0.5
# Two stems this long that agree this far are one word ("cancell" / "cancel", "support" / "supports").
_SAME_STEM = 5


def states(text: str, predicate: str) -> bool:
    """Whether `text` has a word of the predicate's stem ("cancelled", "cancellation" for "cancelled")."""
    want = stem(predicate.lower())
    for token in TOKEN.findall(text.lower()):
        got = stem(token)
        if got == want or (min(len(got), len(want)) >= _SAME_STEM and got[:_SAME_STEM] == want[:_SAME_STEM]):
            return True
    return False


def _numbers(question: Question, text: str, q_low: str) -> list[re.Match[str]]:
    """The quantities of `text` that can answer a number question: not the question's own, not a version, an
    identifier ("#1035"), a time of day or a name's number ("PostgreSQL 15"), and of the asked shape (a factor, a
    percentage, a rate); for "how many X" a number of X when the sentence has one."""
    asked = extra_of(question)
    dates = [(m.start(), m.end()) for m in DATE_IN_TEXT.finditer(text)]
    found = [
        m
        for m in _SCALED_QUANTITY.finditer(text)
        if m[0].strip()
        and m[0].strip().lower() not in q_low
        and not VERSION.fullmatch(m[0].strip())
        and not any(a <= m.start() < b for a, b in dates)
        and text[max(m.start() - 1, 0) : m.start()] not in {"#", "/", "-", "=", ":"}
        and text[m.end() : m.end() + 1] != ":"  # "05" of "05:30" is a time
        and not _NAMED_NUMBER.search(text[: m.start()] + "\0")
    ]
    # A question of a shape (a factor, a percentage, a rate) takes only a value of that shape: a sentence without
    # one gives no span, and the quote itself leads.
    shape = asked["number_shape"]
    if shape == "factor":
        return [m for m in found if _FACTOR.search(m[0].strip())]
    if shape == "percent":
        return [m for m in found if m[0].strip().endswith("%")]
    if shape == "rate":
        return [m for m in found if PER_SECOND.search(m[0])]
    nouns = asked["counted_nouns"]
    if nouns:
        # "How many minutes ...?" is answered by a number of minutes when the sentence has one.
        of_noun = [m for m in found if _counts(text, m, nouns)]
        return of_noun or found
    return found


def _counts(text: str, m: re.Match[str], nouns: frozenset[str]) -> bool:
    """The quantity is a number of one of `nouns`: its unit or the word after it ("22 minutes", "430 clients")."""
    words = [stem(w) for w in re.findall(r"[a-z]+", m[0].lower())]  # the quantity's unit words
    after = re.match(r"\s*([A-Za-z-]+)", text[m.end() :])  # sentence text: the word after the quantity
    if after:
        words.append(stem(after[1].lower()))
    return any(w in nouns or (len(w) > 2 and any(n.startswith(w) or w.startswith(n) for n in nouns)) for w in words)


def _with_noun(text: str, hit: re.Match[str], q_words: set[str]) -> str:
    """A bare count keeps the noun it counts when that noun is the question's ("60 connections" for "how many
    connections"), so the first line reads as an answer, not a number."""
    value = hit[0].strip()
    if re.search(r"[^\d.,~≈\s]", value):  # the value has a unit already
        return value
    after = re.match(r"\s+((?:[\w-]+\s+)?[\w-]+)", text[hit.end() :])  # sentence text: two words after the count
    if after:
        tokens = after[1].split()
        said = [i for i, tok in enumerate(tokens) if stem(tok.lower()) in q_words]
        if said:  # up to the last of the question's words: "3,912 transfer requests", not "3,912 transfer"
            return f"{value} {' '.join(tokens[: said[-1] + 1])}"
    return value


def _mentioned(text: str, at: int) -> bool:
    """Whether the name at `at` in `text` is an @mention that addresses, not one that thanks ("Thanks @Ryan")."""
    return text[max(0, at - 1) : at] == "@" and not _THANKS_BEFORE.search(text[max(0, at - 40) : at - 1])


def person_span(question: Question, ev: Evidence, context: Sequence[Chunk]) -> str:
    """A person the sentence names (a known author or an @mention) that the question does not, else its author."""
    q_low = question.text.lower()
    asked = extra_of(question)
    if ev.author and asked["asks_poster"]:
        # "Who posts the release announcements?": the one who wrote the line, not someone it mentions.
        return ev.author
    text = ev.text
    if asked["asks_answerer"]:
        # "Who answered the question about X?": the reply leads (`exchanges`, `openings`); the one it answers, whom
        # it may open by addressing ("@Ana it is ...", "Hi, Bibby: ...") or send it to (a mail's envelope, "CK Hu to
        # Bibby Hsieh | Re: ..."), is not the answer, but one it credits ("thanks to Ben") is.
        text = _ADDRESS.sub("", without_head(text, ev.author, ev.first_line) if ev.piece == 0 else text, count=1)
    known = {a for c in context for a in c.authors if a and " " in a}
    # Where the line names each known person: by full name, or by a first name only one of them has ("On call:
    # Lena (swapped)" names Lena Vogt). A first name that is also a calendar word ("May") is not read as a name, and
    # one after "with" is the other party ("On call this week (swapped with Lena)", written by the one on call).
    by_first: dict[str, set[str]] = {}
    for name in known:
        by_first.setdefault(name.split()[0], set()).add(name)
    named: list[tuple[int, str]] = []
    # Who answered is never the one the reply addresses ("Hey @Avinash Kumar, a few questions ..."): an @mention
    # speaks to someone, a credit ("thanks to Ben") names them.
    addressed = asked["asks_answerer"]
    for name in known:
        if name.lower() in q_low or name.split()[0].lower() in q_low:
            continue
        found = [
            m.start() for m in re.finditer(re.escape(name), text) if not (addressed and _mentioned(text, m.start()))
        ]
        if found:
            named.append((found[0], name))
            continue
        first = name.split()[0]
        if len(by_first[first]) == 1 and first.lower() not in CALENDAR:
            m = re.search(rf"(?<!\w)(?<!\bwith ){re.escape(first)}\b", text)  # sentence text: the first name
            if m and not (addressed and _mentioned(text, m.start())):
                named.append((m.start(), name))
    if named:
        return min(named)[1]
    if asked["asks_answerer"] and ev.author:
        return ev.author
    mention = re.search(r"@([A-Z][\w.-]*)(?: ([A-Z][\w-]*))?", text)  # sentence text: an @mention
    if mention and mention[1].lower() not in q_low:
        # "@Marshall Who do I talk to ...": a word that opens the sentence after a mention is no surname.
        second = mention[2] if mention[2] and mention[2].lower() not in STOPWORDS else ""
        return f"{mention[1]} {second}".strip()
    return ev.author or ""
