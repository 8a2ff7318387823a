"""A question asking which version or build did something is led by a line that names a new version doing it."""

from __future__ import annotations

import re

from briefing.ask.extractive.evidence import Evidence
from briefing.ask.extractive.values import VERSION, titled_version
from briefing.ask.segment import clean
from briefing.question.answer_type import extra_of
from briefing.question.model import Question

# Question text: asks which version, build, release, snapshot or tag something was done in ("which build fixed
# it?", "in which version did he say the problem was fixed?", "which release first let X ...?").
_ASKS_RELEASE = re.compile(r"\b(?:which|what)\s+(?:[\w.-]+\s+){0,4}?(?:version|release|build|snapshot|tag)s?\b", re.I)
# Question text: a latest-state question ("the newest version") is answered by the newest line, not this rule.
_LATEST = re.compile(r"\b(?:latest|newest|current(?:ly)?|most recent|still)\b", re.I)
# Question and line text: the acts a release does to a change, by word family: fixed it, added / introduced /
# brought X, shipped / landed / included X, supported X, resolved it.
_ACTS = {
    "fix": re.compile(r"\bfix(?:e[sd]|ing)?\b", re.I),
    "add": re.compile(r"\badd(?:s|ed|ing)?\b", re.I),
    "introduce": re.compile(r"\bintroduc(?:e[sd]?|ing)\b", re.I),
    "ship": re.compile(r"\bship(?:s|ped|ping)?\b", re.I),
    "land": re.compile(r"\bland(?:s|ed|ing)?\b", re.I),
    "include": re.compile(r"\binclud(?:e[sd]?|ing)\b", re.I),
    "support": re.compile(r"\bsupport(?:s|ed|ing)?\b", re.I),
    "resolve": re.compile(r"\bresolv(?:e[sd]?|ing)\b", re.I),
}
# Line text: a message announcing a build or release ("I've pushed 1.7.0-snapshot2", "2.1.1 is out", "we have
# released v0.7.4", "published", "cut", "tagged").
_RELEASED = re.compile(
    r"\b(?:releas(?:e[sd]?|ing)|publish(?:e[sd]|ing)?|push(?:e[sd]|ing)?|cut|tagged|deployed|"
    r"(?:is|are)\s+(?:now\s+)?(?:out|available|up)|came\s+out|went\s+out)\b",
    re.I,
)
# The announcing line leads when it scores at least RELEASE_FLOOR of the best line (the share at which a help
# thread's reply is close to its opening, `openings.EARLY_OPENING`).
RELEASE_FLOOR = 0.5


def asked_acts(question: Question) -> list[re.Pattern[str]] | None:
    """The act families a "which version / build did X" question names (possibly none), or None when it does
    not ask that, asks for the latest state, or asks for a pull request ("Which PR ..., and in what release?")."""
    text = question.text
    if not _ASKS_RELEASE.search(text) or _LATEST.search(text) or extra_of(question)["asks_pull"]:
        return None
    return [pattern for pattern in _ACTS.values() if pattern.search(text)]


def _about(ev: Evidence, question: Question) -> bool:
    """Whether the line is about what the question names (a product, a person, a project), when it names any:
    the line, its chunk's title or place, or its author holds one of those names ("Cursive": a line in #cursive;
    "Thomas Heller": his own message). A question naming nothing needs a question word in the line."""
    names = [n.lower() for n in extra_of(question)["named"] if not VERSION.fullmatch(n)]
    if not names:
        return ev.lexical > 0
    where = " ".join([ev.text, ev.chunk.title, ev.chunk.container, ev.author or ""]).lower()
    return any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", where) for n in names)


def announces(ev: Evidence, question: Question, acts: list[re.Pattern[str]]) -> bool:
    """Whether the line names a version the question does not name, with a release word or an act it asks about,
    and is about what the question names (`_about`). A document's line reads its title too when the title names
    one version: a release-notes section lists its changes under its release ("Fusion v0.1.3 release notes"); under
    a range ("OLake Go (v0.7.0 - v0.7.8)") an announcement of the one version is the better answer."""
    text = clean(ev.text, limit=2000)
    titled = titled_version(ev.chunk)
    if titled and VERSION.fullmatch(titled):
        text = f"{ev.chunk.title}\n{text}"
    asked = question.text.lower()
    if not any(m[0].lower().lstrip("v") not in asked for m in VERSION.finditer(text)):
        return False
    if not (_RELEASED.search(text) or any(act.search(text) for act in acts)):
        return False
    return _about(ev, question)


def release_leads(question: Question, ranked: list[Evidence]) -> None:
    """For a question asking which version or build did something (fixed a bug, added a feature, shipped): when
    the best line of `ranked` (best first) announces no new version, the best line that does (`announces`) leads
    if it scores at least RELEASE_FLOOR of it, in place. The report or a remark of the same maintainer shares the
    question's words; the announcement states the answer."""
    acts = asked_acts(question)
    if acts is None or len(ranked) < 2 or announces(ranked[0], question, acts):
        return
    floor = ranked[0].score * RELEASE_FLOOR
    for ev in ranked[1:]:
        if ev.score < floor:
            return
        if announces(ev, question, acts):
            ranked.insert(0, ranked.pop(ranked.index(ev)))
            return
