"""Check eval/mail_dev.jsonl against the real mailbox: every gold ref exists, every keyword group occurs in the
cleaned text of a gold message, and the near-miss questions' subjects are really absent.

The mailbox lives in ../shared/corpora/mailing-list beside the checkout; without it this exits 0 with a note.
"""

from __future__ import annotations

import json
import mailbox
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MBOX = ROOT.parent / "shared" / "corpora" / "mailing-list" / "linux-arm-kernel-2019.mbox"
# Words whose absence makes a no-answer case a true near miss.
ABSENT = {
    "m033": ["raspberry pi 5", "bcm2712"],
    "m034": ["mt8195"],
    "m035": ["v5.4 final", "linux 5.4 released"],
    "m036": ["apple m1", "apple,aic"],
    "m037": ["rust"],
}


def main() -> int:
    if not MBOX.exists():
        print(f"{MBOX} is absent: nothing to check")
        return 0
    sys.path[:0] = [str(ROOT), str(ROOT / "src")]
    from connectors.email.local import unescape_mboxrd
    from connectors.email.mime import parse

    box = mailbox.mbox(MBOX, create=False)
    texts: dict[str, str] = {}
    everything = []
    for key in box.keys():
        parsed = parse(unescape_mboxrd(box.get_bytes(key)))
        texts[parsed.message_id] = f"{parsed.subject}\n{parsed.body}".lower()
        everything.append(f"{parsed.subject}\n{parsed.text}".lower())
    corpus = "\n".join(everything)
    problems = []
    cases = [json.loads(line) for line in (ROOT / "eval" / "mail_dev.jsonl").read_text().splitlines() if line]
    for case in cases:
        refs = [r.removeprefix("email:") for r in case["gold_refs"]]
        missing = [r for r in refs if r not in texts]
        if missing:
            problems.append(f"{case['id']}: gold refs not in the mailbox: {missing}")
            continue
        evidence = "\n".join(texts[r] for r in refs)
        for group in case["answer_keywords"]:
            if not any(word in evidence for word in group):
                problems.append(f"{case['id']}: no keyword of {group} in its evidence")
        for word in ABSENT.get(case["id"], []):
            if re.search(rf"\b{re.escape(word)}\b", corpus):
                problems.append(f"{case['id']}: '{word}' occurs in the mailbox: not a near miss")
    for line in problems:
        print(line)
    print(f"{len(cases)} cases, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
