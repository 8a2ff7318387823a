"""Per-split figures of a `brief eval --json` run: ids ending in an even digit are held out, the rest train.

Reads the eval JSON (a file, or stdin) and prints, per split and per category, the eval's own metrics
(`briefing.evaluation.metrics.summarise`): recall@10, MRR@10, answer keywords, citation precision, and the
balanced refusal accuracy (the mean of the refusal rate on unanswerable cases and the answer rate on answerable
ones). `--json` prints the same as one object.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from briefing.evaluation.metrics import summarise

COLUMNS = (
    ("cases", "cases"),
    ("recall@10", "recall@10"),
    ("mrr@10", "mrr@10"),
    ("keyword_correctness", "keywords"),
    ("citation_precision", "cit.prec"),
    ("balanced_refusal", "refusal"),
)


def held_out(case_id: str) -> bool:
    """The split rule, fixed before any run: an id ending in an even digit is held out."""
    return int(case_id[-1]) % 2 == 0


def figures(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The eval's metrics over `records`, plus the balanced refusal accuracy where both kinds of case exist."""
    found = summarise(records)
    answer_rate = None if found["false_refusal_rate"] is None else 1 - found["false_refusal_rate"]
    refuse_rate = found["refusal_recall"]
    found["balanced_refusal"] = (
        round((answer_rate + refuse_rate) / 2, 4) if answer_rate is not None and refuse_rate is not None else None
    )
    return {key: found[key] for key, _ in COLUMNS}


def report(data: dict[str, Any]) -> dict[str, Any]:
    """Train, held-out and all, each with its categories."""
    cases = data["cases"]
    out: dict[str, Any] = {}
    for split, side in (("train", False), ("held_out", True)):
        chosen = [c for c in cases if held_out(c["id"]) == side]
        out[split] = figures(chosen)
        cats = sorted({c["category"] for c in chosen})
        out[split]["by_category"] = {cat: figures([c for c in chosen if c["category"] == cat]) for cat in cats}
    out["all"] = figures(cases)
    return out


def read_run(path: str | None) -> Any:
    """A `brief eval --json` run from a file, or from standard input when no path is given."""
    if path:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    return json.load(sys.stdin)


def main() -> None:
    parser = argparse.ArgumentParser(description="Per-split figures of a brief eval --json run.")
    parser.add_argument("file", nargs="?", help="eval JSON (default: stdin)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = report(read_run(args.file))
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(f"{'':24}" + "".join(f"{label:>10}" for _, label in COLUMNS))
    for split in ("train", "held_out", "all"):
        block = result[split]
        print(f"{split:24}" + "".join(f"{block[k]!s:>10}" for k, _ in COLUMNS))
        for cat, fig in block.get("by_category", {}).items():
            print(f"  {cat:22}" + "".join(f"{fig[k]!s:>10}" for k, _ in COLUMNS))


if __name__ == "__main__":
    main()
