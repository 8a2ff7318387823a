# mypy: ignore-errors
# ruff: noqa: E501  (sample prose: long string literals read better unwrapped)
"""Generates pages.json and comments.json (space ENG of the Kestrel Pay story) in Confluence REST v1 shapes.

Run: python scripts/sample/make_pages.py [OUT]
"""

import json
import sys
from pathlib import Path

# Writes into the shipped sample, or into the folder named by the first argument (to diff a run against it).
SAMPLE = Path(__file__).resolve().parents[2] / "src" / "briefing" / "sample"
OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else SAMPLE / "confluence"

U = {}
for key, name in [
    ("priya", "Priya Raman"),
    ("marcus", "Marcus Okafor"),
    ("lena", "Lena Vogt"),
    ("tomas", "Tomás Herrera"),
    ("aiko", "Aiko Tanaka"),
    ("sam", "Sam Whitfield"),
    ("nadia", "Nadia Petrova"),
    ("jonah", "Jonah Baptiste"),
]:
    U[key] = {
        "type": "known",
        "accountId": f"712020:{key}",
        "accountType": "atlassian",
        "publicName": key,
        "displayName": name,
        "email": f"{name.lower().replace(' ', '.').replace('á', 'a')}@kestrelpay.example",
    }
U["jonah"]["email"] = "jonah.baptiste@kestrelpay.example"


def m(key):
    return f'<ac:link><ri:user ri:account-id="712020:{key}" /></ac:link>'


def jira(k):
    return f'<ac:structured-macro ac:name="jira" ac:schema-version="1"><ac:parameter ac:name="server">Kestrel Pay JIRA</ac:parameter><ac:parameter ac:name="key">{k}</ac:parameter></ac:structured-macro>'


def code(lang, text):
    return f'<ac:structured-macro ac:name="code" ac:schema-version="1"><ac:parameter ac:name="language">{lang}</ac:parameter><ac:plain-text-body><![CDATA[{text}]]></ac:plain-text-body></ac:structured-macro>'


def table(rows):
    head = "".join(f"<th><p>{c}</p></th>" for c in rows[0])
    body = "".join("<tr>" + "".join(f"<td><p>{c}</p></td>" for c in r) + "</tr>" for r in rows[1:])
    return f"<table><tbody><tr>{head}</tr>{body}</tbody></table>"


def panel(kind, text):
    return f'<ac:structured-macro ac:name="{kind}" ac:schema-version="1"><ac:rich-text-body><p>{text}</p></ac:rich-text-body></ac:structured-macro>'


SPACE = {"id": 65537, "key": "ENG", "name": "Engineering", "type": "global", "_links": {"webui": "/spaces/ENG"}}
HOME = (524289, "Platform Team Home")


def page(pid, title, when, by, created, creator, number, body, ancestors=(), labels=()):
    slug = title.replace(" ", "+").replace("(", "%28").replace(")", "%29")
    return {
        "id": str(pid),
        "type": "page",
        "status": "current",
        "title": title,
        "space": SPACE,
        "history": {"latest": True, "createdBy": U[creator], "createdDate": created},
        "version": {"by": U[by], "when": when, "number": number, "message": "", "minorEdit": False},
        "ancestors": [{"id": str(a), "type": "page", "status": "current", "title": t} for a, t in ancestors],
        "body": {"storage": {"value": body, "representation": "storage"}},
        "metadata": {
            "labels": {
                "results": [
                    {"prefix": "global", "name": name, "id": str(880000 + i), "label": name}
                    for i, name in enumerate(labels)
                ],
                "start": 0,
                "limit": 200,
                "size": len(labels),
            }
        },
        "_links": {
            "webui": f"/spaces/ENG/pages/{pid}/{slug}",
            "tinyui": f"/x/{pid}",
            "self": f"https://kestrelpay.atlassian.net/wiki/rest/api/content/{pid}",
        },
    }


pages = []
pages.append(
    page(
        524289,
        "Platform Team Home",
        "2026-06-01T08:40:00.000Z",
        "priya",
        "2026-01-12T10:00:00.000Z",
        "priya",
        9,
        "<h1>Who we are</h1><p>The platform team owns <strong>ledger-api</strong>, <strong>payout-worker</strong> and the ledger database. Manager: "
        + m("priya")
        + ". Tech lead of the Aurora migration: "
        + m("marcus")
        + ".</p>"
        + "<h2>People</h2>"
        + table(
            [
                ["Name", "Role"],
                ["Priya Raman", "Engineering manager"],
                ["Marcus Okafor", "Staff engineer, Aurora migration lead"],
                ["Lena Vogt", "Senior SRE, infrastructure and incidents"],
                ["Tomás Herrera", "Backend engineer (ledger-api, payout-worker)"],
                ["Aiko Tanaka", "Senior backend engineer, ledger domain and schema"],
                ["Sam Whitfield", "Release and CI engineer"],
                ["Nadia Petrova", "Product manager"],
                ["Jonah Baptiste", "Backend engineer (from 2026-06-01)"],
            ]
        )
        + "<h2>Where to talk to us</h2><ul><li><p>#platform-eng for day-to-day work and decisions</p></li><li><p>#incidents for pages and incident channels</p></li><li><p>#releases for release planning and deploy results</p></li></ul>"
        + "<h2>Rituals</h2><p>Daily standup at 10:00 UTC (09:30 until 2026-05-15). Sprint retro every second Thursday.</p>",
        labels=("team", "platform"),
    )
)
pages.append(
    page(
        524290,
        "Ledger Aurora Migration Plan",
        "2026-06-02T15:10:00.000Z",
        "marcus",
        "2026-05-04T09:30:00.000Z",
        "marcus",
        14,
        "<h1>Goal</h1><p>Move the ledger database from self-managed PostgreSQL 12 on ledger-db-01..03 to Amazon Aurora PostgreSQL 15 (cluster ledger-aurora-prod). Epic "
        + jira("PLAT-101")
        + ".</p>"
        + "<h1>Timeline</h1>"
        + panel(
            "info",
            "The production cutover moved from Thursday 2026-05-28 to Tuesday 2026-06-09 after INC-2026-014 and the switch to RDS Proxy (decision of 2026-05-21).",
        )
        + "<ol><li><p>Staging cluster (PLAT-102, done 05-08) and production cluster (PLAT-103, done 05-15)</p></li><li><p>pglogical replication PG12 to Aurora (PLAT-105, lag under 2 s)</p></li><li><p>Shadow dual reads (PLAT-107): 0 mismatches in 41.2 M rows</p></li><li><p>Load test at 2x peak (PLAT-108)</p><ul><li><p>writer CPU 91 % on db.r6g.xlarge</p></li><li><p>resized to db.r6g.2xlarge (PLAT-131): 48 %</p></li></ul></li><li><p>Cutover 2026-06-09 05:30 UTC (PLAT-127), runbook PLAT-109</p></li></ol>"
        + "<h1>Connection pooling</h1><p>We first chose PgBouncer in transaction mode (ADR-0007) and replaced it with Amazon RDS Proxy (ADR-0009) on 2026-05-21: the settlement batch needs session advisory locks (PLAT-118), RDS Proxy pins those sessions, and there is no fleet to run.</p>"
        + "<h2>Proxy settings</h2>"
        + code(
            "hcl",
            'module "ledger_rds_proxy" {\n  source                 = "../modules/rds-proxy"\n  engine_family          = "POSTGRESQL"\n  max_connections_percent = 90\n  idle_client_timeout    = 1800\n  require_tls            = true\n}',
        )
        + "<h1>Cost</h1>"
        + table(
            [
                ["Item", "Monthly (USD)"],
                ["Old: 3 x r5.2xlarge on EC2", "3,350"],
                ["Aurora writer + reader db.r6g.2xlarge", "4,930"],
                ["RDS Proxy", "310"],
                ["Total after resize", "5,240"],
            ]
        )
        + "<p>Ruth approved a ceiling of $5,500/month on 2026-05-27. The earlier estimate of $4,490/month (2026-05-26) assumed db.r6g.xlarge.</p>"
        + "<h1>Risks</h1><ul><li><p>Read-only window longer than 30 minutes (staging dry run took 38 minutes)</p></li><li><p>Migration 0047 failed on PG15 (implicit cast), fixed in PLAT-130</p></li></ul>",
        ancestors=[HOME],
        labels=("aurora", "migration", "design"),
    )
)
pages.append(
    page(
        524291,
        "INC-2026-014 Postmortem",
        "2026-05-22T16:20:00.000Z",
        "lena",
        "2026-05-20T11:00:00.000Z",
        "lena",
        6,
        "<h1>Summary</h1><p>On 2026-05-19 from 14:12 to 15:03 UTC (51 minutes) ledger-api returned 5xx errors; peak 5xx rate 18.4 %, p99 4.2 s, about 3,900 failed transfer requests. No money was lost and there were no double postings thanks to idempotency keys (PLAT-111).</p>"
        + "<h1>Timeline (UTC)</h1>"
        + table(
            [
                ["Time", "Event"],
                ["14:12", "5xx starts; PgBouncer pool exhausted"],
                ["14:15", "Aiko paged"],
                ["14:21", "Lena incident commander"],
                ["14:44", "payout-worker paused"],
                ["14:52", "default_pool_size raised from 20 to 60"],
                ["15:03", "resolved"],
            ]
        )
        + "<h1>Root cause</h1><p>PgBouncer default_pool_size = 20 was exhausted by a retry storm from payout-worker, which retried failed calls 5 times at a fixed 100 ms with no jitter.</p>"
        + code("ini", "[pgbouncer]\npool_mode = transaction\ndefault_pool_size = 20  ; raised to 60 at 14:52")
        + "<h1>Action items</h1><ul><li><p>"
        + jira("PLAT-120")
        + " exponential backoff with jitter in payout-worker ("
        + m("tomas")
        + ")</p></li><li><p>"
        + jira("PLAT-121")
        + " alert on pool saturation over 80 % for 5 minutes ("
        + m("lena")
        + ")</p></li><li><p>"
        + jira("PLAT-123")
        + " rollback runbook for schema migrations ("
        + m("sam")
        + ")</p></li></ul>"
        + "<p>Review meeting: 2026-05-22 15:00 UTC.</p>",
        ancestors=[HOME],
        labels=("postmortem", "incident"),
    )
)
pages.append(
    page(
        524292,
        "On-call Handbook",
        "2026-06-05T14:00:00.000Z",
        "priya",
        "2026-02-02T10:00:00.000Z",
        "lena",
        11,
        "<h1>Rota</h1><p>The on-call week starts Monday 09:00 UTC.</p>"
        + table(
            [
                ["Week of", "On call"],
                ["2026-05-25", "Marcus"],
                ["2026-06-01", "Sam"],
                ["2026-06-08", "Tomás (swapped; originally Lena)"],
                ["2026-06-15", "Lena (swapped; originally Tomás)"],
                ["2026-06-22", "Aiko (Jonah shadows)"],
            ]
        )
        + "<h1>Swaps</h1><p>Swap weeks with a teammate, tell "
        + m("priya")
        + " and update the rota before the Friday before the week (PLAT-134).</p>"
        + "<h1>Paging</h1><p>pagerbot posts pages in #incidents. Acknowledge within 5 minutes; for Sev1/Sev2 name an incident commander.</p>",
        ancestors=[HOME],
        labels=("oncall",),
    )
)
pages.append(
    page(
        524293,
        "Q3 2026 Platform Roadmap (draft)",
        "2026-06-11T10:30:00.000Z",
        "nadia",
        "2026-06-01T13:00:00.000Z",
        "nadia",
        5,
        "<h1>Themes</h1><ol><li><p>Per-merchant rate limit on /v1/transfers ("
        + jira("PLAT-124")
        + ")</p></li><li><p>Decommission ledger-db-01..03 on 2026-06-23 ("
        + jira("PLAT-128")
        + ") and remove pglogical (PLAT-139)</p></li><li><p>Route reporting queries to the Aurora reader (PLAT-132)</p></li></ol>"
        + "<h2>Open questions</h2><ul><li><p>Aurora reserved instances: waiting for the AWS account manager's offer</p></li><li><p>Hiring: the SRE (REQ-2291) starts 2026-07-06</p></li></ul>"
        + panel("note", "Draft for the Q3 planning session on 2026-06-16 13:00 UTC (PLAT-138)."),
        ancestors=[HOME],
        labels=("roadmap", "draft"),
    )
)
pages.append(
    page(
        524294,
        "Release Process",
        "2026-06-04T12:00:00.000Z",
        "sam",
        "2026-03-10T10:00:00.000Z",
        "sam",
        8,
        "<h1>Cutting a release</h1><ol><li><p>Open a release ticket (for example PLAT-129) and a changelog PR</p></li><li><p>Tag <code>vX.Y.Z</code> on main; CI builds the image</p></li><li><p>Deploy with deploybot; results go to #releases</p></li></ol>"
        + "<h2>Rollback</h2>"
        + code(
            "bash",
            "deploybot rollback ledger-api --to v2.5.0\n# schema migrations: see the rollback runbook (PLAT-123)",
        )
        + "<h1>Recent releases</h1>"
        + table(
            [
                ["Version", "Date", "Notes"],
                ["v2.4.0", "2026-05-13", "idempotency keys, Go 1.24"],
                ["v2.5.0", "2026-06-04", "slipped from 06-03: migration 0047 failed on PG15"],
                ["v2.5.1", "2026-06-10", "hotfix: settlement report cuts days in UTC"],
            ]
        ),
        ancestors=[HOME],
        labels=("release",),
    )
)
pages.append(
    page(
        524295,
        "Team Working Agreements",
        "2026-05-18T09:00:00.000Z",
        "priya",
        "2026-01-20T10:00:00.000Z",
        "priya",
        4,
        "<h1>Agreements</h1><ul><li><p>Standup at 10:00 UTC (moved from 09:30 on 2026-05-18)</p></li><li><p>Code review within one working day</p></li><li><p>Decisions go in an ADR and are announced in #platform-eng</p></li></ul>"
        + "<h2>Focus time</h2><p>No meetings on Wednesday afternoons.</p>",
        ancestors=[HOME],
        labels=("team",),
    )
)


def comment(cid, pid, by, when, body, parent=None):
    return {
        "id": str(cid),
        "type": "comment",
        "status": "current",
        "title": "Re: page",
        "history": {"latest": True, "createdBy": U[by], "createdDate": when},
        "version": {"by": U[by], "when": when, "number": 1, "minorEdit": False},
        "ancestors": [{"id": str(parent), "type": "comment", "title": "Re: page"}] if parent else [],
        "body": {"storage": {"value": f"<p>{body}</p>", "representation": "storage"}},
        "extensions": {"location": "footer"},
        "_links": {"webui": f"/spaces/ENG/pages/{pid}?focusedCommentId={cid}#comment-{cid}"},
    }


comments = {
    "524290": [
        comment(
            600001,
            524290,
            "nadia",
            "2026-06-02T15:40:00.000Z",
            "Updated cost report (PLAT-125): $5,240/month after the resize, still under the $5,500 ceiling.",
        ),
        comment(
            600002, 524290, "marcus", "2026-06-02T16:05:00.000Z", "Thanks. Cutover stays on 2026-06-09.", parent=600001
        ),
    ],
    "524291": [
        comment(
            600010,
            524291,
            "priya",
            "2026-05-22T16:40:00.000Z",
            "Good write-up. Please link the action items in the next platform sync.",
        )
    ],
    "524293": [
        comment(
            600020,
            524293,
            "marcus",
            "2026-06-11T11:00:00.000Z",
            "Rate limiting needs the Aurora reader routing first (PLAT-132).",
        )
    ],
}
json.dump(pages, open(OUT / "pages.json", "w"), indent=1, ensure_ascii=False)
json.dump(comments, open(OUT / "comments.json", "w"), indent=1, ensure_ascii=False)
