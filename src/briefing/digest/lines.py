"""One conversation as one cited line: what it is about, what happened (its outcome or recorded change), its status."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from zoneinfo import ZoneInfo

from briefing.digest import text as tx
from briefing.digest.conversation import Conversation, Seen, Transition, messages, presentation
from briefing.digest.model import Cited, Line
from briefing.model import Chunk
from briefing.retrieve.exchanges import asks, continuation, reply_positions


class LineMaker:
    """Writes lines in a timezone, as of `now` (what is after it in a forward window is "scheduled")."""

    def __init__(self, zone: ZoneInfo, now: datetime) -> None:
        self.zone = zone
        self.now = now

    # -- rank ---------------------------------------------------------------------------------------------------
    @staticmethod
    def score(conv: Conversation) -> float:
        units = conv.units
        if presentation(conv.source_type).conversational or conv.stream:
            texts = " ".join(s.unit.text for s in units)
        else:  # a page mentions everything somewhere: what it is about is its title and its opening
            texts = " ".join([conv.title, units[0].unit.text])
        found = tx.signals(texts)
        people = len(conv.people())
        # A page's sections are not activity: a document counts once, a conversation by its messages.
        activity = messages(units) if presentation(conv.source_type).conversational else 1
        value = math.log1p(activity) + 0.6 * math.log1p(max(people - 1, 0))
        value += 1.2 * ("incident" in found) + 1.0 * ("decided" in found) + 0.8 * ("released" in found)
        value += 0.5 * bool(found & {"resolved", "merged", "status"})
        value += 0.5 * bool(conv.changes)  # a recorded transition (status, merge, close, new version)
        if conv.opened_in_window:
            value += 0.2
        if conv.threaded and len({s.unit.author for s in units}) == 1 and tx.is_question(units[-1].unit.text):
            value += 0.5  # a question nobody has answered yet
        if all(tx.is_filler(s.unit.text) for s in units):
            value -= 1.0
        return value

    # -- write --------------------------------------------------------------------------------------------------
    def day(self, at: datetime) -> str:
        local = at.astimezone(self.zone)
        return f"{local:%a} {local.day} {local:%b}"

    def when(self, first: datetime, last: datetime) -> str:
        a, b = self.day(first), self.day(last)
        return a if a == b else f"{a} to {b}"

    @staticmethod
    def section_title(conv: Conversation) -> str:
        shown = presentation(conv.source_type)
        if shown.container_prefix and conv.container:
            return f"{shown.container_prefix}{conv.container}"
        if conv.container:
            return f"{shown.label}: {conv.container}"
        return shown.label

    @staticmethod
    def about(conv: Conversation) -> str:
        shown = presentation(conv.source_type)
        if shown.place in ("container",) or conv.stream or conv.threaded:
            # The whole opening post, though a long one is split over chunks (its first piece may be a pasted log).
            ref = conv.opener.unit.ref
            post = "\n".join(s.unit.text for s in (*conv.earlier, *conv.units) if s.unit.ref == ref)
            return tx.gist(post) or tx.short(conv.title)
        # The document's own title: its shortest section path ends with it ("Space > Parent > Page").
        titles = [s.chunk.title for s in (*conv.earlier, *conv.units) if s.chunk.title] or [conv.title]
        title = min(titles, key=lambda t: (t.count(" > "), len(t))).split(" > ")[-1].strip()
        return tx.short(title or tx.gist(conv.opener.unit.text))

    def outcome(self, conv: Conversation) -> tuple[Seen | None, str, str]:
        """The unit that says what happened (the resolution from the last replies), its sentence, the status."""
        units = conv.units
        opener = conv.opener
        replies = units[1:] if conv.opened_in_window else units
        # The other pieces of a long opening post (split over chunks) are the post itself, not replies to it.
        replies = [s for s in replies if s.unit.ref != opener.unit.ref]
        if not replies or not presentation(conv.source_type).conversational:
            if conv.stream or not presentation(conv.source_type).conversational:
                best = max(units, key=lambda s: tx.best_sentence(s.unit.text)[1])
                sentence, value = tx.best_sentence(best.unit.text)
                status = "updated" if conv.earlier else ("added" if not conv.stream else "posted")
                if units[0].at > self.now:
                    status = "scheduled"  # a forward window: entered before now, taking place after it
                if conv.stream:
                    status = self._post_status(units)
                # A post's other pieces are the post (one message); a document's other sections say what it holds.
                if best is opener or (conv.stream and best.unit.ref == opener.unit.ref) or value <= 0:
                    return None, "", status
                return best, sentence, status
            status = "open, no reply yet" if tx.is_question(opener.unit.text) else self._post_status(units)
            return None, "", status
        n = len(replies)
        answers = _answers(conv)
        ranked = []
        for i, s in enumerate(replies):
            sentence, value = tx.best_sentence(s.unit.text)
            if value <= 0:
                continue
            found = tx.signals(s.unit.text)
            value += 0.6 * (i + 1) / n  # the later, the more it says how things stand
            value += 0.8 * bool(found & {"resolved", "decided", "merged", "released"})
            # In a channel's stream, the reply to what the opener asked says what came of it, before anything else.
            value += 10.0 * (s.unit.ref in answers)
            if s.unit.author and s.unit.author != opener.unit.author:
                value += 0.1
            ranked.append((value, i, s, sentence, found))
        if not ranked:
            return None, "", self._open_status(conv)
        _, _, best, sentence, _ = max(ranked, key=lambda r: (r[0], r[1]))
        late = tx.signals(" ".join(s.unit.text for s in replies[-3:]))
        for status in ("resolved", "decided", "merged", "released"):
            if status in late:
                return best, sentence, status
        return best, sentence, self._open_status(conv)

    def change_status(self, changes: Sequence[Transition]) -> str:
        """What the history says happened in the window: "In Progress → Done by Sam", "merged by sam"."""
        statuses = [c for c in changes if c.event == "status"]
        if statuses:
            chain = [statuses[0].before or "(none)", *(c.after or "(none)" for c in statuses)]
            who = list(dict.fromkeys(c.by for c in statuses if c.by))
            return " → ".join(chain) + (f" by {', '.join(who)}" if who else "")
        last = changes[-1]
        if last.event == "updated" and any(c.event == "created" for c in changes):
            first = next(c for c in changes if c.event == "created")
            return f"created by {first.by or 'someone'}, {last.describe()}"
        return last.describe()

    @staticmethod
    def _post_status(units: Sequence[Seen]) -> str:
        """A post or a burst of posts: what it announces (a decision, a release, an incident), else "posted"."""
        found = tx.signals(" ".join(s.unit.text for s in units))
        for status in ("decided", "released", "merged", "resolved", "incident"):
            if status in found:
                return status
        return "posted"

    @staticmethod
    def _open_status(conv: Conversation) -> str:
        last = conv.units[-1]
        opener = conv.opener.unit.author
        asked = tx.is_question(tx.gist(conv.opener.unit.text))
        if len(conv.units) > 1 and tx.is_question(last.unit.text) and last.unit.author:
            return f"open, waiting on an answer to {last.unit.author}"
        if asked and opener and last.unit.author and last.unit.author != opener:
            return f"answered by {last.unit.author}, not yet confirmed by {opener}"
        if asked:
            return "open, no answer yet"
        return "discussed"

    def line(self, conv: Conversation, first_n: int) -> Line:
        """One conversation as one line; citation numbers start at `first_n`."""
        about = self.about(conv)
        best, sentence, status = self.outcome(conv)
        # A recorded transition (not the opening, which the line's head already cites) is the line's status.
        moves = [c for c in conv.changes if c.event != "opened"]
        change = moves[-1] if moves else None
        if change is not None:
            status = self.change_status(moves)
            if best is not None and best.unit.ref == change.ref and presentation(conv.source_type).conversational:
                best, sentence = None, ""  # the transition itself, or the item's attribute lines restating it
        cites: list[Cited] = []
        chunks: list[Chunk] = []
        n = first_n

        def cite(seen: Seen) -> str:
            nonlocal n
            for c in cites:
                if c.refs == [seen.unit.ref]:
                    return f"[{c.n}]"
            cites.append(Cited(n=n, refs=[seen.unit.ref], url=seen.url))
            chunks.append(seen.chunk)
            n += 1
            return f"[{cites[-1].n}]"

        opener = conv.opener
        if not presentation(conv.source_type).conversational and not conv.stream:
            head = f'"{about}"'
        elif conv.opened_in_window:
            head = f"{about} {cite(opener)}"
        else:
            head = f"{about} (from {self.day(opener.at)})"
        people = conv.people()
        shown = ", ".join(people[:3]) + (f" +{len(people) - 3}" if len(people) > 3 else "")
        conversational = presentation(conv.source_type).conversational
        count = messages(conv.units) if conversational else len(conv.units)
        noun = "message" if conversational else "section"
        when = self.when(conv.units[0].at, conv.units[-1].at)
        meta = "; ".join(p for p in (shown, when, f"{count} {noun}{'s' if count != 1 else ''}") if p)
        body = f"{head} — {status}"
        if change is not None:
            at_change = next((s for s in conv.units if s.unit.ref == change.ref and s.at == change.at), None)
            if at_change is not None:
                body += f" ({self.day(change.at)}) {cite(at_change)}"
        if best is not None and sentence and not presentation(conv.source_type).conversational and not conv.stream:
            by = (
                f" by {best.unit.author}" if best.unit.author and not (change and change.by == best.unit.author) else ""
            )
            body += f'{by}: "{sentence}" {cite(best)}'
        elif best is not None and sentence:
            who = best.unit.author or "unknown"
            body += f': {who}: "{sentence}" {cite(best)}'
        elif not cites:
            body += f" {cite(conv.units[-1])}"
        return Line(
            text=f"{body} ({meta})",
            occurred_at=conv.units[0].at,
            citations=cites,
            title=about,
            key=conv.key,
            status=status,
            people=people,
            score=self.score(conv),
            last_at=conv.units[-1].at,
            section=self.section_title(conv),
            chunks=chunks,
        )


def _answers(conv: Conversation) -> set[str]:
    """The refs of the replies (`retrieve.exchanges.reply_positions`, with their continuations) to what the opener
    of a stream conversation asked in it; none for other conversations."""
    if not conv.stream:
        return set()
    units = [s.unit for s in (*conv.earlier, *conv.units)]
    asker = conv.opener.unit.author
    found: set[str] = set()
    for pos, unit in enumerate(units):
        if asker and unit.author == asker and asks(unit.text):
            for n in reply_positions(units, pos):
                found |= {units[m].ref for m in (n, *continuation(units, n))}
    return found
