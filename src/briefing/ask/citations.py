"""Citation checks after generation: keep only markers that point into the context, then flag what is left.

A marker `[n]` is valid when 1 <= n <= len(context). Out-of-range numbers ([0], [9] of 3), malformed markers
([x], [], [n ]) and repeats ([1][1]) are removed and logged; lists and ranges ([1,2], [1-2]) are rewritten as
[1][2]. Sentences with facts but no valid marker are flagged. An answer the model called sufficient that keeps
no valid citation, or one it called insufficient, becomes a refusal that says what was searched and cites
nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from briefing.model import Chunk
from briefing.textrules import refusal as refusal  # re-exported: nodes imports it from here

# Any short bracketed group that is not a Markdown link "[text](url)".
_BRACKET = re.compile(r"\[([^\[\]\n]{0,24})\](?!\()")
_NUMBERS = re.compile(r"^\s*[#^]?\s*\d+\s*(?:(?:,|;|-|–|and)\s*[#^]?\s*\d+\s*)*$")
_PART = re.compile(r"(\d+)\s*(?:(-|–)\s*(\d+))?")
_MARKER_RUN = re.compile(r"(?:\[\d+\][ \t]*)+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[^\W\d_]{2,}")
MAX_RANGE = 10


@dataclass
class Checked:
    text: str
    citations: list[dict[str, Any]] = field(default_factory=list)
    removed: list[dict[str, str]] = field(default_factory=list)
    uncited: list[str] = field(default_factory=list)
    no_answer: bool = False
    note: str = ""


def _numbers(content: str) -> list[int]:
    out: list[int] = []
    for m in _PART.finditer(content):
        first = int(m[1])
        last = int(m[3]) if m[3] else first
        if last < first or last - first > MAX_RANGE:
            out.extend([first, last] if m[3] else [first])
        else:
            out.extend(range(first, last + 1))
    return out


def _is_marker_attempt(content: str) -> bool:
    """Short tokens in brackets ([x], [n], [], [?], [ref]) are broken citations, not prose like "[WIP draft]"."""
    stripped = content.strip()
    return len(stripped) <= 4 and " " not in stripped


def normalise_markers(text: str, size: int) -> tuple[str, list[int], list[dict[str, str]]]:
    """Rewrite every citation marker into `[n]` form, dropping invalid and repeated ones."""
    removed: list[dict[str, str]] = []

    def replace(m: re.Match[str]) -> str:
        content = m[1]
        if _NUMBERS.match(content):
            kept = []
            for n in _numbers(content):
                if 1 <= n <= size:
                    kept.append(n)
                else:
                    removed.append({"marker": m[0], "n": str(n), "reason": f"not in the context (1..{size})"})
            return "".join(f"[{n}]" for n in kept)
        if _is_marker_attempt(content):
            removed.append({"marker": m[0], "n": "", "reason": "malformed citation marker"})
            return ""
        return m[0]

    text = _BRACKET.sub(replace, text)

    def dedupe(m: re.Match[str]) -> str:
        seen: list[int] = []
        for n in (int(x) for x in re.findall(r"\d+", m[0])):
            if n in seen:
                removed.append({"marker": f"[{n}]", "n": str(n), "reason": "duplicate of the marker before it"})
            else:
                seen.append(n)
        trailing = m[0][len(m[0].rstrip()) :]
        return "".join(f"[{n}]" for n in seen) + trailing

    text = _MARKER_RUN.sub(dedupe, text)
    # Removing a marker can leave "word ." or doubled spaces.
    text = re.sub(r"[ \t]+([.,;:!?])", r"\1", text)
    text = re.sub(r"[ \t]{2,}", " ", text).strip()
    cited = list(dict.fromkeys(int(n) for n in re.findall(r"\[(\d+)\]", text)))
    return text, cited, removed


def uncited_claims(text: str) -> list[str]:
    """Sentences that state something (three or more words, not a lead-in ending in ':') without a marker."""
    out = []
    for sentence in _SENTENCE.split(text):
        sentence = sentence.strip(" -*\t")
        if not sentence or sentence.endswith(":") or re.search(r"\[\d+\]", sentence):
            continue
        if len(_WORD.findall(sentence)) >= 3:
            out.append(sentence)
    return out


def check(text: str, context: Sequence[Chunk], *, sufficient: bool, scope: str) -> Checked:
    """Validate a generated answer against the numbered context it was given."""
    cleaned, cited, removed = normalise_markers(text, len(context))
    if not sufficient:
        reason = re.sub(r"\[\d+\]", "", cleaned).strip()
        reason = reason if 0 < len(reason) <= 300 else ""
        return Checked(refusal(scope, reason), removed=removed, no_answer=True, note="model: evidence insufficient")
    if not cited:
        return Checked(
            refusal(scope),
            removed=removed,
            uncited=uncited_claims(cleaned),
            no_answer=True,
            note="the answer kept no valid citation; replaced by a refusal",
        )
    citations = [resolve(n, cleaned, context[n - 1]) for n in sorted(cited)]
    return Checked(cleaned, citations=citations, removed=removed, uncited=uncited_claims(cleaned))


def _claims_citing(text: str, n: int) -> list[str]:
    """The sentences (or answer lines) that end in marker `[n]`."""
    return [s for s in _SENTENCE.split(text) if f"[{n}]" in s]


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if len(w) > 2} | set(re.findall(r"\d[\w.]*", text))


def resolve(n: int, text: str, chunk: Chunk) -> dict[str, Any]:
    """Citation `[n]` narrowed to the units of chunk n that the sentences citing it draw on.

    A unit is kept when it shares at least half of its best match's words with a citing sentence (and at least
    three); its own link then replaces the chunk's, so `[n]` opens the message, comment or section quoted. With
    no clear match the citation keeps the whole chunk's refs and link.
    """
    units = [u for u in chunk.units if u.text.strip()]
    claims = _claims_citing(text, n)
    if not units or not claims:
        return {"n": n, "refs": list(chunk.refs), "url": chunk.url}
    overlap: dict[int, int] = {}
    for claim in claims:
        words = _words(claim)
        for i, unit in enumerate(units):
            overlap[i] = max(overlap.get(i, 0), len(words & _words(unit.text)))
    top = max(overlap.values(), default=0)
    if top < 3:
        return {"n": n, "refs": list(chunk.refs), "url": chunk.url}
    keep = [units[i] for i, v in overlap.items() if v >= max(3, top // 2 + 1)]
    refs = list(dict.fromkeys(u.ref for u in keep))
    best = units[max(overlap, key=lambda i: (overlap[i], -i))]
    return {"n": n, "refs": refs, "url": best.url or chunk.url}


# -- the contract on the ask path: only sentences found in the evidence are printed, each with its [n] ----------

# Evidence text: sentence breaks (kept, to rebuild the text) and the figures a claim must share with its source.
_PIECES = re.compile(r"((?<=[.!?])\s+|\n+)")
_FACT = re.compile(r"\d+(?:[.,]\d+)*")
_STOP = frozenset(
    "the and for was were are has have had that this with from into onto about which what when who whom whose "
    "our their its his her they them there then than been being will would should could can may might also "
    "not but any all some one two per via out off over under more most less least very just only".split()
)
MIN_SHARED = 0.6  # share of a sentence's content words that the evidence must hold


@dataclass
class Grounded:
    """A draft reduced to its sentences found in the evidence; `fallback` says why nothing of it can be printed."""

    text: str = ""
    citations: list[dict[str, Any]] = field(default_factory=list)
    removed: list[dict[str, str]] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    attached: list[str] = field(default_factory=list)
    fallback: str = ""


def _stem(word: str) -> str:
    return word.lower()[:6]


def _content(text: str) -> tuple[set[str], set[str]]:
    """A text's content words (stemmed) and its numbers (leading zeros dropped: "08" and "8" are one fact)."""
    words = {_stem(w) for w in _WORD.findall(text) if len(w) > 2 and w.lower() not in _STOP}
    facts = {f.lstrip("0") or "0" for f in _FACT.findall(text)}
    return words, facts


def _evidence_of(chunk: Chunk) -> tuple[set[str], set[str]]:
    units = " ".join(f"{u.author or ''} {u.at.isoformat() if u.at else ''} {u.text}" for u in chunk.units)
    return _content(" ".join([chunk.title, " ".join(chunk.authors), chunk.start.isoformat(), chunk.text, units]))


def _support(sentence: str, evidence: tuple[set[str], set[str]]) -> float:
    """The share of the sentence's content words the evidence holds; 0 when any of its numbers is absent."""
    words, facts = _content(sentence)
    if not facts <= evidence[1]:
        return 0.0
    if not words:
        return 1.0 if facts else 0.0
    return len(words & evidence[0]) / len(words)


def _union(parts: list[tuple[set[str], set[str]]]) -> tuple[set[str], set[str]]:
    return set().union(*(p[0] for p in parts)), set().union(*(p[1] for p in parts))


def _with_marker(sentence: str, n: int) -> str:
    body = sentence.rstrip()
    end = len(body.rstrip(".!?"))
    return f"{body[:end]} [{n}]{body[end:]}"


def ground(text: str, context: Sequence[Chunk], *, sufficient: bool) -> Grounded:
    """Keep each sentence of `text` whose words and numbers are in the evidence it cites (or, uncited, in one block,
    whose [n] is then attached); drop the rest. Nothing printable, or a model that judged the evidence
    insufficient, sets `fallback`: the answer is then decided by brief, never worded by the model."""
    if not sufficient:
        return Grounded(fallback="the model judged the evidence insufficient")
    cleaned, _, removed = normalise_markers(text, len(context))
    evidence = [_evidence_of(chunk) for chunk in context]
    out: list[str] = []
    dropped: list[str] = []
    attached: list[str] = []
    separator = ""
    for piece in _PIECES.split(cleaned):
        if _PIECES.fullmatch(piece) or not piece.strip():
            separator = separator or piece
            continue
        bare = re.sub(r"\s*\[\d+\]", "", piece).strip()
        cited = [int(n) for n in re.findall(r"\[(\d+)\]", piece)]
        words, facts = _content(bare)
        if not facts and len(words) < 2:  # "Yes.", a lead-in: no claim of its own
            out.append(separator + bare if out else bare)
            separator = ""
            continue
        if cited and _support(bare, _union([evidence[n - 1] for n in cited])) >= MIN_SHARED:
            sentence = piece.strip()
        else:
            best = max(range(len(context)), key=lambda i: _support(bare, evidence[i]), default=None)
            if best is None or _support(bare, evidence[best]) < MIN_SHARED:
                dropped.append(bare)
                separator = separator or " "
                continue
            sentence = _with_marker(bare, best + 1)
            attached.append(sentence)
        out.append((separator if out else "") + sentence)
        separator = ""
    kept = "".join(out).strip()
    cited_numbers = list(dict.fromkeys(int(n) for n in re.findall(r"\[(\d+)\]", kept)))
    if not cited_numbers:
        return Grounded(removed=removed, dropped=dropped, fallback="no sentence of the draft was found in the evidence")
    citations = [resolve(n, kept, context[n - 1]) for n in sorted(cited_numbers)]
    return Grounded(kept, citations, removed, dropped, attached)
