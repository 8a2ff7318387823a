"""Choose the fix-question subject cap's threshold leaving one corpus out, and report it on the corpus left out.

The cap (`briefing.ask.extractive.aboutness`) refuses a fix question whose lead line sits in a conversation whose
title and opening message are far from the question (`lead_subject` below the threshold). Its inputs are the
feature caches of `eval/calibrate_refusal.py` (`--features`), collected with the cap in place: every fix question
carries `lead_subject`, and the confidence without the cap is recomputed here. Sets labelled `probe_<corpus>` are
`eval/probe_refusals.py --cases-out` files (each probe asked after its conversation and the day before it began);
the others are dev sets. For each corpus left out, the threshold is the largest on the grid up to which no answerable
dev question of the other corpora (the mailing list never among them) that the confidence answers is refused;
"probe gain" is the probe near misses it refuses there minus the probe answers it loses. Prints, per corpus left out,
the threshold and its counts there; a dev set's held-out half (ids ending in an even digit) is counted apart.
`--table` prints, per threshold and set, the unanswerable questions newly refused and the answerable ones lost.
`--classes` names the question classes the cap would refuse (`cues.aboutness_class`: fix, outcome, howto, feedback;
a cache from before the classes counts its `lead_subject` rows as fix); the chosen threshold is one for them all.
The answerer measures only the classes `[answer] aboutness` names: collect the caches with all of them named there.

    python eval/calibrate_refusal.py --set C:H:eval/jira_timob_dev.jsonl:timob --set C:H:probes.jsonl:probe_timob \
        ... --features feats.json
    python eval/subject_threshold.py feats.json [more.json ...] [--classes fix,outcome,feedback]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

GRID = [round(0.2 + 0.025 * i, 3) for i in range(17)]
# Corpora a threshold may be fitted on; the mailing list is held out for everyone.
FITTED = ("sample", "olake", "timob", "mls", "clj")
LEFT_OUT = ("timob", "mls", "clj", "mail")


def corpus(label: str) -> str:
    """The corpus a set label belongs to: OLake's two dev sets and its probes are one corpus."""
    name = label.removeprefix("probe_")
    return {"olk": "olake", "olake_github": "olake"}.get(name, name)


def uncapped(row: dict[str, Any]) -> float:
    """The confidence the answerer would give without the subject cap (the other caps kept)."""
    from briefing.ask.extractive.refusal import confidence

    return confidence({**row, "subject_miss": 0.0}) if row.get("subject_miss") else float(row["confidence"])


CLASSES = ("fix", "outcome", "howto", "feedback", "release")


def question_class(row: dict[str, Any]) -> str:
    """The row's aboutness class: its `subject_<class>` flag, or fix for a `lead_subject` without one (a cache from
    before the classes, when only fix questions were measured); "" for a row without `lead_subject`."""
    if "lead_subject" not in row:
        return ""
    flags = [
        k.removeprefix("subject_") for k, v in row.items() if k.startswith("subject_") and k != "subject_miss" and v
    ]
    return flags[0] if flags else "fix"


def held_half(case_id: str) -> bool:
    return case_id[-1:].isdigit() and int(case_id[-1]) % 2 == 0


def counts(rows: list[dict[str, Any]], threshold: float, below: float) -> dict[str, int]:
    """What the cap at `threshold` changes among `rows` the confidence answers (at least `below`)."""
    out = dict.fromkeys(("near_miss", "probe_lost", "dev_lost", "dev_lost_held", "dev_refused", "dev_refused_held"), 0)
    for r in rows:
        if r["base"] < below or "lead_subject" not in r or r["lead_subject"] >= threshold:
            continue
        probe = r["set"].startswith("probe_")
        if probe:
            out["near_miss" if r["no_answer"] else "probe_lost"] += 1
        else:
            key = "dev_refused" if r["no_answer"] else "dev_lost"
            out[key] += 1
            out[key + "_held"] += held_half(r["id"])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("features", type=Path, nargs="+", help="feature caches of eval/calibrate_refusal.py")
    parser.add_argument("--below", type=float, default=0.4, help="the refusal threshold (`[answer] min_evidence`)")
    parser.add_argument("--table", action="store_true", help="also print every set's counts at every threshold")
    parser.add_argument("--classes", default="fix", help="comma-separated question classes the cap refuses")
    args = parser.parse_args()
    chosen = set(args.classes.split(","))
    rows = [r for f in args.features for r in json.loads(f.read_text(encoding="utf-8")) if "confidence" in r]
    rows = [{k: v for k, v in r.items() if k != "lead_subject"} if question_class(r) not in chosen else r for r in rows]
    for r in rows:
        r["base"] = uncapped(r)
        r["corpus"] = corpus(r["set"])
    if args.table:
        for t in GRID:
            cells = []
            for name in sorted({r["set"] for r in rows}):
                c = counts([r for r in rows if r["set"] == name], t, args.below)
                probe = name.startswith("probe_")
                gained, lost = (c["near_miss"], c["probe_lost"]) if probe else (c["dev_refused"], c["dev_lost"])
                cells.append(f"{name} +{gained}/-{lost}")
            print(f"{t}: " + ", ".join(cells))
    for left in LEFT_OUT:
        fitted = [r for r in rows if r["corpus"] in FITTED and r["corpus"] != left]
        best: tuple[float, int] | None = None
        dev_sets = {r["set"] for r in fitted if not r["set"].startswith("probe_")}
        for t in GRID:
            if any(counts([r for r in fitted if r["set"] == s], t, args.below)["dev_lost"] for s in dev_sets):
                break
            c = counts(fitted, t, args.below)
            best = (t, c["near_miss"] - c["probe_lost"])
        if best is None:
            print(f"{left}: every threshold refuses an answerable dev question")
            continue
        mine = counts([r for r in rows if r["corpus"] == left], best[0], args.below)
        print(
            f"{left} left out: threshold {best[0]} (probe gain {best[1]} where fitted) -> probe near misses refused "
            f"+{mine['near_miss']}, probe answers lost {mine['probe_lost']}; dev answerable lost {mine['dev_lost']} "
            f"(held-out half {mine['dev_lost_held']}), dev unanswerable newly refused {mine['dev_refused']} "
            f"(held-out half {mine['dev_refused_held']})"
        )


if __name__ == "__main__":
    main()
