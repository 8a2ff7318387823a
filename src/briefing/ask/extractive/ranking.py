"""Reranking scored sentences: the places and people named first, replies before reports, pull requests first."""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from briefing import registry
from briefing.ask.extractive.acts import (
    announced_change_leads,
    closed_refs_lead,
    doers_first,
    pull_links_lead,
    reply_to_addressee_leads,
    said_on_item_leads,
    stated_cause_leads,
)
from briefing.ask.extractive.evidence import Evidence, about_item, field_rows, presentation, unit_text
from briefing.ask.extractive.extractors import state_record
from briefing.ask.extractive.subjects import subject_people
from briefing.ask.extractive.values import asks
from briefing.ask.segment import clean
from briefing.errors import BriefError
from briefing.model import Chunk
from briefing.question.acts import addressees, written
from briefing.question.answer_type import extra_of
from briefing.question.cues import FEEDBACK_ASKED
from briefing.question.model import Question

PERSON_AUTHOR = 0.15
PERSON_NEAR = 0.08
# A line of the item a question names by key gains what a line by the person a question names gains (not tuned).
ITEM_OWN = PERSON_AUTHOR
# Evidence from elsewhere keeps this share of its score (the named place's or item's lines keep their order and
# cutoff).
PLACE_OTHER = 0.8
# Chosen on the odd-numbered half of eval/olake_dev.jsonl (0.7 ties there on keywords, with lower citation
# precision on both sets); see docs/answering.md.
REPORT_WEIGHT = 0.8
FIX_REPORT_WEIGHT = 0.65
HOLDING_WEIGHT = 0.8
HOLDING_MAX = 200
PULL_MISS_WEIGHT = 0.8
# A cause question that asks for no value ("Why was X reopened?", "What was the reason for closing it?") is not
# answered by a line that records a state change ("Resolved → Reopened", "Status: Closed", "closed unmerged
# 2022-05-02"); such lines keep this share of their score, so a comment that gives the reason leads. Questions
# that ask which item fixed or resolved something are answered by such records, and are not cause questions.
STATE_RECORD_WEIGHT = 0.8

# Chunk text: the header of a Slack thread's chunk ("thread started by Ana: <first line>").
_STARTER = re.compile(r"thread started by ([^:\n]+): ([^\n]*)")
# Message text: a thread that opens with a question or a problem report: its starter describes, the others answer.
_HELP = re.compile(
    r"\?|\b(?:help|how (?:can|do|to|should)|any idea|anyone|unable|can'?t|cannot|not working|error|issue|"
    r"problem|wrong|bug|strange|weird|(?:un)?expected|incorrect\w*|not (?:\w+ )?(?:correctly|right)|"
    r"fail(?:s|ed|ing|ure)?|crash\w*|stuck|trying|wondering|question|is there|hi team|hey team|hello|hi all)\b",
    re.I,
)
# Message text: what follows "send" or "please send" when the reply asks for the change itself ("Can you send a PR?",
# "please send a patch"): that states the decision, it does not ask for more.
_CHANGE = r"(?!\s+(?:a\s+|the\s+|your\s+|in\s+a\s+|over\s+a\s+)?(?:PRs?|pull\s+requests?|patch(?:es)?|fix(?:es)?)\b)"
# Message text: replies that hold no answer: a promise to look, a request for logs, thanks for the report.
_HOLDING_REPLY = re.compile(
    r"\b(?:(?:we|i)(?:'ll| will| are| am|'re|'m)?\s+(?:check|look|get back|debug|investigat|pick|try)\w*|"
    r"get back to you|(?:can|could) you (?:please |pls |kindly )?"
    rf"(?:share|send|provide|confirm|check|post|try){_CHANGE}|"
    r"please share|thanks? (?:you )?for (?:raising|reporting|flagging|sharing|the report)|looking into|"
    r"picked up this|on it\b)",
    re.I,
)
# Message text: what makes a reply a holding one at selection: a promise to look or a request for more. Thanks for
# a report alone is not enough ("thanks for reporting this! It's working now" states the outcome); nor is asking for
# the change itself ("duplicates are an error; receivers MUST reject them. Please send a PR!" states the decision).
_PROMISE = re.compile(
    r"\b(?:(?:we|i)(?:'ll| will| are| am|'re|'m)?\s+(?:check|look|get back|debug|investigat|pick|try)\w*|"
    r"get back to you|(?:can|could) you (?:please |pls |kindly )?"
    rf"(?:share|send|provide|confirm|check|post|try){_CHANGE}|"
    r"please share|looking into|picked up this|on it\b|"
    r"(?:can|could|would) you\b[^.?!\n]{0,60}?\b(?:share|send|upload|attach|download)\b[^.?!\n]{0,40}?"
    r"\b(?:logs?|screenshots?|recording|payload|config|output|details)\b|"
    rf"please (?:send|upload|attach|download)\b{_CHANGE})",
    re.I,
)
# Question text: asks for the feedback others gave on something (`cues.FEEDBACK_ASKED`): the conversation's starter
# wrote it; the others' replies are the feedback.
_ASKS_FEEDBACK = re.compile(FEEDBACK_ASKED, re.I)
# Chunk text: the header line that names who started the conversation ("#help, thread started by Ana: <first
# line>", "Email thread (list): <subject>, started by ana").
_STARTED_BY = re.compile(r"\bstarted by ([^:\n]+?)(?::|$)", re.M)
# Message text: a line that names a pull request ("Merged payout-worker PR #57: ...", a /pull/57 link).
_NAMES_PULL = re.compile(r"\b(?:PR|pull\s+request)\s*#?\d+|/pulls?/\d+", re.I)


def rerank(question: Question, evidence: list[Evidence]) -> None:
    """Every rule below, in order, over freshly scored sentences."""
    asked = extra_of(question)
    places_first(evidence, question.scope)
    items_first(evidence, question.keys)
    # The reply after a question inherits the question's score before the report discount: the report
    # discount is about its author's lines, not about the answer they drew.
    if not asked["about_asking"]:
        answers_inherit(evidence)
    discount_reports(evidence, question.answer_type, asked["asks_fix"], asked["about_asking"])
    if _ASKS_FEEDBACK.search(question.text):
        replies_lead(evidence)
    if asked["asks_pull"]:
        pulls_first(evidence)
    if asked["asks_cause"] and not asked["span_kind"] and not asked["value_kind"]:
        records_below(evidence)
    people_first(
        evidence,
        question.people,
        subjects=subject_people(question.text, question.people, {p: written(question, p) for p in question.people}),
        addressed=frozenset(addressees(question)),
    )
    doers_first(question, evidence)
    said_on_item_leads(question, evidence)
    reply_to_addressee_leads(question, evidence)
    # A comment stating the cause leads its item; one announcing the asked change ("Reopening as ...") leads it still.
    stated_cause_leads(question, evidence)
    announced_change_leads(question, evidence)
    pull_links_lead(question, evidence)
    closed_refs_lead(question, evidence)


def records_below(evidence: list[Evidence]) -> None:
    """Lines that record a state or its change rank below the rest (`STATE_RECORD_WEIGHT`)."""
    for ev in evidence:
        if state_record(clean(ev.text, limit=2000)):
            ev.score *= STATE_RECORD_WEIGHT


def _place(name: str) -> str:
    return name.strip().lstrip("#").lower()


def places_first(evidence: list[Evidence], places: Sequence[str]) -> None:
    """Evidence from a channel or project the question names ("What was asked in #discussions ...") outranks
    a better-worded line from elsewhere, when the context holds any from there: the others are discounted."""
    wanted = {_place(p) for p in places if p}
    if not wanted or not any(_place(e.chunk.container) in wanted for e in evidence):
        return
    for ev in evidence:
        if _place(ev.chunk.container) not in wanted:
            ev.score *= PLACE_OTHER


def items_first(evidence: list[Evidence], keys: Sequence[str]) -> None:
    """Evidence of an item the question names by key ("What happened to PLAT-7?", "#519"): its own lines and
    lines that name it (`about_item`) outrank the rest, when the context holds any. They gain ITEM_OWN (they are
    about the key though few write it); the others keep PLACE_OTHER of their score (a link record of another
    ticket shares the key's shape, not its story)."""
    if not keys:
        return
    own = [about_item(ev, keys) for ev in evidence]
    if not any(own):
        return
    for ev, named in zip(evidence, own, strict=True):
        ev.score = ev.score + ITEM_OWN if named else ev.score * PLACE_OTHER


def people_first(
    evidence: list[Evidence],
    people: Sequence[str],
    subjects: AbstractSet[str] = frozenset(),
    addressed: AbstractSet[str] = frozenset(),
) -> None:
    """Messages by a person the question names, replies to them and mentions of them outrank the rest; for a
    person the question asks about as the one who acted (`subjects`: "What did Bozhidar plan ..."), only their own
    messages do: "@Bozhidar didn't have time this week" is someone else's words; for a person the doer's words were
    aimed at (`addressed`: "What did Hans reply to Matt about X?"), only replies to them and mentions of them do:
    Matt's own report is what Hans answered, not the answer. An item's field rows ("Type: Bug | Status: Closed |
    Reporter: Ian Taylor", `field_rows`) are the tracker's record, nobody's words: they gain nothing, though the
    item's opener is their unit's author and the rows name people, and when a person is asked about as the one who
    acted they rank as a record does (`STATE_RECORD_WEIGHT`): the names they list match the question's words."""
    if not people:
        return
    names = [p for p in people if p and p not in addressed]
    firsts = {p.split()[0].lower() for p in names}
    full = {p.lower() for p in names}

    def by(author: str | None) -> bool:
        return bool(author) and (author.lower() in full or author.split()[0].lower() in firsts)  # type: ignore[union-attr]

    # Whose mentions, and replies to whom, count: the people not asked about as the subject.
    near = [p for p in (*names, *addressed) if p not in subjects]
    near_names = {p.split()[0].lower() for p in near} | {p.lower() for p in near}
    authors_at: dict[tuple[int, int], str | None] = {(e.n, e.unit): e.author for e in evidence}
    for ev in evidence:
        low = ev.text.lower()
        if field_rows(ev):
            if subjects:  # asked for someone's words or acts: the rows record neither
                ev.score *= STATE_RECORD_WEIGHT
            continue
        if by(ev.author):
            ev.person = PERSON_AUTHOR
        elif addressed and _by_any(ev.author, sorted(addressed)):
            pass  # the addressee's own words: neither theirs to answer with nor a reply to them
        elif any(re.search(rf"(?<![\w]){re.escape(f)}\b", low) for f in near_names):  # sentence text: a mention
            ev.person = PERSON_NEAR
        elif near and _by_any(authors_at.get((ev.n, ev.unit - 1)), near):
            ev.person = PERSON_NEAR
        ev.score += ev.person


def _by_any(author: str | None, people: Sequence[str]) -> bool:
    """Whether `author` is one of `people` (full name, or the same first name)."""
    if not author:
        return False
    low = author.lower()
    return any(low == p.lower() or low.split()[0] == p.split()[0].lower() for p in people)


def answers_inherit(evidence: list[Evidence]) -> None:
    """A message that asks ("Where do I find the staging logs?") is not the answer; the reply after it likely is."""
    by_unit: dict[tuple[int, int], list[Evidence]] = {}
    for ev in evidence:
        by_unit.setdefault((ev.n, ev.unit), []).append(ev)
    for ev in evidence:
        if not asks(clean(ev.text)):
            continue
        asked = ev.score
        ev.score *= 0.7
        for reply in by_unit.get((ev.n, ev.unit + 1), []):
            if reply.author != ev.author:
                reply.score = max(reply.score, 0.95 * asked)


def openers_lead(evidence: list[Evidence]) -> None:
    """For "What problem was raised ...": the message that opens a help thread states the problem; its starter's
    later messages ("Full logs of a new run") add to it. The opener's lines take the best score of its starter's
    lines in that thread, just above it, so the report is quoted from where it was raised."""
    threads = help_threads(evidence)
    best: dict[str, float] = {}
    for ev in evidence:
        key = ev.chunk.doc_key
        if ev.author and threads.get(key) == ev.author:
            best[key] = max(best.get(key, 0.0), ev.score)
    for ev in evidence:
        key = ev.chunk.doc_key
        root = registry.meta(ev.chunk, "thread_root")
        if key in best and root and ev.ref.endswith(f":{root}") and threads[key] == ev.author:
            ev.score = max(ev.score, best[key] + 1e-6)


def _threaded(kind_name: str) -> bool:
    try:
        return registry.kind(kind_name).threaded
    except BriefError:
        return False


def help_threads(evidence: list[Evidence], *, asking: bool = True) -> dict[str, str]:
    """doc_key -> starter of each Slack thread that opens with a question or a problem report (any opening, when
    not `asking`) and has a reply from someone else in the context."""
    starters: dict[str, str] = {}
    asks: set[str] = set()
    replied: set[str] = set()
    for ev in evidence:
        chunk = ev.chunk
        m = _STARTER.search(chunk.text[:600]) if _threaded(chunk.kind) else None
        if not m:
            continue
        starter = starters.setdefault(chunk.doc_key, m[1].strip())
        root = registry.meta(chunk, "thread_root")
        if _HELP.search(m[2]) or (root and ev.ref.endswith(root) and _HELP.search(ev.text)):
            asks.add(chunk.doc_key)
        if ev.author and ev.author != starter:
            replied.add(chunk.doc_key)
    return {key: who for key, who in starters.items() if (key in asks or not asking) and key in replied}


def opening_line(chunk: Chunk) -> str:
    """The opening message of the thread `chunk` belongs to, as its header says it ("thread started by A: <it>")."""
    m = _STARTER.search(chunk.text[:600]) if _threaded(chunk.kind) else None
    return m[2] if m else ""


def holding(ev: Evidence) -> bool:
    """A short chat reply that only promises to look or asks for more."""
    short = len(ev.text) <= HOLDING_MAX
    return short and presentation(ev.chunk).conversational and bool(_PROMISE.search(ev.text))


def replies_lead(evidence: list[Evidence]) -> None:
    """In each conversation with a line by its starter and one by someone else, the best line by someone else takes
    the starter's best score, just above it: asked for the feedback on what the starter posted, a reply answers, and
    the conversation keeps its place among the others. The starter is who its header says started it ("started
    by"), else the author of the item's own message (a ticket's description, an issue's or pull request's opening:
    the unit whose ref is the item's)."""
    starters: dict[str, str] = {}
    for ev in evidence:
        m = _STARTED_BY.search(ev.chunk.text[:600])
        if m:
            starters[ev.chunk.doc_key] = m[1].strip().lower()
    for ev in evidence:
        if ev.ref == ev.chunk.doc_key and ev.author:
            starters.setdefault(ev.chunk.doc_key, ev.author.strip().lower())
    by_starter: dict[str, float] = {}
    reply: dict[str, Evidence] = {}
    for ev in evidence:
        key = ev.chunk.doc_key
        if key not in starters or not ev.author:
            continue
        if starters[key] == ev.author.strip().lower():
            by_starter[key] = max(by_starter.get(key, 0.0), ev.score)
        elif key not in reply or ev.score > reply[key].score:
            reply[key] = ev
    for key, best in by_starter.items():
        if key in reply and reply[key].score < best:
            reply[key].score = best + 1e-6


# "Which PR / pull request added X?" is answered by a pull request: a line of a pull request's own record, or one
# that names a PR. The bug report the PR fixed describes X in the same words ("retried ... with no jitter") but is
# not the answer: such lines rank below by PULL_MISS_WEIGHT.
def pulls_first(evidence: list[Evidence]) -> None:
    """Lines that neither belong to a pull request nor name one rank below those that do (the rule above)."""
    for ev in evidence:
        if not registry.meta(ev.chunk, "pull_request") and not _NAMES_PULL.search(unit_text(ev)):
            ev.score *= PULL_MISS_WEIGHT


def discount_reports(evidence: list[Evidence], kind: str, fix: bool, about_asking: bool) -> None:
    """In a help thread the starter's messages describe the problem and the replies hold the fix, so the
    starter's lines rank below a reply of similar strength (unless the question asks who), and further below
    when the question asks for the cause or the fix. A short holding reply ("we will check and get back to you",
    "can you share the logs?") answers nothing and ranks below the replies that do (unless the question is about
    what was asked)."""
    if kind != "person":
        threads = help_threads(evidence)
        weight = FIX_REPORT_WEIGHT if fix else REPORT_WEIGHT
        for ev in evidence:
            if ev.author and threads.get(ev.chunk.doc_key) == ev.author:
                ev.score *= weight
    if not about_asking:
        for ev in evidence:
            short = len(ev.text) <= HOLDING_MAX
            if short and presentation(ev.chunk).conversational and _HOLDING_REPLY.search(ev.text):
                ev.score *= HOLDING_WEIGHT
