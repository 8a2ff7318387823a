"""Ask "Which release added X?" of each release line's own items, after the line and the day before it existed.

No dev case is read. A release line is a unit that names a version and announces it (a Slack or mail post "v0.4.8
Released: • feat: add X • fix: Y"; a release-notes document's paragraph under a title naming the versions) or a
ticket whose header states a fix version (its summary is the item). Each line gives one item, paraphrased by dropping
its template words ("feat:", "Added support for", "by @ana in #12"), asked as "Which release added <item>?" ("fixed"
for a fix). Asked a day after the line, the index holds the answer: right when the answer's first line names one of
the line's versions or its lead cites the line. Asked the day before the line existed, the release is not in the
index, only other releases' lines: right when refused (a near miss). An earlier line may state the same change, so
read the counts as before and after a change, not as accuracy. Prints one line per probe and

    answered after: A of N; refused before: R of N; balanced: (A + R) / 2N

    python eval/probe_releases.py --config C -n 40 [--seed 7] [--show]
    python eval/probe_releases.py --config C -n 60 --cases-out probes.jsonl   # then `brief eval probes.jsonl`
"""

from __future__ import annotations

import json
import random
import re
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from probe_refusals import Tally, refused  # noqa: E402
from probe_threads import probe_args  # noqa: E402

# Unit text: announces a release ("v0.4.8 Released", "0.1.19 is out", "I've pushed 1.7.0-snapshot2").
_RELEASED = re.compile(
    r"\b(?:releas(?:e[sd]?|ing)|publish(?:e[sd]|ing)?|pushed|tagged|(?:is|are)\s+(?:now\s+)?(?:out|available))\b", re.I
)
# Where a post's items split: bullets ("• feat: ...", a line "- fix ..."); else its sentences.
_BULLETS = re.compile(r"\s*[•\u2022]\s*|\n\s*[-*]\s+")
_SENTENCES = re.compile(r"(?<=[.!?])\s+(?=[A-Z])|\n+")
# A release-notes paragraph that lists one change under a bold title.
_BOLD = re.compile(r"^\s*(?:\d+[.)]|[-*])\s*\*\*([^*]{6,120})\*\*")
# A sentence about the writer or the reader, not a change ("I think ...", "you will have to ...").
_PERSONAL = re.compile(r"\b(?:i|i'm|i’m|you|your|we|we'll|my|please|dunno|think)\b", re.I)
# Item text that is no change of the product's: housekeeping, version bumps, merges, links, thanks.
_HOUSEKEEPING = re.compile(
    r"\b(?:chore|docs?|ci|bump(?:ed|s)?|merge[sd]?|readme|typo|thanks?|changelog|release notes?|full changelog|"
    r"new contributors?|made their first contribution)\b",
    re.I,
)
# Item text: its template words: a conventional-commit prefix, a leading act, a credit, links, markup, emoji.
_PREFIX = re.compile(
    r"^\s*(?:\d+[.)]\s*)?(?:(?:feat|fix|perf|refactor|feature|improvement|enhancement)(?:\([^)]*\))?!?:\s*)?"
    r"(?:(?:added|adds?|adding|introduced?|introduces|fixed|fix(?:es)?|fixing|supports?|implemented|implements?|"
    r"enabled?|new)\s+)?(?:(?:support|the\s+ability)\s+(?:for|to)\s+)?",
    re.I,
)
_NOISE = re.compile(
    r"\s+by\s+@.*$|\s+in\s+#\d+.*$|\(?https?://\S+\)?|<[^>]+>|\*\*|`|:[a-z_]+:|\s+-\s*$|\[[^\]]*\|[^\]]*\]", re.I
)
_FIXING = re.compile(r"^\s*(?:\d+[.)]\s*)?(?:fix|bug)", re.I)
_ACT = re.compile(r"\b(?:add|fix|support|improv|introduc|new|chang|allow|enabl|implement|handl|now)\w*", re.I)
MIN_WORDS, MAX_WORDS = 2, 12


@dataclass(frozen=True)
class ReleaseProbe:
    """A question made from one item of a release line, when the line was written, and what answers it."""

    key: str  # the release line's unit ref
    question: str
    at: datetime  # when the line was written
    before: datetime  # when the release did not exist yet
    versions: tuple[str, ...]


def paraphrase(item: str) -> str:
    """The item without its template words, at most MAX_WORDS words ("" when too short or housekeeping)."""
    text = _NOISE.sub(" ", item)
    text = _PREFIX.sub("", text.split(" - ")[0].split(":", 1)[-1] if " - " in text else text)
    text = _PREFIX.sub("", text)
    words = re.sub(r"[\s.;,:]+$", "", " ".join(text.split())).split()
    if len(words) < MIN_WORDS or _HOUSEKEEPING.search(item):
        return ""
    return " ".join(words[:MAX_WORDS])


def _versions(text: str) -> tuple[str, ...]:
    from briefing.ask.extractive.values import VERSION

    return tuple(dict.fromkeys(m[0].lower().lstrip("v") for m in VERSION.finditer(text)))


def _question(item: str) -> str:
    verb = "fixed" if _FIXING.match(item) else "added"
    return f"Which release {verb} {paraphrase(item)}?"


def _items(text: str, conversational: bool) -> list[str]:
    """A release line's items: a post's bullets (else its sentences that state a change in the third person), a
    release-notes paragraph's bold title ("1. **Schema filtering for PostgreSQL -** <br/> Added ...")."""
    if not conversational:
        bold = _BOLD.match(text)
        return [bold[1]] if bold and paraphrase(bold[1]) else []
    bullets = _BULLETS.split(text)
    parts = bullets[1:] if len(bullets) > 1 else _SENTENCES.split(text)
    return [
        s
        for s in parts
        if paraphrase(s) and not _versions(s) and _ACT.search(s) and not _PERSONAL.search(s) and "?" not in s
    ]


def _line_probes(chunk: Any, rng: random.Random, conversational: bool) -> list[ReleaseProbe]:
    """A probe per release line of a conversation or document chunk (one of its items, drawn)."""
    out = []
    for unit in chunk.units:
        if unit.at is None:
            continue
        versions = _versions(unit.text) or (() if conversational else _versions(chunk.title))
        if not versions or (conversational and not _RELEASED.search(unit.text)):
            continue
        items = _items(unit.text, conversational)
        if items:
            item = rng.choice(items)
            out.append(ReleaseProbe(unit.ref, _question(item), unit.at, unit.at - timedelta(days=1), versions))
    return out


def _ticket_probe(chunk: Any) -> ReleaseProbe | None:
    """A probe from a fixed ticket's header: "Which release fixed <summary>?", its fix versions the answer."""
    from briefing.ask.finished import fix_versions
    from briefing.ask.header import is_header, rows

    head = chunk.units[0] if chunk.units else None
    if head is None or head.at is None or not is_header(head.text):
        return None
    cells = rows(head.text)
    versions = tuple(sorted(fix_versions(cells)))
    if not versions or cells.get("resolution", "").lower() != "fixed":
        return None
    summary = re.sub(r"^[A-Z][A-Z0-9]+-\d+:\s*", "", chunk.title)
    started = min(u.at for u in chunk.units if u.at is not None)
    last = max(u.at for u in chunk.units if u.at is not None)
    words = " ".join(_NOISE.sub(" ", summary).split())
    if len(words.split()) < MIN_WORDS:
        return None
    return ReleaseProbe(head.ref, f"Which release fixed {words}?", last, started - timedelta(days=1), versions)


def release_probes(chunks: list[Any], rng: random.Random) -> list[ReleaseProbe]:
    """Every release line's probe, each line once, in a reproducible shuffled order."""
    from briefing.ask.extractive.evidence import presentation

    found: dict[str, ReleaseProbe] = {}
    for chunk in sorted(chunks, key=lambda c: c.chunk_id):
        ticket = _ticket_probe(chunk)
        made = [ticket] if ticket else _line_probes(chunk, rng, presentation(chunk).conversational)
        for probe in made:
            found.setdefault(probe.key, probe)
    drawn = sorted(found.values(), key=lambda p: p.key)
    rng.shuffle(drawn)
    return drawn


def as_cases(drawn: list[ReleaseProbe]) -> list[dict[str, Any]]:
    """Each probe as two evaluation cases: asked after its line (answerable, the line the gold, its versions one
    keyword group of alternatives) and the day before the line existed (unanswerable)."""
    cases = []
    for i, p in enumerate(drawn, 1):
        after = p.at + timedelta(days=1)
        versions = [list(p.versions)]
        cases.append({"id": f"ra{i:03d}", "question": p.question, "now": after.isoformat(), "gold_refs": [p.key],
                      "answer_keywords": versions, "no_answer": False, "category": "probe_after"})  # fmt: skip
        cases.append({"id": f"rb{i:03d}", "question": p.question, "now": p.before.isoformat(), "gold_refs": [],
                      "answer_keywords": [], "no_answer": True, "category": "probe_before"})  # fmt: skip
    return cases


def names_release(answer: Any, probe: ReleaseProbe) -> bool:
    """Whether the answer's first line names one of the line's versions, or its lead cites the line."""
    first = (answer.answer.splitlines() or [""])[0].lower()
    lead = answer.citations[0].refs if answer.citations else []
    named = (re.search(rf"(?<![\w.])v?{re.escape(v)}(?![\w.]*\d)", first) for v in probe.versions)
    return probe.key in lead or any(named)


def main() -> None:
    args = probe_args(
        __doc__, 40, ("--cases-out", {"type": Path, "help": "write the probes as evaluation cases and ask nothing"})
    )
    from briefing.index import Filter
    from briefing.service import Brief
    from briefing.settings import load_settings

    with Brief(load_settings(args.config)) as brief:
        chunks = brief.index.view(datetime(2200, 1, 1, tzinfo=UTC)).chunks(Filter())
        drawn = release_probes(chunks, random.Random(args.seed))[: args.n]  # noqa: S311 (a reproducible draw)
        if args.cases_out is not None:
            args.cases_out.write_text("".join(json.dumps(c) + "\n" for c in as_cases(drawn)), encoding="utf-8")
            print(f"{len(drawn)} release probes")
            return
        tally = Tally(args.show, missed="MISSED  ")
        for probe in drawn:
            late = brief.ask(probe.question, now=probe.at + timedelta(days=1), k=10)
            after = not refused(late) and names_release(late, probe)
            tally.add(probe.key, probe.question, probe.before, after, brief.ask(probe.question, now=probe.before, k=10))
        print(tally.summary())


if __name__ == "__main__":
    main()
