"""Measure briefings ("what happened ...") against conversations counted from the raw Slack export.

Ground truth comes from the export itself, not from the engine: a conversation is a thread (its root and
replies) or a top-level message without replies; it is active in a week when one of its messages is. For
every Monday-to-Sunday week (UTC) and every channel with at least `--min` active conversations, it asks
`brief ask "What happened in #<channel> last week?" --now <the Monday after, 09:00>` through the real ask flow,
and for every week with any activity "What happened last week?". It reports

- coverage: the share of the week's conversations with at least one citation among their messages;
- precision: the share of Slack citations whose message is inside the week (and the channel, when scoped);
- refusals: answers that say the sources do not cover the question;
- digest time: `Briefer.digest` for each whole week, warm (p50, p95).

    python eval/briefing_eval.py --corpus olake        # ../shared/corpora/olake, index built in a temp home
    python eval/briefing_eval.py --corpus sample       # the bundled sample workspace
    python eval/briefing_eval.py --corpus olake --home /tmp/olake-home --json out.json

Pass `--home` to reuse an index ingested earlier (the corpus is ingested there when it is empty).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "corpora"
SKIPPED = {"channel_join", "channel_leave", "bot_add", "bot_remove"}


@dataclass
class Conversation:
    channel: str
    channel_id: str
    root: str
    refs: dict[str, datetime] = field(default_factory=dict)

    def active(self, start: datetime, end: datetime) -> bool:
        return any(start <= at < end for at in self.refs.values())


def load_conversations(export: Path) -> tuple[list[Conversation], dict[str, tuple[str, datetime]]]:
    """Threads and standalone posts from a Slack export, and every message ref -> (channel, time)."""
    channels = json.loads((export / "channels.json").read_text())
    convs: dict[tuple[str, str], Conversation] = {}
    where: dict[str, tuple[str, datetime]] = {}
    for channel in channels:
        name, cid = channel["name"], channel["id"]
        for day in sorted((export / name).glob("*.json")):
            for m in json.loads(day.read_text()):
                if m.get("subtype") in SKIPPED or not (m.get("text") or m.get("files") or m.get("attachments")):
                    continue
                root = m.get("thread_ts") or m["ts"]
                ref = f"slack:{cid}:{m['ts']}"
                at = datetime.fromtimestamp(float(m["ts"]), tz=UTC)
                conv = convs.setdefault((cid, root), Conversation(name, cid, root))
                conv.refs[ref] = at
                where[ref] = (name, at)
    return list(convs.values()), where


def weeks(convs: list[Conversation]) -> list[datetime]:
    stamps = [at for c in convs for at in c.refs.values()]
    first = min(stamps).replace(hour=0, minute=0, second=0, microsecond=0)
    first -= timedelta(days=first.weekday())
    last = max(stamps)
    out = []
    while first <= last:
        out.append(first)
        first += timedelta(days=7)
    return out


def ensure_index(corpus: str, home: Path) -> Path:
    """A config for the corpus under `home`, ingested when its index is empty."""
    from briefing import pipeline
    from briefing.index import Index
    from briefing.settings import load_settings

    home.mkdir(parents=True, exist_ok=True)
    os.environ["BRIEF_HOME"] = str(home)
    if corpus == "sample":
        config = ROOT / "src" / "briefing" / "sample" / "brief.toml"
    else:
        root = SHARED / "olake"
        config = home / "brief.toml"
        config.write_text(
            '[workspace]\nname = "olake"\n'
            f'[sources.slack]\ntype = "slack_export"\npath = "{root / "slack"}"\n'
            f'[sources.docs]\ntype = "files"\npath = "{root / "docs"}"\n'
        )
    settings = load_settings(config)
    with Index.open(settings) as index:
        empty = not index.exists() or index.count() == 0
    if empty:
        print(f"ingesting {corpus} into {home} ...", file=sys.stderr)
        pipeline.run(settings, list(settings.sources))
    return config


def export_of(corpus: str) -> Path:
    if corpus == "sample":
        return ROOT / "src" / "briefing" / "sample" / "slack_export"
    return SHARED / "olake" / "slack"


def measure(corpus: str, home: Path, minimum: int) -> dict[str, Any]:
    from briefing.digest.engine import Briefer
    from briefing.digest.model import Scope
    from briefing.service import Brief
    from briefing.settings import load_settings
    from briefing.textrules import refusal

    config = ensure_index(corpus, home)
    settings = load_settings(config)
    convs, where = load_conversations(export_of(corpus))
    refused_text = refusal("").split("(")[0].strip().lower()[:30]
    channel_rows: list[dict[str, Any]] = []
    workspace_rows: list[dict[str, Any]] = []
    digest_ms: list[float] = []
    with Brief(settings) as brief:
        briefer = Briefer(brief.index, timezone="UTC", max_lines=settings.digest.max_lines)
        briefer.digest(datetime(2000, 1, 1, tzinfo=UTC), datetime(2000, 1, 8, tzinfo=UTC), now=datetime.now(UTC))
        for start in weeks(convs):
            end = start + timedelta(days=7)
            now = end + timedelta(hours=9)
            active = [c for c in convs if c.active(start, end)]
            if not active:
                continue
            t0 = time.perf_counter()
            briefer.digest(start, end, now=now, scope=Scope())
            digest_ms.append((time.perf_counter() - t0) * 1000)
            per_channel: dict[str, list[Conversation]] = defaultdict(list)
            for c in active:
                per_channel[c.channel].append(c)
            asks = [(None, active)] + [(ch, cs) for ch, cs in sorted(per_channel.items()) if len(cs) >= minimum]
            for channel, wanted in asks:
                question = f"What happened in #{channel} last week?" if channel else "What happened last week?"
                result = brief.ask(question, now=now, k=10)
                cited = {ref for c in result.citations for ref in c.refs}
                covered = [c for c in wanted if any(r in cited and start <= c.refs[r] < end for r in c.refs)]
                slack_cited = [r for r in cited if r in where]
                inside = [
                    r for r in slack_cited if start <= where[r][1] < end and (channel is None or where[r][0] == channel)
                ]
                row = {
                    "week": start.date().isoformat(),
                    "channel": channel,
                    "conversations": len(wanted),
                    "covered": len(covered),
                    "citations": len(slack_cited),
                    "inside": len(inside),
                    "refused": result.no_answer or refused_text in result.answer.lower(),
                    "missed": [c.root for c in wanted if c not in covered],
                }
                (channel_rows if channel else workspace_rows).append(row)

    def totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
        conv = sum(r["conversations"] for r in rows)
        cites = sum(r["citations"] for r in rows)
        return {
            "windows": len(rows),
            "conversations": conv,
            "covered": sum(r["covered"] for r in rows),
            "coverage": round(sum(r["covered"] for r in rows) / conv, 3) if conv else None,
            "worst_window_coverage": round(min((r["covered"] / r["conversations"] for r in rows), default=0.0), 3),
            "citation_precision": round(sum(r["inside"] for r in rows) / cites, 3) if cites else None,
            "refused": sum(bool(r["refused"]) for r in rows),
        }

    ordered = sorted(digest_ms)
    return {
        "corpus": corpus,
        "min_conversations": minimum,
        "channel_weeks": totals(channel_rows),
        "workspace_weeks": totals(workspace_rows),
        "digest_ms": {
            "weeks": len(ordered),
            "p50": round(statistics.median(ordered), 1) if ordered else None,
            "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1) if ordered else None,
        },
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "rows": {"channel": channel_rows, "workspace": workspace_rows},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", choices=["olake", "sample"], default="olake")
    parser.add_argument("--home", type=Path, help="BRIEF_HOME holding (or to hold) the corpus index")
    parser.add_argument("--min", type=int, default=3, help="channel-weeks with at least this many conversations")
    parser.add_argument("--json", type=Path, help="write the full result (per-window rows) here")
    args = parser.parse_args()
    if args.corpus == "olake" and not (SHARED / "olake").is_dir():
        print(f"the olake corpus is not at {SHARED / 'olake'}", file=sys.stderr)
        return 2
    sys.path.insert(0, str(ROOT / "src"))
    sys.path.insert(0, str(ROOT))
    home = args.home or Path(tempfile.mkdtemp(prefix=f"brief-eval-{args.corpus}-"))
    result = measure(args.corpus, home, args.min)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2, default=str))
    summary = {k: v for k, v in result.items() if k != "rows"}
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
