"""External suite families about markup: Markdown files, Confluence storage, Jira ADF and Slack messages."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from extsuite import squash, text_checks

from briefing.model import Chunk, ChunkLimits, Document, Item, RawRecord
from chunkers.documents import chunk_document
from connectors.confluence.storage import storage_to_markdown
from connectors.files.documents import file_document
from connectors.files.markdown import split_front_matter
from connectors.jira.adf import adf_to_text
from connectors.slack.export import SlackExportConnector
from connectors.slack.mrkdwn import message_text, render_mrkdwn
from connectors.slack.normalise import normalise_records

# The files source's document limits (connectors.files DESCRIPTOR).
_FILE_LIMITS = ChunkLimits(max_chars=1000, max_items=12, gap_seconds=4 * 3600, topic_threshold=0.15)
_TAG = re.compile(r"</?[A-Za-z][\w:-]*(?:\s[^<>]*)?/?>")


def confluence_storage(case: dict[str, Any], suite: Path) -> list[str]:
    """The page body as the Confluence source renders it (storage format -> Markdown)."""
    return text_checks(storage_to_markdown(case["input"], case.get("users") or {}), case["checks"])


def jira_adf(case: dict[str, Any], suite: Path) -> list[str]:
    """An ADF document (or node) as the Jira source renders descriptions and comments."""
    node = case["input"]
    if isinstance(node, dict) and node.get("type") != "doc":
        node = {"type": "doc", "version": 1, "content": [node]}
    return text_checks(adf_to_text(node), case["checks"])


# -- Markdown --------------------------------------------------------------------------------------------------


def _markdown_chunks(source: str) -> tuple[Document, list[Chunk]]:
    record = RawRecord(key="doc.md", kind="file", data={"path": "doc.md", "format": "markdown", "content": source})
    document = file_document(record)
    return document, chunk_document(document, limits=_FILE_LIMITS)


def _plain(text: str) -> str:
    """A heading as a reader sees it: no emphasis or escape characters, whitespace squashed."""
    return squash(re.sub(r"[*_`\\]", "", text))


def _first_h1(source: str) -> str:
    """The document's first H1 (ATX or setext) as CommonMark reads it, as a reader sees it."""
    from markdown_it import MarkdownIt

    _, body, _ = split_front_matter(source)
    tokens = MarkdownIt("commonmark").parse(body)
    for n, token in enumerate(tokens[:-1]):
        if token.type == "heading_open" and token.tag == "h1":
            return _plain("".join(c.content or " " for c in tokens[n + 1].children or []))
    return ""


def _prose(text: str) -> str:
    """The text outside code: no fenced blocks, no lines indented as code."""
    text = re.sub(r"(?ms)^(```|~~~).*?^\1", "", text)
    return "\n".join(line for line in text.splitlines() if not line.startswith("    "))


def markdown(case: dict[str, Any], suite: Path) -> list[str]:
    """The file through the files source (front matter, clean-up, title) and its chunker; checks on the chunks."""
    checks = case["checks"]
    document, chunks = _markdown_chunks(case["input"])
    body = "\n\n".join(c.text for c in chunks)
    flat = squash(body)
    headings = {_plain(h) for c in chunks for h in str(c.metadata.get("section_path", "")).split(" > ") if h}
    headings.discard("doc")  # the file name, the title of a document without a heading
    failed: list[str] = []
    for word in checks.get("words") or []:
        if squash(word) not in flat:
            failed.append(f"missing word {word!r}")
    # A heading is kept as a section's name or, where small sections share a chunk, as a heading line in it.
    headings |= {_plain(m[1]) for c in chunks for m in re.finditer(r"(?m)^#{1,6}\s+(.+?)\s*$", c.text)}
    for heading in checks.get("headings") or []:
        if _plain(heading) not in headings:
            failed.append(f"no section headed {heading!r} (has {sorted(headings)[:5]})")
    if checks.get("no_headings") and headings:
        failed.append(f"sections headed {sorted(headings)[:5]} where the source has none")
    raw = [line for c in chunks for line in c.text.splitlines()]
    lines = {line.strip() for line in raw} | {re.sub(r"^(?:\s*>)+", "", line).strip() for line in raw}
    for line in checks.get("code_lines") or []:
        if line.strip() not in lines:
            failed.append(f"code line {line!r} not kept")
    for code in checks.get("code_exact") or []:
        if code not in body:
            failed.append(f"code {code[:60]!r} not kept exactly")
    tag = _TAG.search(_prose(body))
    if checks.get("no_tags") and tag:
        failed.append(f"markup left: {tag[0]!r}")
    for hidden in [*(checks.get("hidden_text") or []), *(checks.get("not_in_text") or [])]:
        if hidden in body:
            failed.append(f"shows hidden {hidden!r}")
    title = document.title
    if checks.get("title_is_h1_or_stem") and _plain(title) not in {_first_h1(case["input"]), "doc"}:
        failed.append(f"title {title!r} is neither the first H1 {_first_h1(case['input'])!r} nor the file name")
    if checks.get("title_equals") is not None and title != checks["title_equals"]:
        failed.append(f"title {title!r} != {checks['title_equals']!r}")
    if checks.get("title_not") is not None and title == checks["title_not"]:
        failed.append(f"title is {title!r}")
    front = document.metadata.get("front_matter") or {}
    for key in checks.get("front_keys") or []:
        if key not in front:
            failed.append(f"front matter key {key!r} not kept")
    if checks.get("table_one_chunk"):
        words = checks.get("words") or []
        if not any(all(w in c.text for w in words) for c in chunks):
            failed.append("the table is cut across chunks")
    return failed


# -- Slack -------------------------------------------------------------------------------------------------------


def _slack_records(data: dict[str, Any], messages: list[dict[str, Any]]) -> list[RawRecord]:
    channel = data.get("channel") or {"id": "C1", "name": "general"}
    records = [RawRecord(key=f"user:{u['id']}", kind="user", data=u) for u in data.get("users") or []]
    records.append(RawRecord(key=f"channel:{channel['id']}", kind="channel", data=channel))
    tag = {"id": channel["id"], "name": channel.get("name", "")}
    for n, message in enumerate(messages):
        records.append(RawRecord(key=f"{channel['id']}:{n}", kind="message", data={**message, "_channel": tag}))
    return records


def _export(folder: Path) -> tuple[list[Document], int, int]:
    """An export folder through the export source: its documents, people and failures."""
    connector = SlackExportConnector(folder)
    records: list[RawRecord] = []
    failures = 0
    for batch in connector.fetch(connector.initial_cursor()):
        records.extend(batch.records)
        failures += len(batch.failures)
    out = connector.normalise(records)
    return out.documents, len(out.people), failures + len(out.failures)


def _item_checks(items: list[Item], checks: dict[str, Any]) -> list[str]:
    failed: list[str] = []
    authors = [i.author for i in items]
    text = "\n".join(i.text for i in items)
    if checks.get("no_item") and items:
        failed.append(f"{len(items)} items where a notice carries none")
    if "items" in checks and len(items) != checks["items"]:
        failed.append(f"{len(items)} items != {checks['items']}")
    if "author_equals" in checks and authors[:1] != [checks["author_equals"]]:
        failed.append(f"author {authors[:1]} != {checks['author_equals']!r}")
    if "author_not" in checks and any(a in checks["author_not"] for a in authors[:1]):
        failed.append(f"author is {authors[:1]}")
    for name in checks.get("authors_include") or []:
        if name not in authors:
            failed.append(f"no item by {name!r} (authors {authors})")
    if "edited_equals" in checks and [i.metadata.get("edited") for i in items[:1]] != [checks["edited_equals"]]:
        failed.append(f"edited {[i.metadata.get('edited') for i in items[:1]]} != {checks['edited_equals']}")
    for phrase, most in (checks.get("max_occurrences") or {}).items():
        if text.count(phrase) > most:
            failed.append(f"{phrase!r} {text.count(phrase)} times (at most {most})")
    return failed


def _export_checks(docs: list[Document], people: int, failures: int, checks: dict[str, Any]) -> list[str]:
    failed: list[str] = []
    containers = {d.container for d in docs}
    for name in [*(checks.get("channels") or []), *(checks.get("containers_must") or [])]:
        if name not in containers:
            failed.append(f"no conversation {name!r} (has {sorted(containers)[:6]})")
    if "people" in checks and people != checks["people"]:
        failed.append(f"{people} people != {checks['people']}")
    if "failures" in checks and failures != checks["failures"]:
        failed.append(f"{failures} failures != {checks['failures']}")
    threads = sum(1 for d in docs if d.kind == "thread" or any(i.thread for i in d.items))
    if "thread_docs_min" in checks and threads < checks["thread_docs_min"]:
        failed.append(f"{threads} thread documents < {checks['thread_docs_min']}")
    for pattern in checks.get("container_regex") or []:
        if not any(re.search(pattern, c) for c in containers):
            failed.append(f"no conversation matching /{pattern}/ (has {sorted(containers)[:6]})")
    for pattern in checks.get("container_not_regex") or []:
        if any(re.search(pattern, c) for c in containers):
            failed.append(f"a conversation matches /{pattern}/")
    return failed


def slack(case: dict[str, Any], suite: Path) -> list[str]:
    """mrkdwn through the renderer; blocks and attachments as one message's text; messages and exports through
    the normaliser the Slack sources share (items, authors, edits, conversations)."""
    kind, data, checks = case["kind"], case["input"], case["checks"]
    if kind == "mrkdwn":
        return text_checks(render_mrkdwn(data["text"], data.get("users"), data.get("channels")), checks)
    if kind in ("blocks", "attachments"):
        message = {"type": "message", "ts": "1.0", kind: data[kind]}
        return text_checks(message_text(message, data.get("users") or {}, data.get("channels") or {}), checks)
    if kind == "export":
        docs, people, failures = _export(suite / data["folder"])
        items = [i for d in docs for i in d.items]
        failed = _export_checks(docs, people, failures, checks)
    else:
        messages = [data["message"]] if kind == "message" else data["messages"]
        docs = normalise_records(_slack_records(data, messages)).documents
        items = [i for d in docs for i in d.items]
        failed = []
    return failed + _item_checks(items, checks) + text_checks("\n".join(i.text for i in items), checks)


RUNNERS = {"markdown": markdown, "confluence_storage": confluence_storage, "jira_adf": jira_adf, "slack": slack}
