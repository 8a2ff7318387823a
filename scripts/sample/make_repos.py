# mypy: ignore-errors
# ruff: noqa: E501  (sample prose: long string literals read better unwrapped)
"""Generates <owner>__<repo>.json (Kestrel Pay repositories) in GitHub REST shapes, as briefing.devserver.github serves them.

Run: python scripts/sample/make_repos.py [OUT]
"""

import json
import sys
import zlib
from pathlib import Path

# Writes into the shipped sample, or into the folder named by the first argument (to diff a run against it).
SAMPLE = Path(__file__).resolve().parents[2] / "src" / "briefing" / "sample"
OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else SAMPLE / "github"

ids = {
    "priya-raman": 9001,
    "marcus-okafor": 9002,
    "lena-vogt": 9003,
    "tomas-herrera": 9004,
    "aiko-tanaka": 9005,
    "sam-whitfield": 9006,
    "nadia-petrova": 9007,
    "jonah-baptiste": 9008,
}
short = {
    "priya": "priya-raman",
    "marcus": "marcus-okafor",
    "lena": "lena-vogt",
    "tomas": "tomas-herrera",
    "aiko": "aiko-tanaka",
    "sam": "sam-whitfield",
    "nadia": "nadia-petrova",
    "jonah": "jonah-baptiste",
}


def user(k):
    login = short[k]
    return {
        "login": login,
        "id": ids[login],
        "node_id": f"U_kp{ids[login]}",
        "type": "User",
        "site_admin": False,
        "html_url": f"https://github.com/{login}",
    }


def label(n: str) -> dict:
    return {"id": zlib.crc32(n.encode()) % 10**7, "name": n, "color": "ededed", "default": False, "description": ""}


class Repo:
    def __init__(self, name):
        self.full = f"kestrelpay/{name}"
        self.data = {
            "repo": {
                "id": zlib.crc32(name.encode()) % 10**6,
                "node_id": f"R_{name}",
                "name": name,
                "full_name": self.full,
                "private": True,
                "owner": {"login": "kestrelpay", "id": 8000, "type": "Organization"},
                "html_url": f"https://github.com/{self.full}",
                "default_branch": "main",
                "created_at": "2024-02-01T10:00:00Z",
                "updated_at": "2026-06-12T16:00:00Z",
                "pushed_at": "2026-06-12T16:00:00Z",
            },
            "issues": [],
            "comments": {},
            "pulls": {},
            "reviews": {},
            "review_comments": {},
            "releases": [],
        }
        self.cid = 0

    def _id(self):
        self.cid += 1
        return zlib.crc32(self.full.encode()) % 1000 * 10**6 + self.cid

    def add(
        self,
        n,
        title,
        body,
        author,
        created,
        updated,
        *,
        pr=None,
        closed=None,
        labels=(),
        assignees=(),
        milestone=None,
        comments=(),
        reviews=(),
        rcs=(),
        head=None,
    ):
        html = f"https://github.com/{self.full}/{'pull' if pr is not None else 'issues'}/{n}"
        state = "closed" if closed else "open"
        merged = pr.get("merged_at") if pr else None
        cs = [
            {
                "id": self._id(),
                "user": user(a),
                "created_at": t,
                "updated_at": t,
                "author_association": "MEMBER",
                "body": b,
            }
            for a, t, b in comments
        ]
        for c in cs:
            c["html_url"] = f"{html}#issuecomment-{c['id']}"
        issue = {
            "id": self._id(),
            "node_id": f"I_{n}",
            "number": n,
            "title": title,
            "user": user(author),
            "labels": [label(name) for name in labels],
            "state": state,
            "locked": False,
            "assignee": user(assignees[0]) if assignees else None,
            "assignees": [user(a) for a in assignees],
            "milestone": milestone,
            "comments": len(cs),
            "created_at": created,
            "updated_at": updated,
            "closed_at": closed,
            "author_association": "MEMBER",
            "body": body,
            "html_url": html,
            "state_reason": None if not closed else ("completed" if (pr is None or merged) else None),
        }
        if pr is not None:
            issue["draft"] = False
            issue["pull_request"] = {
                "url": f"https://api.github.com/repos/{self.full}/pulls/{n}",
                "html_url": html,
                "diff_url": html + ".diff",
                "patch_url": html + ".patch",
                "merged_at": merged,
            }
            rv = [
                {
                    "id": self._id(),
                    "node_id": "PRR",
                    "user": user(a),
                    "body": b,
                    "state": s,
                    "submitted_at": t,
                    "commit_id": "0" * 40,
                    "author_association": "MEMBER",
                }
                for a, s, t, b in reviews
            ]
            for r in rv:
                r["html_url"] = f"{html}#pullrequestreview-{r['id']}"
            rc_list = []
            for path, line, a, t, b, reply in rcs:
                c = {
                    "id": self._id(),
                    "node_id": "PRRC",
                    "pull_request_review_id": rv[0]["id"] if rv else None,
                    "diff_hunk": "@@",
                    "path": path,
                    "commit_id": "0" * 40,
                    "original_commit_id": "0" * 40,
                    "user": user(a),
                    "body": b,
                    "created_at": t,
                    "updated_at": t,
                    "author_association": "MEMBER",
                    "line": line,
                    "original_line": line,
                    "side": "RIGHT",
                }
                if reply is not None:
                    c["in_reply_to_id"] = rc_list[reply]["id"]
                c["html_url"] = f"{html}#discussion_r{c['id']}"
                rc_list.append(c)
            self.data["pulls"][str(n)] = {
                "id": self._id(),
                "number": n,
                "state": state,
                "title": title,
                "user": user(author),
                "body": body,
                "created_at": created,
                "updated_at": updated,
                "closed_at": closed,
                "merged_at": merged,
                "merged": bool(merged),
                "merged_by": user(pr["merged_by"]) if merged else None,
                "draft": False,
                "comments": len(cs),
                "review_comments": len(rc_list),
                "commits": pr.get("commits", 1),
                "additions": pr.get("additions", 20),
                "deletions": pr.get("deletions", 4),
                "changed_files": pr.get("files", 2),
                "head": {"ref": head or f"plat-{n}", "sha": "1" * 40, "label": f"kestrelpay:{head or n}"},
                "base": {"ref": "main", "sha": "2" * 40, "label": "kestrelpay:main"},
                "html_url": html,
                "labels": issue["labels"],
                "assignees": issue["assignees"],
                "milestone": milestone,
            }
            self.data["reviews"][str(n)] = rv
            self.data["review_comments"][str(n)] = rc_list
        self.data["comments"][str(n)] = cs
        self.data["issues"].append(issue)

    def release(self, tag, at, author, body):
        self.data["releases"].insert(
            0,
            {
                "id": self._id(),
                "node_id": f"RE_{tag}",
                "tag_name": tag,
                "target_commitish": "main",
                "name": f"ledger-api {tag}",
                "draft": False,
                "prerelease": False,
                "created_at": at,
                "published_at": at,
                "author": user(author),
                "body": body,
                "html_url": f"https://github.com/{self.full}/releases/tag/{tag}",
                "assets": [],
            },
        )

    def save(self):
        name = self.full.replace("/", "__")
        json.dump(self.data, open(OUT / f"{name}.json", "w"), indent=1, ensure_ascii=False)


MS = {"id": 31, "number": 4, "title": "Aurora cutover", "state": "closed", "due_on": "2026-06-09T07:00:00Z"}
api = Repo("ledger-api")
api.add(
    412,
    "Idempotency keys for transfers",
    "PLAT-111. `POST /v1/transfers` accepts an `Idempotency-Key` header; a replay within 24 h returns the first response instead of posting twice.",
    "aiko",
    "2026-05-07T10:00:00Z",
    "2026-05-12T15:30:00Z",
    pr={"merged_at": "2026-05-12T15:30:00Z", "merged_by": "marcus"},
    closed="2026-05-12T15:30:00Z",
    labels=("feature",),
    assignees=("aiko",),
    reviews=[
        ("marcus", "CHANGES_REQUESTED", "2026-05-08T09:00:00Z", "Keys need a TTL, otherwise the table grows forever."),
        ("marcus", "APPROVED", "2026-05-12T14:00:00Z", "TTL of 24 h looks right."),
    ],
    rcs=[
        (
            "internal/transfers/idempotency.go",
            58,
            "marcus",
            "2026-05-08T09:00:00Z",
            "What happens when two requests with the same key race?",
            None,
        ),
        (
            "internal/transfers/idempotency.go",
            58,
            "aiko",
            "2026-05-08T11:00:00Z",
            "The unique index makes the second insert fail; we return the stored response.",
            0,
        ),
    ],
)
api.add(
    415,
    "Go 1.24",
    "PLAT-112. Bump the toolchain and base image to Go 1.24.",
    "tomas",
    "2026-05-06T13:00:00Z",
    "2026-05-11T10:10:00Z",
    pr={"merged_at": "2026-05-11T10:10:00Z", "merged_by": "sam"},
    closed="2026-05-11T10:10:00Z",
    labels=("chore",),
    assignees=("tomas",),
    reviews=[("sam", "APPROVED", "2026-05-11T09:50:00Z", "CI green on 1.24.")],
)
api.add(
    418,
    "Deflake TestSettlementBatch",
    "PLAT-115. The test depended on wall-clock midnight; it now uses a fixed clock.",
    "sam",
    "2026-05-19T09:00:00Z",
    "2026-05-20T11:00:00Z",
    pr={"merged_at": "2026-05-20T11:00:00Z", "merged_by": "tomas"},
    closed="2026-05-20T11:00:00Z",
    labels=("ci",),
    assignees=("sam",),
    reviews=[("tomas", "APPROVED", "2026-05-20T10:30:00Z", "")],
)
api.add(
    421,
    "Settlement batch: take advisory lock on a dedicated connection",
    "PLAT-118. Session advisory locks do not survive PgBouncer transaction pooling; hold the lock on a dedicated connection so it also works behind RDS Proxy (pinned session).",
    "tomas",
    "2026-05-18T14:00:00Z",
    "2026-05-22T12:00:00Z",
    pr={"merged_at": "2026-05-22T12:00:00Z", "merged_by": "marcus"},
    closed="2026-05-22T12:00:00Z",
    labels=("bug",),
    assignees=("tomas",),
    reviews=[("marcus", "APPROVED", "2026-05-22T11:30:00Z", "Works with RDS Proxy pinning, verified in staging.")],
    comments=[
        (
            "aiko",
            "2026-05-21T16:00:00Z",
            "With the switch to RDS Proxy (ADR-0009) this becomes a belt-and-braces change, still worth merging.",
        )
    ],
)
api.add(
    426,
    "Migration 0047: explicit numeric cast",
    "PLAT-130. Migration 0047 failed on PG15 because of an implicit cast in the `settlement_totals` view. Cast explicitly to numeric(20,4).",
    "aiko",
    "2026-06-03T10:00:00Z",
    "2026-06-03T16:40:00Z",
    pr={"merged_at": "2026-06-03T16:40:00Z", "merged_by": "sam"},
    closed="2026-06-03T16:40:00Z",
    labels=("bug", "release-blocker"),
    assignees=("aiko",),
    milestone=MS,
    reviews=[("sam", "APPROVED", "2026-06-03T16:20:00Z", "Release 2.5.0 moves to tomorrow, 06-04.")],
    rcs=[
        (
            "migrations/0047_settlement_totals.sql",
            12,
            "sam",
            "2026-06-03T15:00:00Z",
            "Does the view still match PG12 during replication?",
            None,
        ),
        (
            "migrations/0047_settlement_totals.sql",
            12,
            "aiko",
            "2026-06-03T15:30:00Z",
            "Yes, the explicit cast is valid on both.",
            0,
        ),
    ],
)
api.add(
    429,
    "Release 2.5.0 changelog",
    "PLAT-129. Changelog for v2.5.0.",
    "sam",
    "2026-06-03T09:00:00Z",
    "2026-06-04T11:00:00Z",
    pr={"merged_at": "2026-06-04T11:00:00Z", "merged_by": "sam"},
    closed="2026-06-04T11:00:00Z",
    labels=("release",),
    assignees=("sam",),
    milestone=MS,
    reviews=[("marcus", "APPROVED", "2026-06-04T10:40:00Z", "")],
)
api.add(
    430,
    "Settlement report cuts the day at local midnight",
    "Reported after the cutover: the daily settlement report groups entries by the server's local midnight instead of UTC (PLAT-135).",
    "aiko",
    "2026-06-09T13:00:00Z",
    "2026-06-10T12:30:00Z",
    closed="2026-06-10T12:30:00Z",
    labels=("bug",),
    assignees=("aiko",),
    comments=[
        (
            "tomas",
            "2026-06-09T14:00:00Z",
            "The Aurora cluster parameter group uses a non-UTC timezone; the old hosts were on UTC.",
        )
    ],
)
api.add(
    431,
    "Settlement report: cut days in UTC",
    "Closes #430. PLAT-135: use `AT TIME ZONE 'UTC'` when grouping settlement entries by day. Ships as v2.5.1.",
    "aiko",
    "2026-06-09T16:00:00Z",
    "2026-06-10T12:30:00Z",
    pr={"merged_at": "2026-06-10T12:30:00Z", "merged_by": "sam"},
    closed="2026-06-10T12:30:00Z",
    labels=("bug", "hotfix"),
    assignees=("aiko",),
    reviews=[("tomas", "APPROVED", "2026-06-10T11:00:00Z", "")],
)
api.add(
    434,
    "Index statements(account_id, created_at)",
    "PLAT-137. p99 on /v1/statements went from 310 ms to 520 ms after the cutover; the planner does a sequential scan without `statements_account_id_created_at_idx`. With the index, staging p99 is 290 ms.",
    "tomas",
    "2026-06-12T10:00:00Z",
    "2026-06-12T16:00:00Z",
    pr={},
    labels=("performance",),
    assignees=("tomas",),
    comments=[("marcus", "2026-06-12T15:00:00Z", "Create it CONCURRENTLY in production, please.")],
    rcs=[
        (
            "migrations/0049_statements_index.sql",
            3,
            "marcus",
            "2026-06-12T15:05:00Z",
            "Use CREATE INDEX CONCURRENTLY here.",
            None,
        )
    ],
    head="tomas/statements-index",
)
api.add(
    437,
    "Request id in logs",
    "PLAT-140. Adds the `X-Request-Id` header value to every log line of ledger-api.",
    "jonah",
    "2026-06-10T10:00:00Z",
    "2026-06-11T15:00:00Z",
    pr={},
    labels=("good first issue",),
    assignees=("jonah",),
    reviews=[("aiko", "COMMENTED", "2026-06-11T15:00:00Z", "Nice first PR! A few small things.")],
    rcs=[
        (
            "internal/httpx/middleware.go",
            27,
            "aiko",
            "2026-06-11T15:00:00Z",
            "Generate an id when the header is missing.",
            None,
        ),
        ("internal/log/log.go", 14, "aiko", "2026-06-11T15:01:00Z", "Use the structured field name request_id.", None),
    ],
    head="jonah/request-id",
)
api.release(
    "v2.4.0", "2026-05-13T14:00:00Z", "sam", "- Idempotency keys for POST /v1/transfers (#412)\n- Go 1.24 (#415)"
)
api.release(
    "v2.5.0",
    "2026-06-04T11:15:00Z",
    "sam",
    "- Migration 0047: explicit numeric cast (#426)\n- Changelog (#429)\n\nSlipped from 2026-06-03 because migration 0047 failed on PG15.",
)
api.release("v2.5.1", "2026-06-10T13:05:00Z", "sam", "Hotfix: settlement report cuts days in UTC (#431, PLAT-135).")
api.save()
infra = Repo("platform-infra")


def simple(r, n, title, body, author, created, merged, reviewer, closed_unmerged=False, comments=(), labels=("infra",)):
    r.add(
        n,
        title,
        body,
        author,
        created,
        merged,
        pr=({"merged_at": None} if closed_unmerged else {"merged_at": merged, "merged_by": reviewer}),
        closed=merged,
        labels=labels,
        assignees=(author,),
        comments=comments,
        reviews=[(reviewer, "APPROVED", created[:11] + "16:00:00Z" if created[:10] != merged[:10] else merged, "")]
        if not closed_unmerged
        else [],
    )


simple(
    infra,
    88,
    "Aurora staging cluster",
    "PLAT-102. Terraform for the staging Aurora PostgreSQL 15 cluster.",
    "lena",
    "2026-05-05T10:00:00Z",
    "2026-05-08T15:00:00Z",
    "marcus",
)
simple(
    infra,
    90,
    "Aurora production cluster",
    "PLAT-103. Production cluster `ledger-aurora-prod`, writer db.r6g.xlarge plus one reader.",
    "lena",
    "2026-05-12T10:00:00Z",
    "2026-05-15T15:00:00Z",
    "marcus",
)
simple(
    infra,
    92,
    "PgBouncer fleet",
    "PLAT-106. Three PgBouncer hosts in transaction mode in front of Aurora.",
    "tomas",
    "2026-05-08T10:00:00Z",
    "2026-05-21T17:00:00Z",
    "lena",
    closed_unmerged=True,
    comments=[
        (
            "marcus",
            "2026-05-21T16:50:00Z",
            "Closing: we switch to RDS Proxy (ADR-0009), see the platform sync notes of 2026-05-21.",
        )
    ],
)
simple(
    infra,
    95,
    "RDS Proxy module",
    "PLAT-116. Terraform module for Amazon RDS Proxy in front of ledger-aurora-prod, IAM auth, TLS required.",
    "lena",
    "2026-05-22T10:00:00Z",
    "2026-05-27T14:00:00Z",
    "marcus",
)
simple(
    infra,
    97,
    "Pool saturation alert",
    "PLAT-121. Alert when proxy connection use is above 80 % for 5 minutes (INC-2026-014 action item).",
    "lena",
    "2026-05-26T10:00:00Z",
    "2026-05-28T11:00:00Z",
    "tomas",
)
simple(
    infra,
    99,
    "Resize writer to db.r6g.2xlarge",
    "PLAT-131. Load test at 2x peak showed writer CPU 91 % on db.r6g.xlarge; after the resize it is 48 %. Cost estimate becomes $5,240/month.",
    "lena",
    "2026-06-02T09:00:00Z",
    "2026-06-02T13:00:00Z",
    "marcus",
    comments=[
        (
            "nadia",
            "2026-06-02T13:30:00Z",
            "Updated the cost report (PLAT-125): $5,240/month, under Ruth's $5,500 ceiling.",
        )
    ],
)
infra.save()
payout = Repo("payout-worker")
payout.add(
    55,
    "Retry storm during INC-2026-014",
    "payout-worker retried failed ledger calls 5 times at a fixed 100 ms with no jitter and exhausted the PgBouncer pool on 2026-05-19.",
    "lena",
    "2026-05-19T16:00:00Z",
    "2026-05-26T15:00:00Z",
    closed="2026-05-26T15:00:00Z",
    labels=("incident",),
    assignees=("tomas",),
)
payout.add(
    57,
    "Exponential backoff with jitter",
    "Closes #55. PLAT-120: exponential backoff with full jitter, base 200 ms, cap 5 s.",
    "tomas",
    "2026-05-20T10:00:00Z",
    "2026-05-26T15:00:00Z",
    pr={"merged_at": "2026-05-26T15:00:00Z", "merged_by": "lena"},
    closed="2026-05-26T15:00:00Z",
    labels=("reliability",),
    assignees=("tomas",),
    reviews=[
        ("lena", "CHANGES_REQUESTED", "2026-05-22T10:00:00Z", "Please cap the delay."),
        ("lena", "APPROVED", "2026-05-26T14:30:00Z", ""),
    ],
    rcs=[
        (
            "retry/backoff.go",
            31,
            "lena",
            "2026-05-22T10:00:00Z",
            "Without a cap a long outage means minutes between tries.",
            None,
        ),
        ("retry/backoff.go", 31, "tomas", "2026-05-25T09:00:00Z", "Capped at 5 s.", 0),
    ],
)
payout.save()
