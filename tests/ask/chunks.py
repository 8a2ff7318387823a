"""Hand-built chunks for the answer-stage tests, and readers of the answer lines they produce."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from briefing.ask.extractive import ExtractiveAnswer
from briefing.model import Chunk, Unit

# A quoted line: "- who/where/when: "text" [n]", or the answer line "VALUE — who/where/when: "text" [n]".
LINE = re.compile(r"^(?:- |As of [^:]+: |(?P<head>[^\"]+?) — )?(?P<attribution>.+?): \"(?P<text>.+)\" \[(?P<n>\d+)\]$")


def first_quote(answer: ExtractiveAnswer) -> tuple[str, str]:
    """The attribution and the quoted text of an answer's first line (it must be a quoted line)."""
    first = LINE.match(answer.text.splitlines()[0])
    assert first is not None, answer.text
    return first["attribution"], first["text"]


def at(month: int, day: int, hour: int = 10, minute: int = 0) -> datetime:
    return datetime(2026, month, day, hour, minute, tzinfo=UTC)


def slack(chunk_id: str, channel: str, *messages: tuple[str, str, datetime]) -> Chunk:
    units = [
        Unit(ref=f"slack:C{channel.upper()}:{m[2].timestamp():.6f}", text=m[1], author=m[0], at=m[2]) for m in messages
    ]
    return Chunk(
        chunk_id=chunk_id,
        doc_key=chunk_id.split("::")[0],
        source_type="slack",
        kind="slack_channel",
        title=f"#{channel}",
        text="\n".join(f"{u.author}: {u.text}" for u in units),
        refs=[u.ref for u in units],
        start=units[0].at or at(1, 1),
        end=units[-1].at or at(1, 1),
        authors=sorted({u.author for u in units if u.author}),
        container=channel,
        units=units,
    )


def doc(path: str, title: str, author: str, when: datetime, *paragraphs: str) -> Chunk:
    ref = f"file:{path}"
    return Chunk(
        chunk_id=f"{ref}::0",
        doc_key=ref,
        source_type="files",
        kind="document",
        title=title,
        text="\n\n".join(paragraphs),
        refs=[ref],
        start=when,
        end=when,
        authors=[author],
        container=path.split("/")[0],
        units=[Unit(ref=ref, text=p, author=author, at=when) for p in paragraphs],
    )


INCIDENT = slack(
    "slack:CINCIDENTS::0",
    "incidents",
    ("pagerbot", ":rotating_light: [HIGH] ledger-api 5xx rate 6.2 % - paging @Aiko Tanaka", at(5, 19, 14, 15)),
    ("Aiko Tanaka", "Ack. Errors are query_wait_timeout from PgBouncer on the transfers path.", at(5, 19, 14, 17)),
    ("Lena Vogt", "Raised PgBouncer default_pool_size from 20 to 60. Waiting clients dropping.", at(5, 19, 14, 52)),
    ("Aiko Tanaka", "Resolved: 5xx back at the 0.02 % baseline. Postmortem on Friday.", at(5, 19, 15, 3)),
)
POSTMORTEM = doc(
    "postmortems/ledger-5xx.md",
    "Postmortem: ledger-api 5xx > Impact",
    "Lena Vogt",
    at(5, 22, 0),
    "For 51 minutes on 19 May, ledger-api returned errors on transfers and slowed down on every other\n"
    "endpoint. The 5xx rate peaked at 18.4 % at 14:31 and p99 latency reached 4.2 seconds.",
    "About 3,912 transfer requests failed; 3,907 succeeded when clients retried them.",
)
CONTEXT = [INCIDENT, POSTMORTEM]


def ticket_chunk(key: str, title: str, made: list[Unit], container: str) -> Chunk:
    """A tracker's ticket as one chunk of its units (the description first, its ref the ticket's key)."""
    return Chunk(
        chunk_id=f"jira:{key}::0",
        doc_key=f"jira:{key}",
        source_type="jira",
        kind="jira_issue",
        title=f"{key}: {title}",
        text="\n".join(f"{u.author}: {u.text}" for u in made),
        refs=[u.ref for u in made],
        start=made[0].at or at(1, 1),
        end=made[-1].at or at(1, 1),
        authors=sorted({u.author for u in made if u.author}),
        container=container,
        units=made,
    )


def lines(answer: ExtractiveAnswer) -> list[re.Match[str]]:
    """Every quoted line (a lead such as "In time order:" is skipped)."""
    body = [line for line in answer.text.splitlines() if not line.endswith(":")]
    matches = [LINE.match(line) for line in body]
    assert all(matches), f"every answer line is '- who/where/when: text [n]': {answer.text}"
    return [m for m in matches if m]


def assert_citations_valid(answer: ExtractiveAnswer, context: list[Chunk]) -> None:
    shown = {int(n) for n in re.findall(r"\[(\d+)\]", answer.text)}
    assert shown == set(answer.cited), "every [n] in the text is a citation and every citation is shown"
    texts: dict[str, str] = {}
    for unit in (u for c in context for u in c.units):
        texts[unit.ref] = texts.get(unit.ref, "") + " " + " ".join(unit.text.split())
    for refs in answer.cited.values():
        assert len(refs) == 1 and refs[0] in texts, "each marker cites one unit of the context"
    for m in lines(answer):
        # The marker's unit is the one whose text is quoted on that line.
        assert m["text"].rstrip(" …")[:40] in texts[answer.cited[int(m["n"])][0]]


def thread_part(root_ts: float, n: int, starter: str, opening: str, message: tuple[str, str, datetime]) -> Chunk:
    """One message of a long Slack thread as the thread chunker cuts it: a chunk of its own under a header that
    names the starter."""
    author, text, when = message
    unit = Unit(ref=f"slack:CHELP:{when.timestamp():.6f}", text=text, author=author, at=when)
    return Chunk(
        chunk_id=f"slack:CHELP/{root_ts:.6f}::{n}",
        doc_key=f"slack:CHELP/{root_ts:.6f}",
        source_type="slack",
        kind="slack_thread",
        title=f"#help thread: {opening[:40]}...",
        text=f"#help, thread started by {starter}: {opening}\n[{when:%Y-%m-%d %H:%M} UTC] {author}: {text}",
        refs=[unit.ref],
        start=when,
        end=when,
        authors=[author],
        container="help",
        units=[unit],
        metadata={"channel_id": "CHELP", "thread_ts": f"{root_ts:.6f}"},
    )


def help_thread(opening: str, report: str, reply: str) -> list[Chunk]:
    root = at(7, 2, 9, 0)
    return [
        thread_part(root.timestamp(), 0, "Priya Shah", opening, ("Priya Shah", report, root)),
        thread_part(root.timestamp(), 1, "Priya Shah", opening, ("Omar Haddad", reply, at(7, 2, 11, 30))),
    ]


RELEASES = slack(
    "slack:CRELEASES::0",
    "releases",
    ("Nayan Joshi", "OLake Go v0.9.1 is out: fixes for oversized writer requests.", at(7, 1, 9)),
    ("Nayan Joshi", "OLake Go v0.9.3 is out: faster Postgres full loads and a new retry policy.", at(8, 12, 9)),
    ("Nayan Joshi", "OLake Go v0.9.2 is out: MySQL binlog fixes.", at(7, 20, 9)),
)
SETTINGS_DOC = doc(
    "docs/writer.md",
    "Writer > Commit markers",
    "Docs Team",
    at(7, 13),
    "The writer stores its commit progress under the olake_2pc table property, so a restarted sync resumes "
    "without writing a file twice.",
    "A failed chunk of a full load is retried after a first pause of 60 seconds, then with a longer backoff.",
)


def first_line(answer: ExtractiveAnswer) -> str:
    return answer.text.splitlines()[0]
