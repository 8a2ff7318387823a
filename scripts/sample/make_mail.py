"""Write `team.mbox`: the sample team's mail (fictional; see src/briefing/sample/STORY.md "Email and calendar").

Run `python scripts/sample/make_mail.py [OUT]` after changing it; the output is deterministic.
"""

from __future__ import annotations

import mailbox
import sys
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path

# Writes into the shipped sample, or into the folder named by the first argument (to diff a run against it).
SAMPLE = Path(__file__).resolve().parents[2] / "src" / "briefing" / "sample"
OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else SAMPLE / "mail"
PEOPLE = {
    "priya": "Priya Raman <priya.raman@kestrelpay.example>",
    "marcus": "Marcus Okafor <marcus.okafor@kestrelpay.example>",
    "lena": "Lena Vogt <lena.vogt@kestrelpay.example>",
    "nadia": "Nadia Petrova <nadia.petrova@kestrelpay.example>",
    "ruth": "Ruth Adeyemi <ruth.adeyemi@kestrelpay.example>",
    "aiko": "Aiko Tanaka <aiko.tanaka@kestrelpay.example>",
    "recruiter": "Joel Mensah <joel.mensah@talentbridge.example>",
    "aws": "Dana Whitcombe <dana.whitcombe@aws-accounts.example>",
    "stakeholders": "Platform stakeholders <platform-stakeholders@kestrelpay.example>",
}

# (message id, sender, to, when, subject, body, parent)
MESSAGES: list[tuple[str, str, list[str], str, str, str, str | None]] = [
    ("budget-1@kestrelpay.example", "priya", ["ruth"], "2026-05-26T16:10", "Aurora budget",
     "Hi Ruth,\n\nNadia's cost report (PLAT-125) puts the Aurora setup at about $4,490/month: a db.r6g.xlarge "
     "writer and one reader at $4,180 plus RDS Proxy at $310. The old PostgreSQL hosts cost about $3,350/month. "
     "Can you approve a ceiling so we are not blocked if the load test asks for a bigger writer?\n\nPriya", None),
    ("budget-2@kestrelpay.example", "ruth", ["priya"], "2026-05-27T08:42", "Re: Aurora budget",
     "Approved up to $5,500/month for the ledger database, proxy included. Anything above that comes back to "
     "me with the load test numbers.\n\nRuth\n\nOn Tue, 26 May 2026, Priya Raman wrote:\n> Can you approve a "
     "ceiling so we are not blocked if the load test asks for a bigger writer?", "budget-1@kestrelpay.example"),
    ("status-0508@kestrelpay.example", "nadia", ["stakeholders"], "2026-05-08T15:30",
     "Platform status, week of 4 May",
     "Highlights: the ledger database migration to Aurora started (PLAT-101), cutover planned for 28 May. "
     "Connection pooling will use PgBouncer (ADR-0007). Staging Aurora cluster is up (PLAT-102).\n\nNadia", None),
    ("status-0515@kestrelpay.example", "nadia", ["stakeholders"], "2026-05-15T15:30",
     "Platform status, week of 11 May",
     "ledger-api v2.4.0 shipped on Wednesday with idempotency keys for transfers. pglogical replication to "
     "Aurora is running with under 2 s of lag. Risk: advisory locks in the settlement batch do not work under "
     "PgBouncer transaction pooling (PLAT-118).\n\nNadia", None),
    ("status-0522@kestrelpay.example", "nadia", ["stakeholders"], "2026-05-22T15:30",
     "Platform status, week of 18 May",
     "Tuesday's incident INC-2026-014 caused 51 minutes of ledger-api errors; no money was lost. We are "
     "switching from PgBouncer to RDS Proxy (ADR-0009) and the cutover moved to Tuesday 9 June.\n\nNadia", None),
    ("status-0529@kestrelpay.example", "nadia", ["stakeholders"], "2026-05-29T15:30",
     "Platform status, week of 25 May",
     "Shadow reads finished with zero mismatches in 41.2 million rows. The RDS Proxy module is merged and the "
     "cutover runbook is drafted. Budget ceiling approved at $5,500/month.\n\nNadia", None),
    ("status-0605@kestrelpay.example", "nadia", ["stakeholders"], "2026-06-05T15:30",
     "Platform status, week of 1 June",
     "The load test pushed the writer to 91 % CPU, so it was resized to db.r6g.2xlarge; the estimate is now "
     "$5,240/month, inside the ceiling. v2.5.0 slipped a day to Thursday because of migration 0047.\n\nNadia",
     None),
    ("status-0612@kestrelpay.example", "nadia", ["stakeholders"], "2026-06-12T15:30",
     "Platform status, week of 8 June",
     "Production cutover done on Tuesday with a 22-minute read-only window. The v2.5.1 hotfix fixed the "
     "settlement rounding. Statements p99 regressed to 520 ms; a missing index is the cause (PLAT-137).\n\nNadia",
     None),
    ("offer-1@talentbridge.example", "recruiter", ["priya"], "2026-06-12T11:05", "Farah Haddad accepted",
     "Good news: Farah Haddad accepted the SRE offer (REQ-2291). Her start date is Monday 6 July 2026. I will "
     "send the onboarding paperwork on Monday.\n\nJoel", None),
    ("offer-2@kestrelpay.example", "priya", ["recruiter", "lena"], "2026-06-12T11:40", "Re: Farah Haddad accepted",
     "Great news, thanks Joel. Lena, can you be Farah's onboarding buddy for her first on-call shadow week?"
     "\n\nPriya\n\n> Her start date is Monday 6 July 2026.", "offer-1@talentbridge.example"),
    ("ri-1@aws-accounts.example", "aws", ["marcus"], "2026-06-03T09:15", "Aurora reserved instances",
     "Hi Marcus,\n\nOnce the cluster size is settled, a one-year reserved instance for the db.r6g.2xlarge "
     "writer would save about 31 % against on-demand. Happy to walk through the options.\n\nDana", None),
    ("ri-2@kestrelpay.example", "marcus", ["aws"], "2026-06-03T10:02", "Re: Aurora reserved instances",
     "Thanks Dana. We cut over on 9 June; let's revisit reserved instances two weeks after that, once the old "
     "hosts are decommissioned (PLAT-128).\n\nMarcus\n-- \nMarcus Okafor | Staff engineer, Kestrel Pay",
     "ri-1@aws-accounts.example"),
]  # fmt: skip


def build() -> list[EmailMessage]:
    out = []
    for mid, sender, to, when, subject, body, parent in MESSAGES:
        msg = EmailMessage()
        msg["From"] = PEOPLE[sender]
        msg["To"] = ", ".join(PEOPLE[t] for t in to)
        msg["Subject"] = subject
        msg["Date"] = format_datetime(datetime.fromisoformat(when).replace(tzinfo=UTC))
        msg["Message-ID"] = f"<{mid}>"
        if parent:
            msg["In-Reply-To"] = f"<{parent}>"
            msg["References"] = f"<{parent}>"
        msg.set_content(body + "\n")
        out.append(msg)
    return out


def main() -> None:
    path = OUT / "team.mbox"
    path.unlink(missing_ok=True)
    box = mailbox.mbox(path)
    for msg, (_, sender, _to, when, *_rest) in zip(build(), MESSAGES, strict=True):
        framed = mailbox.mboxMessage(msg)
        address = PEOPLE[sender].split("<")[1].rstrip(">")
        framed.set_from(address, datetime.fromisoformat(when).timetuple())  # deterministic separator lines
        box.add(framed)
    box.flush()
    box.close()
    print(f"wrote {path} ({len(MESSAGES)} messages)")


if __name__ == "__main__":
    main()
