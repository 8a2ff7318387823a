"""Reranking by the act a question asks about: the named doer's own lines first (their comments on the item asked
about first of all), and in each item the comment that announces the asked change of state (its reason, successor
or maker), links the asked pull request or names the issues a change closed first."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from briefing import registry
from briefing.ask.extractive.evidence import Evidence, field_rows, names_item
from briefing.ask.segment import clean
from briefing.question.acts import addressees, asks_closed_item, change_asked, doers, said_on_item, speakers, written
from briefing.question.answer_type import extra_of
from briefing.question.model import Question
from briefing.question.terms import content_words
from briefing.textrules import TICKET_KEY

# Lines by nobody the question names as the doer keep this share of their score, when a line by a doer scores within
# DOER_REACH of the best line: "Where did raphaelrobert suggest X belongs?" is answered by raphaelrobert's comment,
# not by the pull request's description that words X best (the same share as `ranking.PLACE_OTHER`).
DOER_OTHER = 0.8
DOER_REACH = 0.6
# The share of words an item's title must have in common with the question's description of it (of the words of
# either) to be the item a "What did <person> say about the ticket about <description>?" question names.
TITLE_MATCH = 0.4
# Line text: a link to a pull request or a pull request named by number ("/pull/9403", "PR #57", "pull request 57").
_LINKS_PULL = re.compile(r"/pulls?/\d+|\b(?:PR|pull\s+request)\s*#?\d+", re.I)
# Line text: the issues a change says it closes ("Closes #678", "Fixes: org/repo#12", "Resolves TIMOB-25206").
_CLOSES_REF = re.compile(
    r"\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s*(?:[\w.-]+/[\w.-]+)?(?:#\d+|" + TICKET_KEY.pattern + ")", re.I
)
# Comment text: where an announcement may start: after the prefix of a comment (a "[2022-05-02 18:27] name:" stamp,
# JIRA "[~user]" and "@user" mentions) or after the end of a sentence ("Verified the fix in 6.3.0. Closing.").
_PREFIX = r"(?:^\s*(?:\[[^\]]*\]\s*)?(?:[\w.@-]+:\s+)?(?:(?:\[~[^\]]*\]|@[\w.-]+)[,:]?\s*)*|[.!?]\s+)"
# Comment text: a comment that announces the change it makes and why, by family of change ("Closing as the changes
# have all moved elsewhere.", "Closing in favor of #617", "Reopening as this has cropped up again in 6.3.0",
# "Verified the fix in SDK 6.2.0.", "Reverting this in light of ...", "Resolving as won't fix: ..."), or that names
# the item that superseded this one.
_ANNOUNCES = {
    "reopen": re.compile(_PREFIX + r"re-?opening\b", re.I),
    "verify": re.compile(_PREFIX + r"verified\b", re.I),
    "revert": re.compile(_PREFIX + r"(?:reverting|rolling\s+back|backing\s+out)\b", re.I),
    "close": re.compile(
        _PREFIX + r"(?:closing|resolving|rejecting|declining|abandoning|withdrawing|marking\s+(?:this|it)\s+as)\b"
        r"|\b(?:superseded\s+by|replaced\s+by|obsoleted\s+by|closing\s+(?:this\s+)?in\s+favou?r\s+of|"
        r"closed\s+in\s+favou?r\s+of)\b",
        re.I,
    ),
}


def announces(text: str, family: str) -> bool:
    """Whether comment text announces a change of the `family` ("close", "reopen", "revert") it makes."""
    rule = _ANNOUNCES.get(family)
    return bool(rule and rule.search(clean(text, limit=600)))


def announced_change_leads(question: Question, evidence: Sequence[Evidence]) -> None:
    """For "Why was X closed / reopened / reverted?", "What superseded X?" and "Who closed (verified) X?": a line
    announcing that change ("Closing as ...", "Reopening as ...", "Closing in favor of #617", "Verified the fix")
    scores just above the best line of its item, over the item's description and the records of the change, which
    say what happened, not why or by whom."""
    family = change_asked(question)
    if not family:
        return
    best: dict[str, float] = {}
    for ev in evidence:
        key = ev.chunk.doc_key
        best[key] = max(best.get(key, 0.0), ev.score)
    for ev in evidence:
        if announces(ev.text, family):
            ev.score = max(ev.score, best[ev.chunk.doc_key] + 1e-6)


def doers_first(question: Question, evidence: Sequence[Evidence]) -> None:
    """Lines by a person the question names as the doer outrank the others (`DOER_OTHER`), when one of them is
    close to the best line (`DOER_REACH`); their lines in other items than the one asked about (the best line's by
    its words alone) rank with the others, when they wrote in the one asked about. An item's field rows
    (`field_rows`) are nobody's lines."""
    names = doers(question)
    if not names or not evidence:
        return
    full = {n.lower() for n in names}
    firsts = {n.split()[0].lower() for n in names}

    def by_them(author: str | None) -> bool:
        return bool(author) and (author.lower() in full or author.split()[0].lower() in firsts)  # type: ignore[union-attr]

    def by(ev: Evidence) -> bool:
        return by_them(ev.author) and not field_rows(ev)

    # The rows score on the names and field values they list, not on anything said: they set no reach.
    top = max((ev.score for ev in evidence if not field_rows(ev)), default=0.0)
    if not any(by(ev) and ev.score >= top * DOER_REACH for ev in evidence):
        return
    # The item the question is about: the best line's, by its words alone (without the bonus for being theirs),
    # when that line is someone else's (the item's description); a best line of their own names no item: their
    # lines then rank by their words, wherever they are.
    best = max(evidence, key=lambda ev: ev.score - ev.person)
    about = best.chunk.doc_key
    theirs_there = not by(best) and any(by(ev) and ev.chunk.doc_key == about for ev in evidence)
    for ev in evidence:
        if not by(ev) or (theirs_there and ev.chunk.doc_key != about):
            ev.score *= DOER_OTHER


def pull_links_lead(question: Question, evidence: Sequence[Evidence]) -> None:
    """For "Which pull request fixed (added, implemented) X?": in each item, a line that links or names a pull
    request ("PR (master): https://github.com/org/repo/pull/9403", "Fixed in PR #57") scores just above the best
    line of its item: a ticket's description words X best, but the comment that links the fix answers which PR."""
    if extra_of(question)["asks_pull"]:
        _leads_its_item(evidence, _LINKS_PULL)


def closed_refs_lead(question: Question, evidence: Sequence[Evidence]) -> None:
    """For "Which issue did the PR about X close?": in each item, the line that names the issues it closes ("Closes
    #678") scores just above the item's best line (its record, which says it was merged, not what it closed)."""
    if asks_closed_item(question):
        _leads_its_item(evidence, _CLOSES_REF)


# Sentence text: one that states what caused a problem ("Caused by TIMOB-20037", "The problem is that the cert is not
# tied to the profile", "This happens because ...", "It turns out the title is set twice", "due to the new API").
_STATES_CAUSE = re.compile(
    r"\b(?:caused\s+by|due\s+to|root\s+cause|the\s+(?:problem|issue|cause|reason|culprit|bug)\s+(?:here\s+)?"
    r"(?:is|was)\b|(?:this|it|that)\s+(?:happens|happened|occurs|occurred|fails|failed|crashes|crashed)\s+because|"
    r"(?:this|that|it)(?:'s|\s+is|\s+was)\s+because|turn(?:s|ed)\s+out)",
    re.I,
)
# Sentence text: one that states the change that fixed it ("Fixed by moving ...", "The fix is to ...", "PR:
# https://.../pull/9577", "I have enabled code signing ...", "Removing the flag resolved it").
_STATES_FIX = re.compile(
    r"\b(?:fixed\s+(?:by|with|via)|the\s+fix\s+(?:here\s+)?(?:is|was)\b|PRs?\s*(?:\([^)]*\))?\s*:\s*\S*/pulls?/\d+|"
    r"I(?:'ve|\s+have)?\s+(?:changed|removed|added|updated|enabled|disabled|replaced|reverted|moved|fixed)\b|"
    r"(?:resolved|fixed|solved|fixes|resolves|solves)\s+(?:it|this|the\s+(?:issue|problem|crash))\b)",
    re.I,
)


# Sentence text: one that asks, doubts or denies ("removing it didn't resolve the problem", "Maybe it's due to ...?")
# states no cause and no fix.
_UNSTATED = re.compile(r"\?|\b(?:not|no|never|maybe|perhaps|might|possibly|whether)\b|n['’]t\b", re.I)


def names_remedy(text: str) -> bool:
    """Whether text words a cause or a fix ("It turns out ...", "Fixed by ...", "PR: <link>"), asked or not."""
    said = clean(text, limit=600)
    return bool(_STATES_CAUSE.search(said) or _STATES_FIX.search(said))


def states_remedy(text: str) -> bool:
    """Whether a sentence states a cause or a fix ("Caused by ...", "Fixed by ...") and neither asks nor denies."""
    return names_remedy(text) and not _UNSTATED.search(clean(text, limit=600))


# Question text: asks what fixed or resolved a problem ("What fixed ...?", "What did Chris change to resolve ...?",
# "How was the crash solved?").
_ASKS_REMEDY = re.compile(r"\b(?:fix(?:es|ed)?|resolv\w*|solv\w*|remed\w*|cure[ds]?)\b", re.I)
# Question text: the words that make it ask why ("why", "how come", "reason", "cause", "rationale", "what was behind").
_ASKS_CAUSE_OWN = re.compile(r"\b(?:why|how\s+come|reasons?|caus\w*|rationale|behind)\b", re.I)
# Question text: the first part's topic words a later part of a two-part question is scored with, in brackets at
# its end.
_TOPIC_ADDED = re.compile(r"\s*\([^()]*\)\s*$")


def _opening(ev: Evidence) -> bool:
    """Whether a line is of its item's opening: the report (a ticket's description, an issue's or a thread's first
    message)."""
    root = registry.meta(ev.chunk, "thread_root")
    return ev.ref == ev.chunk.doc_key or bool(root and ev.ref.endswith(f":{root}"))


def stated_cause_leads(question: Question, evidence: Sequence[Evidence]) -> None:
    """For "Why did X crash?" / "What caused X?": in each item, the lines of a reply that state a cause ("Caused by
    TIMOB-20037", "the problem is ...") lead the item, in their own order; for "What fixed X?" / "What did P change to
    resolve X?", those that state the change that fixed it ("Fixed by ...", "PR: <link>", "I have enabled ...").
    The report, a reproduction and a line that says what did not work describe the problem, not its cause or fix."""
    asked = extra_of(question)
    if asked["asks_pull"] or asks_closed_item(question):
        return  # which PR, which issue: the rules for those answer
    # A later part of a two-part question is scored with the first part's topic words in brackets ("what does it
    # require (branching bug fixed)"): they say what the part is about, not what it asks.
    own = _TOPIC_ADDED.sub("", question.text)
    if asked["asks_cause"] and _ASKS_CAUSE_OWN.search(own):
        rule = _STATES_CAUSE
    elif asked["asks_fix"] and _ASKS_REMEDY.search(own):
        rule = _STATES_FIX
    else:
        return
    best: dict[str, float] = {}
    stating: dict[str, list[Evidence]] = {}
    for ev in evidence:
        key = ev.chunk.doc_key
        best[key] = max(best.get(key, 0.0), ev.score)
        text = clean(ev.text, limit=600)
        if not _opening(ev) and rule.search(text) and not _UNSTATED.search(text):
            stating.setdefault(key, []).append(ev)
    for key, lines in stating.items():
        lift = best[key] - max(ev.score for ev in lines) + 1e-6
        if lift > 0:
            for ev in lines:
                ev.score += lift


def _leads_its_item(evidence: Sequence[Evidence], line: re.Pattern[str]) -> None:
    """Each line that `line` finds scores just above the best line of its item (its document)."""
    best: dict[str, float] = {}
    for ev in evidence:
        best[ev.chunk.doc_key] = max(best.get(ev.chunk.doc_key, 0.0), ev.score)
    for ev in evidence:
        if line.search(ev.text):
            ev.score = max(ev.score, best[ev.chunk.doc_key] + 1e-6)


# Review text: a verdict that says nothing more ("[2022-05-23 07:39] kkohbrok reviewed", "bifurcation approved",
# "review: commented by Bren2010"): that a person reviewed, not what they said.
_BARE_VERDICT = re.compile(
    r"^\s*(?:\[[^\]]*\]\s*)?(?:review:\s*)?(?:[\w.@-]+\s+)?(?:approved|reviewed|requested\s+changes|commented|"
    r"dismissed)(?:\s+by\s+[\w.@-]+)?\s*[.:]?\s*$",
    re.I,
)


def bare_verdict(text: str) -> bool:
    """Whether `text` is a review verdict that says nothing more (`_BARE_VERDICT`)."""
    return bool(_BARE_VERDICT.match(text))


# Review text: the verdict word of a review that only says it happened (not an approval or a request for changes).
_ONLY_REVIEWED = re.compile(r"\b(?:reviewed|commented)\b", re.I)


def bare_review(text: str) -> bool:
    """Whether `text` is a bare verdict that only says a person reviewed or commented ("review: commented by lee"):
    no news of what they said or decided. An approval or a request for changes decides something."""
    return bare_verdict(text) and bool(_ONLY_REVIEWED.search(text))


def _title_words(key: str, title: str) -> set[str]:
    """The words of an item's title without its key ("TIMOB-1: iOS: X" says "ios" and X's words)."""
    return content_words(title) - content_words(key.rpartition(":")[2]) - content_words(key)


def _item_asked(question: Question, described: str, evidence: Sequence[Evidence]) -> str:
    """The item a question names: by key, else the one whose title best matches the question's description of it
    (`TITLE_MATCH`); "" when none does."""
    docs = {ev.chunk.doc_key: ev.chunk.title for ev in evidence}
    for key in question.keys:
        for ev in evidence:
            if names_item(ev.chunk, key):
                return ev.chunk.doc_key
    words = content_words(described)
    if not words:
        return ""
    best, found = TITLE_MATCH, ""
    for doc, title in docs.items():
        own = _title_words(doc, title)
        share = len(own & words) / len(own | words) if own else 0.0
        if share >= best + 1e-9 or (share >= best and not found):
            best, found = share, doc
    return found


def _unit_text(ev: Evidence) -> str:
    """The whole text of the unit a line is from (the line itself when its chunk does not hold it)."""
    units = ev.chunk.units
    return units[ev.unit].text if 0 <= ev.unit < len(units) and units[ev.unit].ref == ev.ref else ev.text


def said_on_item_leads(question: Question, evidence: Sequence[Evidence]) -> None:
    """For "What did <person> say about the ticket about <description>?" (or about a key): the person's comments on
    that item lead, in their own order, over the item's own record (its description and header, which say what the
    item is, not what they said about it) and over the lines of other items, which keep `DOER_OTHER`. The item is
    the one named by key, else the one whose title the question's description matches; nothing changes when the
    question names no such item or the person wrote no comment on it. A bare review verdict of theirs ("kkohbrok
    reviewed") leads only when they wrote nothing else there."""
    names, described = said_on_item(question)
    if not names or not evidence:
        return
    about = _item_asked(question, described, evidence)
    full = {n.lower() for n in names}
    firsts = {n.split()[0].lower() for n in names}

    def theirs(ev: Evidence) -> bool:
        author = (ev.author or "").lower()
        return bool(author) and (author in full or author.split()[0] in firsts)

    comments = [ev for ev in evidence if ev.chunk.doc_key == about and ev.ref != about and theirs(ev)]
    if not about or not comments:
        return
    # A bare review verdict of theirs says that they reviewed, not what they said: their words lead when they wrote any.
    worded = [ev for ev in comments if not bare_verdict(_unit_text(ev))]
    _lead(evidence, about, worded or comments)


def _named(names: Sequence[str]) -> Callable[[Evidence], bool]:
    """Whether a line is by one of `names` (the full name, or the same first name)."""
    full = {n.strip().lower() for n in names if n.strip()}
    firsts = {n.split()[0].lower() for n in names if n.split()}

    def by(ev: Evidence) -> bool:
        author = (ev.author or "").strip().lower()
        return bool(author) and (author in full or author.split()[0] in firsts)

    return by


def reply_to_addressee_leads(question: Question, evidence: Sequence[Evidence]) -> None:
    """For "What did <doer> reply (say, write) to <person> about X?": the conversation asked about is the one of the
    best line by the person addressed; the doer's lines there lead, in their own order, over the addressee's report
    (what the doer answered, which words X best) and over other conversations' lines, which keep `DOER_OTHER`.
    Nothing changes when the addressee or the doer wrote nothing in the context."""
    addressed = addressees(question)
    if not addressed or not evidence:
        return
    by_addressee, by_doer = _named(addressed), _named(doers(question))
    theirs = [ev for ev in evidence if by_addressee(ev)]
    if not theirs:
        return
    about = max(theirs, key=lambda ev: ev.score).chunk.doc_key
    replies = [ev for ev in evidence if ev.chunk.doc_key == about and by_doer(ev) and not by_addressee(ev)]
    if replies:
        _lead(evidence, about, replies)


def _lead(evidence: Sequence[Evidence], about: str, lines: Sequence[Evidence]) -> None:
    """`lines` (of the item `about`) score just above the best line, in their own order; other items' lines keep
    `DOER_OTHER`."""
    comments = list(lines)
    for ev in evidence:
        if ev.chunk.doc_key != about:
            ev.score *= DOER_OTHER
    top = max(ev.score for ev in evidence)
    lift = top - max(ev.score for ev in comments) + 1e-6
    if lift > 0:
        for ev in comments:
            ev.score += lift


def unsaid_lead(question: Question, shown: Sequence[Evidence]) -> str:
    """For "What did <person> say (suggest, reply) about X?" answered with no line of theirs: a lead that says so
    ("None of these lines is by Dana Levi; the closest evidence:"), so that another person's words are not read as
    theirs; "" when a shown line is theirs or the question asks for no one's words."""
    said = speakers(question)
    if not said or not shown:
        return ""
    by = _named([form for person in said for form in written(question, person)])
    if any(by(ev) for ev in shown):
        return ""
    return f"None of these lines is by {' or '.join(p.strip() for p in said)}; the closest evidence:"
