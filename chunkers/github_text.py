"""The text a GitHub item's chunks open with: its title line, and the sentences of its attributes."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from briefing.model import Document
from chunkers.github_state import GithubState, review_line, verdict_lines

# Attribute lines that state a state: never shown outside the state chunk of their interval.
STATE_LINES = ("review: ", "First tag after ")


def head_line(document: Document, state: GithubState | None = None) -> str:
    """The title line every chunk opens with: the title, the kind of item and, on its state chunk, its state then
    (the other chunks say no state: theirs would be the crawl-time one, later than what a reader may know)."""
    meta = document.metadata
    if meta.get("release"):
        return document.title
    kind = "Pull request" if meta.get("is_pull_request") else "Issue"
    if state is None:
        return f"{document.title} ({kind.lower()})"
    return f"{document.title} ({kind.lower()}, {_status(state)})"


def _status(state: GithubState) -> str:
    return "draft" if state.draft else state.status


def attribute_lines(document: Document, state: GithubState | None = None) -> list[str]:
    """What the item is, who wrote it, when it was opened and merged or closed, its labels, branches and links:
    as they stood in `state`'s interval."""
    meta = document.metadata
    if state is not None:
        return _state_lines(document, state)
    if meta.get("release"):
        line = f"Release {meta.get('tag')} published {day(meta.get('published_at'))}"
        if meta.get("author"):
            line += f" by {meta['author']}"
        flags = [flag for flag in ("draft", "prerelease") if meta.get(flag)]
        return [line + (f" ({', '.join(flags)})" if flags else "")]
    # "PR #12", as GitHub and the people asking write it (the title line above says "pull request").
    kind = "PR" if meta.get("is_pull_request") else "Issue"
    number = f" #{meta['number']}" if meta.get("number") else ""
    subject = f'{kind}{number} "{own_title(document)}"'
    # One sentence says what the item is, who wrote it and when it was opened and merged or closed, so that an
    # answer quoting it has the title's words next to the person or the date asked for.
    dates = [] if meta.get("opened_unknown") else [f"opened {day(meta.get('created_at'))}"]
    if meta.get("merged_at"):
        by = f" by {meta['merged_by']}" if meta.get("merged_by") else ""
        commit = f" as {str(meta['merge_commit'])[:7]}" if meta.get("merge_commit") else ""
        dates.append(f"merged {day(meta['merged_at'])}{by}{commit}")
    elif meta.get("closed_at"):
        by = f" by {meta['closed_by']}" if meta.get("closed_by") else ""
        reason = " (not planned)" if meta.get("state_reason") == "not_planned" else ""
        unmerged = " unmerged" if meta.get("is_pull_request") else ""
        dates.append(f"closed{unmerged} {day(meta['closed_at'])}{by}{reason}")
    facts = [f'{kind}{number} "{own_title(document)}" authored by {meta.get("author") or "unknown"}']
    facts[0] += ", " + ", ".join(dates) if dates else ""
    facts.append(f"state: {meta.get('state', 'open')}")
    for label, key in (("labels", "labels"), ("assignees", "assignees")):
        if meta.get(key):
            facts.append(f"{label}: {', '.join(meta[key])}")
    if meta.get("milestone"):
        facts.append(f"milestone: {meta['milestone']}")
    lines = [" | ".join(facts)]
    branches = [f"{meta['head']} -> {meta['base']}"] if meta.get("base") and meta.get("head") else []
    branches += ["draft"] if meta.get("draft") else []
    if branches:
        lines.append(" | ".join(branches))
    tag = meta.get("next_tag")
    if isinstance(tag, dict) and tag.get("tag"):
        # From an export's timeline (no ancestry): the first tag cut after the merge.
        lines.append(f"First tag after {subject} was merged: {tag['tag']} ({day(tag.get('at'))})")
    if meta.get("linked_issues"):
        lines.append(f"Closes: {', '.join(meta['linked_issues'])}")
    return lines


def _state_lines(document: Document, state: GithubState) -> list[str]:
    meta = document.metadata
    kind = "PR" if meta.get("is_pull_request") else "Issue"
    number = f" #{meta['number']}" if meta.get("number") else ""
    subject = f'{kind}{number} "{own_title(document)}"'
    dates = [] if meta.get("opened_unknown") else [f"opened {day(meta.get('created_at'))}"]
    if state.reopened and state.status == "open":
        dates.append("reopened")
    if state.status == "merged" and state.closed_at is not None:
        by = f" by {state.closed_by}" if state.closed_by else ""
        commit = f" as {str(meta['merge_commit'])[:7]}" if meta.get("merge_commit") and state.until is None else ""
        dates.append(f"merged {day(state.closed_at)}{by}{commit}")
    elif state.status == "closed" and state.closed_at is not None:
        by = f" by {state.closed_by}" if state.closed_by else ""
        reason = " (not planned)" if meta.get("state_reason") == "not_planned" and state.until is None else ""
        unmerged = " unmerged" if meta.get("is_pull_request") else ""
        dates.append(f"closed{unmerged} {day(state.closed_at)}{by}{reason}")
    facts = [f"{subject} authored by {meta.get('author') or 'unknown'}"]
    facts[0] += ", " + ", ".join(dates) if dates else ""
    facts.append(f"state: {_status(state)}")
    if meta.get("is_pull_request") and (review := review_line(state)):
        facts.append(review)
    for label, values in (("labels", state.labels), ("assignees", state.assignees)):
        if values:
            facts.append(f"{label}: {', '.join(values)}")
    if state.milestone:
        facts.append(f"milestone: {state.milestone}")
    lines = [" | ".join(facts)]
    lines += [text for text, *_ in verdict_lines(state)] if meta.get("is_pull_request") else []
    if meta.get("base") and meta.get("head"):
        lines.append(f"{meta['head']} -> {meta['base']}")
    tag = meta.get("next_tag")
    if isinstance(tag, dict) and state.tag:
        lines.append(f"First tag after {subject} was merged: {tag['tag']} ({day(tag.get('at'))})")
    if meta.get("linked_issues"):
        lines.append(f"Closes: {', '.join(meta['linked_issues'])}")
    return lines


def own_title(document: Document) -> str:
    """The item's own title, without the `owner/repo#n: ` prefix of the document title."""
    return document.title.split(": ", 1)[1] if re.match(r"[\w.-]+/[\w.-]+#\d+: ", document.title) else document.title


def day(value: Any) -> str:
    """A date as YYYY-MM-DD ("?" when unknown)."""
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d")
    return str(value or "?")[:10]
