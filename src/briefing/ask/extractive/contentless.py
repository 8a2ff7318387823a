"""Lines that say nothing of their own (a greeting, a bare thanks or +1, a mention, a sign-off) do not lead."""

from __future__ import annotations

import re

from briefing.ask.extractive.evidence import Evidence
from briefing.ask.extractive.heads import head_only
from briefing.question.terms import content_words, stem

# The words of greetings, acknowledgements, agreement and sign-offs, as `content_words` stems them: a line holding
# no other content word carries no content of its own ("Hi everyone,", "Thanks a lot!", "+1", "LGTM", "Sounds
# good, will do.", "Best regards,").
CHATTER = frozenset(
    stem(word)
    for word in """
    hi hello hey hiya howdy greeting morning afternoon evening good dear everyone everybody folk guy team
    thank thanks thx ty tia cheer appreciate appreciated much lot many again so very really
    lgtm ack ok okay k sure great cool nice awesome perfect excellent amazing fine fantastic wonderful
    yes yep yeah yup agree agreed indeed exactly right correct true absolutely definitely
    noted note sound got make sense will welcome np problem worry worries
    regard best br kind warm sincerely congrat congratulation
    one same here too also well just
    """.split()
)
# Unit text: a mention of a person ("@alex", Slack's "<@U024BE7LH>"), a "+1" vote, an emoji code (":tada:").
_MENTION = re.compile(r"<@[A-Z0-9]+(?:\|[^>]*)?>|@[\w.-]+|\+1\b|:[a-z0-9_+-]+:")
# A word written capitalised after the first word: a name a greeting or thanks addresses ("Thanks Jane!").
_NAME = re.compile(r"(?<=[\s,])[A-Z][a-z]+\b")
# Longer lines always hold something: a greeting or thanks that runs on says what it is about.
CHATTER_MAX = 80
# A line that says nothing gives way to another unit's line only when that one scores at least this share of it
# (as a help thread's starter gives way to a reply, `openings.GIVE_WAY_FLOOR`).
GIVE_WAY_FLOOR = 0.4
# At most this many capitalised words (names) a greeting or thanks may address.
NAMES_MAX = 2


def contentless(text: str) -> bool:
    """Whether `text` (a quoted line) is only greeting, acknowledgement, mention or sign-off words, with at most
    NAMES_MAX capitalised names those words address; a line that is empty after them is contentless too."""
    flat = " ".join(text.split())
    if len(flat) > CHATTER_MAX:
        return False
    bare = _MENTION.sub(" ", flat)
    words = content_words(bare) - CHATTER
    if not words:
        return True
    names = {stem(w.lower()) for w in _NAME.findall(bare)}
    said = content_words(bare) & CHATTER
    return bool(said) and len(names) <= NAMES_MAX and {w for w in words if w not in names} == set()


def _asked_in(ev: Evidence, q_words: set[str]) -> bool:
    """The question asks with a word of the line's greeting or thanks ("Who gave the LGTM?", "Did anyone say
    thanks?"); the names and mentions the line holds do not count (the question may name the same people)."""
    said = content_words(_MENTION.sub(" ", ev.quote)) & CHATTER
    return bool(q_words & said) or ("+1" in ev.quote and "+1" in q_words)


def says_nothing(ev: Evidence) -> bool:
    """Whether the line `ev` shows nothing of its own (`Evidence.quote`, its unit's head left out): `contentless`
    words, or the unit's head alone."""
    return contentless(ev.quote) or head_only(ev.quote, ev.author, ev.first_line)


def contentless_gives_way(ranked: list[Evidence], q_words: set[str]) -> None:
    """When the best line of `ranked` (best first) says nothing of its own (`says_nothing`) and the question does
    not ask about it (none of its words `q_words` in the line: "Who gave the LGTM?"), the best later sentence of
    its own unit that says something leads (not quoted text, "> ..."); if the unit has none among the evidence,
    the best line that says something, when it scores at least GIVE_WAY_FLOOR of it. In place."""
    if len(ranked) < 2:
        return
    top = ranked[0]
    if not says_nothing(top) or (not head_only(top.quote, top.author, top.first_line) and _asked_in(top, q_words)):
        return
    nxt = next(
        (
            e
            for e in ranked
            if e.n == top.n
            and e.unit == top.unit
            and e.piece > top.piece
            and not e.text.lstrip().startswith(">")
            and not says_nothing(e)
        ),
        None,
    )
    if nxt is None:
        nxt = next((e for e in ranked[1:] if e.score >= top.score * GIVE_WAY_FLOOR and not says_nothing(e)), None)
    if nxt is not None:
        ranked.insert(0, ranked.pop(ranked.index(nxt)))
