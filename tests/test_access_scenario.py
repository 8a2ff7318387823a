"""Permission-aware answers, end to end through the real CLI against the local fakes.

One team, six sources, each holding a secret only some people may read: a private Slack channel and a group DM
beside a public channel, a Confluence page restricted to one reader with a child that inherits it, a JIRA issue
under a security level, a private GitHub repository, and an e-mail between two people. Three principals ask
questions aimed at what they may not see; no hit, citation, answer, digest line or trace of theirs may carry a
hidden item. The owner sees everything, and a membership change upstream takes effect at the next sync.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from briefing.cli.app import app
from briefing.devserver import confluence as wiki_fake
from briefing.devserver import github as github_fake
from briefing.devserver.jira import JiraFake
from briefing.devserver.slack import TOKEN as SLACK_TOKEN
from briefing.devserver.slack import SlackFake

# Minutes of CLI runs (each ask and search loads the models afresh, as a real invocation does).
pytestmark = pytest.mark.slow
NOW = "2026-06-20T09:00:00+00:00"
runner = CliRunner()

PEOPLE = {
    "alice": ("Alice Chen", "alice@acme.example", "U0ALICE", "acc-alice", "alice-chen"),
    "bob": ("Bob Diaz", "bob@acme.example", "U0BOB", "acc-bob", "bob-diaz"),
    "carol": ("Carol Park", "carol@acme.example", "U0CAROL", "acc-carol", "carol-park"),
    "dana": ("Dana Reyes", "dana@acme.example", "U0DANA", "acc-dana", "dana-reyes"),
}

# Each secret: a code word no other item carries, the ref of the item that holds it, and who may read it.
SECRETS = {
    "BLUEHERON": ("slack:C0LEAD:1781000100.000100", {"alice"}),
    "QUARTZLINE": ("slack:G0BANDS:1781000200.000100", {"bob", "carol"}),
    "MARIGOLD": ("confluence:2002", {"bob"}),
    "ORCHID": ("confluence:2003", {"bob"}),
    "SILVERFOX": ("jira:SEC-2", {"carol"}),
    "PELICAN": ("github:acme/vault#7", {"alice"}),
    "TANGERINE": ("email:review-1@acme.example", {"alice", "bob"}),
}
# Questions aimed at each secret, phrased the way someone fishing for it would ask.
QUESTIONS = {
    "BLUEHERON": [
        "What is the reorg codename?",
        "Who will the payments team report to after the reorg?",
        "What was said in the leadership channel?",
        "Is there a plan to move the payments team under Priya?",
        "BLUEHERON",
    ],
    "QUARTZLINE": [
        "What salary band is Bob in?",
        "What did Bob and Carol discuss about pay bands?",
        "QUARTZLINE compensation",
        "What was decided in the pay band review?",
        "Which salary bands changed recently?",
    ],
    "MARIGOLD": [
        "Which company are we acquiring?",
        "How much are we paying for Nimbus Labs?",
        "What is the acquisition plan?",
        "MARIGOLD",
        "Who is Nimbus Labs and what is the deal worth?",
    ],
    "ORCHID": [
        "What is on the due diligence checklist?",
        "Which ledger audit is part of the due diligence?",
        "ORCHID audit",
        "What comes first in the due diligence?",
    ],
    "SILVERFOX": [
        "Is there a vulnerability in the payout API?",
        "What is the exploit called?",
        "What security issues are open in SEC?",
        "SILVERFOX exploit",
        "Can anyone replay refunds through the payout API?",
    ],
    "PELICAN": [
        "What is the root password in the deploy script?",
        "Are there hardcoded credentials in the vault repository?",
        "PELICAN password",
        "What secrets are in the deploy script?",
        "What issues are open in the vault repository?",
    ],
    "TANGERINE": [
        "What rating did Carol get in her performance review?",
        "What is Carol's bonus code?",
        "What did Alice write to Bob about Carol?",
        "TANGERINE bonus",
        "Was Carol's performance rated exceeds expectations?",
    ],
}
PRINCIPALS = ("alice", "bob", "carol")


def hidden_from(person: str) -> dict[str, str]:
    """Code word -> ref of every secret this person may not read."""
    return {word: ref for word, (ref, readers) in SECRETS.items() if person not in readers}


def _user(key: str) -> dict[str, Any]:
    name, email, slack_id, _, _ = PEOPLE[key]
    return {"id": slack_id, "name": key, "real_name": name, "profile": {"real_name": name, "email": email}}


def slack_fake() -> SlackFake:
    def msg(user: str, ts: str, text: str) -> dict[str, Any]:
        return {"type": "message", "user": PEOPLE[user][2], "ts": ts, "text": text}

    everyone = [PEOPLE[p][2] for p in PEOPLE]
    channels = [
        {"id": "C0GEN", "name": "general", "is_channel": True, "is_private": False, "is_member": True,
         "members": everyone},
        {"id": "C0LEAD", "name": "leadership", "is_channel": True, "is_private": True, "is_member": True,
         "members": [PEOPLE["alice"][2], PEOPLE["dana"][2]]},
        {"id": "G0BANDS", "name": "mpdm-bob--carol-1", "is_mpim": True, "is_private": True, "is_member": True,
         "members": [PEOPLE["bob"][2], PEOPLE["carol"][2]]},
    ]  # fmt: skip
    messages = {
        "C0GEN": [
            msg("dana", "1781000000.000100", "The team offsite is in Lisbon on 12 May, everyone is invited."),
            msg("carol", "1781000050.000100", "The payout API latency dashboard is live for everyone to use."),
        ],
        "C0LEAD": [
            msg("dana", "1781000100.000100", "The reorg codename is BLUEHERON: we move the payments team under "
                "Priya in March, keep it quiet until the announcement."),
        ],
        "G0BANDS": [
            msg("bob", "1781000200.000100", "My salary band is QUARTZLINE now, Carol, the pay band review went well."),
        ],
    }  # fmt: skip
    return SlackFake(users=[_user(p) for p in PEOPLE], channels=channels, messages=messages, page_size=50)


def _wiki_user(key: str) -> dict[str, Any]:
    name, email, _, account, _ = PEOPLE[key]
    return {"type": "known", "accountId": account, "displayName": name, "publicName": key, "email": email}


def wiki_pages() -> list[dict[str, Any]]:
    def page(pid: str, title: str, body: str, ancestors: list[str], **extra: Any) -> dict[str, Any]:
        author = _wiki_user("dana")
        return {
            "id": pid,
            "type": "page",
            "status": "current",
            "title": title,
            "space": {"id": 1, "key": "ENG", "name": "Engineering", "type": "global"},
            "history": {"latest": True, "createdBy": author, "createdDate": "2026-06-01T08:00:00.000Z"},
            "version": {"by": author, "when": "2026-06-02T09:00:00.000Z", "number": 1},
            "ancestors": [{"id": a, "title": f"page {a}"} for a in ancestors],
            "body": {"storage": {"value": body, "representation": "storage"}},
            "_links": {"webui": f"/spaces/ENG/pages/{pid}"},
            **extra,
        }

    only_bob = {
        "read": {
            "operation": "read",
            "restrictions": {"user": {"results": [_wiki_user("bob")], "size": 1}, "group": {"results": [], "size": 0}},
        }
    }
    return [
        page("2001", "Incident postmortem", "<p>The payout outage was caused by a full disk on the ledger host.</p>",
             []),
        page("2002", "Acquisition plan", "<p>We are acquiring Nimbus Labs for 40 million, codename MARIGOLD.</p>",
             [], restrictions=only_bob),
        page("2003", "Due diligence checklist", "<p>The due diligence checklist: the ledger audit ORCHID comes "
             "first.</p>", ["2002"]),
    ]  # fmt: skip


def _jira_user(key: str) -> dict[str, Any]:
    name, email, _, account, _ = PEOPLE[key]
    return {"accountId": f"jira-{account}", "displayName": name, "emailAddress": email, "active": True}


def jira_fake() -> JiraFake:
    def issue(num: int, summary: str, text: str, **fields: Any) -> dict[str, Any]:
        body = {"type": "doc", "version": 1, "content": [{"type": "paragraph", "content": [{"type": "text",
                "text": text}]}]}  # fmt: skip
        return {
            "id": str(10000 + num),
            "key": f"SEC-{num}",
            "fields": {
                "summary": summary,
                "description": body,
                "status": {"name": "Open", "statusCategory": {"key": "new", "name": "To Do"}},
                "issuetype": {"name": "Bug"},
                "project": {"id": "10000", "key": "SEC", "name": "Security"},
                "reporter": _jira_user("dana"),
                "creator": _jira_user("dana"),
                "created": "2026-06-03T10:00:00.000+0000",
                "updated": "2026-06-03T10:00:00.000+0000",
                "comment": {"comments": []},
                **fields,
            },
            "changelog": {"histories": []},
        }

    issues = [
        issue(1, "Rotate the TLS certificates", "The TLS certificates for the status page expire in July."),
        issue(2, "Payout API vulnerability", "A vulnerability in the payout API lets anyone replay refunds; the "
              "exploit is called SILVERFOX.", security={"id": "10100", "name": "Security team"}),
    ]  # fmt: skip
    fake = JiraFake(issues={i["key"]: i for i in issues})
    fake.roles = {"SEC": {"Developers": [_jira_user(p) for p in PRINCIPALS]}}
    fake.security_levels = {"10100": [{"type": "user", "user": _jira_user("carol"), "parameter": "jira-acc-carol"}]}
    return fake


def github_repos() -> dict[str, dict[str, Any]]:
    def repo(name: str, private: bool, issues: list[dict[str, Any]], collaborators: list[str]) -> dict[str, Any]:
        return {
            "repo": {"id": len(name), "name": name, "full_name": f"acme/{name}", "private": private,
                     "owner": {"login": "acme", "type": "Organization"}, "html_url": f"https://github.com/acme/{name}",
                     "default_branch": "main"},
            "issues": issues,
            "collaborators": [{"login": PEOPLE[c][4], "id": n, "type": "User"} for n, c in enumerate(collaborators)],
        }  # fmt: skip

    def issue(number: int, title: str, body: str) -> dict[str, Any]:
        user = {"login": PEOPLE["dana"][4], "id": 9, "type": "User"}
        return {"id": number, "number": number, "title": title, "body": body, "user": user, "state": "open",
                "labels": [], "comments": 0, "created_at": "2026-06-04T09:00:00Z", "updated_at": "2026-06-04T09:00:00Z",
                "html_url": f"https://github.com/acme/x/issues/{number}"}  # fmt: skip

    return {
        "acme/website": repo("website", False, [issue(3, "Footer links are broken", "The footer links 404.")], []),
        "acme/vault": repo(
            "vault",
            True,
            [issue(7, "Hardcoded root password", "The deploy script hardcodes the root password PELICAN.")],
            ["alice"],
        ),
    }


MBOX = """From alice@acme.example Fri Jun  5 10:00:00 2026
From: Alice Chen <alice@acme.example>
To: Bob Diaz <bob@acme.example>
Subject: Performance review for Carol
Date: Fri, 05 Jun 2026 10:00:00 +0000
Message-ID: <review-1@acme.example>

Bob, Carol's performance review rating is exceeds expectations; her bonus code is TANGERINE.

From dana@acme.example Fri Jun  5 11:00:00 2026
From: Dana Reyes <dana@acme.example>
To: Alice Chen <alice@acme.example>, Bob Diaz <bob@acme.example>, Carol Park <carol@acme.example>
Subject: Team lunch
Date: Fri, 05 Jun 2026 11:00:00 +0000
Message-ID: <lunch-1@acme.example>

Team lunch is on Thursday at noon.
"""


@dataclass
class Scenario:
    config: Path
    slack: SlackFake
    github: github_fake.FakeGitHub


@pytest.fixture
def scenario(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Scenario]:
    monkeypatch.setenv("SLACK_TOKEN", SLACK_TOKEN)
    monkeypatch.setenv("ATL_USER", "bot@acme.example")
    monkeypatch.setenv("ATL_TOKEN", "atl-secret-token")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_test_token")
    (tmp_path / "mail.mbox").write_text(MBOX, encoding="utf-8")
    with ExitStack() as stack:
        slack = slack_fake()
        slack_url = slack.start()
        stack.callback(slack.stop)
        jira = jira_fake()
        jira_url = jira.start()
        stack.callback(jira.stop)
        confluence = wiki_fake.FakeConfluence(wiki_pages(), {}, user="bot@acme.example", token="atl-secret-token")
        confluence.space_permissions = {
            "ENG": [
                {
                    "operation": {"operation": "read", "targetType": "space"},
                    "subjects": {"user": {"results": [_wiki_user(p) for p in PEOPLE], "size": 4}},
                }
            ]
        }
        stack.enter_context(wiki_fake.serve(confluence))
        github = stack.enter_context(github_fake.serve(github_fake.FakeGitHub(github_repos())))
        config = tmp_path / "brief.toml"
        config.write_text(
            f"""[workspace]
name = "access"
owner = "dana@acme.example"

[people.aliases]
# GitHub lists collaborators by login only: the directory joins them to people by alias.
"Alice Chen" = ["alice-chen"]
"Bob Diaz" = ["bob-diaz"]
"Carol Park" = ["carol-park"]
"Dana Reyes" = ["dana-reyes"]

[sources.chat]
type = "slack"
base_url = "{slack_url}"
token_env = "SLACK_TOKEN"
include_private = true
include_dms = true

[sources.tracker]
type = "jira"
base_url = "{jira_url}"
cloud = true
user_env = "ATL_USER"
token_env = "ATL_TOKEN"
projects = ["SEC"]

[sources.wiki]
type = "confluence"
base_url = "{confluence.base_url}"
user_env = "ATL_USER"
token_env = "ATL_TOKEN"
spaces = ["ENG"]

[sources.code]
type = "github"
base_url = "{github.api}"
token_env = "GITHUB_TOKEN"
repos = ["acme/website", "acme/vault"]

[sources.mail]
type = "email"
path = "mail.mbox"
""",
            encoding="utf-8",
        )
        brief(config, "ingest")
        yield Scenario(config=config, slack=slack, github=github)


def brief(config: Path, *args: str) -> Any:
    result = runner.invoke(app, ["--config", str(config), *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout) if "--json" in args or "json" in args else result.stdout


def _without_question(value: Any, question: str) -> Any:
    """The output less the asker's own words (the echoed question, what was extracted from it)."""
    if isinstance(value, dict):
        return {k: _without_question(v, question) for k, v in value.items() if k not in ("question", "constraints")}
    if isinstance(value, list):
        return [_without_question(v, question) for v in value]
    return "" if value == question else value


def leaks(output: Any, hidden: dict[str, str], question: str = "") -> list[str]:
    """Every hidden code word or ref found anywhere in a command's output (answer, hits, citations, trace)."""
    text = json.dumps(_without_question(output, question)) if not isinstance(output, str) else output
    return sorted(w for w, ref in hidden.items() if re.search(re.escape(w), text, re.IGNORECASE) or ref in text)


def test_no_principal_sees_hidden_evidence_and_the_owner_sees_everything(scenario: Scenario) -> None:
    config = scenario.config
    asked = 0
    for person in PRINCIPALS:
        hidden = hidden_from(person)
        assert hidden, person
        for word in hidden:
            for question in QUESTIONS[word]:
                result = brief(config, "ask", question, "--as", PEOPLE[person][1], "--json", "--show-trace",
                               "--now", NOW)  # fmt: skip
                asked += 1
                assert leaks(result, hidden, question) == [], (person, question)
                assert result["trace"]["access"]["principal"] == PEOPLE[person][0]
                found = brief(config, "search", question, "--as", person, "--json", "--show-trace", "--now", NOW)
                assert leaks(found, hidden, question) == [], (person, question)
        # What they may read is still found: the secrets shared with them are answered from their source.
        for word, (ref, readers) in SECRETS.items():
            if person in readers:
                found = brief(config, "search", QUESTIONS[word][0], "--as", person, "--json", "--now", NOW)
                assert ref in {r for hit in found["hits"] for r in hit["refs"]}, (person, word)
    assert asked >= 50

    # The owner (no --as; [workspace] owner) finds every secret.
    for word, (ref, _) in SECRETS.items():
        found = brief(config, "search", QUESTIONS[word][0], "--json", "--now", NOW)
        assert ref in {r for hit in found["hits"] for r in hit["refs"]}, word
    asked_owner = brief(config, "ask", "What is the reorg codename?", "--json", "--show-trace", "--now", NOW)
    assert "BLUEHERON" in asked_owner["answer"]
    assert "owner" in asked_owner["trace"]["access"]["scope"]


def test_digests_timelines_and_source_counts_are_per_principal(scenario: Scenario) -> None:
    config = scenario.config
    window = ["--since", "2026-05-01", "--until", "2026-06-20", "--now", NOW]
    owner_digest = brief(config, "digest", *window, "--format", "json")
    owner_refs = {
        r for s in owner_digest["sections"] for line in s["lines"] for c in line["citations"] for r in c["refs"]
    }
    assert {ref for ref, _ in SECRETS.values()} <= owner_refs
    owner_counts = {s["name"]: s["last_run"]["chunks"] for s in brief(config, "sources", "--json")["sources"]}
    for person in PRINCIPALS:
        hidden = hidden_from(person)
        digest = brief(config, "digest", *window, "--format", "json", "--as", person)
        assert leaks(digest, hidden) == [], person
        assert digest["sections"], person  # they do see their own team's work
        for word in hidden:
            timeline = brief(config, "timeline", word, "--format", "json", "--as", person, "--now", NOW)
            assert leaks(timeline, hidden, word) == [], (person, word)
        sources = brief(config, "sources", "--json", "--as", person)["sources"]
        counts = {s["name"]: s["last_run"]["chunks"] for s in sources}
        assert all(counts[name] <= owner_counts[name] for name in counts)
        assert counts != owner_counts
        assert all("failure_samples" not in s["last_run"] for s in sources)


def test_a_digest_names_only_the_channels_its_reader_may_read(scenario: Scenario) -> None:
    """The "no such channel" error lists channels; a private channel's name only to its readers, and a direct
    message's name (who talks privately with whom) to nobody, its own members and the owner included."""
    names: dict[str, set[str]] = {"alice": {"leadership"}, "bob": set(), "carol": set()}
    args = ["--config", str(scenario.config), "digest", "--channel", "no-such-channel", "--now", NOW]
    owner = runner.invoke(app, args)
    assert owner.exit_code == 10 and "leadership" in owner.output and "mpdm-bob--carol-1" not in owner.output
    assert "general" in owner.output
    named = runner.invoke(app, [*args[:4], "mpdm-bob--carol-1", *args[5:], "--as", "bob", "--format", "json"])
    assert named.exit_code == 0, named.output  # typed exactly, a DM its member reads still resolves
    for person in PRINCIPALS:
        result = runner.invoke(app, [*args, "--as", person])
        assert result.exit_code == 10, result.output
        shown = {name for name in ("leadership", "mpdm-bob--carol-1") if name in result.output}
        assert shown == names[person], (person, result.output)


def test_an_unknown_principal_is_an_input_error_and_mcp_is_pinned_to_one(scenario: Scenario) -> None:
    from briefing.errors import InputError
    from briefing.mcp_server import BriefTools
    from briefing.settings import load_settings

    result = runner.invoke(app, ["--config", str(scenario.config), "ask", "reorg?", "--as", "mallory@evil.example"])
    assert result.exit_code == 10, result.output
    assert "mallory@evil.example" in result.output

    # `brief mcp --as carol`: every tool reads as Carol; a hidden ref is as absent as one that never existed.
    settings = load_settings(scenario.config)
    settings.acting_as = "carol"
    tools = BriefTools(settings)
    try:
        hidden = hidden_from("carol")
        for word, ref in hidden.items():
            assert leaks(tools.search(QUESTIONS[word][0], now=NOW), hidden) == []
            with pytest.raises(InputError) as gone:
                tools.get_item(ref, now=NOW)
            assert str(gone.value).startswith("nothing indexed under")
        assert tools.get_item(SECRETS["SILVERFOX"][0], now=NOW)["chunks"]  # hers to read
        assert all("failures" not in row for row in tools.list_sources()["sources"])
    finally:
        tools.close()


def test_a_membership_change_upstream_takes_effect_on_the_next_sync(scenario: Scenario) -> None:
    config = scenario.config
    question = ["search", "What is the reorg codename?", "--as", "alice", "--json", "--now", NOW]
    assert SECRETS["BLUEHERON"][0] in {r for h in brief(config, *question)["hits"] for r in h["refs"]}
    vault = ["search", "hardcoded root password in the deploy script", "--as", "alice", "--json", "--now", NOW]
    assert SECRETS["PELICAN"][0] in {r for h in brief(config, *vault)["hits"] for r in h["refs"]}

    # Alice leaves #leadership and loses her access to the vault repository; nothing else changes.
    lead = next(c for c in scenario.slack.channels if c["id"] == "C0LEAD")
    lead["members"] = [PEOPLE["dana"][2]]
    scenario.github.repos["acme/vault"]["collaborators"] = []
    brief(config, "ingest", "chat")
    brief(config, "ingest", "code")

    after = brief(config, *question)
    assert leaks(after, {"BLUEHERON": SECRETS["BLUEHERON"][0]}) == []
    assert leaks(brief(config, *vault), {"PELICAN": SECRETS["PELICAN"][0]}) == []
    # The owner still sees both, so nothing was deleted: only the readers changed.
    owner = brief(config, "search", "What is the reorg codename?", "--json", "--now", NOW)
    assert SECRETS["BLUEHERON"][0] in {r for h in owner["hits"] for r in h["refs"]}


def test_a_direct_messages_name_is_never_a_listed_one() -> None:
    """A 1:1 DM is named after its two people; the Slack descriptor keeps such names out of every list."""
    import re

    from connectors.slack import API, EXPORT
    from connectors.slack.normalise import channel_name

    name = channel_name({"id": "D0AD", "members": ["U1", "U2"]}, {"U1": "Alice Chen", "U2": "Dana Reyes"})
    assert name == "dm-Alice Chen-Dana Reyes"
    for descriptor in (API, EXPORT):
        assert re.fullmatch(descriptor.unlisted_containers, name)
        assert re.fullmatch(descriptor.unlisted_containers, "mpdm-bob--carol-1")
        assert not re.fullmatch(descriptor.unlisted_containers, "general")
