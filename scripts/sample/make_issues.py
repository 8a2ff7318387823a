# ruff: noqa: E501  (ticket prose is data; wrapping it would only hurt readability)
"""Writes issues.json, fields.json and myself.json: JIRA project PLAT of the sample story (see src/briefing/sample/STORY.md).

The files have the shape `briefing.devserver.jira` serves (full issues as JIRA Cloud's v3 API returns them,
with every comment and changelog entry), so the demo can run a `type = "jira"` source against a local server.
Regenerate after editing the tickets below: `python scripts/sample/make_issues.py [OUT]`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from jira_tickets_101_118 import TICKETS as FIRST
from jira_tickets_119_140 import TICKETS as REST

# Writes into the shipped sample, or into the folder named by the first argument (to diff a run against it).
SAMPLE = Path(__file__).resolve().parents[2] / "src" / "briefing" / "sample"
OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else SAMPLE / "jira"
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


# The tickets, in key order (their data lives in two modules to keep each readable).
TICKETS: list[dict[str, Any]] = FIRST + REST

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
    (OUT / "issues.json").write_text(json.dumps(build(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (OUT / "fields.json").write_text(json.dumps(FIELDS, indent=1) + "\n", encoding="utf-8")
    (OUT / "myself.json").write_text(json.dumps(MYSELF, indent=1) + "\n", encoding="utf-8")
