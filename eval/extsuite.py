"""External parser suite: other projects' test inputs run through brief's own parsers, pass counts per family.

The suite (a folder with `cases/<family>.json` and `fixtures/`) is data only and lives outside the repository:
`--suite`, else `$BRIEF_EXTSUITE`, else `../shared/extsuite` beside the repository root. Each family's cases go
through the function a real ingest or question uses for that format (Markdown files, Confluence storage, Jira
ADF, Slack mrkdwn/messages/exports, question time expressions, mail replies, MIME, threading, Gmail, iCalendar)
and every check a case names must hold for it to pass. Without the suite it says so and exits 0.

    python eval/extsuite.py [--suite DIR] [--family NAME ...] [--failures] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for _path in (ROOT / "src", ROOT, Path(__file__).resolve().parent):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

# A case runner returns the failed checks' descriptions (empty: the case passes).
Runner = Callable[[dict[str, Any], Path], list[str]]
FAMILIES = (
    "timeexpr",
    "email_reply",
    "email_threads",
    "slack",
    "confluence_storage",
    "jira_adf",
    "calendar_ics",
    "markdown",
    "email_mime",
    "gmail",
)


def default_suite() -> Path:
    return Path(os.environ.get("BRIEF_EXTSUITE") or ROOT.parent / "shared" / "extsuite")


# -- checks shared by the families ---------------------------------------------------------------------------


def squash(text: str) -> str:
    """Whitespace runs as one space: what a reader sees, not how the renderer wrapped it."""
    return " ".join(text.split())


def text_checks(text: str, checks: dict[str, Any]) -> list[str]:
    """must_contain (whitespace-insensitive), must_contain_exact, regex, must_not_contain, equals."""
    failed: list[str] = []
    flat = squash(text)
    for want in checks.get("must_contain") or []:
        if squash(want) not in flat:
            failed.append(f"missing {want!r}")
    for want in checks.get("must_contain_exact") or []:
        if want not in text:
            failed.append(f"missing exactly {want!r}")
    for pattern in checks.get("regex") or []:
        if not re.search(pattern, text):
            failed.append(f"no match for /{pattern}/")
    for unwanted in checks.get("must_not_contain") or []:
        if unwanted in text:
            failed.append(f"holds {unwanted!r}")
    if "equals" in checks and checks["equals"] is not None and text.strip() != str(checks["equals"]).strip():
        failed.append(f"text {text.strip()[:80]!r} != {str(checks['equals'])[:80]!r}")
    return failed


def run_case(runner: Runner, case: dict[str, Any], suite: Path) -> list[str]:
    try:
        return runner(case, suite)
    except Exception as exc:  # noqa: BLE001 - a parser that raises fails its case, the run goes on
        return [f"raised {type(exc).__name__}: {str(exc)[:160]}"]


def runners() -> dict[str, Runner]:
    import extsuite_mail
    import extsuite_text
    import extsuite_time

    return {**extsuite_text.RUNNERS, **extsuite_mail.RUNNERS, **extsuite_time.RUNNERS}


def evaluate(suite: Path, families: Iterable[str] = FAMILIES) -> dict[str, dict[str, Any]]:
    """Per family: cases, passed, passed per tier and the failed cases with their reasons."""
    table = runners()
    report: dict[str, dict[str, Any]] = {}
    for family in families:
        path = suite / "cases" / f"{family}.json"
        if not path.is_file():
            continue
        cases = json.loads(path.read_text(encoding="utf-8"))
        row: dict[str, Any] = {"cases": len(cases), "passed": 0, "tiers": {}, "failures": {}}
        for case in cases:
            failed = run_case(table[family], case, suite)
            tier = row["tiers"].setdefault(str(case.get("tier") or "all"), [0, 0])
            tier[1] += 1
            if failed:
                row["failures"][case["id"]] = failed
            else:
                row["passed"] += 1
                tier[0] += 1
        report[family] = row
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", type=Path, default=None, help="the suite folder (cases/, fixtures/)")
    parser.add_argument("--family", action="append", choices=FAMILIES, help="only these families")
    parser.add_argument("--failures", action="store_true", help="list each failed case with its reasons")
    parser.add_argument("--json", action="store_true", help="the report as JSON")
    args = parser.parse_args(argv)
    suite = args.suite or default_suite()
    if not (suite / "cases").is_dir():
        print(f"no external suite at {suite}: nothing to run")
        return 0
    report = evaluate(suite, args.family or FAMILIES)
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    for family, row in report.items():
        tiers = ", ".join(f"{t} {p}/{n}" for t, (p, n) in sorted(row["tiers"].items()) if t != "all")
        print(f"{family:20} {row['passed']:4}/{row['cases']:<4}" + (f"  ({tiers})" if tiers else ""))
        if args.failures:
            for case_id, reasons in row["failures"].items():
                print(f"    {case_id}: {'; '.join(reasons)[:300]}")
    total = sum(r["passed"] for r in report.values())
    print(f"{'all':20} {total:4}/{sum(r['cases'] for r in report.values()):<4}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
