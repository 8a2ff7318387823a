"""Which pull requests or patches someone reviewed in a period, listed from the reviews themselves.

"Which PRs did bifurcation review last week?", "What did Rob ack this week?", "Which PRs were approved last week?":
the answer is the set of items that got a review of the asked kind in the window, read from the reviews the `View`
holds at `now` (`fields.verdicts`): a code host's review ("[stamp] login approved: ..."), by its writer and at its
time; a mail's review tag ("Reviewed-by: Rob Herring <...>") only in a message its named reviewer wrote, since a
patch that carries a tag forward repeats an earlier review rather than gives one. A review by a person the question
names matches their login or name (a first name alone matches the full name). Each line is cited to the reviews
it lists; "Who reviewed the most PRs last week?" counts the same items by reviewer.

"Which tickets did Ewan comment on last week?", "What did Bren2010 comment on last week?" list the same way the
items with a message of theirs in the window (`COMMENTED`): any unit they wrote but the item's own opening and its
changelog, reviews included, on their own items too; a chat channel's own stream (no threads) holds posts, not
comments on an item, so it is left out (a thread's replies count).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING

from briefing import registry
from briefing.ask.fields import REVIEW_FIELDS, bare_title, item_of, verdicts
from briefing.ask.listing import Period, most_first, same_person, whole
from briefing.ask.segment import clean
from briefing.index import Filter
from briefing.question.timewindow import local_day
from briefing.retrieve.exchanges import channel_kind
from briefing.retrieve.units import threaded
from briefing.textrules import ticket_key

if TYPE_CHECKING:
    from briefing.ask.extractive import ExtractiveAnswer
    from briefing.model import Chunk, Unit
    from briefing.question.listings import RecordsAsked
    from briefing.question.model import Question
    from briefing.view import View

MAX_LISTED = 15
# The review events a question may ask for, and the verdicts each counts.
REVIEW_EVENTS = {
    "reviewed": REVIEW_FIELDS["reviewer"],
    "approved": REVIEW_FIELDS["approver"],
    "changes requested": REVIEW_FIELDS["changes"],
}
# The event of a comment given (any message on an item but its opening and its changelog).
COMMENTED = "commented"
# Every event this module lists.
GIVEN_EVENTS = frozenset({*REVIEW_EVENTS, COMMENTED})
# Unit text: a tracker's changelog entry as its connector writes it ("changed status: To Do -> In Progress",
# "changed assignee"), which is no comment.
_CHANGELOG = re.compile(r"^changed [\w /-]{1,30}(?::\s|$)")
# How a line says each verdict: a code host's review that neither approves nor requests changes is a comment.
_SAID = {"reviewed": "commented"}
_TAGS = frozenset({"Reviewed-by", "Acked-by", "Tested-by"})
# A plural noun's ending: "es" after ch, sh or x ("patches"), else a final "s" ("PRs", "pull requests", "diffs").
_PLURAL_END = re.compile(r"(?<=ch|sh)es$|(?<=x)es$|(?<![su])s$")
# Each listed item cites at most this many of its reviews.
CITED_REVIEWS = 3


@dataclass
class Reviewed:
    """One item reviewed in the window: its label and title, its author, and the reviews given, oldest first."""

    key: str
    label: str
    author: str
    reviews: list[tuple[datetime, str, str, Unit]] = field(default_factory=list)  # (at, who, verdict, unit)


def listed_reviews(
    asked: RecordsAsked, window: tuple[datetime, datetime], view: View, people: Sequence[str] = ()
) -> list[Reviewed]:
    """The items with a review of `asked.event` in `window` by `view.now`, by `asked.by` (or one of `people`, the
    names the question's person resolves to) when it names one, oldest first by their first such review."""
    wanted = REVIEW_EVENTS.get(asked.event, (COMMENTED,))
    names = [n for n in (asked.by, *people) if n]
    found: dict[str, list[tuple[datetime, str, str, Unit]]] = {}
    for chunk in view.chunks(Filter(start=window[0], end=window[1])):
        for unit in chunk.units:
            if unit.at is None or not window[0] <= unit.at < window[1] or unit.at > view.now:
                continue
            for who, verdict, tagged in _acts(unit, chunk, asked.event):
                if verdict not in wanted or (tagged and not same_person(unit.author or "", who)):
                    continue  # a tag carried forward in someone else's message is not a review given here
                if names and not any(same_person(who, n) for n in names):
                    continue
                found.setdefault(chunk.doc_key, []).append((unit.at, who, verdict, unit))
    listed: list[Reviewed] = []
    for key, chunks in whole(view, sorted(found)).items():  # the whole item: its author opened it
        reviews = found[key]
        if asked.pulls and not any(registry.meta(c, "pull_request") for c in chunks):
            continue  # "Which PRs ...": not an issue's comments that happen to read like a review
        item = item_of(key, chunks)
        title = bare_title(key, chunks[0].title)
        numbered = item.label.startswith(("PR ", "Issue "))  # a code host's; a mail thread is named by its subject
        label = f'{item.label} "{title}"' if numbered and title else item.label if numbered else f'"{title or key}"'
        label = f"{item.label}: {title}" if ticket_key(item.label) is not None and title else label
        # A code host's item opens with its author's header; a mail thread's first message here may be a reply.
        author = (item.header.author or "") if item.header is not None else ""
        if asked.event != COMMENTED:  # an author's replies in a review thread are no review
            reviews = [r for r in reviews if not same_person(r[1], author)]
        if not reviews:
            continue
        unique = sorted({u.ref: (at, who, v, u) for at, who, v, u in reviews}.values(), key=lambda r: r[0])
        listed.append(Reviewed(key, label, author, unique))
    listed.sort(key=lambda r: (r.reviews[0][0], r.key))
    return listed


def _acts(unit: Unit, chunk: Chunk, event: str) -> list[tuple[str, str, bool]]:
    """What `unit` gives of the asked event: its reviews (`fields.verdicts`), or, for comments, the unit itself by
    its writer unless it is the item's opening or its changelog."""
    if event != COMMENTED:
        return verdicts(unit)
    if not unit.author or unit.ref == chunk.doc_key or _CHANGELOG.match(unit.text):
        return []
    if any(ev.get("ref") == unit.ref for ev in registry.meta(chunk, "events")):
        return []  # a recorded transition's own entry
    if channel_kind(chunk.kind):
        return []  # a channel's own stream holds posts, not comments on an item
    if chunk.ordinal == 0 and unit is chunk.units[0] and threaded(chunk.kind):
        return []  # a thread's opening message (its ref is not the thread's key)
    return [(unit.author, COMMENTED, False)]


def _counted(n: int, kind: str) -> str:
    """ "3 PRs", "1 PR", "1 patch": the count with the question's plural noun made singular for one."""
    if n != 1:
        return f"{n} {kind}"
    return f"1 {_PLURAL_END.sub('', kind)}"


def render_reviews(
    listed: Sequence[Reviewed], asked: RecordsAsked, period: str, answer: ExtractiveAnswer, *, zone: tzinfo
) -> ExtractiveAnswer:
    """The reviewed items as the answer: a lead with their number, kind, event, whose and period, then one line each
    with its author and the reviews (who, verdict, day), cited to those reviews."""
    shown = listed[:MAX_LISTED]
    more = f" ({len(listed) - len(shown)} more not shown)" if len(listed) > len(shown) else ""
    kind = asked.kind or _kind_of(listed)
    whose = f" by {asked.by}" if asked.by else ""
    event = {"changes requested": "with changes requested", COMMENTED: "commented on"}.get(asked.event, asked.event)
    lines = [f"{_counted(len(listed), kind)} {event}{whose} {period}{more}, oldest first:"]
    cited: dict[int, list[str]] = {}
    urls: dict[int, str] = {}
    for n, item in enumerate(shown, 1):
        said = []
        if asked.event == COMMENTED:  # "2 comments: Mon 9 Oct, Wed 11 Oct"
            days = dict.fromkeys(f"{d:%a} {d.day} {d:%b}" for d in (local_day(r[0], zone) for r in item.reviews))
            count = len(item.reviews)
            said = [f"{count} comment{'s' if count > 1 else ''}: {', '.join(days)}"]
        for at, who, verdict, _ in item.reviews if asked.event != COMMENTED else ():
            day = local_day(at, zone)
            if verdict in _TAGS:  # a mail's tag names its giver: "Acked-by: Rob Herring"
                verdict = verdict if asked.by else f"{verdict}: {who}"
            else:
                verdict = _SAID.get(verdict, verdict) + ("" if asked.by else f" by {who}")
            said.append(f"{verdict} {day:%a} {day.day} {day:%b}")
        opened = f"by {item.author}; " if item.author else ""
        lines.append(f"- {clean(item.label, limit=160)} ({opened}{', '.join(dict.fromkeys(said))}) [{n}]")
        units = [u for *_, u in item.reviews[-CITED_REVIEWS:]]
        cited[n], urls[n] = [u.ref for u in units], units[-1].url
    return replace(answer, text="\n".join(lines), no_answer=False, cited=cited, urls=urls)


def _by_reviewer(
    listed: Sequence[Reviewed], asked: RecordsAsked, period: str, answer: ExtractiveAnswer
) -> ExtractiveAnswer:
    """ "Who reviewed the most PRs last week?": the reviewed items counted by reviewer, the one who reviewed the most
    first, each line cited to up to three of their reviews."""
    mine: dict[str, dict[str, Unit]] = {}  # reviewer -> item key -> their latest review of it
    for item in listed:
        for _, who, _, unit in item.reviews:
            mine.setdefault(who, {})[item.key] = unit
    ranked, _, names = most_first(mine)
    kind = asked.kind or _kind_of(listed)
    most = f"{names} {asked.event} the most: {len(ranked[0][1])}"
    lines = [f"{most} of {len(listed)} {kind} {asked.event} {period}. By reviewer:"]
    cited: dict[int, list[str]] = {}
    urls: dict[int, str] = {}
    for n, (who, items) in enumerate(ranked[:MAX_LISTED], 1):
        lines.append(f"- {who}: {len(items)} [{n}]")
        units = list(items.values())[:CITED_REVIEWS]
        cited[n], urls[n] = [u.ref for u in units], units[0].url
    return replace(answer, text="\n".join(lines), no_answer=False, cited=cited, urls=urls)


def _kind_of(listed: Sequence[Reviewed]) -> str:
    """The noun for items the question named by none: pull requests, tickets, or items."""
    if all(r.label.startswith("PR ") for r in listed):
        return "pull requests"
    return "tickets" if all(ticket_key(r.label.split(":")[0]) is not None for r in listed) else "items"


def answer_reviews(
    asked: RecordsAsked, answer: ExtractiveAnswer, period: Period, view: View, question: Question
) -> tuple[ExtractiveAnswer, list[str]] | None:
    """The reviews asked for in the question's window as the answer, with the items' keys; None when none is there
    (the question then takes the ordinary path). A refused fact answer does not stop it: the reviews are the data."""
    listed = listed_reviews(asked, period.window, view, () if asked.by_person else question.constraints.people)
    if not listed:
        return None
    if asked.by_person:
        return _by_reviewer(listed, asked, period.words, answer), [r.key for r in listed]
    told = render_reviews(listed, asked, period.words, answer, zone=period.zone)
    return told, [r.key for r in listed]
