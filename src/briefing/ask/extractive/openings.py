"""A question that restates a help thread's opening question is answered by that thread's best reply."""

from __future__ import annotations

from collections.abc import Collection

from briefing import registry
from briefing.ask.extractive.acts import announces, names_remedy, states_remedy
from briefing.ask.extractive.evidence import Evidence, unit_text
from briefing.ask.extractive.ranking import help_threads, holding, opening_line
from briefing.ask.extractive.scoring import DENSE_WEIGHT, LEXICAL_WEIGHT
from briefing.model import ADDED_TO_CONTEXT
from briefing.question.terms import content_words

# The opening (the thread's first message) scores within OPENING_CLOSE of the best line: the question asks what
# that thread asked. Its best reply by someone other than the starter, not a holding one, leads when it scores at
# least REPLY_FLOOR of the best line: a line of another conversation that happens to score higher is not the answer
# the thread gave. Chosen on the OLake dev set (docs/answering.md, "Conversation shape").
OPENING_CLOSE = 0.85
REPLY_FLOOR = 0.5


def _reply_leads(ranked: list[Evidence], key: str, opener: str | None, floor: float, *, own: bool = False) -> None:
    """Move the best line of item `key` in `ranked` (best first) by someone other than `opener`, not a holding one,
    to the front when it scores at least `floor`, in place; `own`: not a line of the item's own record either."""
    reply = next(
        (
            e
            for e in ranked
            if e.chunk.doc_key == key
            and not (own and e.ref == key)
            and e.author
            and e.author != opener
            and not holding(e)
        ),
        None,
    )
    if reply is not None and reply.score >= floor:
        ranked.insert(0, ranked.pop(ranked.index(reply)))


def opening_reply_lead(ranked: list[Evidence]) -> None:
    """Move the reply the rule above names to the front of `ranked` (sorted best first), in place."""
    if len(ranked) < 2:
        return
    best = ranked[0].score
    threads = help_threads(ranked)
    openings = [
        e
        for e in ranked
        if e.chunk.doc_key in threads
        and (root := registry.meta(e.chunk, "thread_root"))
        and e.ref.endswith(f":{root}")
        and e.score >= best * OPENING_CLOSE
    ]
    if not openings:
        return
    key = openings[0].chunk.doc_key
    if ranked[0].chunk.doc_key == key:
        return  # the best line is of that thread already
    _reply_leads(ranked, key, threads[key], best * REPLY_FLOOR)


# In a help thread whose opening is among the evidence (within EARLY_OPENING of the best line: the question is
# about what that thread asked), the earliest reply by someone other than the starter within EARLY_CLOSE of the best
# line leads: it answers the opening; later replies discuss it ("my take is like @didibus ...", "i recall just
# reading it like a book"). Chosen on the Clojurians train half (docs/answering.md, "Conversation shape").
EARLY_OPENING = 0.5
EARLY_CLOSE = 0.8


# An opening the context only added after the strongest chunks (`ADDED_TO_CONTEXT`: it is there because its thread
# was retrieved, not by its own words) and that does not restate the question (it scores below OPENING_CLOSE of the
# best line) tells who asked and what; it does not make a reply that holds none of the question's words the answer
# ("you will get the op type as d" over the release that answers the question). An added opening that restates the
# question is what the question asks, and the rules above answer it by its thread's reply, in the reply's own words.
def may_lead(e: Evidence, opening: Evidence, top: Evidence) -> bool:
    """Whether reply `e` may be moved to the front for the thread's `opening` when `top` is the best line."""
    restates = opening.score >= top.score * OPENING_CLOSE
    return e.lexical > 0 or restates or not opening.chunk.metadata.get(ADDED_TO_CONTEXT)


def earliest_reply_lead(ranked: list[Evidence]) -> None:
    """When the best line (`ranked`, best first) is a reply in a help thread, move that thread's earliest close
    reply (the rule above) to the front, in place."""
    if len(ranked) < 2:
        return
    top = ranked[0]
    threads = help_threads(ranked)
    key = top.chunk.doc_key
    if key not in threads or top.author == threads[key]:
        return
    root = registry.meta(top.chunk, "thread_root")
    opening = next((e for e in ranked if e.chunk.doc_key == key and root and e.ref.endswith(f":{root}")), None)
    if opening is None or opening.score < top.score * EARLY_OPENING:
        return
    close = [
        e
        for e in ranked
        if e.chunk.doc_key == key
        and e.author
        and e.author != threads[key]
        and not holding(e)
        and e.score >= top.score * EARLY_CLOSE
        and e.at_iso
        and may_lead(e, opening, top)
    ]
    if not close or not top.at_iso:
        return
    first = min(close, key=lambda e: e.at_iso or "")
    if first is not top:
        ranked.insert(0, ranked.pop(ranked.index(first)))


# The best line is by the starter of its help thread and either asks (the question restated) or the question asks
# for the fix ("How was <the problem> resolved?"): the starter's line asks or describes, it does not answer. A
# starter's statement keeps its place for other questions ("What broke the deploy?": the report says). The thread's
# best reply by someone else, not a holding one, leads when it scores at least GIVE_WAY_FLOOR of that line. Chosen
# on thread probes of two Slack workspaces (eval/probe_threads.py).
GIVE_WAY_FLOOR = 0.4


def starter_gives_way(ranked: list[Evidence], *, fix: bool) -> None:
    """When the best line of `ranked` (best first) is by the starter of its help thread and asks, or `fix` (the
    question asks for the fix), move that thread's best reply (the rule above) to the front, in place."""
    if len(ranked) < 2:
        return
    top = ranked[0]
    threads = help_threads(ranked)
    key = top.chunk.doc_key
    if key not in threads or top.author != threads[key] or not (fix or "?" in top.text):
        return
    _reply_leads(ranked, key, threads[key], top.score * GIVE_WAY_FLOOR)


# The same for an item whose opening is its own record (a ticket's or an issue's description and header, a thread's
# first mail: its ref is the document's key): for a fix question ("How was X resolved?", "What was done about X?"),
# a line of the record says what was reported, not what was done; so does, for a question that asks what was done
# (not why, and naming nobody: "Why did Ana close it?" is answered by her own "Closing as ..."), a later comment by
# the record's author (the reporter) that states no cause and no fix ("Still seeing it on the nightly run"); a
# reporter who found the cause or made the fix ("Fixed by #624", "I have updated the tools") answers. The item's
# best line by someone other than the reporter leads when it scores at least ITEM_FLOOR of the lead line; not a
# holding reply, nor a notice that it was closed or verified that words no cause or fix ("Closing.", "Verified the
# fix in 6.3.0. Closing."): those tell that something was done, not what. Chosen leaving one corpus out
# (docs/answering.md).
ITEM_FLOOR = 0.1


def reporter_of(ranked: list[Evidence], key: str) -> str | None:
    """The author of item `key`'s own record (its unit whose ref is the key), from the chunks of `ranked`."""
    for e in ranked:
        if e.chunk.doc_key != key:
            continue
        record = next((u for u in e.chunk.units if u.ref == key and u.author), None)
        if record is not None:
            return record.author
    return None


def bare_notice(e: Evidence) -> bool:
    """Whether a line's message announces that its item was closed or verified ("Closing.", "Verified the fix in
    6.3.0.") and words no cause and no fix ("It turns out ... Resolving this as not our bug" gives the cause)."""
    text = unit_text(e)
    return (announces(text, "close") or announces(text, "verify")) and not names_remedy(text)


def opening_gives_way(ranked: list[Evidence], *, fix: bool, remedy: bool = False) -> None:
    """When `fix` and the best line of `ranked` (best first) is of its item's record, or `remedy` (the question asks
    what was done, not why, and names nobody) and it is the record author's, move the item's best line by someone
    else (the rule above) to the front, in place."""
    if not fix or len(ranked) < 2:
        return
    top = ranked[0]
    key = top.chunk.doc_key
    reporter = reporter_of(ranked, key)
    reports = top.ref == key or (remedy and top.author == reporter and not states_remedy(top.text))
    if not reporter or not reports:
        return
    reply = next(
        (
            e
            for e in ranked
            if e.chunk.doc_key == key
            and e.ref != key
            and e.author
            and e.author != reporter
            and not holding(e)
            and not bare_notice(e)
        ),
        None,
    )
    if reply is not None and reply.score >= top.score * ITEM_FLOOR:
        ranked.insert(0, ranked.pop(ranked.index(reply)))


# The question restates a help thread's opening message: at least RESTATED of its content words (and no fewer than
# RESTATED_WORDS of them) are words of that message ("Is there a s/cat function which doesn't create a map?", asked
# in the words the thread was opened with). The thread's best reply by someone other than its starter, not a holding
# one, leads when it scores at least RESTATED_FLOOR of the best line: a line of another conversation that shares more
# of the words (a channel message, an older thread on the same subject) is not the answer that thread was given.
# The opening itself need not be among the evidence: its chunk tells it. Chosen on the Clojurians thread probes.
RESTATED = 0.8
RESTATED_WORDS = 3
RESTATED_FLOOR = 0.25


def _opening_words(ranked: list[Evidence], key: str) -> set[str]:
    """The content words of the opening message of thread `key`, read from its chunks among `ranked`."""
    words: set[str] = set()
    for e in ranked:
        if e.chunk.doc_key != key:
            continue
        root = registry.meta(e.chunk, "thread_root")
        unit = next((u for u in e.chunk.units if root and u.ref.endswith(f":{root}")), None)
        words |= content_words(opening_line(e.chunk)) | (content_words(unit.text) if unit is not None else set())
    return words


def restated_thread_lead(ranked: list[Evidence], words: Collection[str]) -> None:
    """When the question's content `words` restate the opening of a help thread of `ranked` (best first), move that
    thread's best reply (the rule above) to the front, in place."""
    asked = set(words)
    if len(ranked) < 2 or len(asked) < RESTATED_WORDS:
        return
    threads = help_threads(ranked)
    best = ranked[0].score
    for key, starter in threads.items():
        opening = _opening_words(ranked, key)
        if len(asked & opening) < max(RESTATED_WORDS, RESTATED * len(asked)):
            continue
        _reply_leads(ranked, key, starter, best * RESTATED_FLOOR)
        return


# The same for an item whose opening is its own record (a ticket's or an issue's description, a thread's first mail:
# its ref is the document's key), when the question asks for the fix: a question that restates the item's title or
# opening (the rule above) is led by the item's best line by someone other than its opener, unless the opener's own
# best comment states the fix or the cause (a developer who filed the ticket and links the pull request that fixed it).
def restated_item_lead(ranked: list[Evidence], words: Collection[str], *, fix: bool) -> None:
    """When `fix` and the question's content `words` restate the title or opening of an item of `ranked` (best
    first), move that item's best line by someone other than its opener to the front, in place; not when the item's
    best comment is the opener's and states a fix or a cause (`acts.states_remedy`): they answered it."""
    asked = set(words)
    if not fix or len(ranked) < 2 or len(asked) < RESTATED_WORDS:
        return
    best = ranked[0].score
    for e in ranked:
        key = e.chunk.doc_key
        opening = next((u for u in e.chunk.units if u.ref == key and u.author), None)
        if opening is None:
            continue
        said = content_words(e.chunk.title) | content_words(opening.text)
        if len(asked & said) < max(RESTATED_WORDS, RESTATED * len(asked)):
            continue
        comment = next((c for c in ranked if c.chunk.doc_key == key and c.ref != key), None)
        if comment is None or comment.author != opening.author or not states_remedy(comment.text):
            _reply_leads(ranked, key, opening.author, best * RESTATED_FLOOR, own=True)
        return


# The question is about a help thread when that thread's opening is the line that matches it best on its own words
# and meaning (`own_match`: dense and lexical, before the discounts for asking and for the starter's lines, and
# before the bonuses of rank and answer type): a channel message or another thread ranks higher only because the
# opening, which asks, was discounted. The thread's best reply by someone other than its starter, not a holding
# one, leads when it scores at least MATCHED_FLOOR of the best line. Chosen on topic probes of the Clojurians
# Slack (`eval/probe_topics.py`).
MATCHED_FLOOR = 0.25


def _opens(e: Evidence, threads: Collection[str]) -> bool:
    """Whether `e` is the opening message of one of the help `threads` (doc keys)."""
    root = registry.meta(e.chunk, "thread_root")
    return e.chunk.doc_key in threads and bool(root) and e.ref.endswith(f":{root}")


def own_match(e: Evidence) -> float:
    """How well a line matches the question on its own: its dense and lexical scores, weighted as in scoring."""
    return DENSE_WEIGHT * e.dense + LEXICAL_WEIGHT * e.lexical


def matched_thread_lead(ranked: list[Evidence]) -> None:
    """When the opening of a help thread of `ranked` (best first) matches the question best on its own
    (`own_match`) and the best line is of another conversation, move that thread's best reply (the rule above) to
    the front, in place."""
    if len(ranked) < 2:
        return
    threads = help_threads(ranked)
    best = max(own_match(e) for e in ranked)
    # A line that quotes the opening word for word elsewhere ties with it; the opening counts as the best.
    opening = next((e for e in ranked if own_match(e) >= best and _opens(e, threads)), None)
    if opening is None:
        return
    key = opening.chunk.doc_key
    if ranked[0].chunk.doc_key == key:
        return
    _reply_leads(ranked, key, threads[key], ranked[0].score * MATCHED_FLOOR)


# "Who replied to / answered / responded to X?" is never answered by X's asker: in the item or thread the best line is
# of, a line by someone other than its opener (the thread's starter, the item's reporter, a mail thread's first
# sender), not a holding one, leads whatever it scores, and the opener's own lines there drop below ASKER_SHARE of
# it, so that they are not named beside it.
ASKER_SHARE = 0.5


def asker_gives_way(ranked: list[Evidence]) -> None:
    """For a who-answered question: the best line of `ranked` (best first) by someone other than the opener of its
    item or thread leads it, and the opener's lines there score below it (the rule above), in place."""
    if len(ranked) < 2:
        return
    key = ranked[0].chunk.doc_key
    opener = help_threads(ranked, asking=False).get(key) or reporter_of(ranked, key)
    if not opener:
        return
    reply = next(
        (e for e in ranked if e.chunk.doc_key == key and e.author and e.author != opener and not holding(e)), None
    )
    if reply is None:
        return
    ranked.insert(0, ranked.pop(ranked.index(reply)))
    for e in ranked[1:]:
        if e.chunk.doc_key == key and e.author == opener:
            e.score = min(e.score, reply.score * ASKER_SHARE)
    ranked[1:] = sorted(ranked[1:], key=lambda e: -e.score)
