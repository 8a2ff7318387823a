"""Atlassian Document Format to plain text: the node types JIRA Cloud descriptions and comments use."""

from __future__ import annotations

from typing import Any

from connectors.jira.adf import adf_to_text


def doc(*content: Any) -> dict[str, Any]:
    return {"type": "doc", "version": 1, "content": list(content)}


def para(*inline: Any) -> dict[str, Any]:
    return {"type": "paragraph", "content": list(inline)}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def item(*content: Any) -> dict[str, Any]:
    return {"type": "listItem", "content": list(content)}


def test_nested_and_ordered_lists_keep_their_structure() -> None:
    nested = {"type": "bulletList", "content": [item(para(text("inner")))]}
    tree = doc(
        {
            "type": "orderedList",
            "attrs": {"order": 3},
            "content": [item(para(text("first")), nested), item(para(text("second")))],
        }
    )
    assert adf_to_text(tree) == "3. first\n  - inner\n4. second"


def test_tasks_tables_quotes_and_inline_nodes() -> None:
    tree = doc(
        {
            "type": "taskList",
            "content": [
                {"type": "taskItem", "attrs": {"state": "DONE"}, "content": [text("write runbook")]},
                {"type": "taskItem", "attrs": {"state": "TODO"}, "content": [text("dry run")]},
            ],
        },
        {
            "type": "table",
            "content": [
                {
                    "type": "tableRow",
                    "content": [
                        {"type": "tableHeader", "content": [para(text("env"))]},
                        {"type": "tableCell", "content": [para(text("state"))]},
                    ],
                },
            ],
        },
        {"type": "blockquote", "content": [para(text("quoted"))]},
        para(
            {"type": "status", "attrs": {"text": "BLOCKED"}},
            text(" since "),
            {"type": "date", "attrs": {"timestamp": "1780617600000"}},
            {"type": "hardBreak"},
            {"type": "emoji", "attrs": {"shortName": ":tada:", "text": "🎉"}},
            {"type": "inlineCard", "attrs": {"url": "https://github.example/pr/1"}},
        ),
        {"type": "someFutureNode", "content": [para(text("kept anyway"))]},
    )
    assert adf_to_text(tree) == (
        "[x] write runbook\n[ ] dry run\n\n| env | state |\n\n> quoted\n\n"
        "[BLOCKED] since 2026-06-05\n🎉https://github.example/pr/1\n\nkept anyway"
    )


def test_plain_strings_and_empty_values_pass_through() -> None:
    assert adf_to_text("h2. Wiki markup stays") == "h2. Wiki markup stays"
    assert adf_to_text(None) == ""
    assert adf_to_text(doc()) == ""


def test_media_single_keeps_its_caption() -> None:
    media = {
        "type": "mediaSingle",
        "attrs": {"layout": "center"},
        "content": [
            {"type": "media", "attrs": {"type": "file", "id": "f-1", "collection": "c", "alt": "latency.png"}},
            {
                "type": "caption",
                "content": [
                    text("p99 latency after the "),
                    {"type": "text", "text": "cache", "marks": [{"type": "code"}]},
                    text(" fix"),
                ],
            },
        ],
    }
    assert adf_to_text(doc(para(text("Before and after:")), media)) == (
        "Before and after:\n\n[attachment: latency.png] p99 latency after the `cache` fix"
    )


def test_nested_expand_in_a_table_keeps_its_title() -> None:
    cell = {
        "type": "tableCell",
        "content": [
            {
                "type": "nestedExpand",
                "attrs": {"title": "Rollback steps"},
                "content": [para(text("Revert the flag"))],
            }
        ],
    }
    table = {
        "type": "table",
        "content": [{"type": "tableRow", "content": [{"type": "tableCell", "content": [para(text("Plan"))]}, cell]}],
    }
    assert adf_to_text(doc(table)) == "| Plan | Rollback steps Revert the flag |"


def test_malformed_attributes_fall_back_instead_of_failing_the_issue() -> None:
    heading = {"type": "heading", "attrs": {"level": "big"}, "content": [text("Plan")]}
    listing = {"type": "orderedList", "attrs": {"order": float("inf")}, "content": [item(para(text("one")))]}
    date = {"type": "date", "attrs": {"timestamp": "9" * 30}}
    assert adf_to_text(doc(heading, listing, para(text("due "), date))) == "# Plan\n\n1. one\n\ndue"
