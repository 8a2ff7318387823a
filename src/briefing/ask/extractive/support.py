"""Answer-slot support: whether the best lines are about the item a question names and hold the kind of thing asked."""

from __future__ import annotations

import re
from collections.abc import Sequence

from briefing.ask.extractive.evidence import Evidence, unit_text
from briefing.question.answer_type import extra_of
from briefing.question.model import Question
from briefing.textrules import find_ticket_keys, ticket_key

# A "who" or "which <role>" question that names the role by a noun ("Who is the new Leiningen maintainer?",
# "Which reviewer approved the ProofCredential pull request?"): the person asked for holds that role, and the
# author of a line about the topic does not hold it by writing there. Question text: the role noun, singular or
# plural; "What did reviewers say about X?" asks what they said, not which of them (no verb before the noun).
_ROLE_NOUN = re.compile(r"\b(maintainer|owner|reviewer|approver)s?\b", re.I)
_WHICH_ROLE = re.compile(
    r"\b(?:which|what)\s+(?:(?!(?:did|do|does|was|were|is|are|has|have|had|will|would|can|could|should)\b)\w+\s+)?"
    r"(maintainer|owner|reviewer|approver)s?\b",
    re.I,
)
_ROLE_OF_NOUN = {"maintainer": "own", "owner": "own", "reviewer": "review", "approver": "approve"}
# Unit text and chunk titles: a pull request named as such ("PR #12", "#12", ".../pull/12", "pull request 12"); a
# ticket key ("TIMOB-25421") names a ticket, not the pull request that fixed it.
_PULL_REFERENCE = re.compile(r"(?<![\w&])#\d+|/pulls?/\d+|\b(?:PR|pull\s+request)\s*#?\d+", re.I)


def role_asked(question: Question) -> str:
    """The role the person asked for holds: the parsed role of a who-question, else a role noun of a "which
    reviewer" question or of a who-question ("who is the maintainer"); empty when none is asked."""
    if question.answer_type == "person" and question.role:
        return question.role
    which = _WHICH_ROLE.search(question.text)
    if which:
        return _ROLE_OF_NOUN[which[1].lower()]
    noun = _ROLE_NOUN.search(question.text) if question.answer_type == "person" else None
    return _ROLE_OF_NOUN[noun[1].lower()] if noun else ""


def _about(ev: Evidence) -> str:
    """What a line is about: its whole unit and its chunk's title (a ticket's or pull request's own name)."""
    return unit_text(ev) + "\n" + ev.chunk.title


def item_miss(question: Question, top: Sequence[Evidence]) -> str:
    """The issue or PR number ("#744") or ticket key ("TIMOB-25600") the question names when none of the best lines
    is about any item it names (neither a line's unit nor its chunk's title names one), else empty: "Who is
    assigned to pull request #744?" over lines about #708 is a near miss, whatever they say about assignments."""
    numbers = sorted(extra_of(question)["numbers"])
    keys = [ticket_key(k) or k for k in find_ticket_keys(question.text)]
    if not top or not (numbers or keys):
        return ""
    about = [_about(ev) for ev in top]
    # Unit text and title: the number itself, not inside another ("#7440", "v1.744").
    if any(re.search(rf"(?<![\w.]){n}(?!\d)", text) for n in numbers for text in about):
        return ""
    held = {ticket_key(k) or k for text in about for k in find_ticket_keys(text)}
    if held & set(keys):
        return ""
    return f"#{numbers[0]}" if numbers else keys[0]


def pull_reference_miss(question: Question, top: Sequence[Evidence]) -> bool:
    """A "which PR / pull request" question whose best lines name no pull request (a ticket key in a ticket's title
    is not one): "Which pull request fixed the ANR?" over the ticket that reports the ANR."""
    if not extra_of(question)["asks_pull"] or extra_of(question)["value_shape"] != "reference":
        return False
    return not any(_PULL_REFERENCE.search(_about(ev)) for ev in top)
