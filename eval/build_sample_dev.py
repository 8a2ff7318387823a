"""Build eval/sample_dev.jsonl, the development set over the bundled sample workspace.

Cases name Slack evidence by the message labels of scripts/make_sample_slack.py, which are resolved here to
`slack:<channel_id>:<ts>` refs; docs are named by their path under the docs folder. Run from the repo root:
python eval/build_sample_dev.py && python eval/check_sample_dev.py
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "eval" / "sample_dev.jsonl"
NOW = "2026-06-15T09:00:00+00:00"


def _labels() -> dict[str, str]:
    spec = importlib.util.spec_from_file_location("make_sample_slack", ROOT / "scripts" / "make_sample_slack.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    module.assign_ts()
    return {label: f"slack:{module.CHANNELS[m.channel][0]}:{m.ts}" for label, m in module.BY_LABEL.items()}


LABELS = _labels()
CASES: list[dict[str, Any]] = []


def case(category: str, question: str, gold: list[str], keywords: list[list[str]], now: str = NOW) -> None:
    refs = [g if g.startswith("file:") else LABELS[g] for g in gold]
    CASES.append(
        {
            "id": f"s{len(CASES) + 1:03d}",
            "question": question,
            "now": now,
            "gold_refs": refs,
            "answer_keywords": keywords,
            "no_answer": False,
            "category": category,
        }
    )


def none(question: str, now: str = NOW) -> None:
    CASES.append(
        {
            "id": f"s{len(CASES) + 1:03d}",
            "question": question,
            "now": now,
            "gold_refs": [],
            "answer_keywords": [],
            "no_answer": True,
            "category": "no_answer",
        }
    )


PM = "file:postmortems/2026-05-19-ledger-5xx.md"
DESIGN = "file:design/ledger-aurora-migration.md"
ADR7 = "file:adr/0007-connection-pooling-pgbouncer.md"
ADR9 = "file:adr/0009-switch-to-rds-proxy.md"
CUTOVER = "file:runbooks/aurora-cutover.md"
DEPLOY = "file:runbooks/deploy.md"
WELCOME = "file:onboarding/welcome.md"
ROTA = "file:oncall/rota.md"
REL240 = "file:releases/ledger-api-2.4.0.md"
REL250 = "file:releases/ledger-api-2.5.0.mdx"
SYNC = "file:meetings/2026-05-21-platform-sync.txt"
RETRO = "file:meetings/2026-06-04-retro.txt"
PLAN = "file:planning/q3-2026-platform-plan.pdf"

# direct: one fact, stated once or twice
case(
    "direct",
    "How bad did the failure rate get at its worst during the ledger outage on 19 May?",
    ["inc_resolved", PM],
    [["18.4"]],
)
case(
    "direct",
    "How many money-movement calls from merchants errored out during the May 19 outage?",
    ["inc_impact", "inc_resolved", PM],
    [["3,912", "3912", "3,900", "3900"]],
)
case(
    "direct",
    "How long was the system unable to accept writes during the staging rehearsal of the switchover?",
    ["pe_dryrun", RETRO, CUTOVER],
    [["38"]],
)
case(
    "direct",
    "Which tool streams changes from the old Postgres hosts into the new cluster?",
    ["pe_pglogical_choice", DESIGN],
    [["pglogical"]],
)
case(
    "direct",
    "How long did the initial bulk copy of ledger data into Aurora run?",
    ["pe_pglogical_sync_done"],
    [["18 h 40", "18h40", "18 hours"]],
)
case(
    "direct",
    "For how long are duplicate-protection keys on transfers remembered?",
    ["pe_idem_proposal", REL240],
    [["24"]],
)
case(
    "direct",
    "What response header tells a client that a repeated transfer request was not executed again?",
    ["pe_idem_merged", REL240],
    [["idempotent-replayed"]],
)
case(
    "direct",
    "What did the Go toolchain upgrade do to tail latency on the entries endpoint?",
    ["pe_go_bench", REL240],
    [["171"]],
)
case("direct", "How big is the ledger database that is being moved?", ["pe_pglogical", DESIGN], [["1.9"]])
case(
    "direct",
    "After the pod was killed for memory on 12 May, what was the new memory limit?",
    ["inc_oom_fix"],
    [["768"]],
)
case(
    "direct",
    "Why had the ledger-api build pipeline become slower in early May, and how long does it take now?",
    ["pe_ci_fixed"],
    [["container"], ["8.5"]],
)
case(
    "direct",
    "Which merchants generate most of the transfer volume in the early-morning hours?",
    ["pe_merchants_answer"],
    [["brightmart"], ["voltaic"], ["lumen"]],
)
case(
    "direct",
    "When does the platform team hold its weekly drop-in session for other teams?",
    ["gen_office_hours", WELCOME],
    [["thursday"], ["15:00"]],
)
case(
    "direct",
    "How many minutes were merchants unable to create transfers during the production switchover?",
    ["pe_cutover_done", CUTOVER, DESIGN, PLAN],
    [["22"]],
)
case(
    "direct",
    "How many rows did the mirrored-read comparison check before it was declared clean?",
    ["pe_shadow_done", RETRO],
    [["41.2"]],
)

# thread_reply: the answer is in a reply, not in the thread's first message
case(
    "thread_reply",
    "What did the investigation of the 19 May outage identify as the trigger?",
    ["inc_cause", "inc_rootcause", PM],
    [["retry", "retries"], ["jitter", "100 ms"]],
)
case(
    "thread_reply",
    "How many clients were queued at the pooler while the ledger outage was going on?",
    ["inc_waiting", PM],
    [["430"]],
)
case(
    "thread_reply",
    "Which pooler setting was raised to stop the bleeding in the May outage, and to what?",
    ["inc_pool_raise", PM],
    [["60"]],
)
case(
    "thread_reply",
    "What spending limit did the CTO sign off for the new ledger database?",
    ["pe_budget_approved"],
    [["5,500", "5500"]],
)
case(
    "thread_reply",
    "What did the second load test show once the bigger writer was in place?",
    ["pe_loadtest_rerun", RETRO],
    [["48"], ["210"]],
)
case(
    "thread_reply",
    "What was the new backend engineer's starter ticket?",
    ["pe_jonah_first_task", WELCOME],
    [["plat-140", "request id"]],
)
case(
    "thread_reply",
    "When was the updated notice to merchants about the maintenance window going out?",
    ["pe_notice_date", "gen_notice_sent", SYNC],
    [["2 june", "june 2", "06-02"]],
)
case(
    "thread_reply",
    "What gap did Marcus point out when reviewing the first version of the switchover procedure?",
    ["pe_runbook_review"],
    [["sequence"]],
)
case(
    "thread_reply",
    "What retry delays does the payout job use since the postmortem follow-up?",
    ["inc_jitter_done", PM],
    [["200"], ["5 s", "5s", "cap"]],
)
case(
    "thread_reply",
    "How fast was the entries endpoint at the first peak after moving to the new database?",
    ["pe_cutover_latency"],
    [["142"]],
)
case(
    "thread_reply",
    "Where can someone new find the ledger-api logs for the pre-production environment?",
    ["pe_jonah_logs_answer", DEPLOY],
    [["loki"]],
)
case(
    "thread_reply",
    "Why did the statements endpoint get slower after the switchover?",
    ["pe_stmt_cause"],
    [["idx", "index"]],
)

# time_scoped: relative dates resolved against `now`
case(
    "time_scoped",
    "What happened with ledger-api releases last week?",
    ["rel_251_plan", "rel_251_deployed", "rel_251_out", "rel_260_plan", REL250],
    [["2.5.1"]],
)
case(
    "time_scoped",
    "What went wrong in production yesterday?",
    ["inc_page", "inc_declare", "inc_cause", "inc_resolved", "inc_impact", "pe_incident_note"],
    [["5xx", "error"], ["pool", "payout"]],
    now="2026-05-20T09:00:00+00:00",
)
case(
    "time_scoped",
    "What got done yesterday on the database move?",
    ["pe_cutover_done", "pe_cutover_latency"],
    [["22"]],
    now="2026-06-10T09:00:00+00:00",
)
case(
    "time_scoped",
    "What was decided last week about pooling database connections?",
    ["pe_decision_pgbouncer", ADR7],
    [["pgbouncer"]],
    now="2026-05-11T09:00:00+00:00",
)
case(
    "time_scoped",
    "Which alerts fired in June?",
    ["inc_stg_cpu", "inc_reader_lag", "inc_stmt_alert"],
    [["statements", "cpu", "lag"]],
)
case(
    "time_scoped",
    "What has happened with the load test since Monday?",
    ["pe_loadtest_plan", "pe_loadtest_first"],
    [["max_connections_percent", "borrow"]],
    now="2026-05-29T16:00:00+00:00",
)
case(
    "time_scoped",
    "Why is the release that was planned for today late?",
    ["rel_250_slip", "pe_0047_fail"],
    [["0047"]],
    now="2026-06-03T12:00:00+00:00",
)
case(
    "time_scoped",
    "What did we estimate the new database would cost per month in May?",
    ["pe_cost_v1", DESIGN],
    [["4,490", "4490"]],
)
case(
    "time_scoped",
    "What news was shared company-wide today?",
    ["gen_farah"],
    [["farah"]],
    now="2026-06-12T17:00:00+00:00",
)
case(
    "time_scoped",
    "What changes to the team's meeting schedule were announced this week?",
    ["pe_standup_move"],
    [["10:00"]],
    now="2026-05-15T17:00:00+00:00",
)
case(
    "time_scoped",
    "Who carried the pager last week?",
    ["pe_oncall_w5", ROTA],
    [["sam"]],
    now="2026-06-08T09:00:00+00:00",
)
case(
    "time_scoped",
    "Was anything shipped to production yesterday?",
    ["rel_payout_190"],
    [["payout-worker"], ["1.9.0"]],
    now="2026-05-27T09:00:00+00:00",
)
case(
    "time_scoped",
    "What happened in the releases channel this week?",
    ["rel_250_slip", "rel_250_deployed", "rel_250_out"],
    [["2.5.0"]],
    now="2026-06-05T17:00:00+00:00",
)

# person: about someone's role, work or whereabouts
case(
    "person",
    "What is Marcus Okafor's role in the database migration?",
    ["pe_kickoff", WELCOME, DESIGN],
    [["tech lead", "lead"]],
)
case(
    "person",
    "What has Aiko Tanaka been working on during the migration?",
    ["pe_schema_audit", "pe_shadow_done", "pe_tz_bug", "pe_0047_fail"],
    [["schema", "0047"], ["shadow", "settlement"]],
)
case("person", "Who is helping Jonah find his way around during onboarding?", ["pe_welcome_jonah", WELCOME], [["aiko"]])
case("person", "Who coordinated the response to the 19 May outage?", ["inc_declare", PM], [["lena"]])
case("person", "What is Nadia Petrova's job on the team?", [WELCOME, PLAN], [["product"]])
case(
    "person",
    "When did Jonah Baptiste start?",
    ["pe_welcome_jonah", WELCOME, PLAN],
    [["june 1", "1 june", "2026-06-01", "06-01"]],
)
case(
    "person",
    "Who is joining as the new site reliability engineer, and when?",
    ["gen_farah", "pe_w6_wrap", PLAN],
    [["farah"], ["6 july", "july 6", "2026-07-06"]],
)
case("person", "Who drove the production switchover to Aurora?", ["pe_go", "pe_cutover_done", CUTOVER], [["marcus"]])
case(
    "person",
    "What did Sam Whitfield contribute to the outage follow-ups?",
    ["rel_rollback_rule", "pe_pm_actions", PM, DEPLOY],
    [["rollback"]],
)

# channel: scoped to one channel
case(
    "channel",
    "What did the pager complain about in #incidents on 6 May, and how was it handled?",
    ["inc_disk_alert", "inc_disk_fix"],
    [["disk"], ["wal", "archiver"]],
)
case("channel", "What job opening was advertised in #general?", ["gen_hiring"], [["sre"], ["2291"]])
case(
    "channel",
    "In #releases, what is lined up for the version after the hotfix?",
    ["rel_260_plan"],
    [["2.6.0"], ["24 june", "june 24"]],
)
case(
    "channel",
    "In #random, which walk did someone suggest for a long weekend?",
    ["rnd_hiking_route"],
    [["porthmoor", "cliff path", "lighthouse"]],
)
case(
    "channel",
    "What was said in #platform-eng about committing to discounted reserved capacity?",
    ["pe_ri", "pe_ri_parked", DESIGN],
    [["31"], ["july"]],
)
case(
    "channel",
    "What did the CTO post in #general after the ledger database move?",
    ["gen_cutover_congrats"],
    [["merchant"]],
)
case("channel", "What broke the staging deploy in #releases on 21 May?", ["rel_lint_fail"], [["lint", "down"]])

# multi_source: the answer needs Slack and a doc, or several docs
case(
    "multi_source",
    "Why did the team drop the first pooling choice for the ledger database?",
    ["pe_decision_proxy", "pe_proxy_proposal", ADR9, SYNC],
    [["advisory"], ["incident", "pool", "exhaust"]],
)
case(
    "multi_source",
    "What follow-up actions came out of the ledger outage review, and who owns them?",
    [PM, "pe_pm_actions"],
    [["plat-120"], ["plat-121"], ["plat-123"]],
)
case(
    "multi_source",
    "How do we undo a bad database schema change in production?",
    [DEPLOY, "rel_rollback_rule"],
    [["previous", "redeploy"], ["expand"]],
)
case("multi_source", "What went into ledger-api 2.5.0?", [REL250, "rel_250_out"], [["0047"], ["pagination"]])
case(
    "multi_source",
    "What was wrong with the money-column migration in 2.5.0, and how was it caught?",
    ["pe_0047_fail", REL250, RETRO],
    [["cast"], ["dry run"]],
)
case(
    "multi_source",
    "How much more per month does the managed proxy cost than the self-run pooler?",
    ["pe_pool_costs", ADR9, ADR7],
    [["310"], ["50"]],
)
case(
    "multi_source",
    "What was changed to shorten the read-only period after the staging rehearsal?",
    ["pe_dryrun", "pe_dryrun_runbook", CUTOVER, RETRO],
    [["sequence"], ["parallel"]],
)
case(
    "multi_source",
    "What went wrong with the daily settlement numbers right after the move, and what fixed it?",
    ["pe_tz_bug", REL250, "rel_251_out"],
    [["utc"], ["berlin"]],
)
case(
    "multi_source",
    "What are the platform team's priorities for next quarter?",
    [PLAN, "pe_q3_plan"],
    [["plat-124", "rate limit"], ["plat-128", "decommission"]],
)
case(
    "multi_source",
    "What should a newly hired engineer read during their first days?",
    [WELCOME, "pe_welcome_jonah"],
    [["design"], ["postmortem"]],
)
case(
    "multi_source",
    "Why was an early-morning slot picked for the switchover, and how were merchants told?",
    ["pe_date_moved", "gen_notice_sent", "pe_notice_date"],
    [["low-traffic", "low traffic"], ["notice"]],
)

# changed_state: an earlier message says one thing, a later one supersedes it
case(
    "changed_state",
    "Which connection pooler sits in front of the ledger database?",
    ["pe_decision_proxy", ADR9],
    [["rds proxy"]],
)
case(
    "changed_state",
    "When is the production switchover to Aurora scheduled?",
    ["pe_date_moved", "gen_date_moved", SYNC],
    [["9 june", "june 9", "06-09"]],
    now="2026-05-25T09:00:00+00:00",
)
case(
    "changed_state",
    "What is the current monthly cost estimate for the new ledger database?",
    ["pe_cost_v2", DESIGN, PLAN],
    [["5,240", "5240"]],
)
case(
    "changed_state",
    "What instance size is the production Aurora writer?",
    ["pe_resize_decision", "pe_resized", DESIGN],
    [["2xlarge"]],
)
case("changed_state", "What time is the team's daily standup?", ["pe_standup_move", WELCOME], [["10:00"]])
case("changed_state", "Who is on call this week?", ["pe_w6_wrap", "pe_swap", ROTA], [["lena"]])
case(
    "changed_state",
    "Who covered on-call for the week starting 8 June?",
    ["pe_swap", "pe_swap_confirm", "pe_oncall_w6", ROTA],
    [["tomás", "tomas"]],
)
case(
    "changed_state",
    "Who is backing up the driver during the switchover?",
    ["pe_go", CUTOVER],
    [["sam"]],
    now="2026-06-08T15:00:00+00:00",
)
case(
    "changed_state",
    "On what day did ledger-api 2.5.0 actually go out?",
    ["rel_250_slip", "rel_250_deployed", "rel_250_out", REL250],
    [["4 june", "june 4", "thursday", "06-04"]],
)
case(
    "changed_state",
    "Where do things stand on retiring the legacy balances endpoint?",
    ["pe_legacy_blocked", PLAN],
    [["blocked", "mobile"]],
)
case("changed_state", "Is ADR-0007 still in force?", [ADR7, "pe_decision_proxy", ADR9], [["superseded"]])

# summary: several pieces of evidence
case(
    "summary",
    "Summarise where the Aurora migration stands.",
    ["pe_cutover_done", "pe_kickoff", DESIGN, PLAN],
    [["aurora"], ["22", "cutover", "switch"]],
)
case(
    "summary",
    "Give me a summary of last week in #platform-eng.",
    ["pe_cutover_done", "pe_w6_wrap", "pe_stmt_regression", "pe_tz_bug"],
    [["cutover"], ["2.5.1", "hotfix"]],
)
case(
    "summary",
    "Summarise the 19 May ledger incident.",
    [PM, "inc_resolved", "inc_rootcause"],
    [["pool"], ["retry", "retries"]],
)
case(
    "summary",
    "Give me a timeline of how the connection pooling decision evolved.",
    ["pe_decision_pgbouncer", "pe_decision_proxy", ADR7, ADR9],
    [["pgbouncer"], ["rds proxy"]],
)
case(
    "summary",
    "What open work is the team carrying into this week?",
    ["pe_w6_wrap", "rel_260_plan", "pe_stmt_cause", "pe_q3_plan"],
    [["434", "index"]],
)
case(
    "summary",
    "Summarise the ledger-api releases of the last six weeks.",
    ["rel_240_out", "rel_250_out", "rel_251_out", REL240, REL250],
    [["2.4.0"], ["2.5.0"], ["2.5.1"]],
)

# no_answer: plausible, often sharing vocabulary with the data, but not covered
none("What was the root cause of the payments gateway outage in April?")
none("How much does the Aurora reader replica cost in the Frankfurt region alone?")
none("Who signed off the security review of the PgBouncer hosts?")
none("What is the salary range for the senior SRE opening?")
none("When is the next review of on-call compensation?")
none("What is the p99 latency of the mobile app's login screen?")
none("Which Kafka topics does ledger-api publish transfer events to?")
none("When is Aiko Tanaka taking her summer holiday?")
none("What did the external security audit of ledger-api find in May?")
none("How many merchants cancelled their contracts after the 19 May incident?")
none("What is the plan for rewriting ledger-api in Rust?")
none("Which Datadog monitors were set up for RDS Proxy?")
none("Who won the ping pong rematch?")
none("What was the outcome of the cross-region disaster recovery drill for Aurora?")
none("How much error budget did ledger-api burn in April?")
none("Which PgBouncer version does the payments gateway run?")
none("When will ledger-api 3.0 be released?")
none("How many story points did the team complete in the last sprint?")
none("What did the finance team say about the Q2 budget overrun?")
none("What was the customer impact of the ledger incident on 2 June?")
none("What discount did AWS offer on the RDS Proxy itself?")
none("What is the phone number for the platform on-call bridge?")
# Added for the refusal recalibration (docs/answering.md): s107-s111 near misses that reuse the data's
# vocabulary, s112-s116 off-topic.
none("What did the Aurora Serverless v2 trial cost per month?")
none("Which GraphQL gateway sits in front of ledger-api?")
none("What retry rate did payout-worker show in staging after PLAT-120?")
none("Where does ledger-api keep its HashiCorp Vault secrets for the Aurora cluster?")
none("Which Okta group grants access to the RDS Proxy dashboards?")
none("What is a good recipe for sourdough bread?")
none("Who is the current prime minister of Japan?")
none("How do I reset my home wifi router?")
none("What is the weather forecast for Berlin tomorrow?")
none("Which film won the best picture award last year?")


def main() -> None:
    with OUT.open("w", encoding="utf-8") as fh:
        for c in CASES:
            fh.write(json.dumps(c, ensure_ascii=False) + "\n")
    counts: dict[str, int] = {}
    for c in CASES:
        counts[c["category"]] = counts.get(c["category"], 0) + 1
    print(f"{len(CASES)} cases -> {OUT}: {counts}")


if __name__ == "__main__":
    main()
