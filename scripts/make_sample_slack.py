"""Write the sample workspace's Slack export (src/briefing/sample/slack_export) from the script below.

The story lives in src/briefing/sample/STORY.md. Message timestamps are derived from the wall-clock times
written here, so re-running the script reproduces the same `ts` values (the evaluation's gold refs use them).
`--labels FILE` also writes a JSON map of message label -> `slack:<channel_id>:<ts>` for building eval cases.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "briefing" / "sample" / "slack_export"
TEAM = "T01KESTREL"

PEOPLE = {
    # handle: (id, real name, first, last, title, tz)
    "priya": ("U01PRIYA", "Priya Raman", "Priya", "Raman", "Engineering Manager, Platform", "Europe/London"),
    "marcus": ("U01MARCUS", "Marcus Okafor", "Marcus", "Okafor", "Staff Engineer", "Europe/London"),
    "lena": ("U01LENA", "Lena Vogt", "Lena", "Vogt", "Senior SRE", "Europe/Berlin"),
    "tomas": ("U01TOMAS", "Tomás Herrera", "Tomás", "Herrera", "Backend Engineer", "Europe/Madrid"),
    "aiko": ("U01AIKO", "Aiko Tanaka", "Aiko", "Tanaka", "Senior Backend Engineer", "Europe/London"),
    "sam": ("U01SAM", "Sam Whitfield", "Sam", "Whitfield", "Release Engineer", "Europe/Dublin"),
    "nadia": ("U01NADIA", "Nadia Petrova", "Nadia", "Petrova", "Product Manager, Platform", "Europe/Sofia"),
    "jonah": ("U01JONAH", "Jonah Baptiste", "Jonah", "Baptiste", "Backend Engineer", "America/Toronto"),
    "ruth": ("U01RUTH", "Ruth Adeyemi", "Ruth", "Adeyemi", "CTO", "Europe/London"),
}
BOTS = {"deploybot": ("U01DEPLOYB", "B01DEPLOY"), "pagerbot": ("U01PAGERB", "B01PAGER")}
TEAM_HANDLES = ["priya", "marcus", "lena", "tomas", "aiko", "sam", "nadia"]

CHANNELS = {
    # short: (id, name, creator, created, members, topic, purpose, is_general)
    "gen": (
        "C01GENERAL",
        "general",
        "ruth",
        "2021-03-01 09:00",
        [*PEOPLE],
        "Company news and announcements",
        "This channel is for workspace-wide communication and announcements.",
        True,
    ),
    "pe": (
        "C02PLATENG",
        "platform-eng",
        "priya",
        "2022-01-10 10:00",
        [*TEAM_HANDLES, "jonah"],
        "Aurora migration: cutover Tue 9 June 05:30 UTC | on call: see rota.md",
        "Platform team: ledger-api, databases, infrastructure, day-to-day decisions.",
        False,
    ),
    "inc": (
        "C03INCIDNT",
        "incidents",
        "lena",
        "2022-01-10 10:05",
        [*TEAM_HANDLES, "jonah", "ruth"],
        "Active: none | Sev1/Sev2 declare here, postmortems in docs/postmortems",
        "Pages, incident coordination and timelines.",
        False,
    ),
    "rel": (
        "C04RELEASE",
        "releases",
        "sam",
        "2022-02-01 11:00",
        [*TEAM_HANDLES, "jonah"],
        "ledger-api v2.5.1 in production",
        "Release planning, deploy results and release notes.",
        False,
    ),
    "rnd": (
        "C05RANDOM",
        "random",
        "ruth",
        "2021-03-01 09:00",
        [*PEOPLE],
        "Lunch, pets, weekend plans",
        "Non-work banter and water cooler conversation.",
        False,
    ),
}

DOCS = "https://github.com/kestrelpay/platform-docs/blob/main/"
ISSUES = "https://kestrelpay.atlassian.net/browse/"


def _epoch(day_time: str) -> int:
    """'05-19 14:21' or '05-19 14:21:37' (2026, UTC) -> epoch seconds."""
    date, clock = day_time.split(" ")
    if clock.count(":") == 1:
        clock += ":00"
    return int(datetime.fromisoformat(f"2026-{date}T{clock}+00:00").timestamp())


def _ts(seconds: int, salt: str) -> str:
    micro = int(hashlib.sha1(salt.encode(), usedforsecurity=False).hexdigest()[:8], 16) % 1_000_000
    return f"{seconds}.{micro:06d}"


def _mrkdwn(text: str) -> str:
    """Expand <@handle> and <#short> shorthands into Slack's mention and channel-link syntax."""
    text = re.sub(r"<@([a-z]+)>", lambda m: f"<@{PEOPLE[m.group(1)][0]}>", text)
    return re.sub(r"<#([a-z]+)>", lambda m: f"<#{CHANNELS[m.group(1)][0]}|{CHANNELS[m.group(1)][1]}>", text)


@dataclass
class Msg:
    channel: str
    when: str
    user: str | None
    text: str
    label: str | None = None
    parent: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    ts: str = ""
    replies: list[Msg] = field(default_factory=list)


MESSAGES: list[Msg] = []
BY_LABEL: dict[str, Msg] = {}


def post(ch: str, when: str, user: str | None, text: str, label: str | None = None, **extra: Any) -> Msg:
    msg = Msg(ch, when, user, _mrkdwn(text), label, None, extra)
    MESSAGES.append(msg)
    if label:
        assert label not in BY_LABEL, label
        BY_LABEL[label] = msg
    return msg


def reply(parent: str, when: str, user: str, text: str, label: str | None = None, **extra: Any) -> Msg:
    root = BY_LABEL[parent]
    msg = post(root.channel, when, user, text, label, **extra)
    msg.parent = parent
    root.replies.append(msg)
    return msg


def bot(ch: str, when: str, name: str, text: str, label: str | None = None, **extra: Any) -> Msg:
    return post(ch, when, None, text, label, bot=name, **extra)


# ---------------------------------------------------------------------------------------------------------
# Week 1: Mon 2026-05-04 .. Fri 05-08, kick-off
# ---------------------------------------------------------------------------------------------------------
post(
    "gen",
    "05-04 08:45",
    "ruth",
    "Good morning everyone :wave: Company all-hands is *Thursday 7 May at 16:00 UTC*, 4th floor and on Zoom. "
    "Agenda: Q2 numbers, the e-money licence renewal and a few team shout-outs.",
    "gen_allhands",
)
post(
    "gen",
    "05-04 09:30",
    "priya",
    "*Platform heads-up*: this quarter we move the ledger database off the self-managed PostgreSQL 12 hosts "
    "onto Aurora PostgreSQL 15. <@marcus> leads it, target cutover *Thursday 28 May*. Expect a short "
    "read-only window for ledger-api; details in <#pe>.",
    "gen_migration_announce",
)

post(
    "pe",
    "05-04 09:05",
    "priya",
    "Kicking off the ledger DB migration today :rocket: Epic is PLAT-101, <@marcus> is tech lead. Goal: move "
    "ledger-api from the three self-managed PG12 hosts (`ledger-db-01..03`) to Aurora PostgreSQL 15 with less "
    "than 30 minutes of read-only time. Target cutover: *Thursday 2026-05-28*. Design doc: "
    f"<{DOCS}design/ledger-aurora-migration.md|ledger-aurora-migration.md>. Please read it before Wednesday's sync.",
    "pe_kickoff",
)
reply(
    "pe_kickoff",
    "05-04 09:14",
    "marcus",
    "Thanks. Phases: (1) staging cluster + schema audit this week, (2) pglogical replication next week, "
    "(3) shadow reads, (4) load test, (5) cutover. Tickets PLAT-102 to PLAT-109 are created and assigned.",
    "pe_kickoff_phases",
)
reply(
    "pe_kickoff",
    "05-04 09:20",
    "lena",
    "I'll take the Aurora clusters (PLAT-102 staging, PLAT-103 prod). Staging should be up by Friday.",
    "pe_kickoff_lena",
)
reply(
    "pe_kickoff",
    "05-04 09:31",
    "aiko",
    "Schema audit is mine (PLAT-104). Starting with the `money` columns, I know we have at least two.",
)
reply(
    "pe_kickoff",
    "05-04 10:02",
    "nadia",
    "From the product side: merchants must not see more than 30 minutes of read-only. I'll draft the "
    "merchant notice once we have a firm date.",
    "pe_kickoff_nadia",
)
post(
    "pe",
    "05-04 09:40",
    "lena",
    "On call this week is me :pager: Quiet weekend, one disk warning on `ledger-db-02` (78 %), I cleaned up "
    "old WAL archives. Handover notes are in the usual doc.",
    "pe_oncall_w1",
)
post(
    "pe",
    "05-04 10:15",
    "tomas",
    "Starting the Go 1.24 upgrade for ledger-api (PLAT-112). Small diff so far, mostly the `slices` package "
    "replacing our own helpers.",
)
post(
    "pe",
    "05-05 10:04",
    "priya",
    "Standup notes: Marcus on replication design, Lena on Terraform for staging, Aiko on schema audit, Tomás on "
    "Go 1.24, Sam preparing the 2.4.0 train. No blockers.",
)
post(
    "pe",
    "05-05 11:20",
    "aiko",
    "PLAT-111 idempotency keys, proposal: an `Idempotency-Key` header, stored for 24 h in a `transfer_requests` "
    "table with a unique index on (merchant_id, key). Replays return the stored response. Objections?",
    "pe_idem_proposal",
)
reply("pe_idem_proposal", "05-05 11:34", "marcus", "24 h matches what the card networks do. Go for it.")
reply(
    "pe_idem_proposal",
    "05-05 11:40",
    "tomas",
    "payout-worker should send the header too, I'll open a follow-up once the API side lands.",
)
post(
    "pe",
    "05-05 15:02",
    "marcus",
    "Connection pooling for the new cluster. ledger-api opens ~600 connections at peak across 24 pods; the "
    "Aurora writer allows plenty but every connection costs memory. Options: (a) a PgBouncer fleet we run, "
    "(b) Amazon RDS Proxy, (c) only the pgx pool in the app. Let's decide at Wednesday's sync.",
    "pe_pool_options",
)
reply(
    "pe_pool_options",
    "05-05 15:20",
    "lena",
    "Rough numbers: RDS Proxy is billed per vCPU of the cluster, about *$310/month* for our size. PgBouncer on "
    "two t4g.medium plus an NLB is about *$50/month*.",
    "pe_pool_costs",
)
reply(
    "pe_pool_options",
    "05-05 15:31",
    "tomas",
    "PgBouncer in transaction mode is what we already run for the payments gateway. I'd go with that.",
)
post(
    "pe",
    "05-06 14:30",
    "marcus",
    "*Decision (Wed 6 May sync)*: we go with *PgBouncer in transaction mode*, two instances behind an NLB, "
    "`default_pool_size = 20`. Cheaper (~$50/month vs ~$310 for RDS Proxy) and we know how to run it. "
    "Written up as ADR-0007. <@tomas> owns the rollout (PLAT-106).",
    "pe_decision_pgbouncer",
)
reply("pe_decision_pgbouncer", "05-06 14:41", "nadia", ":+1: cost-wise an easy call")
reply(
    "pe_decision_pgbouncer",
    "05-06 14:52",
    "lena",
    "Fine by me, but I want pool saturation metrics exported before prod traffic goes through it.",
    "pe_decision_pgbouncer_lena",
)
post(
    "pe",
    "05-07 10:05",
    "aiko",
    "Schema audit done (PLAT-104): *3 issues*. Two `money` columns (`fees.amount`, `refunds.amount`) to convert "
    "to `numeric(19,4)`, and one implicit cast in the `settlement_totals` view that PG15 rejects. Fixes go into "
    "migration 0047.",
    "pe_schema_audit",
)
post(
    "pe",
    "05-07 13:10",
    "tomas",
    "Go 1.24 benchmark on staging: p99 on `/v1/ledger/entries` 180 ms -> 171 ms, allocations down 12 %.",
    "pe_go_bench",
    subtype="file_share",
    files=[{"id": "F01GOBENCH1", "name": "go124-bench.png", "title": "Go 1.24 benchmark", "mimetype": "image/png"}],
)
post(
    "pe",
    "05-08 15:40",
    "lena",
    "Staging Aurora cluster `ledger-aurora-stg` is up (PLAT-102, "
    "<https://github.com/kestrelpay/platform-infra/pull/88|platform-infra#88>). Writer is db.r6g.large for "
    "staging, prod will be db.r6g.xlarge. Credentials are in 1Password under 'ledger staging aurora'.",
    "pe_staging_up",
)
post(
    "pe",
    "05-08 16:30",
    "priya",
    "Week 1 wrap: staging cluster up, schema audit done (3 issues), pooling decided (PgBouncer), Go 1.24 PR in "
    "review. Have a good weekend!",
    "pe_w1_wrap",
)

post(
    "rel",
    "05-05 10:00",
    "sam",
    "Release train for ledger-api *v2.4.0*: code freeze Monday 11 May 12:00 UTC, release Wednesday 13 May. "
    "Contents so far: idempotency keys (PLAT-111) and Go 1.24 (PLAT-112). Anything else, tag me.",
    "rel_240_plan",
)
reply("rel_240_plan", "05-05 10:20", "aiko", "PLAT-111 will make it, PR #412 goes up tomorrow.")
reply("rel_240_plan", "05-05 10:48", "tomas", "Go 1.24 too, PR #415 is green.")
bot("rel", "05-07 11:02", "deploybot", ":white_check_mark: ledger-api `main@9a1c4e0` deployed to *staging* (3m12s)")

bot(
    "inc",
    "05-06 11:02",
    "pagerbot",
    ":warning: [LOW] `ledger-db-02` disk usage 82 % (threshold 80 %) - notifying <@lena>",
    "inc_disk_alert",
)
reply(
    "inc_disk_alert",
    "05-06 11:19",
    "lena",
    "WAL archiver was stuck again; restarted it, disk back to 61 %. The new ledger DB dashboard (PLAT-114) "
    "will track this.",
    "inc_disk_fix",
)

post("rnd", "05-04 12:30", "tomas", "Lunch: the new ramen place on Harbour Street, anyone? :ramen:")
post("rnd", "05-04 12:33", "aiko", "in! 12:45 at the lifts?")
post("rnd", "05-04 12:35", "sam", "count me in")
post(
    "rnd",
    "05-08 16:58",
    "marcus",
    "Pixel discovered the garden sprinkler today :dog:",
    "rnd_pixel",
    subtype="file_share",
    files=[
        {"id": "F01PIXEL01", "name": "pixel-sprinkler.jpg", "title": "Pixel vs sprinkler", "mimetype": "image/jpeg"}
    ],
)
reply("rnd_pixel", "05-08 17:04", "lena", ":joy: 10/10 good boy")

# ---------------------------------------------------------------------------------------------------------
# Week 2: 05-11 .. 05-15, replication and v2.4.0
# ---------------------------------------------------------------------------------------------------------
post(
    "pe",
    "05-11 09:35",
    "tomas",
    "On call this week: me :pager:. Handover from Lena: the `ledger-db-02` WAL archiver got stuck twice last "
    "week, keep an eye on it.",
    "pe_oncall_w2",
)
post(
    "pe",
    "05-11 11:00",
    "tomas",
    "Go 1.24 merged (PLAT-112, <https://github.com/kestrelpay/ledger-api/pull/415|ledger-api#415>).",
)
post(
    "pe",
    "05-12 10:30",
    "aiko",
    "Idempotency keys merged (PLAT-111, ledger-api#412). A repeated POST with the same key now returns the "
    "original response with header `Idempotent-Replayed: true`.",
    "pe_idem_merged",
)
post(
    "pe",
    "05-12 14:00",
    "marcus",
    "pglogical: initial sync of *1.9 TB* started at 13:40 UTC, ETA about 20 h. Replication slot `aurora_sub`. "
    "Please no `VACUUM FULL` on the old primary this week :pray:",
    "pe_pglogical",
)
reply(
    "pe_pglogical", "05-12 14:10", "lena", "Noted. I muted the replication-lag alert on `ledger-db-01` until Thursday."
)
reply(
    "pe_pglogical",
    "05-13 09:20",
    "marcus",
    "Initial sync finished in 18 h 40 min. Catch-up lag is now 1.4 s.",
    "pe_pglogical_sync_done",
)
post(
    "pe",
    "05-13 10:03",
    "priya",
    "Standup: 2.4.0 goes out today (Sam). Replication caught up (Marcus). Lena on the prod cluster. "
    "Aiko drafting the shadow-read plan.",
)
post(
    "pe",
    "05-14 10:05",
    "marcus",
    "Replication is steady: lag under 2 s at peak (max 1.8 s yesterday at 14:00). PLAT-105 done :white_check_mark:",
    "pe_repl_done",
)
post(
    "pe",
    "05-14 15:30",
    "aiko",
    "Shadow dual-read plan (PLAT-107): mirror 5 % of read traffic to Aurora through the new PgBouncer, compare "
    "responses, log mismatches to `shadow_mismatch`. Starts Monday 18 May.",
    "pe_shadow_plan",
)
post(
    "pe",
    "05-15 11:45",
    "tomas",
    "Found a problem with PgBouncer transaction mode: the nightly settlement batch takes a *session-level* "
    "advisory lock (`pg_advisory_lock`) so only one worker runs. With transaction pooling the lock and the "
    "unlock can land on different server connections, so the lock leaks and the next run hangs. Opened PLAT-118.",
    "pe_advisory_lock",
)
reply(
    "pe_advisory_lock",
    "05-15 11:58",
    "marcus",
    "Ugh. Either rewrite with `pg_advisory_xact_lock` or keep that job on a direct connection.",
)
reply("pe_advisory_lock", "05-15 12:10", "tomas", "A direct connection for the batch is the quick fix, I'll sketch it.")
reply(
    "pe_advisory_lock",
    "05-15 12:25",
    "lena",
    "That's one more special case to remember in the PgBouncer setup. Let's discuss at the next sync.",
    "pe_advisory_lock_lena",
)
post(
    "pe",
    "05-15 16:10",
    "priya",
    "Heads-up: from Monday 18 May the daily standup moves from 09:30 to *10:00 UTC* so Nadia can join after the "
    "product leads' call. Calendar invite updated.",
    "pe_standup_move",
    edited="05-15 16:14",
)
post(
    "pe",
    "05-15 16:40",
    "lena",
    "Prod cluster `ledger-aurora-prod` is up (PLAT-103, platform-infra#90): writer *db.r6g.xlarge* + 1 reader, "
    "multi-AZ, 7-day backups. The 'Ledger DB' Grafana dashboard is live too (PLAT-114).",
    "pe_prod_up",
)

post(
    "rel",
    "05-11 12:00",
    "sam",
    ":snowflake: Code freeze for v2.4.0 is in effect. Branch `release/2.4` cut from main at `3f9c2ab`.",
    "rel_240_freeze",
)
bot("rel", "05-12 15:30", "deploybot", ":white_check_mark: ledger-api `v2.4.0-rc1` deployed to *staging* (3m05s)")
post("rel", "05-13 13:40", "sam", "Starting the v2.4.0 production rollout, canary at 10 %.")
bot(
    "rel",
    "05-13 14:05",
    "deploybot",
    "",
    "rel_240_deployed",
    attachments=[
        {
            "color": "2eb886",
            "fallback": "ledger-api v2.4.0 deployed to production",
            "title": "ledger-api v2.4.0 deployed to production",
            "text": "Rollout 100 % at 14:05 UTC. Canary 5xx 0.02 %, p99 171 ms. Triggered by Sam Whitfield.",
            "fields": [
                {"title": "Version", "value": "v2.4.0", "short": True},
                {"title": "Environment", "value": "production", "short": True},
            ],
        }
    ],
)
post(
    "rel",
    "05-13 14:20",
    "sam",
    "*ledger-api v2.4.0 is out* :tada: Idempotency keys for transfers (PLAT-111), Go 1.24 (PLAT-112), 14 "
    f"dependency bumps. Release notes: <{DOCS}releases/ledger-api-2.4.0.md|ledger-api-2.4.0.md>",
    "rel_240_out",
)
reply("rel_240_out", "05-13 14:36", "nadia", "Shared with merchant success, they've been waiting for idempotency keys.")

bot(
    "inc",
    "05-12 10:41",
    "pagerbot",
    ":rotating_light: [HIGH] ledger-api 5xx above 1 % for 3 min - paging <@tomas>",
    "inc_oom_page",
)
reply(
    "inc_oom_page",
    "05-12 10:49",
    "tomas",
    "One pod was OOM-killed during a config reload; 5xx peaked at 1.3 % and recovered on its own after 4 "
    "minutes. Raised the memory limit from 512 Mi to 768 Mi. No incident declared.",
    "inc_oom_fix",
)

post(
    "gen",
    "05-13 16:10",
    "ruth",
    "Congrats to the platform team on ledger-api 2.4.0. Idempotency keys were the number one ask from merchant "
    "success :clap:",
)
post(
    "gen",
    "05-14 11:30",
    "nadia",
    "FYI: a merchant notice about a short read-only window for transfers is being drafted. Date to follow.",
)

post("rnd", "05-12 12:40", "nadia", "Who left the amazing cardamom buns in the kitchen? :heart_eyes:")
post("rnd", "05-12 12:52", "aiko", "guilty :bread: recipe on request")
post("rnd", "05-15 17:10", "sam", "Friday board games at 17:30, bringing Azul and Wingspan :game_die:")

# ---------------------------------------------------------------------------------------------------------
# Week 3: 05-18 .. 05-22, the incident and the switch
# ---------------------------------------------------------------------------------------------------------
post(
    "pe",
    "05-18 09:40",
    "aiko",
    "On call this week: me :wave:. Also shadow reads start today at 5 % of read traffic.",
    "pe_oncall_w3",
)
post(
    "pe",
    "05-18 14:00",
    "aiko",
    "Shadow reads are running. First hour: 2.1 M rows compared, 0 mismatches. PgBouncer pool at 11 of 20 at peak.",
    "pe_shadow_start",
)
post(
    "pe",
    "05-19 15:20",
    "priya",
    "For those not in <#inc>: ledger-api had elevated 5xx for about 50 minutes this afternoon, now resolved. "
    "<@lena> is incident commander, postmortem to follow. Shadow reads are paused until we understand the pool "
    "sizing.",
    "pe_incident_note",
)
post(
    "pe",
    "05-20 10:10",
    "lena",
    "Postmortem for INC-2026-014 in progress (PLAT-122). Action items so far: PLAT-120 jitter in payout-worker "
    "(Tomás), PLAT-121 pool saturation alert (me), PLAT-123 rollback section in the deploy runbook (Sam).",
    "pe_pm_actions",
)
post(
    "pe",
    "05-20 11:00",
    "marcus",
    "Given last Friday's advisory lock finding (PLAT-118) and yesterday's pool exhaustion I want to revisit "
    "pooling. Proposal: switch to *RDS Proxy*. It pins sessions that use advisory locks, scales with the "
    "cluster, supports IAM auth, and there is no fleet for us to patch. Costs ~$310/month instead of ~$50.",
    "pe_proxy_proposal",
)
reply(
    "pe_proxy_proposal",
    "05-20 11:15",
    "tomas",
    "I'm for it. PgBouncer was my pick, but the lock workaround is fragile.",
)
reply(
    "pe_proxy_proposal",
    "05-20 11:22",
    "lena",
    "+1. Caveat: pinning means the settlement batch holds one connection for ~40 min. Fine at our size.",
    "pe_proxy_lena",
)
reply(
    "pe_proxy_proposal",
    "05-20 11:40",
    "nadia",
    "~$260/month more is OK if it means fewer incidents. Can we still make the 28th?",
    "pe_proxy_nadia",
)
reply(
    "pe_proxy_proposal",
    "05-20 11:52",
    "marcus",
    "Honestly, no. Proxy module, another round of shadow reads and the load test are about two weeks of work.",
    "pe_proxy_marcus_date",
)
post(
    "pe",
    "05-20 16:00",
    "tomas",
    "PR for the settlement batch: take the advisory lock on a dedicated connection (ledger-api#421, PLAT-118). "
    "Still useful with RDS Proxy because it keeps the pinning to one connection.",
    "pe_pr421",
)
post(
    "pe",
    "05-21 14:45",
    "marcus",
    "*Decision (Thu 21 May sync), replaces the one from 6 May*: we drop PgBouncer and use *Amazon RDS Proxy* "
    "between ledger-api and Aurora. ADR-0009 accepted, ADR-0007 marked superseded. PLAT-106 closed as Won't Do, "
    "platform-infra#92 closed unmerged. <@lena> owns the Terraform module (PLAT-116).",
    "pe_decision_proxy",
)
post(
    "pe",
    "05-21 14:50",
    "priya",
    "*Date change*: the production cutover moves from Thu 28 May to *Tue 9 June, 05:30 UTC* (low-traffic "
    "window). Reason: the RDS Proxy switch plus a fresh round of shadow reads and a load test. <@nadia> will "
    "update the merchant notice. Sync notes: "
    f"<{DOCS}meetings/2026-05-21-platform-sync.txt|2026-05-21-platform-sync.txt>",
    "pe_date_moved",
)
reply(
    "pe_date_moved",
    "05-21 15:05",
    "nadia",
    "Merchant notice updated; it goes out on 2 June, one week ahead of the window.",
    "pe_notice_date",
)
reply(
    "pe_date_moved",
    "05-21 15:12",
    "sam",
    "Then v2.5.0 should ship before the cutover. I'll aim for 3 June.",
    "pe_date_moved_sam",
)
post(
    "pe",
    "05-22 10:05",
    "priya",
    "Standup: Lena finishing the postmortem (review at 15:00), Tomás on jitter for payout-worker, Marcus on the "
    "RDS Proxy plan, Aiko restarting shadow reads on Monday through a direct connection, Sam on CI.",
)
post(
    "pe",
    "05-22 16:20",
    "lena",
    "Postmortem for INC-2026-014 is published: "
    f"<{DOCS}postmortems/2026-05-19-ledger-5xx.md|2026-05-19-ledger-5xx.md>. Thanks all for the review. 6 action "
    "items, each with an owner and a ticket.",
    "pe_pm_published",
)

bot(
    "inc",
    "05-19 14:15",
    "pagerbot",
    ":rotating_light: [HIGH] ledger-api 5xx rate 6.2 % (threshold 1 %) - paging <@aiko>",
    "inc_page",
)
post(
    "inc",
    "05-19 14:17",
    "aiko",
    "Ack. Looking. Errors are `query_wait_timeout` from PgBouncer on the transfers path.",
    "inc_ack",
)
post(
    "inc",
    "05-19 14:21",
    "lena",
    "I'm IC. Declaring *INC-2026-014*, Sev2. <@aiko> investigate, <@tomas> comms to merchant success. Timeline "
    "in this thread.",
    "inc_declare",
)
reply(
    "inc_declare",
    "05-19 14:26",
    "aiko",
    "PgBouncer `cl_waiting` at 430, pool 20/20 active. Most waiting clients come from payout-worker.",
    "inc_waiting",
)
reply(
    "inc_declare",
    "05-19 14:29",
    "tomas",
    "Merchant success informed; status page set to 'degraded performance' for transfers.",
    "inc_comms",
)
reply(
    "inc_declare",
    "05-19 14:38",
    "aiko",
    "Found it: the payout-worker batch started at 14:10, its calls time out and it retries 5 times at a fixed "
    "100 ms with no jitter, a retry storm that fills the pool. Shadow reads add a little on top.",
    "inc_cause",
)
reply("inc_declare", "05-19 14:44", "lena", "Pausing payout-worker (scaled to 0). Shadow reads off.", "inc_pause")
reply(
    "inc_declare",
    "05-19 14:52",
    "lena",
    "Raised PgBouncer `default_pool_size` from 20 to 60. `cl_waiting` dropping.",
    "inc_pool_raise",
)
reply(
    "inc_declare",
    "05-19 15:03",
    "lena",
    "*Resolved* at 15:03 UTC. 5xx back to 0.02 %. Peak was 18.4 % 5xx at 14:31, p99 4.2 s. About 3,900 "
    "transfer requests failed; clients retried with idempotency keys, no double postings. payout-worker "
    "resumes at 15:20 with concurrency 4. Postmortem on Friday.",
    "inc_resolved",
    broadcast=True,
)
bot(
    "inc",
    "05-19 14:33",
    "pagerbot",
    ":rotating_light: [HIGH] ledger-api p99 latency 4.2 s (threshold 1 s) - paging <@aiko>",
    "inc_latency_page",
)
post(
    "inc",
    "05-19 16:10",
    "aiko",
    "Impact check: 3,912 failed `POST /v1/transfers` between 14:12 and 15:03; 3,907 succeeded on client retry, "
    "5 merchants retried by hand. Finance confirmed 0 ledger discrepancies.",
    "inc_impact",
)
post(
    "inc",
    "05-22 15:55",
    "lena",
    "Postmortem review done. *Root cause*: the PgBouncer pool (20 connections) was exhausted by a payout-worker "
    "retry storm (5 retries, fixed 100 ms, no jitter). Contributing: shadow-read traffic through the same pool "
    "and no alert on pool saturation. Detection took 3 min, mitigation 41 min.",
    "inc_rootcause",
)
reply(
    "inc_rootcause",
    "05-26 11:05",
    "tomas",
    "PLAT-120 merged (payout-worker#57): exponential backoff, base 200 ms, cap 5 s, full jitter.",
    "inc_jitter_done",
)
reply(
    "inc_rootcause",
    "05-28 10:20",
    "lena",
    "PLAT-121 live: pool saturation above 80 % for 5 min now pages on-call (platform-infra#97).",
    "inc_alert_done",
)

post(
    "rel",
    "05-20 09:50",
    "sam",
    "PLAT-115: `TestSettlementBatch` is deflaked (ledger-api#418). It depended on wall-clock midnight; it now uses "
    "a fixed clock. CI green 30 runs in a row.",
    "rel_flaky_fixed",
)
post(
    "rel",
    "05-22 09:15",
    "sam",
    "No ledger-api production deploys today (postmortem day). Next deploy window Tuesday 26 May.",
    "rel_no_deploy",
)

post(
    "gen",
    "05-19 15:40",
    "ruth",
    "Thank you to everyone who jumped on this afternoon's ledger incident. Calm and fast work. :pray:",
)
post(
    "gen",
    "05-21 16:30",
    "nadia",
    "Update: the read-only window for the ledger database move is now *Tuesday 9 June, 05:30 UTC*. The merchant "
    "notice goes out on 2 June.",
    "gen_date_moved",
)

post("rnd", "05-18 12:35", "lena", "Anyone up for a run along the canal tomorrow at 07:30? :running:")
post("rnd", "05-20 13:05", "tomas", "The coffee machine on 3 is fixed :coffee: (thanks facilities)")
post(
    "rnd",
    "05-22 17:15",
    "marcus",
    "Long weekend for me next Friday, any good hiking routes near the coast?",
    "rnd_hiking",
)
reply(
    "rnd_hiking",
    "05-22 17:22",
    "lena",
    "The cliff path from Porthmoor to the lighthouse, about 14 km, worth it.",
    "rnd_hiking_route",
)
reply("rnd_hiking", "05-22 17:30", "aiko", "+1 and the café at the end does great scones")

# ---------------------------------------------------------------------------------------------------------
# Week 4: 05-25 .. 05-29, proxy and load test
# ---------------------------------------------------------------------------------------------------------
post(
    "pe",
    "05-25 09:50",
    "marcus",
    "On call this week: me. The load test (PLAT-108) starts today, <@tomas> drives it.",
    "pe_oncall_w4",
)
post(
    "pe",
    "05-25 14:00",
    "tomas",
    "k6 load test plan: 2x weekday peak = *2,300 req/s* for 30 min against staging Aurora through RDS Proxy. "
    "Script lives in `ledger-api/loadtest/k6`.",
    "pe_loadtest_plan",
)
post(
    "pe",
    "05-26 10:04",
    "priya",
    "",
    "pe_standup_blocks",
    blocks=[
        {
            "type": "rich_text",
            "block_id": "sU1x",
            "elements": [
                {
                    "type": "rich_text_section",
                    "elements": [
                        {"type": "text", "text": "Standup 26 May", "style": {"bold": True}},
                        {"type": "text", "text": "\n"},
                    ],
                },
                {
                    "type": "rich_text_list",
                    "style": "bullet",
                    "indent": 0,
                    "elements": [
                        {
                            "type": "rich_text_section",
                            "elements": [
                                {"type": "user", "user_id": "U01LENA"},
                                {"type": "text", "text": " RDS Proxy Terraform module in review (PLAT-116)"},
                            ],
                        },
                        {
                            "type": "rich_text_section",
                            "elements": [
                                {"type": "user", "user_id": "U01TOMAS"},
                                {"type": "text", "text": " jitter for payout-worker merged, load test script ready"},
                            ],
                        },
                        {
                            "type": "rich_text_section",
                            "elements": [
                                {"type": "user", "user_id": "U01AIKO"},
                                {
                                    "type": "text",
                                    "text": " shadow reads restarted on a direct connection, 0 mismatches so far",
                                },
                            ],
                        },
                        {
                            "type": "rich_text_section",
                            "elements": [
                                {"type": "user", "user_id": "U01SAM"},
                                {
                                    "type": "text",
                                    "text": " blocked on nothing; writing the migration rollback section (PLAT-123)",
                                },
                            ],
                        },
                    ],
                },
            ],
        }
    ],
)
post(
    "pe",
    "05-26 11:30",
    "nadia",
    "Cost report (PLAT-125): today the EC2 PG12 hosts cost *$3,350/month*. Aurora (xlarge writer + 1 reader, "
    "storage, I/O) is $4,180 plus RDS Proxy $310 = *$4,490/month*, +34 %. Offsets: about 6 h/month of DBA toil "
    "and the $120/month backup tool licence go away.",
    "pe_cost_v1",
)
reply("pe_cost_v1", "05-26 11:45", "priya", "Thanks. I'll take it to Ruth for budget approval.")
reply(
    "pe_cost_v1",
    "05-27 17:05",
    "priya",
    "Ruth approved up to *$5,500/month* for the ledger database.",
    "pe_budget_approved",
)
post(
    "pe",
    "05-27 10:00",
    "lena",
    "RDS Proxy module merged (PLAT-116, platform-infra#95). Staging ledger-api now connects through "
    "`ledger-proxy-stg`. Pinned sessions show up in the `DatabaseConnectionsCurrentlySessionPinned` metric.",
    "pe_proxy_merged",
)
post(
    "pe",
    "05-27 15:10",
    "lena",
    f"Cutover runbook draft: <{DOCS}runbooks/aurora-cutover.md|aurora-cutover.md> (PLAT-109). Please review by "
    "Friday, especially the rollback section.",
    "pe_runbook_draft",
)
reply(
    "pe_runbook_draft",
    "05-27 16:02",
    "marcus",
    "Reviewed. Step 7 needs the sequence sync before we flip writes, otherwise new rows collide. Added a comment.",
    "pe_runbook_review",
)
post(
    "pe",
    "05-27 16:45",
    "aiko",
    "PLAT-113 (removing `/v1/balances/legacy`) is *blocked*: mobile app 5.x still calls it and the mobile team "
    "can only ship the change in their 30 June release. Moved the ticket to Blocked.",
    "pe_legacy_blocked",
)
post(
    "pe",
    "05-28 14:20",
    "tomas",
    "First load test run failed early: RDS Proxy connection borrow timeouts because I left "
    "`max_connections_percent` at 50. Raised to 90, rerunning after the weekend.",
    "pe_loadtest_first",
)
post(
    "pe",
    "05-29 11:10",
    "aiko",
    "Shadow reads finished (PLAT-107): *41.2 M rows* compared over 9 days, 0 mismatches :white_check_mark:",
    "pe_shadow_done",
)
post(
    "pe",
    "05-29 14:30",
    "priya",
    "On-call swap policy is written down (PLAT-134): swaps are fine when both people agree and the rota page and "
    "PagerDuty are updated by Friday 12:00 UTC before the week starts. "
    f"<{DOCS}oncall/rota.md|rota.md>",
    "pe_swap_policy",
)

post(
    "rel",
    "05-26 10:30",
    "sam",
    "v2.5.0 plan: release *Wednesday 3 June*. Contents: migration 0047 (money -> numeric), settlement batch "
    "advisory lock on a dedicated connection (#421), RDS Proxy-ready connection settings, statement export "
    "pagination. Freeze Monday 1 June 12:00 UTC.",
    "rel_250_plan",
)
reply("rel_250_plan", "05-26 10:52", "aiko", "0047 is ready; I'll run it against staging Aurora before the freeze.")
reply("rel_250_plan", "05-26 11:05", "tomas", "Statement export pagination is merged, so count it in.")
post(
    "rel",
    "05-29 15:00",
    "sam",
    "The deploy runbook now has a rollback section for schema migrations (PLAT-123): "
    f"<{DOCS}runbooks/deploy.md|deploy.md>. TL;DR: migrations are expand/contract; rollback means redeploying the "
    "previous image, never running a down-migration in production.",
    "rel_rollback_rule",
)
bot(
    "rel",
    "05-26 14:12",
    "deploybot",
    ":white_check_mark: payout-worker `v1.9.0` deployed to *production* (1m48s)",
    "rel_payout_190",
)

bot(
    "inc",
    "05-26 09:22",
    "pagerbot",
    ":warning: [LOW] pglogical replication lag 45 s on `aurora_sub` - notifying <@marcus>",
    "inc_lag_alert",
)
reply(
    "inc_lag_alert",
    "05-26 09:30",
    "marcus",
    "Expected: I was rebuilding an index on the old primary. Lag back under 2 s at 09:28.",
)

post("gen", "05-25 09:15", "ruth", "Reminder: the engagement survey closes this Friday, 29 May. 15 minutes, promise.")
post(
    "gen",
    "05-28 11:00",
    "priya",
    "We're hiring a *senior SRE* for the platform team (REQ-2291). Referrals to me, or see "
    "<https://jobs.kestrelpay.example/2291|the job post>.",
    "gen_hiring",
)

post("rnd", "05-27 12:30", "sam", "Ping pong rematch? <@tomas> you owe me one :table_tennis_paddle_and_ball:")
post("rnd", "05-27 12:31", "tomas", "13:00, bring tissues")
post("rnd", "05-29 16:40", "nadia", "Off to Plovdiv for the weekend, see you Monday :sunny:")

# ---------------------------------------------------------------------------------------------------------
# Week 5: 06-01 .. 06-05, new hire, resize, v2.5.0
# ---------------------------------------------------------------------------------------------------------
post("pe", "06-01 09:05", "jonah", "<@jonah> has joined the channel", subtype="channel_join")
post(
    "pe",
    "06-01 09:20",
    "priya",
    "Please welcome <@jonah> :wave: Jonah joins us as a backend engineer on ledger-api. <@aiko> is his "
    f"onboarding buddy. Jonah, start with <{DOCS}onboarding/welcome.md|welcome.md>.",
    "pe_welcome_jonah",
)
reply("pe_welcome_jonah", "06-01 09:24", "jonah", "Thanks all! Excited to be here.")
reply(
    "pe_welcome_jonah",
    "06-01 09:31",
    "aiko",
    "Welcome! Your first task is PLAT-140 (request id in the logs), a nice tour of the middleware.",
    "pe_jonah_first_task",
)
reply(
    "pe_welcome_jonah",
    "06-01 10:40",
    "sam",
    "Read-only prod access requested for you (PLAT-133), should land tomorrow.",
)
post("pe", "06-01 09:45", "sam", "On call this week: me :pager:", "pe_oncall_w5")
post(
    "pe",
    "06-02 10:30",
    "tomas",
    "Load test results (PLAT-108): at 2x peak (2,300 req/s) on the db.r6g.xlarge writer, CPU hit *91 %* and "
    "p99 was 640 ms. Not enough headroom.",
    "pe_loadtest",
)
reply(
    "pe_loadtest",
    "06-02 10:42",
    "marcus",
    "Agreed. Let's move the writer to *db.r6g.2xlarge*; the reader stays xlarge.",
    "pe_resize_decision",
)
reply("pe_loadtest", "06-02 13:15", "lena", "Resized (PLAT-131, platform-infra#99). Re-run?", "pe_resized")
reply(
    "pe_loadtest",
    "06-02 15:40",
    "tomas",
    "Re-run on 2xlarge: CPU 48 %, p99 210 ms at 2x peak :white_check_mark: PLAT-108 done.",
    "pe_loadtest_rerun",
)
post(
    "pe",
    "06-02 16:00",
    "nadia",
    "Updated cost with the bigger writer: *$5,240/month* (was $4,490). Still under Ruth's $5,500 ceiling. "
    "PLAT-125 updated.",
    "pe_cost_v2",
)
post(
    "pe",
    "06-03 11:40",
    "marcus",
    "Staging dry run (PLAT-126) done: read-only window *38 min*, target is under 30. Time went into the sequence "
    "sync (14 min) and the final consistency check (11 min). Plan: pre-sync sequences and parallelise the check.",
    "pe_dryrun",
)
reply(
    "pe_dryrun",
    "06-05 10:15",
    "lena",
    "Runbook revised with both changes (rev 3); estimated window is now about 20 min.",
    "pe_dryrun_runbook",
)
post(
    "pe",
    "06-03 12:05",
    "aiko",
    "The dry run also showed migration 0047 failing on PG15: the `settlement_totals` view relies on an implicit "
    "cast from `money`. PLAT-130, fix in ledger-api#426.",
    "pe_0047_fail",
)
post(
    "pe",
    "06-04 10:02",
    "priya",
    "Standup: 2.5.0 today (Sam), runbook rev 3 (Lena), Jonah pairing with Aiko on PLAT-140, Tomás looking at "
    "reader routing for reports (PLAT-132) next week.",
)
post(
    "pe",
    "06-05 09:50",
    "lena",
    "Rota swap: I'm on leave 8-12 June, so <@tomas> takes on-call for the week of 8 June and I take the week of "
    "15 June. Rota page and PagerDuty updated.",
    "pe_swap",
)
reply("pe_swap", "06-05 09:58", "tomas", ":+1: confirmed, I have the week of the 8th.", "pe_swap_confirm")
post(
    "pe",
    "06-05 11:20",
    "marcus",
    "PLAT-117 done: ledger DB credentials now rotate every 30 days via Secrets Manager, and RDS Proxy picks them "
    "up without restarts.",
    "pe_secrets",
)
post(
    "pe",
    "06-05 16:30",
    "priya",
    "Week 5 wrap: writer resized, load test green, 2.5.0 shipped a day late, runbook rev 3, Jonah onboarded. "
    "Cutover go/no-go on Monday 14:00.",
    "pe_w5_wrap",
)

post("rel", "06-01 12:00", "sam", ":snowflake: Code freeze for v2.5.0. Branch `release/2.5` cut at `c71e0d4`.")
post(
    "rel",
    "06-03 09:30",
    "sam",
    "v2.5.0 *slips one day* to Thursday 4 June: migration 0047 fails on PG15 (PLAT-130). Aiko has the fix in "
    "PR #426; I'll cut rc2 when it merges.",
    "rel_250_slip",
    edited="06-03 09:41",
)
bot("rel", "06-03 16:20", "deploybot", ":white_check_mark: ledger-api `v2.5.0-rc2` deployed to *staging* (3m40s)")
bot(
    "rel",
    "06-04 11:20",
    "deploybot",
    "",
    "rel_250_deployed",
    attachments=[
        {
            "color": "2eb886",
            "fallback": "ledger-api v2.5.0 deployed to production",
            "title": "ledger-api v2.5.0 deployed to production",
            "text": "Rollout 100 % at 11:20 UTC, migration 0047 applied in 48 s. Triggered by Sam Whitfield.",
            "fields": [
                {"title": "Version", "value": "v2.5.0", "short": True},
                {"title": "Environment", "value": "production", "short": True},
            ],
        }
    ],
)
post(
    "rel",
    "06-04 11:35",
    "sam",
    "*ledger-api v2.5.0 released* :tada: Highlights: money columns -> `numeric(19,4)` (migration 0047), settlement "
    "batch advisory lock on a dedicated connection (#421), RDS Proxy-ready connection settings, statement export "
    f"pagination. Release notes: <{DOCS}releases/ledger-api-2.5.0.mdx|ledger-api-2.5.0.mdx>",
    "rel_250_out",
)
reply("rel_250_out", "06-04 11:50", "nadia", "Notes forwarded to merchant success.")

bot(
    "inc",
    "06-03 15:02",
    "pagerbot",
    ":warning: [LOW] staging `ledger-aurora-stg` writer CPU above 85 % for 10 min - notifying <@sam>",
    "inc_stg_cpu",
)
reply("inc_stg_cpu", "06-03 15:10", "sam", "That's the dry-run replay, expected. Silencing for 2 h.")

post("gen", "06-01 09:10", "jonah", "<@jonah> has joined the channel", subtype="channel_join")
post(
    "gen",
    "06-01 09:35",
    "ruth",
    "Please welcome our new joiners this week: <@jonah> (platform, backend) and two colleagues in finance ops. "
    "Say hi! :wave:",
)
post(
    "gen",
    "06-02 14:00",
    "nadia",
    "The merchant notice for the *9 June* read-only window (05:30 UTC, up to 30 minutes) went out today.",
    "gen_notice_sent",
)
post(
    "gen",
    "06-04 15:00",
    "ruth",
    "Q3 planning kicks off Tuesday 16 June. Team leads: please send a one-pager by Friday 12 June.",
    "gen_q3_kickoff",
)

post("rnd", "06-01 12:40", "aiko", "Taking Jonah to the ramen place for his first lunch, join us :ramen:")
post(
    "rnd",
    "06-03 13:20",
    "jonah",
    "Is there a team recommendation for a standing desk? Mine wobbles like a jelly.",
    "rnd_desk",
)
reply("rnd_desk", "06-03 13:31", "sam", "Ask facilities for the Flexa ones, they're solid.")
post("rnd", "06-05 17:00", "lena", "Off for a week of sailing, don't break anything :sailboat:", "rnd_lena_leave")

# ---------------------------------------------------------------------------------------------------------
# Week 6: 06-08 .. 06-12, cutover and hotfix
# ---------------------------------------------------------------------------------------------------------
post(
    "pe",
    "06-08 09:40",
    "tomas",
    "On call this week (swapped with Lena). Cutover tomorrow at 05:30 UTC :crossed_fingers:",
    "pe_oncall_w6",
)
post(
    "pe",
    "06-08 14:20",
    "marcus",
    "Cutover go/no-go: *GO*. Replication lag 0.9 s, shadow reads clean, runbook rev 3. Roles: I drive, <@sam> is "
    "second pair of hands (Lena is on leave), <@tomas> on call, <@aiko> runs the ledger balance checks.",
    "pe_go",
)
reply("pe_go", "06-08 14:26", "sam", "Ready. Alarm set for 04:45 :alarm_clock:")
reply("pe_go", "06-08 14:31", "aiko", "Balance check queries prepared, they take ~3 min.")
post(
    "pe",
    "06-08 15:10",
    "tomas",
    "Started PLAT-132: route reporting queries to the Aurora reader. Expect it after the cutover settles.",
    "pe_reader_routing",
)
post(
    "pe",
    "06-09 08:05",
    "marcus",
    "*Cutover done* :tada: ledger-api has been writing to Aurora since 06:18 UTC. Read-only window was *22 "
    "minutes* (05:56-06:18), 0 errors. Replication now runs in reverse to the old primary as a fallback for 14 "
    "days. PLAT-127 done. Decommissioning `ledger-db-01..03` is planned for 23 June (PLAT-128).",
    "pe_cutover_done",
)
reply("pe_cutover_done", "06-09 08:12", "priya", "Great work everyone :clap:")
reply(
    "pe_cutover_done",
    "06-09 09:30",
    "nadia",
    "Merchant success reports zero tickets from the window.",
    "pe_cutover_nadia",
)
reply(
    "pe_cutover_done",
    "06-09 11:05",
    "tomas",
    "First peak on Aurora: `/v1/ledger/entries` p99 142 ms (was 180 ms on PG12).",
    "pe_cutover_latency",
)
post(
    "pe",
    "06-09 15:20",
    "aiko",
    "Bug: the settlement report for 8 June cut the day at Berlin midnight instead of UTC. The new cluster's "
    "parameter group has `timezone = Europe/Berlin` (copied from staging) and the report uses "
    "`date_trunc('day', now())`. PLAT-135. Fix: explicit UTC in the query and UTC in the parameter group.",
    "pe_tz_bug",
)
reply("pe_tz_bug", "06-09 15:41", "marcus", "Parameter group set to UTC on both clusters.", "pe_tz_param")
reply("pe_tz_bug", "06-09 16:02", "sam", "I'll ship the query fix as 2.5.1 tomorrow.", "pe_tz_hotfix")
post(
    "pe",
    "06-10 10:05",
    "priya",
    "Standup: 2.5.1 hotfix today (Sam, Aiko), reverse replication healthy (Marcus), Tomás on reader routing, "
    "Jonah finishing PLAT-140.",
)
post(
    "pe",
    "06-11 10:15",
    "tomas",
    "p99 on `/v1/statements` went from 310 ms to *520 ms* since the cutover (PLAT-137). Other endpoints are fine "
    "(entries p99 142 ms).",
    "pe_stmt_regression",
)
reply("pe_stmt_regression", "06-11 10:40", "marcus", "Query plan? I bet it's a seq scan somewhere.")
reply(
    "pe_stmt_regression",
    "06-12 11:30",
    "tomas",
    "Found it: `statements_account_id_created_at_idx` was never created on Aurora. It was built CONCURRENTLY "
    "on the old primary after pglogical copied the schema. ledger-api#434 adds it; staging p99 is back to "
    "290 ms.",
    "pe_stmt_cause",
)
post(
    "pe",
    "06-11 14:00",
    "jonah",
    "First PR is up: request id in the logs (PLAT-140, ledger-api#437). Reviews welcome!",
    "pe_jonah_pr",
)
reply("pe_jonah_pr", "06-11 14:22", "aiko", "Reviewing this afternoon. Nice test coverage.", "pe_jonah_pr_review")
post(
    "pe",
    "06-12 10:00",
    "nadia",
    f"Q3 plan one-pager draft: <{DOCS}planning/q3-2026-platform-plan.pdf|q3-2026-platform-plan.pdf>. Top items: "
    "per-merchant rate limits (PLAT-124), decommission the old hosts (PLAT-128), statements performance.",
    "pe_q3_plan",
)
post(
    "pe",
    "06-12 16:30",
    "priya",
    "Week 6 wrap: cutover done, 2.5.1 hotfix out, the statements index fix is in review (#434), and *Farah "
    "Haddad accepted our senior SRE offer*, starting 6 July :tada:. On call next week: Lena, back from leave.",
    "pe_w6_wrap",
    edited="06-12 16:36",
)

post(
    "rel",
    "06-10 10:40",
    "sam",
    "Hotfix *v2.5.1* today for PLAT-135 (settlement report day boundary), ledger-api#431. Rollout at 13:00 UTC.",
    "rel_251_plan",
)
bot(
    "rel",
    "06-10 13:10",
    "deploybot",
    ":white_check_mark: ledger-api `v2.5.1` deployed to *production* (2m55s)",
    "rel_251_deployed",
)
post(
    "rel",
    "06-10 13:25",
    "sam",
    "v2.5.1 is out. Settlement reports for 8 and 9 June were regenerated and re-sent to finance.",
    "rel_251_out",
)

bot(
    "inc",
    "06-09 09:12",
    "pagerbot",
    ":warning: [LOW] `ledger-aurora-prod` reader replica lag 250 ms - notifying <@tomas>",
    "inc_reader_lag",
)
reply("inc_reader_lag", "06-09 09:20", "tomas", "Post-cutover vacuum on the writer, lag back to 20 ms. Closing.")
bot(
    "inc",
    "06-11 09:50",
    "pagerbot",
    ":warning: [LOW] ledger-api `/v1/statements` p99 above 500 ms for 15 min - notifying <@tomas>",
    "inc_stmt_alert",
)
reply("inc_stmt_alert", "06-11 09:58", "tomas", "Known, tracking in PLAT-137 (see <#pe>).")

post(
    "gen",
    "06-09 12:00",
    "ruth",
    "Congratulations to the platform team: the ledger database moved to Aurora this morning with no merchant "
    "impact :clap:",
    "gen_cutover_congrats",
)
post(
    "gen",
    "06-12 15:00",
    "priya",
    "Good news: *Farah Haddad* joins the platform team as senior SRE on *6 July*. :tada:",
    "gen_farah",
)

post("rnd", "06-08 12:45", "aiko", "Lena's plant is looking sad, who is on watering duty this week? :potted_plant:")
post("rnd", "06-08 12:50", "jonah", "I'll take it!")
post("rnd", "06-10 16:15", "marcus", "Cake in the kitchen for the cutover :cake: thanks everyone", "rnd_cake")
post("rnd", "06-12 17:05", "sam", "Board games tonight, Jonah's first time, go easy on him :game_die:")


# ---------------------------------------------------------------------------------------------------------
# Day-to-day traffic across the six weeks (standups, CI, small alerts, company news, banter)
# ---------------------------------------------------------------------------------------------------------
post(
    "pe",
    "05-05 16:20",
    "sam",
    "CI: the ledger-api pipeline now averages 14 min, up from 9. Looking into it.",
    "pe_ci_slow",
)
reply(
    "pe_ci_slow",
    "05-06 10:30",
    "sam",
    "Culprit: the integration tests started a fresh Postgres container per package. One shared container per "
    "run brings it back to 8.5 min.",
    "pe_ci_fixed",
)
post("pe", "05-06 09:58", "priya", "Reminder: migration sync today at 14:00 UTC. Agenda: pooling, replication plan.")
post(
    "pe",
    "05-07 15:30",
    "marcus",
    "Replication tool: we use *pglogical*, not AWS DMS. DMS mangles our wide `numeric` values in tests and "
    "needs a replication instance for the whole month. pglogical is already installed on the PG12 hosts.",
    "pe_pglogical_choice",
)
reply(
    "pe_pglogical_choice",
    "05-07 15:44",
    "lena",
    "Agreed. The DMS instance alone would have been about $700 for the month.",
    "pe_dms_cost",
)
post(
    "pe",
    "05-08 10:04",
    "priya",
    "Standup: Lena applying the staging Terraform, Aiko writing migration 0047, Marcus testing pglogical on a "
    "snapshot, Tomás on PgBouncer config, Sam on the CI fix. No blockers.",
)
post(
    "pe",
    "05-11 10:05",
    "priya",
    "Standup: Tomás on call, Lena on the prod cluster plan, Marcus starting the initial sync tomorrow, Aiko "
    "finishing idempotency keys, Sam: freeze today at noon.",
)
post(
    "pe",
    "05-12 11:15",
    "lena",
    "Terraform plan for the prod cluster is up (platform-infra#90): writer + 1 reader, encrypted with the "
    "ledger KMS key, deletion protection on.",
    "pe_prod_plan",
)
reply("pe_prod_plan", "05-12 11:40", "marcus", "Approved, looks good.")
post(
    "pe",
    "05-14 16:45",
    "nadia",
    "Which merchants send the most transfers in the early morning? I want to warn them individually before the "
    "read-only window.",
    "pe_merchants",
)
reply(
    "pe_merchants",
    "05-14 17:02",
    "tomas",
    "Between 05:00 and 07:00 UTC the top three are Brightmart, Voltaic Energy and Lumen Travel, together "
    "61 % of transfers in that window.",
    "pe_merchants_answer",
)
post(
    "pe",
    "05-18 10:04",
    "priya",
    "First standup at the new 10:00 slot :tada: Aiko on call + shadow reads, Lena on alerts, Tomás on "
    "PgBouncer, Marcus on replication, Sam on the flaky settlement test.",
)
post(
    "pe",
    "05-19 10:03",
    "priya",
    "Standup: shadow reads clean overnight, Tomás sketching the direct-connection workaround for PLAT-118, "
    "Sam still chasing `TestSettlementBatch`.",
)
post(
    "pe",
    "05-19 16:30",
    "tomas",
    "Opened PLAT-120 for backoff with jitter in payout-worker; pairing with Aiko on it tomorrow.",
)
post(
    "pe",
    "05-21 10:05",
    "priya",
    "Standup: sync at 14:00 is about pooling and the cutover date, please come with opinions. Lena drafting the "
    "postmortem.",
)
post(
    "pe",
    "05-21 16:55",
    "lena",
    f"ADR-0009 is written up: <{DOCS}adr/0009-switch-to-rds-proxy.md|0009-switch-to-rds-proxy.md>. ADR-0007 now "
    "says 'Superseded by ADR-0009' at the top.",
    "pe_adr9",
)
post(
    "pe",
    "05-25 10:04",
    "priya",
    "Standup: Marcus on call, Tomás on the load test, Lena on the RDS Proxy module, Aiko on shadow reads round 2, "
    "Sam on the rollback section, Nadia on the cost report.",
)
post(
    "pe",
    "05-27 10:04",
    "priya",
    "Standup: proxy module merged this morning, runbook draft today, Aiko flagged a blocker on the legacy "
    "balances endpoint (mobile).",
)
post("pe", "05-28 10:04", "priya", "Standup: load test run 1 today, alert for pool saturation goes live (Lena).")
post(
    "pe",
    "05-28 11:30",
    "marcus",
    "Cutover roles (draft): I drive, <@lena> is second pair of hands, <@aiko> runs the ledger balance checks, "
    "whoever is on call watches the dashboards.",
    "pe_roles_draft",
)
post(
    "pe",
    "06-01 10:04",
    "priya",
    "Standup: welcome Jonah! Sam on call and on the 2.5.0 freeze, Tomás re-running the load test tomorrow, "
    "Marcus planning the dry run.",
)
post("pe", "06-02 10:05", "priya", "Standup: load test results this morning, Jonah's laptop and access sorted.")
post("pe", "06-03 10:04", "priya", "Standup: dry run in staging this morning (Marcus), 2.5.0 is at risk, see <#rel>.")
post(
    "pe",
    "06-04 15:30",
    "marcus",
    "The AWS account manager suggests 1-year reserved instances for Aurora, roughly 31 % off the instance part. "
    "Not committing yet: I want a month of real production usage first. Decision in July.",
    "pe_ri",
)
reply("pe_ri", "06-04 15:46", "nadia", "So in theory we could get back close to $4,000/month?")
reply(
    "pe_ri",
    "06-04 15:52",
    "marcus",
    "Roughly, yes, but only if the 2xlarge writer turns out to be the right size. Parking it.",
    "pe_ri_parked",
)
post(
    "pe", "06-08 10:04", "priya", "Standup: Lena on leave this week, Tomás on call. Go/no-go for the cutover at 14:00."
)
post("pe", "06-09 10:10", "priya", "Standup: cutover done (see above). Aiko's balance checks all matched.")
post(
    "pe",
    "06-10 14:30",
    "marcus",
    "Reverse replication to the old primary is healthy, lag 0.6 s. We keep it until 23 June, then PLAT-139 "
    "removes pglogical.",
    "pe_reverse_repl",
)
post("pe", "06-11 10:04", "priya", "Standup: 2.5.1 is live, statements latency regression being investigated (Tomás).")
post("pe", "06-11 16:00", "jonah", "Where do I find the ledger-api staging logs?", "pe_jonah_logs")
reply(
    "pe_jonah_logs",
    "06-11 16:09",
    "aiko",
    "Grafana -> Explore -> Loki, labels `app=ledger-api`, `env=staging`. The deploy runbook has a 'Logs' section too.",
    "pe_jonah_logs_answer",
)
post(
    "pe",
    "06-12 10:04",
    "priya",
    "Standup: index fix for statements in review, Jonah's PR almost ready, Nadia sharing the Q3 draft today.",
)

bot("rel", "05-19 10:15", "deploybot", ":white_check_mark: ledger-api `main@b4d20f1` deployed to *staging* (3m20s)")
bot(
    "rel",
    "05-21 16:40",
    "deploybot",
    ":x: ledger-api `main@e02aa91` deploy to *staging* failed: migration lint "
    "(`0047` missing `-- +migrate Down`) - <@aiko>",
    "rel_lint_fail",
)
reply(
    "rel_lint_fail",
    "05-21 16:52",
    "aiko",
    "Intentional per the new rule (no down-migrations); I'll teach the linter instead.",
)
bot("rel", "05-27 11:05", "deploybot", ":white_check_mark: ledger-api `main@71c9b3e` deployed to *staging* (3m31s)")
bot("rel", "06-02 09:40", "deploybot", ":white_check_mark: ledger-api `v2.5.0-rc1` deployed to *staging* (3m36s)")
post(
    "rel",
    "06-05 10:30",
    "sam",
    "2.5.0 one day in: 5xx 0.02 %, no rollbacks, migration 0047 applied cleanly on production PG12. :white_check_mark:",
)
post(
    "rel",
    "06-11 15:00",
    "sam",
    "Next release *v2.6.0* is pencilled in for Wednesday 24 June: statements index (#434), request id logging "
    "(#437), reader routing for reports (PLAT-132).",
    "rel_260_plan",
)
reply("rel_260_plan", "06-11 15:07", "jonah", "My first release :partying_face:")

bot(
    "inc",
    "05-13 09:30",
    "pagerbot",
    ":warning: [LOW] TLS certificate for `ledger-api.internal` expires in 14 days - notifying <@tomas>",
    "inc_cert",
)
reply("inc_cert", "05-13 09:41", "tomas", "cert-manager renewal was stuck on a DNS challenge; fixed and renewed.")
bot(
    "inc",
    "05-27 14:40",
    "pagerbot",
    ":warning: [LOW] payout-worker queue depth 12,400 (threshold 10,000) - notifying <@marcus>",
    "inc_queue",
)
reply(
    "inc_queue",
    "05-27 14:52",
    "marcus",
    "Bank holiday backlog from Monday, draining at ~900/min with the new backoff. Fine.",
)

post("gen", "05-06 10:00", "ruth", "Heads-up: office Wi-Fi maintenance this Saturday 9 May, 08:00-12:00.")
post(
    "gen",
    "05-07 17:10",
    "ruth",
    "Slides from today's all-hands, thanks for the great questions.",
    subtype="file_share",
    files=[
        {
            "id": "F01ALLHANDS",
            "name": "all-hands-2026-05-07.pdf",
            "title": "All-hands 7 May",
            "mimetype": "application/pdf",
        }
    ],
)
post(
    "gen",
    "05-20 12:00",
    "priya",
    "Platform office hours move to *Thursdays 15:00 UTC* starting this week. Bring your database and deploy questions.",
    "gen_office_hours",
)
post("gen", "06-05 12:00", "ruth", "Save the date: summer party on Friday 3 July, rooftop, from 17:00 :sunny:")

post("rnd", "05-06 12:30", "nadia", "Book club pick for June: 'The Left Hand of Darkness'. Who's in?", "rnd_book")
reply("rnd_book", "05-06 12:41", "aiko", "Me!")
reply("rnd_book", "05-06 13:02", "marcus", "Only if we meet at the pub")
post("rnd", "05-13 16:50", "tomas", "Release cake for 2.4.0? :cake: someone has to keep the tradition")
post("rnd", "05-21 12:45", "sam", "Lost: a blue KestrelPay hoodie, last seen in meeting room Kestrel-2")
post("rnd", "05-26 12:35", "lena", "Canal run was lovely, 8 km, next one Thursday :running:")
post("rnd", "06-02 12:30", "marcus", "Pixel update: he now ignores the sprinkler. Growth. :dog:")
post("rnd", "06-04 16:30", "nadia", "Retro snacks are on the 4th floor, help yourselves")
post("rnd", "06-09 12:20", "aiko", "Early start today, I need all the coffee :coffee::coffee:")
post("rnd", "06-11 12:40", "jonah", "Thanks for the warm welcome everyone, ramen is on me Friday :ramen:")


# ---------------------------------------------------------------------------------------------------------
# Export writer
# ---------------------------------------------------------------------------------------------------------


def _file(f: dict[str, str], user: str) -> dict[str, str]:
    url_name = f["name"]
    return {
        **f,
        "url_private": f"https://files.slack.com/files-pri/{TEAM}-{f['id']}/{url_name}",
        "permalink": f"https://kestrelpay.slack.com/files/{user}/{f['id']}/{url_name}",
    }


def assign_ts() -> None:
    seen: dict[str, set[int]] = {}
    for msg in MESSAGES:
        seconds = _epoch(msg.when)
        hour = datetime.fromtimestamp(seconds, UTC).hour
        assert 8 <= hour < 18, (msg.when, msg.text[:40])
        taken = seen.setdefault(msg.channel, set())
        while seconds in taken:
            seconds += 1
        taken.add(seconds)
        msg.ts = _ts(seconds, f"{msg.channel}:{msg.when}:{msg.text[:30]}")
    for msg in MESSAGES:
        if msg.parent:
            assert float(msg.ts) > float(BY_LABEL[msg.parent].ts), msg.label


def render(msg: Msg) -> dict[str, Any]:
    extra = dict(msg.extra)
    out: dict[str, Any] = {"type": "message"}
    bot_name = extra.pop("bot", None)
    if bot_name:
        out.update(subtype="bot_message", username=bot_name, bot_id=BOTS[bot_name][1])
    if msg.user:
        out["user"] = PEOPLE[msg.user][0]
    subtype = extra.pop("subtype", None)
    if subtype:
        out["subtype"] = subtype
    if extra.pop("broadcast", False):
        out["subtype"] = "thread_broadcast"
    out["text"] = msg.text
    out["ts"] = msg.ts
    if msg.user and out.get("subtype") not in ("channel_join",):
        out["client_msg_id"] = str(uuid.uuid5(uuid.NAMESPACE_URL, f"kestrelpay:{msg.channel}:{msg.ts}"))
        out["team"] = TEAM
    if "files" in extra:
        out["files"] = [_file(f, out["user"]) for f in extra.pop("files")]
        out["upload"] = True
    if "blocks" in extra:
        out["blocks"] = extra.pop("blocks")
    if "attachments" in extra:
        out["attachments"] = [{"id": n + 1, **a} for n, a in enumerate(extra.pop("attachments"))]
    edited = extra.pop("edited", None)
    if edited:
        out["edited"] = {"user": out["user"], "ts": _ts(_epoch(edited), msg.ts)}
    assert not extra, extra
    if msg.replies:
        replies = sorted(msg.replies, key=lambda r: float(r.ts))
        users = list(dict.fromkeys(PEOPLE[r.user][0] for r in replies if r.user))
        out.update(
            thread_ts=msg.ts,
            reply_count=len(replies),
            reply_users_count=len(users),
            reply_users=users,
            latest_reply=replies[-1].ts,
            replies=[{"user": PEOPLE[r.user][0], "ts": r.ts} for r in replies],
        )
        if msg.user:
            out["subscribed"] = False
    if msg.parent:
        root = BY_LABEL[msg.parent]
        out["thread_ts"] = root.ts
        out["parent_user_id"] = PEOPLE[root.user][0] if root.user else BOTS[root.extra["bot"]][0]
        if out.get("subtype") == "thread_broadcast":
            out["root"] = {
                "type": "message",
                "user": out["parent_user_id"],
                "text": root.text,
                "ts": root.ts,
                "thread_ts": root.ts,
                "reply_count": len(root.replies),
            }
    return out


def write(out_dir: Path) -> dict[str, str]:
    assign_ts()
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    users = []
    for handle, (uid, real, first, last, title, tz) in PEOPLE.items():
        users.append(
            {
                "id": uid,
                "team_id": TEAM,
                "name": handle,
                "deleted": False,
                "real_name": real,
                "tz": tz,
                "is_bot": False,
                "is_admin": handle in ("ruth", "priya"),
                "profile": {
                    "real_name": real,
                    "display_name": handle,
                    "email": f"{first.lower().replace('á', 'a')}.{last.lower()}@kestrelpay.example",
                    "title": title,
                    "first_name": first,
                    "last_name": last,
                },
            }
        )
    for name, (uid, bot_id) in BOTS.items():
        users.append(
            {
                "id": uid,
                "team_id": TEAM,
                "name": name,
                "deleted": False,
                "real_name": name,
                "tz": "UTC",
                "is_bot": True,
                "profile": {
                    "real_name": name,
                    "display_name": name,
                    "bot_id": bot_id,
                    "title": "",
                    "first_name": name,
                    "last_name": "",
                },
            }
        )
    (out_dir / "users.json").write_text(json.dumps(users, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    channels = []
    for short, (cid, name, creator, created, members, topic, purpose, is_general) in CHANNELS.items():
        created_s = int(datetime.fromisoformat(created.replace(" ", "T") + ":00+00:00").timestamp())
        channels.append(
            {
                "id": cid,
                "name": name,
                "created": created_s,
                "creator": PEOPLE[creator][0],
                "is_archived": False,
                "is_general": is_general,
                "members": [PEOPLE[h][0] for h in members],
                "topic": {"value": topic, "creator": PEOPLE[creator][0], "last_set": _epoch("06-09 08:30")},
                "purpose": {"value": purpose, "creator": PEOPLE[creator][0], "last_set": created_s},
            }
        )
        days: dict[str, list[Msg]] = {}
        for msg in MESSAGES:
            if msg.channel == short:
                day = datetime.fromtimestamp(float(msg.ts), UTC).strftime("%Y-%m-%d")
                days.setdefault(day, []).append(msg)
        (out_dir / name).mkdir()
        for day, msgs in sorted(days.items()):
            msgs.sort(key=lambda m: float(m.ts))
            rendered = [render(m) for m in msgs]
            (out_dir / name / f"{day}.json").write_text(
                json.dumps(rendered, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
            )
    (out_dir / "channels.json").write_text(json.dumps(channels, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return {label: f"slack:{CHANNELS[m.channel][0]}:{m.ts}" for label, m in BY_LABEL.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--labels", type=Path, help="write label -> ref JSON here")
    args = parser.parse_args()
    labels = write(args.out)
    if args.labels:
        args.labels.write_text(json.dumps(labels, indent=2) + "\n", encoding="utf-8")
    roots = sum(1 for m in MESSAGES if m.replies)
    print(f"{len(MESSAGES)} messages, {roots} threads -> {args.out}")


if __name__ == "__main__":
    main()
