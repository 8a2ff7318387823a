"""Two-part questions with a role part, the role read from the item's own state as of now.

"Who requested changes on the 'Unambiguous signatures' pull request, and what did they suggest instead?", "Which
epic about the new iPhone was opened last week, and who is it assigned to?": the fact answer quotes a line for each
part, but the unit that states the role (a review verdict, the header's Assignee row) is often not among the lines
retrieval gave it, and the line it quotes names its writer, not the one who holds the role. The role part's line is
replaced by the role as the item's fields hold it at `now` (`briefing.ask.described`), cited to the unit that
states it. The item is the one the part describes, or, when the part only points at it ("who is it assigned to"),
the one the whole question describes; when no such item holds the role, the fact answer's line stays.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from briefing.ask.described import answer_described, topic_words
from briefing.ask.extractive.render import label
from briefing.question.answer_type import extra_of
from briefing.question.kind import part_roles

if TYPE_CHECKING:
    from briefing.ask.extractive import ExtractiveAnswer
    from briefing.model import Chunk
    from briefing.question.model import Question
    from briefing.view import View

# Answer text: a citation marker ("[3]").
_MARKER = re.compile(r"\[(\d+)\]")


def with_role_parts(
    question: Question, answer: ExtractiveAnswer, context: Sequence[Chunk], view: View
) -> ExtractiveAnswer:
    """`answer` with the line of each role part of a two-part question read from the item's state (see the
    module's docstring); `answer` itself when the question has no role part or no item holds the role."""
    if answer.no_answer or len(question.parts) < 2:
        return answer
    lines = answer.text.split("\n")
    cited, urls = dict(answer.cited), dict(answer.urls)
    changed = False
    for part in extra_of(question)["part_readings"]:
        fields = part_roles(part.text)
        name = label(part.text)
        at = next((i for i, line in enumerate(lines) if line.startswith(f"{name}:")), None)
        if not fields or at is None:
            continue
        asked = part.as_answered(question)
        read = answer_described(fields, asked if topic_words(asked) else question, answer, context, view)
        if read is None:
            continue
        offset = max(cited, default=0)
        lines[at] = f"{name}: " + _shifted(read[0].text, offset)
        for n, refs in read[0].cited.items():
            cited[n + offset], urls[n + offset] = refs, read[0].urls.get(n, "")
        changed = True
    if not changed:
        return answer
    text, cited, urls = _renumbered("\n".join(lines), cited, urls)
    return replace(answer, text=text, cited=cited, urls=urls)


def _shifted(text: str, offset: int) -> str:
    """`text` with each marker's number raised by `offset`."""
    return _MARKER.sub(lambda m: f"[{int(m[1]) + offset}]", text)


def _renumbered(
    text: str, cited: dict[int, list[str]], urls: dict[int, str]
) -> tuple[str, dict[int, list[str]], dict[int, str]]:
    """The markers numbered again in order of appearance, each unit once; a number no longer in the text is
    dropped with its unit."""
    numbers: dict[int, int] = {}
    by_refs: dict[tuple[str, ...], int] = {}
    for m in _MARKER.finditer(text):
        old = int(m[1])
        if old in cited and old not in numbers:
            numbers[old] = by_refs.setdefault(tuple(cited[old]), len(by_refs) + 1)
    out = _MARKER.sub(lambda m: f"[{numbers[int(m[1])]}]" if int(m[1]) in numbers else m[0], text)
    new_cited = {new: list(cited[old]) for old, new in numbers.items()}
    new_urls = {new: urls.get(old, "") for old, new in numbers.items()}
    return out, new_cited, new_urls
