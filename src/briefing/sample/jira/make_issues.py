# ruff: noqa: E501  (ticket prose is data; wrapping it would only hurt readability)
"""Writes issues.json, fields.json and myself.json: JIRA project PLAT of the sample story (see ../STORY.md).

The files have the shape `briefing.devserver.jira` serves (full issues as JIRA Cloud's v3 API returns them,
with every comment and changelog entry), so the demo can run a `type = "jira"` source against a local server.
Regenerate after editing the tickets below: `python src/briefing/sample/jira/make_issues.py`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SITE = "https://kestrelpay.atlassian.net"
YEAR = "2026"
PEOPLE = {
    "priya": "Priya Raman",
    "marcus": "Marcus Okafor",
    "lena": "Lena Vogt",
    "tomas": "Tomás Herrera",
    "aiko": "Aiko Tanaka",
    "sam": "Sam Whitfield",
    "nadia": "Nadia Petrova",
    "jonah": "Jonah Baptiste",
    "ruth": "Ruth Adeyemi",
}
CATEGORY = {
    "To Do": "To Do",
    "In Progress": "In Progress",
    "In Review": "In Progress",
    "Blocked": "In Progress",
    "Done": "Done",
    "Won't Do": "Done",
}
STATUS_IDS = {
    "To Do": "10000",
    "In Progress": "3",
    "In Review": "10003",
    "Blocked": "10004",
    "Done": "10001",
    "Won't Do": "10005",
}
SPRINTS: list[dict[str, Any]] = [
    {
        "id": 14,
        "name": "PLAT Sprint 14",
        "state": "closed",
        "boardId": 3,
        "startDate": "2026-05-04T08:00:00.000Z",
        "endDate": "2026-05-15T17:00:00.000Z",
        "goal": "Staging Aurora, replication, release 2.4.0",
    },
    {
        "id": 15,
        "name": "PLAT Sprint 15",
        "state": "closed",
        "boardId": 3,
        "startDate": "2026-05-18T08:00:00.000Z",
        "endDate": "2026-05-29T17:00:00.000Z",
        "goal": "Shadow reads, pooling, load test",
    },
    {
        "id": 16,
        "name": "PLAT Sprint 16",
        "state": "active",
        "boardId": 3,
        "startDate": "2026-06-01T08:00:00.000Z",
        "endDate": "2026-06-12T17:00:00.000Z",
        "goal": "Cutover and release 2.5.0",
    },
]


def user(handle: str) -> dict[str, Any]:
    return {
        "self": f"{SITE}/rest/api/3/user?accountId=712020:{handle}",
        "accountId": f"712020:{handle}",
        "displayName": PEOPLE[handle],
        "emailAddress": f"{PEOPLE[handle].lower().replace(' ', '.').replace('á', 'a')}@kestrelpay.example",
        "active": True,
        "timeZone": "UTC",
        "accountType": "atlassian",
    }


def stamp(when: str) -> str:
    """'05-21 10:42' -> JIRA's timestamp."""
    day, clock = when.split()
    return f"{YEAR}-{day}T{clock}:00.000+0000"


def adf(text: str) -> dict[str, Any]:
    """Paragraphs, '- ' bullet lists and `code` spans as an ADF document."""
    blocks: list[dict[str, Any]] = []
    for para in [p for p in text.strip().split("\n\n") if p.strip()]:
        lines = para.splitlines()
        if all(line.startswith("- ") for line in lines):
            blocks.append(
                {
                    "type": "bulletList",
                    "content": [
                        {"type": "listItem", "content": [{"type": "paragraph", "content": inline(line[2:])}]}
                        for line in lines
                    ],
                }
            )
        else:
            blocks.append({"type": "paragraph", "content": inline(" ".join(lines))})
    return {"type": "doc", "version": 1, "content": blocks}


def inline(text: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for n, part in enumerate(text.split("`")):
        if not part:
            continue
        node: dict[str, Any] = {"type": "text", "text": part}
        if n % 2:
            node["marks"] = [{"type": "code"}]
        out.append(node)
    return out


# key: (summary, type, owner, reporter, priority, created, [(when, status)], labels, components, description)
T = dict
TICKETS: list[dict[str, Any]] = [
    T(
        key="PLAT-101",
        summary="Epic: migrate ledger database to Aurora PostgreSQL 15",
        type="Epic",
        owner="marcus",
        reporter="priya",
        priority="Highest",
        created="05-04 08:40",
        moves=[("05-04 09:05", "In Progress"), ("06-10 09:15", "Done")],
        labels=["aurora-migration"],
        components=["ledger-db"],
        description="Move the ledger database from self-managed PostgreSQL 12 on `ledger-db-01..03` (EC2 r5.2xlarge, "
        "about $3,350/month, 1.9 TB) to Amazon Aurora PostgreSQL 15 (`ledger-aurora-prod`).\n\n"
        "Target cutover: Thursday 2026-05-28. Design doc: docs/design/ledger-aurora-migration.md. Lead: Marcus.\n\n"
        "- staging and production clusters (PLAT-102, PLAT-103)\n- schema audit (PLAT-104)\n"
        "- logical replication with pglogical (PLAT-105)\n- connection pooling (PLAT-106)\n"
        "- shadow dual reads (PLAT-107), load test (PLAT-108), runbook (PLAT-109)",
        extra=[("05-21 16:40", "priya", "duedate", "2026-05-28", "2026-06-09")],
        comments=[
            (
                "05-04 09:10",
                "priya",
                "Kick-off done. Cutover target is Thursday 2026-05-28; Marcus leads, design doc is linked above.",
            ),
            (
                "05-21 16:45",
                "priya",
                "Cutover moved from 05-28 to Tuesday 2026-06-09 after the INC-2026-014 incident and the switch to RDS Proxy (ADR-0009). See docs/meetings/2026-05-21-platform-sync.txt.",
            ),
            (
                "06-09 07:05",
                "marcus",
                "Production cutover done (PLAT-127): 05:30 to 06:40 UTC, read-only window 22 minutes, no errors. Old hosts stay for 14 days.",
            ),
            (
                "06-10 09:15",
                "marcus",
                "Closing the epic. Follow-ups: PLAT-128 (decommission ledger-db-01..03) and PLAT-139 (remove pglogical), both planned for 2026-06-23.",
            ),
        ],
    ),
    T(
        key="PLAT-102",
        summary="Provision Aurora cluster in staging",
        type="Task",
        owner="lena",
        reporter="marcus",
        priority="High",
        created="05-04 09:20",
        moves=[("05-04 10:30", "In Progress"), ("05-08 15:20", "Done")],
        labels=["aurora-migration", "terraform"],
        components=["platform-infra"],
        parent="PLAT-101",
        description="Terraform the staging Aurora PostgreSQL 15 cluster (writer + one reader) in the staging VPC.",
        comments=[
            (
                "05-08 15:20",
                "lena",
                "Staging cluster is up, platform-infra PR #88 merged. Endpoint is in the staging parameter store.",
            )
        ],
    ),
    T(
        key="PLAT-103",
        summary="Provision Aurora cluster in production",
        type="Task",
        owner="lena",
        reporter="marcus",
        priority="High",
        created="05-04 09:22",
        moves=[("05-11 09:40", "In Progress"), ("05-15 14:10", "Done")],
        labels=["aurora-migration", "terraform"],
        components=["platform-infra"],
        parent="PLAT-101",
        description="Production cluster `ledger-aurora-prod`: db.r6g.xlarge writer and one reader, encrypted, in the prod VPC.",
        comments=[
            (
                "05-15 14:10",
                "lena",
                "ledger-aurora-prod is up (platform-infra PR #90): db.r6g.xlarge writer plus one reader.",
            )
        ],
    ),
    T(
        key="PLAT-104",
        summary="Schema compatibility audit PG12 -> PG15",
        type="Task",
        owner="aiko",
        reporter="marcus",
        priority="High",
        created="05-04 09:25",
        moves=[("05-05 09:50", "In Progress"), ("05-07 16:30", "Done")],
        labels=["aurora-migration", "schema"],
        components=["ledger-db"],
        parent="PLAT-101",
        description="Check every table, view and function of the ledger schema against PostgreSQL 15.",
        comments=[
            (
                "05-07 16:30",
                "aiko",
                "Audit done, 3 findings: two `money` columns (entries.fee, payouts.amount) and one implicit cast in the settlement_totals view. Fixes planned before cutover.",
            )
        ],
    ),
    T(
        key="PLAT-105",
        summary="Logical replication (pglogical) PG12 -> Aurora",
        type="Task",
        owner="marcus",
        reporter="marcus",
        priority="High",
        created="05-04 09:30",
        moves=[("05-06 10:00", "In Progress"), ("05-14 15:45", "Done")],
        labels=["aurora-migration", "replication"],
        components=["ledger-db"],
        parent="PLAT-101",
        description="Set up pglogical from the PG12 primary to Aurora and monitor lag.",
        comments=[
            ("05-14 15:45", "marcus", "pglogical replication from PG12 to Aurora is running, lag under 2 s at peak.")
        ],
    ),
    T(
        key="PLAT-106",
        summary="Deploy PgBouncer fleet for ledger-api",
        type="Task",
        owner="tomas",
        reporter="marcus",
        priority="High",
        created="05-06 11:00",
        moves=[("05-07 09:45", "In Progress"), ("05-21 16:20", "Won't Do")],
        labels=["aurora-migration", "pooling"],
        components=["platform-infra"],
        parent="PLAT-101",
        description="Per ADR-0007 (Decision 1, 2026-05-06): self-run PgBouncer in transaction pooling mode in front of Aurora.",
        links=[("relates", "PLAT-118")],
        comments=[
            (
                "05-06 11:05",
                "marcus",
                "Decision 1 from today's sync: PgBouncer in transaction mode, see ADR-0007. Tomás owns the fleet.",
            ),
            (
                "05-15 16:50",
                "tomas",
                "Found a problem: the nightly settlement batch uses session-level advisory locks, which break under transaction pooling. Opened PLAT-118.",
            ),
            (
                "05-19 17:30",
                "lena",
                "INC-2026-014: default_pool_size = 20 was exhausted by the payout-worker retry storm. Pool raised to 60 during the incident.",
            ),
            (
                "05-21 16:20",
                "marcus",
                "Closing as Won't Do: Decision 2 (ADR-0009) switches to Amazon RDS Proxy. platform-infra PR #92 closed unmerged; PLAT-116 replaces this.",
            ),
        ],
    ),
    T(
        key="PLAT-107",
        summary="Shadow dual-read verification",
        type="Task",
        owner="aiko",
        reporter="marcus",
        priority="High",
        created="05-06 11:10",
        moves=[("05-12 10:00", "In Progress"), ("05-29 15:30", "Done")],
        labels=["aurora-migration"],
        components=["ledger-api"],
        parent="PLAT-101",
        description="Send a copy of read traffic to Aurora and compare results row by row.",
        comments=[
            ("05-18 10:20", "aiko", "Shadow dual-read traffic through PgBouncer to Aurora started this morning."),
            ("05-29 15:30", "aiko", "Shadow reads done: 0 mismatches in 41.2 M compared rows."),
        ],
    ),
    T(
        key="PLAT-108",
        summary="Load test Aurora at 2x peak with k6",
        type="Task",
        owner="tomas",
        reporter="marcus",
        priority="High",
        created="05-18 11:00",
        moves=[("05-25 09:30", "In Progress"), ("06-02 16:00", "Done")],
        labels=["aurora-migration", "load-test"],
        components=["ledger-api"],
        parent="PLAT-101",
        description="k6 load test of ledger-api against Aurora at 2x weekday peak (about 2,300 requests/s).",
        links=[("relates", "PLAT-131")],
        comments=[
            (
                "06-02 11:40",
                "tomas",
                "Result at 2x peak on db.r6g.xlarge: writer CPU 91 %. Too close to the edge; proposing a resize (PLAT-131).",
            ),
            ("06-02 16:00", "tomas", "Re-run after the resize to db.r6g.2xlarge: writer CPU 48 % at 2x peak. Done."),
        ],
    ),
    T(
        key="PLAT-109",
        summary="Cutover runbook",
        type="Task",
        owner="lena",
        reporter="marcus",
        priority="High",
        created="05-18 11:05",
        moves=[("05-22 10:00", "In Progress"), ("05-27 15:00", "Done")],
        labels=["aurora-migration", "runbook"],
        components=["ledger-db"],
        parent="PLAT-101",
        description="Step-by-step cutover runbook: docs/runbooks/aurora-cutover.md.",
        comments=[
            ("05-27 15:00", "lena", "Runbook drafted: docs/runbooks/aurora-cutover.md."),
            (
                "06-05 14:20",
                "lena",
                "Revised after the staging dry run (PLAT-126): reordered the sequence sync step to cut the read-only window.",
            ),
        ],
    ),
    T(
        key="PLAT-110",
        summary="Release ledger-api v2.4.0",
        type="Task",
        owner="sam",
        reporter="sam",
        priority="Medium",
        created="05-08 10:00",
        moves=[("05-11 10:00", "In Progress"), ("05-13 14:10", "Done")],
        labels=["release"],
        components=["ledger-api"],
        comments=[
            (
                "05-13 14:10",
                "sam",
                "v2.4.0 released and deployed at 14:05 UTC. Includes idempotency keys (PLAT-111) and Go 1.24 (PLAT-112).",
            )
        ],
    ),
    T(
        key="PLAT-111",
        summary="Idempotency keys for POST /v1/transfers",
        type="Story",
        owner="aiko",
        reporter="nadia",
        priority="High",
        created="05-04 10:00",
        moves=[("05-05 10:15", "In Progress"), ("05-12 15:00", "Done")],
        labels=["api"],
        components=["ledger-api"],
        comments=[("05-12 15:00", "aiko", "Merged in ledger-api PR #412: `Idempotency-Key` header, keys kept 24 h.")],
    ),
    T(
        key="PLAT-112",
        summary="Upgrade ledger-api to Go 1.24",
        type="Task",
        owner="tomas",
        reporter="tomas",
        priority="Medium",
        created="05-05 09:00",
        moves=[("05-06 09:40", "In Progress"), ("05-11 11:30", "Done")],
        labels=["tech-debt"],
        components=["ledger-api"],
        comments=[("05-11 11:30", "tomas", "Go 1.24 upgrade merged (ledger-api PR #415).")],
    ),
    T(
        key="PLAT-113",
        summary="Deprecate /v1/balances/legacy",
        type="Story",
        owner="aiko",
        reporter="nadia",
        priority="Low",
        created="05-11 14:00",
        moves=[("05-18 11:00", "In Progress"), ("05-27 13:20", "Blocked")],
        labels=["api", "deprecation"],
        components=["ledger-api"],
        comments=[
            (
                "05-27 13:20",
                "aiko",
                "Blocked: the mobile app still calls /v1/balances/legacy; the mobile team can move off it by 2026-06-30.",
            )
        ],
    ),
    T(
        key="PLAT-114",
        summary="Grafana dashboard for the ledger database",
        type="Task",
        owner="lena",
        reporter="lena",
        priority="Medium",
        created="05-11 10:00",
        moves=[("05-12 09:30", "In Progress"), ("05-15 11:00", "Done")],
        labels=["observability"],
        components=["platform-infra"],
        parent="PLAT-101",
    ),
    T(
        key="PLAT-115",
        summary="Fix flaky TestSettlementBatch in CI",
        type="Bug",
        owner="sam",
        reporter="sam",
        priority="Medium",
        created="05-15 09:00",
        moves=[("05-18 10:00", "In Progress"), ("05-20 15:10", "Done")],
        labels=["ci", "flaky-test"],
        components=["ledger-api"],
        comments=[("05-20 15:10", "sam", "Fixed in ledger-api PR #418: the test depended on wall-clock midnight.")],
    ),
    T(
        key="PLAT-116",
        summary="Terraform module for RDS Proxy",
        type="Task",
        owner="lena",
        reporter="marcus",
        priority="Highest",
        created="05-21 16:25",
        moves=[("05-21 16:30", "In Progress"), ("05-27 12:00", "Done")],
        labels=["aurora-migration", "terraform", "pooling"],
        components=["platform-infra"],
        parent="PLAT-101",
        description="Decision 2 (ADR-0009): Amazon RDS Proxy instead of PgBouncer. Session pinning keeps advisory locks working, IAM auth, nothing to run ourselves; extra $310/month.",
        links=[("relates", "PLAT-106")],
        comments=[("05-27 12:00", "lena", "RDS Proxy module merged (platform-infra PR #95).")],
    ),
    T(
        key="PLAT-117",
        summary="Rotate ledger DB credentials via Secrets Manager",
        type="Task",
        owner="marcus",
        reporter="lena",
        priority="Medium",
        created="05-22 10:00",
        moves=[("05-28 10:00", "In Progress"), ("06-05 15:40", "Done")],
        labels=["security"],
        components=["ledger-db"],
        parent="PLAT-101",
        comments=[
            (
                "06-05 15:40",
                "marcus",
                "Secrets rotation done; ledger-api reads credentials from Secrets Manager via RDS Proxy IAM auth.",
            )
        ],
    ),
    T(
        key="PLAT-118",
        summary="Advisory locks break under PgBouncer transaction pooling",
        type="Bug",
        owner="tomas",
        reporter="tomas",
        priority="High",
        created="05-15 16:45",
        moves=[("05-21 16:35", "Done")],
        labels=["aurora-migration", "pooling"],
        components=["ledger-api"],
        parent="PLAT-101",
        description="The nightly settlement batch takes session-level advisory locks (`pg_advisory_lock`). Under PgBouncer transaction pooling the lock and the unlock can land on different server connections.",
        links=[("relates", "PLAT-106")],
        comments=[
            (
                "05-15 16:45",
                "tomas",
                "Reproduced in staging: the unlock runs on another server connection, so the lock leaks until the pool recycles it.",
            ),
            (
                "05-21 16:35",
                "tomas",
                "Fixed by the switch to RDS Proxy (session pinning). The batch now takes its lock on a dedicated connection (ledger-api PR #421).",
            ),
        ],
    ),
    T(
        key="PLAT-119",
        summary="Onboarding checklist for Jonah Baptiste",
        type="Task",
        owner="priya",
        reporter="priya",
        priority="Medium",
        created="05-22 09:00",
        moves=[("05-25 09:00", "In Progress"), ("06-05 16:00", "Done")],
        labels=["onboarding"],
        components=[],
        comments=[
            (
                "06-01 09:30",
                "priya",
                "Jonah starts today; Aiko is his buddy. Checklist is in docs/onboarding/welcome.md.",
            )
        ],
    ),
    T(
        key="PLAT-120",
        summary="payout-worker: exponential backoff with jitter",
        type="Bug",
        owner="tomas",
        reporter="lena",
        priority="Highest",
        created="05-19 16:00",
        moves=[("05-19 16:05", "In Progress"), ("05-26 14:30", "Done")],
        labels=["incident-followup", "INC-2026-014"],
        components=["payout-worker"],
        description="Action item from INC-2026-014: payout-worker retried failed calls 5 times at a fixed 100 ms, which turned a slow pool into a retry storm. Use exponential backoff with jitter.",
        links=[("relates", "PLAT-122")],
        comments=[
            (
                "05-26 14:30",
                "tomas",
                "Merged payout-worker PR #57: exponential backoff with full jitter, base 200 ms, cap 5 s.",
            )
        ],
    ),
    T(
        key="PLAT-121",
        summary="Alert on pool saturation (>80 % for 5 min)",
        type="Task",
        owner="lena",
        reporter="lena",
        priority="High",
        created="05-19 16:05",
        moves=[("05-20 09:30", "In Progress"), ("05-28 11:00", "Done")],
        labels=["incident-followup", "INC-2026-014", "observability"],
        components=["platform-infra"],
        links=[("relates", "PLAT-122")],
        comments=[
            (
                "05-28 11:00",
                "lena",
                "Alert is live (platform-infra PR #97): pages when connection pool use stays above 80 % for 5 minutes.",
            )
        ],
    ),
    T(
        key="PLAT-122",
        summary="Postmortem for INC-2026-014",
        type="Task",
        owner="lena",
        reporter="priya",
        priority="High",
        created="05-19 16:10",
        moves=[("05-20 09:00", "In Progress"), ("05-22 16:10", "Done")],
        labels=["incident-followup", "INC-2026-014"],
        components=[],
        description="Sev2, 2026-05-19 14:12 to 15:03 UTC (51 minutes): ledger-api 5xx peaked at 18.4 %, p99 4.2 s, about 3,900 failed transfer requests, no money lost.",
        comments=[
            (
                "05-22 16:10",
                "lena",
                "Postmortem published: docs/postmortems/2026-05-19-ledger-5xx.md. Review held 15:00 UTC today. Root cause: PgBouncer default_pool_size = 20 exhausted by the payout-worker retry storm.",
            )
        ],
    ),
    T(
        key="PLAT-123",
        summary="Deploy runbook: rollback for schema migrations",
        type="Task",
        owner="sam",
        reporter="lena",
        priority="Medium",
        created="05-19 16:15",
        moves=[("05-22 10:30", "In Progress"), ("05-29 14:00", "Done")],
        labels=["incident-followup", "INC-2026-014", "runbook"],
        components=["ledger-api"],
        comments=[("05-29 14:00", "sam", "Rollback section added to docs/runbooks/deploy.md.")],
    ),
    T(
        key="PLAT-124",
        summary="Per-merchant rate limit on /v1/transfers",
        type="Story",
        owner="marcus",
        reporter="nadia",
        priority="Medium",
        created="05-20 10:00",
        moves=[],
        labels=["api", "q3"],
        components=["ledger-api"],
        extra=[("06-01 11:00", "nadia", "labels", "api", "api q3")],
        comments=[("06-01 11:00", "nadia", "Moving this to Q3; it is on the Q3 roadmap draft (PLAT-138).")],
    ),
    T(
        key="PLAT-125",
        summary="Cost report: Aurora vs EC2",
        type="Task",
        owner="nadia",
        reporter="priya",
        priority="Medium",
        created="05-19 09:00",
        moves=[("05-20 10:00", "In Progress"), ("05-26 16:00", "Done")],
        labels=["aurora-migration", "cost"],
        components=[],
        parent="PLAT-101",
        comments=[
            (
                "05-26 16:00",
                "nadia",
                "Estimate: $4,490/month (db.r6g.xlarge writer + one reader $4,180, plus RDS Proxy $310), against $3,350/month for the EC2 hosts today.",
            ),
            ("05-27 17:10", "priya", "Ruth approved a ceiling of $5,500/month."),
            (
                "06-02 17:00",
                "nadia",
                "Updated after the resize to db.r6g.2xlarge (PLAT-131): $5,240/month, still under the $5,500 ceiling.",
            ),
        ],
    ),
    T(
        key="PLAT-126",
        summary="Cutover dry run in staging",
        type="Task",
        owner="marcus",
        reporter="marcus",
        priority="High",
        created="05-27 15:10",
        moves=[("06-02 10:00", "In Progress"), ("06-03 17:00", "Done")],
        labels=["aurora-migration"],
        components=["ledger-db"],
        parent="PLAT-101",
        comments=[
            (
                "06-03 17:00",
                "marcus",
                "Dry run done: read-only window 38 minutes; target is under 30. Lena is revising the runbook (PLAT-109).",
            )
        ],
    ),
    T(
        key="PLAT-127",
        summary="Production cutover",
        type="Task",
        owner="marcus",
        reporter="marcus",
        priority="Highest",
        created="05-27 15:15",
        moves=[("06-08 09:00", "In Progress"), ("06-09 06:50", "Done")],
        labels=["aurora-migration"],
        components=["ledger-db"],
        parent="PLAT-101",
        comments=[
            (
                "06-08 09:05",
                "marcus",
                "Cutover tomorrow 05:30 UTC. Lena is on leave, so Sam is the second pair of hands.",
            ),
            (
                "06-09 06:50",
                "marcus",
                "Done: 05:30 to 06:40 UTC, read-only window 22 minutes, no errors. Old hosts kept for 14 days.",
            ),
        ],
    ),
    T(
        key="PLAT-128",
        summary="Decommission ledger-db-01..03",
        type="Task",
        owner="lena",
        reporter="marcus",
        priority="Medium",
        created="06-09 07:00",
        moves=[],
        labels=["aurora-migration"],
        components=["platform-infra"],
        parent="PLAT-101",
        description="Shut down the three EC2 hosts after 14 days of Aurora in production. Planned for 2026-06-23.",
    ),
    T(
        key="PLAT-129",
        summary="Release ledger-api v2.5.0",
        type="Task",
        owner="sam",
        reporter="sam",
        priority="High",
        created="05-29 10:00",
        moves=[("06-01 10:00", "In Progress"), ("06-04 11:30", "Done")],
        labels=["release"],
        components=["ledger-api"],
        links=[("blocked", "PLAT-130")],
        comments=[
            ("06-03 12:10", "sam", "v2.5.0 slips from 06-03 to 06-04: migration 0047 fails on PG15 (PLAT-130)."),
            ("06-04 11:30", "sam", "v2.5.0 released, deployed 11:20 UTC (ledger-api PR #429)."),
        ],
    ),
    T(
        key="PLAT-130",
        summary="Migration 0047 fails on PG15 (implicit cast in settlement_totals view)",
        type="Bug",
        owner="aiko",
        reporter="sam",
        priority="Highest",
        created="06-03 10:40",
        moves=[("06-03 10:45", "In Progress"), ("06-03 16:30", "Done")],
        labels=["schema"],
        components=["ledger-db"],
        links=[("blocks", "PLAT-129")],
        comments=[
            (
                "06-03 16:30",
                "aiko",
                "Fixed with an explicit numeric cast (ledger-api PR #426). This was the third finding of the PLAT-104 audit.",
            )
        ],
    ),
    T(
        key="PLAT-131",
        summary="Resize Aurora writer to db.r6g.2xlarge",
        type="Task",
        owner="lena",
        reporter="tomas",
        priority="Highest",
        created="06-02 11:45",
        moves=[("06-02 12:00", "In Progress"), ("06-02 15:30", "Done")],
        labels=["aurora-migration", "terraform"],
        components=["platform-infra"],
        parent="PLAT-101",
        comments=[("06-02 15:30", "lena", "Resized to db.r6g.2xlarge (platform-infra PR #99).")],
    ),
    T(
        key="PLAT-132",
        summary="Route reporting queries to the Aurora reader",
        type="Task",
        owner="tomas",
        reporter="marcus",
        priority="Medium",
        created="06-03 09:00",
        moves=[("06-08 10:00", "In Progress")],
        labels=["aurora-migration"],
        components=["ledger-api"],
        parent="PLAT-101",
    ),
    T(
        key="PLAT-133",
        summary="Read-only production access for Jonah",
        type="Task",
        owner="sam",
        reporter="priya",
        priority="Medium",
        created="05-29 11:00",
        moves=[("06-01 10:00", "In Progress"), ("06-02 14:00", "Done")],
        labels=["onboarding"],
        components=[],
    ),
    T(
        key="PLAT-134",
        summary="Document the on-call swap policy",
        type="Task",
        owner="priya",
        reporter="priya",
        priority="Low",
        created="05-26 10:00",
        moves=[("05-27 10:00", "In Progress"), ("05-29 16:00", "Done")],
        labels=["on-call"],
        components=[],
        comments=[
            (
                "05-29 16:00",
                "priya",
                "Policy in docs/oncall/rota.md: swaps are agreed by both people and posted in #platform-eng a week ahead.",
            )
        ],
    ),
    T(
        key="PLAT-135",
        summary="Settlement report cuts the day at local midnight, not UTC",
        type="Bug",
        owner="aiko",
        reporter="nadia",
        priority="High",
        created="06-09 14:00",
        moves=[("06-09 14:30", "In Progress"), ("06-10 13:20", "Done")],
        labels=["settlement"],
        components=["ledger-api"],
        links=[("relates", "PLAT-136")],
        comments=[("06-10 13:20", "aiko", "Fixed in ledger-api PR #431, shipped in v2.5.1.")],
    ),
    T(
        key="PLAT-136",
        summary="Release ledger-api v2.5.1 (hotfix)",
        type="Task",
        owner="sam",
        reporter="sam",
        priority="Highest",
        created="06-10 10:00",
        moves=[("06-10 10:05", "In Progress"), ("06-10 13:15", "Done")],
        labels=["release", "hotfix"],
        components=["ledger-api"],
        comments=[("06-10 13:15", "sam", "v2.5.1 deployed 13:10 UTC with the settlement report fix (PLAT-135).")],
    ),
    T(
        key="PLAT-137",
        summary="p99 regression on /v1/statements after cutover",
        type="Bug",
        owner="tomas",
        reporter="tomas",
        priority="High",
        created="06-11 10:30",
        moves=[("06-12 09:30", "In Progress")],
        labels=["performance", "aurora-migration"],
        components=["ledger-api"],
        description="p99 on /v1/statements went from 310 ms to 520 ms after the cutover on 06-09.",
        comments=[
            (
                "06-12 11:00",
                "tomas",
                "Cause found: missing index statements_account_id_created_at_idx on Aurora. PR #434 adds it.",
            ),
            ("06-12 16:30", "tomas", "With the index, p99 is back to 290 ms in staging. PR #434 still open."),
        ],
    ),
    T(
        key="PLAT-138",
        summary="Q3 2026 platform roadmap",
        type="Task",
        owner="nadia",
        reporter="nadia",
        priority="Medium",
        created="05-29 10:00",
        moves=[("06-01 10:00", "In Progress")],
        labels=["q3", "planning"],
        components=[],
        links=[("relates", "PLAT-124")],
        comments=[
            (
                "06-01 10:05",
                "nadia",
                "Draft on Confluence: Q3 2026 Platform Roadmap. Candidates: per-merchant rate limits (PLAT-124), decommission (PLAT-128).",
            )
        ],
    ),
    T(
        key="PLAT-139",
        summary="Remove pglogical replication after cutover",
        type="Task",
        owner="marcus",
        reporter="marcus",
        priority="Low",
        created="06-09 07:05",
        moves=[],
        labels=["aurora-migration"],
        components=["ledger-db"],
        parent="PLAT-101",
        description="Planned for 2026-06-23 together with PLAT-128.",
    ),
    T(
        key="PLAT-140",
        summary="Starter task: request id in ledger-api logs",
        type="Task",
        owner="jonah",
        reporter="aiko",
        priority="Low",
        created="06-02 10:00",
        moves=[("06-03 10:00", "In Progress"), ("06-11 15:00", "In Review")],
        labels=["good-first-issue"],
        components=["ledger-api"],
        comments=[
            ("06-11 15:00", "jonah", "First PR is up: ledger-api #437, adds the request id to every log line."),
            ("06-11 16:20", "aiko", "Reviewing today, looks good so far."),
        ],
    ),
]

LINK_TYPES = {
    "blocks": ("Blocks", "blocks", "is blocked by"),
    "blocked": ("Blocks", "blocks", "is blocked by"),
    "relates": ("Relates", "relates to", "relates to"),
}


def sprints_for(created: str, moves: list[tuple[str, str]]) -> list[dict[str, Any]]:
    days = [created.split()[0]] + [m[0].split()[0] for m in moves]
    active = []
    for sprint in SPRINTS:
        start, end = sprint["startDate"][5:10], sprint["endDate"][5:10]
        if moves and any(start <= d <= end for d in days) or (not moves and start <= days[0] <= end):
            active.append(sprint)
    return active


def build() -> list[dict[str, Any]]:
    by_key = {t["key"]: t for t in TICKETS}
    issues = []
    history_id, comment_id = 120000, 230000
    for n, t in enumerate(TICKETS):
        status = t["moves"][-1][1] if t["moves"] else "To Do"
        # (when, who, field, from, to): the owner moves the ticket; `extra` lists other people's edits.
        befores = ["To Do"] + [status for _, status in t["moves"]]
        events = [(w, t["owner"], "status", old, new) for (w, new), old in zip(t["moves"], befores, strict=False)]
        events += t.get("extra", [])
        histories: list[dict[str, Any]] = []
        for when, who, field, old, new in sorted(events, key=lambda e: e[0]):
            history_id += 1
            items = [
                {
                    "field": field,
                    "fieldtype": "jira",
                    "fieldId": field,
                    "from": None,
                    "fromString": old,
                    "to": None,
                    "toString": new,
                }
            ]
            if field == "status" and new in ("Done", "Won't Do"):
                items.append(
                    {
                        "field": "resolution",
                        "fieldtype": "jira",
                        "fieldId": "resolution",
                        "from": None,
                        "fromString": None,
                        "to": "10000",
                        "toString": new,
                    }
                )
            histories.append({"id": str(history_id), "author": user(who), "created": stamp(when), "items": items})
        comments: list[dict[str, Any]] = []
        for when, who, text in t.get("comments", []):
            comment_id += 1
            comments.append(
                {
                    "self": f"{SITE}/rest/api/3/issue/{10100 + n}/comment/{comment_id}",
                    "id": str(comment_id),
                    "author": user(who),
                    "updateAuthor": user(who),
                    "body": adf(text),
                    "created": stamp(when),
                    "updated": stamp(when),
                    "jsdPublic": True,
                }
            )
        times: list[str] = [stamp(t["created"]), *(h["created"] for h in histories), *(c["created"] for c in comments)]
        updated = max(times)
        links = []
        for i, (kind, other) in enumerate(t.get("links", [])):
            name, outward, inward = LINK_TYPES[kind]
            side = "inwardIssue" if kind == "blocked" else "outwardIssue"
            o = by_key[other]
            o_status = o["moves"][-1][1] if o["moves"] else "To Do"
            links.append(
                {
                    "id": str(30000 + n * 10 + i),
                    "type": {"name": name, "inward": inward, "outward": outward},
                    side: {"key": other, "fields": {"summary": o["summary"], "status": status_obj(o_status)}},
                }
            )
        parent = None
        if t.get("parent"):
            p = by_key[t["parent"]]
            parent = {
                "id": "10100",
                "key": p["key"],
                "fields": {"summary": p["summary"], "status": status_obj("Done"), "issuetype": {"name": p["type"]}},
            }
        done = status in ("Done", "Won't Do")
        fields = {
            "summary": t["summary"],
            "description": adf(t["description"]) if t.get("description") else None,
            "status": status_obj(status),
            "issuetype": {
                "id": {"Epic": "10000", "Story": "10001", "Task": "10002", "Bug": "10004"}[t["type"]],
                "name": t["type"],
                "subtask": False,
            },
            "project": {"id": "10010", "key": "PLAT", "name": "Platform", "projectTypeKey": "software"},
            "assignee": user(t["owner"]),
            "reporter": user(t["reporter"]),
            "creator": user(t["reporter"]),
            "priority": {"id": "0", "name": t["priority"]},
            "labels": t["labels"],
            "components": [{"id": str(10200 + i), "name": c} for i, c in enumerate(t["components"])],
            "fixVersions": [],
            "resolution": {"id": "10000", "name": status} if done else None,
            "resolutiondate": stamp(t["moves"][-1][0]) if done else None,
            "created": stamp(t["created"]),
            "updated": updated,
            "duedate": "2026-06-09" if t["key"] == "PLAT-101" else None,
            "subtasks": [],
            "issuelinks": links,
            "comment": {"comments": comments, "maxResults": len(comments), "total": len(comments), "startAt": 0},
            "customfield_10020": None if t["type"] == "Epic" else sprints_for(t["created"], t["moves"]) or None,
        }
        if parent:
            fields["parent"] = parent
        issues.append(
            {
                "id": str(10100 + n),
                "key": t["key"],
                "self": f"{SITE}/rest/api/3/issue/{10100 + n}",
                "fields": fields,
                "changelog": {"histories": histories},
            }
        )
    return issues


def status_obj(name: str) -> dict[str, Any]:
    return {"name": name, "id": STATUS_IDS[name], "statusCategory": {"name": CATEGORY[name]}}


FIELDS = [
    {
        "id": "summary",
        "key": "summary",
        "name": "Summary",
        "custom": False,
        "schema": {"type": "string", "system": "summary"},
    },
    {
        "id": "customfield_10020",
        "key": "customfield_10020",
        "name": "Sprint",
        "custom": True,
        "schema": {
            "type": "array",
            "items": "json",
            "custom": "com.pyxis.greenhopper.jira:gh-sprint",
            "customId": 10020,
        },
    },
]
MYSELF = {
    "self": f"{SITE}/rest/api/3/user?accountId=712020:briefbot",
    "accountId": "712020:briefbot",
    "displayName": "Brief Bot",
    "emailAddress": "brief-bot@kestrelpay.example",
    "active": True,
    "timeZone": "UTC",
    "accountType": "app",
}

if __name__ == "__main__":
    (HERE / "issues.json").write_text(json.dumps(build(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (HERE / "fields.json").write_text(json.dumps(FIELDS, indent=1) + "\n", encoding="utf-8")
    (HERE / "myself.json").write_text(json.dumps(MYSELF, indent=1) + "\n", encoding="utf-8")
