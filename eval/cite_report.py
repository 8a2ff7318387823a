"""Where citation precision is lost, per split of a `brief eval --json` run: which line of the answer cites a unit
outside the gold refs.

Every answerable case with gold refs and at least one citation falls in one class:
- `exact`: every cited unit is a gold one;
- `lead`: the answer's first citation (its lead line) is not a gold unit, so the answer leads with the wrong
  message (a neighbour of the answering reply, the question beside it, another conversation);
- `extra`: the lead is a gold unit, but a later line cites one that is not: a runner-up diluted the answer;
- `unretrieved`: no gold unit is in the top 10 hits, so no choice of lines could cite one.
A case in `lead` or `extra` whose gold unit was retrieved is the answer stage's loss. The report also gives the
precision the split would have with only the lead line cited (`lead only`), which bounds what dropping runner-ups
can win. Splits as in `split_report.py`: ids ending in an even digit are held out. Prints counts only, never a
case, so a held-out split can be read without reading its questions.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from split_report import held_out, read_run

CLASSES = ("exact", "lead", "extra", "unretrieved")


def cited_in_order(record: dict[str, Any]) -> list[set[str]]:
    """The refs of each citation, in the order the answer numbers them."""
    ordered = sorted(record.get("citations") or (), key=lambda c: c.get("n", 0))
    return [set(c.get("refs") or ()) for c in ordered]


def case_class(record: dict[str, Any]) -> str | None:
    """The class above, or None for a case that defines no citation precision (refused, unanswerable, no gold)."""
    gold = set(record.get("gold_refs") or ())
    cited = cited_in_order(record)
    if record.get("expected_no_answer") or not gold or not cited:
        return None
    if all(refs & gold for refs in cited):
        return "exact"
    retrieved = any(gold & set(hit.get("refs") or ()) for hit in (record.get("hits") or [])[:10])
    if not retrieved and not any(refs & gold for refs in cited):
        return "unretrieved"
    return "lead" if not cited[0] & gold else "extra"


def lead_only(record: dict[str, Any]) -> float:
    """Citation precision had the answer cited its lead line alone."""
    return 1.0 if cited_in_order(record)[0] & set(record.get("gold_refs") or ()) else 0.0


def breakdown(records: list[dict[str, Any]]) -> dict[str, Any]:
    """How many cases fall in each class, the mean number of units cited, and the lead-only precision."""
    counts = dict.fromkeys(CLASSES, 0)
    cited: list[int] = []
    leads: list[float] = []
    for record in records:
        found = case_class(record)
        if found is None:
            continue
        counts[found] += 1
        cited.append(len(cited_in_order(record)))
        leads.append(lead_only(record))
    n = len(cited)
    return {
        "cases": n,
        **counts,
        "cited_per_answer": round(sum(cited) / n, 2) if n else None,
        "lead_only_precision": round(sum(leads) / n, 4) if n else None,
    }


def report(data: dict[str, Any]) -> dict[str, Any]:
    cases = data["cases"]
    return {
        "train": breakdown([c for c in cases if not held_out(c["id"])]),
        "held_out": breakdown([c for c in cases if held_out(c["id"])]),
        "all": breakdown(cases),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description="Where citation precision is lost, per split of a brief eval run.")
    parser.add_argument("file", nargs="?", help="eval JSON (default: stdin)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = report(read_run(args.file))
    if args.json:
        print(json.dumps(result, indent=1))
        return
    columns = ("cases", *CLASSES, "cited_per_answer", "lead_only_precision")
    print(f"{'':10}" + "".join(f"{c:>13}" for c in ("cases", *CLASSES, "cited/answer", "lead-only P")))
    for split in ("train", "held_out", "all"):
        print(f"{split:10}" + "".join(f"{result[split][k]!s:>13}" for k in columns))


if __name__ == "__main__":
    main()
