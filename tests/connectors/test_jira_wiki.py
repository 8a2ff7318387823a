"""JIRA Server/Data Center wiki markup reaches answers as the same plain text as Cloud's ADF, not as raw markup."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from briefing.model import RawRecord
from connectors.jira.adf import adf_to_text
from connectors.jira.normalise import normalise_issues
from connectors.jira.wiki import wiki_to_text

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "jira-timob" / "issues.json"
BODY = (
    "h3. Steps to reproduce\r\n"
    "Run *titanium build* with [the guide|https://docs.example.org/guide] as [~jdoe] said:\r\n"
    "{code:java}\r\nint *x* = 1; // [not|a link]\r\n{code}\r\n"
    "{noformat}\r\n[ERROR] *raw*\r\n{noformat}\r\n"
    "{quote}It worked in 5.0{quote}\r\n"
    "# first step\r\n# second step\r\n"
    "* a bullet\r\n"
)


def test_each_construct_is_rendered_like_adf() -> None:
    text = wiki_to_text(BODY, {"jdoe": "Jane Doe"})
    assert text.startswith("### Steps to reproduce\n")
    assert "Run titanium build with the guide (https://docs.example.org/guide) as @Jane Doe said:" in text
    assert "```java\nint *x* = 1; // [not|a link]\n```" in text  # code is kept exactly
    assert "```\n[ERROR] *raw*\n```" in text
    assert "> It worked in 5.0" in text
    assert "1. first step\n2. second step" in text and "- a bullet" in text
    assert not re.search(r"\{(?:code|noformat|quote)|\[~|h3\.|\*titanium", text)


def test_the_same_document_reads_the_same_from_adf_and_from_wiki_markup() -> None:
    adf = {
        "type": "doc",
        "content": [
            {"type": "heading", "attrs": {"level": 3}, "content": [{"type": "text", "text": "Plan"}]},
            {"type": "paragraph", "content": [
                {"type": "text", "text": "See ", "marks": []},
                {"type": "text", "text": "the doc", "marks": [{"type": "link", "attrs": {"href": "https://x.example/d"}}]},
                {"type": "text", "text": " now", "marks": [{"type": "strong"}]},
            ]},
        ],
    }  # fmt: skip
    assert wiki_to_text("h3. Plan\n\nSee [the doc|https://x.example/d] *now*") == adf_to_text(adf)


def test_plain_text_and_unreadable_markup_are_kept() -> None:
    assert wiki_to_text("no markup at all, 3 * 4 = 12") == "no markup at all, 3 * 4 = 12"
    assert "unclosed code block" in wiki_to_text("{code}\nunclosed code block")


def test_a_server_source_renders_markup_only_when_its_config_says_so() -> None:
    issue = {
        "key": "TIMOB-1",
        "fields": {
            "summary": "Build fails",
            "created": "2016-01-01T00:00:00.000+0000",
            "updated": "2016-01-02T00:00:00.000+0000",
            "description": "*Steps*\n{code}\nti build\n{code}",
            "comment": {"comments": []},
        },
    }
    records = [RawRecord("TIMOB-1", "jira_issue", issue)]
    raw = normalise_issues(records, base_url="https://jira.example.org").documents[0].items[0].text
    rendered = normalise_issues(records, base_url="https://jira.example.org", render_wiki=True).documents[0]
    assert raw.startswith("*Steps*") and rendered.items[0].text == "Steps\n\n```\nti build\n```"


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.exists(), reason="the jira-timob corpus is not on this machine")
def test_real_server_bodies_lose_their_markup() -> None:
    """Over real Server bodies: at most 5% of the markup constructs outside code survive."""
    pattern = re.compile(r"(?m)\{(?:quote|panel|color)[^}]*\}|\[[^\]\n|]+\|[^\]\n]+\]|^h[1-6]\. |\[~[^\]]+\]")
    issues = json.loads(CORPUS.read_text(encoding="utf-8"))
    bodies = [i["fields"]["description"] for i in issues if isinstance(i["fields"].get("description"), str)]
    bodies = [b for b in bodies if pattern.search(b) and len(b) < 3000][:25]
    before = sum(len(pattern.findall(b)) for b in bodies)
    after = sum(len(pattern.findall(re.sub(r"```.*?```", "", wiki_to_text(b), flags=re.S))) for b in bodies)
    assert before > 25 and after <= before * 0.05
