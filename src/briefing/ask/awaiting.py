"""Which pull requests are waiting for review, listed from their lifecycle and review verdicts as of now.

"Which PRs are waiting for review?": the pull requests (the `pull_request` role) opened by `now` and neither merged
nor closed by then (their `events`, read against `now`, so a later merge does not hide one that was open), that no
reviewer has approved in a review the `View` holds at `now`. Each line names the author, when it was opened and the
last verdict so far (changes requested, comments), cited to the pull request itself. With none, nothing is
answered here and the question takes the fact path.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING

from briefing import registry
from briefing.ask.fields import bare_title, item_of, read_field
from briefing.ask.segment import clean
from briefing.index import Filter
from briefing.question.timewindow import local_day

if TYPE_CHECKING:
    from briefing.ask.extractive import ExtractiveAnswer
    from briefing.model import Chunk, Unit
    from briefing.view import View

MAX_LISTED = 15
_ENDING = frozenset({"merged", "closed"})


@dataclass(frozen=True)
class Waiting:
    """One open pull request nobody approved: its title, author, when it opened, the verdicts so far, its unit."""

    key: str
    title: str
    author: str
    opened: datetime
    verdicts: str
    unit: Unit


def _pull_families() -> tuple[str, ...]:
    return tuple(dict.fromkeys(d.family for d in registry.descriptors() if "pull_request" in d.metadata))


def _lifecycle(chunks: list[Chunk], now: datetime) -> tuple[datetime | None, str, bool]:
    """(when it was opened, by whom, whether it was merged or closed) by `now`."""
    opened: datetime | None = None
    author, ended = "", False
    for chunk in chunks:
        for ev in registry.meta(chunk, "events"):
            try:
                at = datetime.fromisoformat(str(ev.get("at")))
            except ValueError:
                continue
            if at > now:
                continue
            if ev.get("event") == "opened" and (opened is None or at < opened):
                opened, author = at, str(ev.get("by") or "")
            ended = ended or ev.get("event") in _ENDING
    return opened, author, ended


def awaiting_review(view: View) -> list[Waiting]:
    """The pull requests open at the view's `now` that no review it holds approves, oldest first."""
    families = _pull_families()
    if not families:
        return []
    by_doc: dict[str, list[Chunk]] = {}
    for chunk in view.chunks(Filter(source_types=families)):
        if registry.meta(chunk, "pull_request"):
            by_doc.setdefault(chunk.doc_key, []).append(chunk)
    found: list[Waiting] = []
    for key, chunks in by_doc.items():
        opened, author, ended = _lifecycle(chunks, view.now)
        if opened is None or ended:
            continue
        item = item_of(key, chunks)
        if read_field(item, "approver") is not None:
            continue  # approved: waiting to be merged, not for review
        reviews = read_field(item, "reviewer")
        verdicts = reviews[0].split(" was reviewed by ", 1)[-1].replace("\x00", "") if reviews else ""
        unit = item.header or item.units[0]
        title = bare_title(key, chunks[0].title)
        label = f'{item.label} "{title}"' if title else item.label
        found.append(Waiting(key, label, author, opened, verdicts, unit))
    found.sort(key=lambda w: (w.opened, w.key))
    return found


def answer_awaiting(answer: ExtractiveAnswer, view: View, *, zone: tzinfo) -> tuple[ExtractiveAnswer, list[str]] | None:
    """The open, unapproved pull requests as the answer, each cited to itself, with their keys; None for none.
    Days are named in `zone`, the workspace's."""
    waiting = awaiting_review(view)
    if not waiting:
        return None
    shown = waiting[:MAX_LISTED]
    more = f" ({len(waiting) - len(shown)} more not shown)" if len(waiting) > len(shown) else ""
    noun = "pull request" if len(waiting) == 1 else "pull requests"
    lines = [f"{len(waiting)} open {noun} without an approval as of {local_day(view.now, zone)}{more}, oldest first:"]
    cited: dict[int, list[str]] = {}
    urls: dict[int, str] = {}
    for n, pr in enumerate(shown, 1):
        title = clean(pr.title, limit=160)
        so_far = f"reviews so far: {pr.verdicts}" if pr.verdicts else "no review yet"
        who = f"by {pr.author}, " if pr.author else ""
        opened = local_day(pr.opened, zone)
        lines.append(f"- {title} ({who}opened {opened:%a} {opened.day} {opened:%b}; {so_far}) [{n}]")
        cited[n], urls[n] = [pr.unit.ref], pr.unit.url
    return replace(answer, text="\n".join(lines), no_answer=False, cited=cited, urls=urls), [w.key for w in waiting]
