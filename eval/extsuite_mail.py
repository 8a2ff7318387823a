"""External suite families about mail: reply stripping, MIME fields, threading and Gmail threads."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

from briefing.model import RawRecord
from connectors.email.mime import Parsed, clean_body, html_to_text, parse, raw_to_data
from connectors.email.threads import base_subject, normalise, threads

# -- replies -----------------------------------------------------------------------------------------------------


def _source(case: dict[str, Any], suite: Path) -> bytes:
    if "input_file" in case:
        return Path(suite, str(case["input_file"])).read_bytes()
    return str(case["input"]).encode("utf-8")


def visible_text(case: dict[str, Any], suite: Path) -> str:
    """What the mail sources index of the message: plain text, an HTML body, or a whole .eml through MIME."""
    raw = _source(case, suite)
    if case["kind"] == "eml":
        return parse(raw).body
    text = raw.decode("utf-8", errors="replace")
    return clean_body(html_to_text(text) if case["kind"] == "html" else text.replace("\r\n", "\n"))


def _layout(text: str) -> str:
    """The lines a reader sees: trailing blanks and blank lines aside."""
    return "\n".join(line.rstrip() for line in text.split("\n") if line.strip())


def email_reply(case: dict[str, Any], suite: Path) -> list[str]:
    checks = case["checks"]
    body = visible_text(case, suite).strip()
    failed: list[str] = []
    if "visible" in checks:
        want = str(checks["visible"]).strip()
        if checks.get("ignore_all_whitespace"):
            same = re.sub(r"\s", "", body) == re.sub(r"\s", "", want)
        else:
            same = _layout(body) == _layout(want)
        if not same:
            failed.append(f"visible {body[:120]!r} != {want[:120]!r}")
    for pattern in checks.get("regex") or []:
        if not re.search(pattern, body):
            failed.append(f"no match for /{pattern}/ in {body[:80]!r}")
    for pattern in checks.get("regex_absent") or []:
        if re.search(pattern, body):
            failed.append(f"shows /{pattern}/")
    for want in checks.get("must_contain") or []:
        if " ".join(want.split()) not in " ".join(body.split()):
            failed.append(f"missing {want!r}")
    for unwanted in checks.get("must_not_contain") or []:
        if unwanted in body:
            failed.append(f"shows {unwanted!r}")
    return failed


# -- MIME --------------------------------------------------------------------------------------------------------


def _mime_values(m: Parsed) -> dict[str, Any]:
    return {
        "subject": m.subject,
        "cc": [a for _, a in m.cc],
        "message_id": m.message_id,
        "date": m.date.isoformat() if m.date else None,
        "sender": m.sender,
        "sender_address": m.sender[1],
        "to": [a for _, a in m.to],
        "to_names": [n for n, _ in m.to],
    }


def email_mime(case: dict[str, Any], suite: Path) -> list[str]:
    """The message through the one MIME parser every mail source uses; fields, text and attachments."""
    m = parse(_source(case, suite))
    checks = case["checks"]
    failed: list[str] = []
    values = _mime_values(m)
    for key, got in values.items():
        if key in checks and got != checks[key]:
            failed.append(f"{key} {got!r} != {checks[key]!r}")
    indexed = "\n".join([m.text, *(str(a.get("text", "")) for a in m.attachments)])
    for want in checks.get("text_contains") or []:
        if want not in indexed:
            failed.append(f"text lacks {want!r}")
    if "text_equals" in checks and m.text.strip() != checks["text_equals"].strip():
        failed.append(f"text {m.text.strip()[:80]!r} != {checks['text_equals'][:80]!r}")
    names = [str(a["name"]) for a in m.attachments]
    if "attachments" in checks and sorted(names) != sorted(checks["attachments"]):
        failed.append(f"attachments {names} != {checks['attachments']}")
    for name, want in (checks.get("attachment_text") or {}).items():
        if not any(a["name"] == name and want in str(a.get("text", "")) for a in m.attachments):
            failed.append(f"attachment {name!r} lacks {want[:40]!r}")
    return failed


# -- threading ---------------------------------------------------------------------------------------------------


def _raw(message: dict[str, Any]) -> bytes:
    lines = [f"Message-ID: <{message['id']}>", f"Subject: {message['subject']}", f"Date: {message['date']}"]
    for key, header in (("from", "From"), ("to", "To"), ("references", "References"), ("in_reply_to", "In-Reply-To")):
        if message.get(key):
            lines.append(f"{header}: {message[key]}")
    return ("\n".join(lines) + f"\n\n{message['subject']}\n").encode("utf-8")


def email_threads(case: dict[str, Any], suite: Path) -> list[str]:
    """The messages' headers through the MIME parser and the threading every mail source uses."""
    checks = case["checks"]
    if case.get("kind") == "base_subject":
        got = base_subject(case["input"])
        return [] if got == checks["equals"] else [f"base subject {got!r} != {checks['equals']!r}"]
    if "messages_file" in case:
        messages = json.loads((suite / case["messages_file"]).read_text(encoding="utf-8"))["messages"]
    else:
        messages = case["messages"]
    grouped = [[m.message_id for m in thread] for thread in threads([parse(_raw(m)) for m in messages])]
    where = {mid: n for n, thread in enumerate(grouped) for mid in thread}
    failed: list[str] = []
    for want in checks.get("threads") or []:
        members = grouped[where[want[0]]] if want[0] in where else []
        if set(members) != set(want):
            failed.append(f"thread of {want[0]} is {sorted(set(members))[:8]} != {sorted(set(want))[:8]}")
    for parent, child in checks.get("parent_before_child") or []:
        thread = grouped[where[parent]] if parent in where else []
        if child not in thread or thread.index(parent) > thread.index(child):
            failed.append(f"{parent} not before {child} in one thread")
    for ids in checks.get("apart") or []:
        if len({where.get(i) for i in ids}) != len(ids):
            failed.append(f"{ids} not in separate threads")
    for ids in checks.get("together") or []:
        if len({where.get(i) for i in ids}) != 1:
            failed.append(f"{ids} not in one thread")
    return failed


# -- Gmail -------------------------------------------------------------------------------------------------------


def _part_bytes(part: dict[str, Any], headers: list[tuple[str, str]]) -> bytes:
    """A Gmail API 'full' payload back into the RFC 5322 bytes that format='raw' returns."""
    head = "".join(f"{k}: {v}\r\n" for k, v in headers)
    children = part.get("parts") or []
    if children:
        kind = next((v for k, v in headers if k.lower() == "content-type"), "")
        found = re.search(r'boundary="?([^";]+)"?', kind)
        boundary = found[1] if found else "extsuite-boundary"
        if not found:
            head += f'Content-Type: {part.get("mimeType", "multipart/mixed")}; boundary="{boundary}"\r\n'
        body = b"".join(
            f"--{boundary}\r\n".encode() + _part_bytes(c, [(h["name"], h["value"]) for h in c.get("headers") or []])
            for c in children
        )
        return head.encode() + b"\r\n" + body + f"--{boundary}--\r\n".encode()
    data = base64.urlsafe_b64decode(str((part.get("body") or {}).get("data", "")) + "==")
    if not any(k.lower() == "content-type" for k, _ in headers):
        head += f"Content-Type: {part.get('mimeType', 'text/plain')}; charset=utf-8\r\n"
    head += "Content-Transfer-Encoding: base64\r\n"
    return head.encode() + b"\r\n" + base64.encodebytes(data).replace(b"\n", b"\r\n")


def _edited(headers: list[tuple[str, str]], edits: list[dict[str, Any]], n: int) -> list[tuple[str, str]]:
    for edit in edits:
        if edit.get("messages") is not None and n >= int(edit["messages"]):
            continue
        name = edit["header"].lower()
        headers = [(k, edit["value"] if k.lower() == name else v) for k, v in headers]
    return headers


def gmail(case: dict[str, Any], suite: Path) -> list[str]:
    """A Gmail thread as the Gmail source caches (raw bytes and thread id) and normalises it."""
    thread = json.loads((suite / case["input_file"]).read_text(encoding="utf-8"))
    records = []
    for n, message in enumerate(thread["messages"]):
        payload = message["payload"]
        headers = _edited([(h["name"], h["value"]) for h in payload["headers"]], case.get("edits") or [], n)
        data = {**raw_to_data(_part_bytes(payload, headers)), "thread_id": thread["id"], "gmail_id": message["id"]}
        records.append(RawRecord(key=f"gmail-{n}", kind="message", data=data))
    out = normalise(records, source_type="email")
    checks = case["checks"]
    docs = out.documents
    items = [i for d in docs for i in d.items]
    failed: list[str] = []
    if "documents" in checks and len(docs) != checks["documents"]:
        failed.append(f"{len(docs)} documents != {checks['documents']}")
    if "items" in checks and len(items) != checks["items"]:
        failed.append(f"{len(items)} items != {checks['items']}")
    if "title" in checks and [d.title for d in docs[:1]] != [checks["title"]]:
        failed.append(f"title {[d.title for d in docs[:1]]} != {checks['title']!r}")
    if "latest" in checks and items and max(i.occurred_at for i in items).isoformat() != checks["latest"]:
        failed.append(f"latest {max(i.occurred_at for i in items).isoformat()} != {checks['latest']}")
    people = {p.emails[0]: p.name for p in out.people if p.emails}
    for addr, name in (checks.get("people") or {}).items():
        if people.get(addr) != name:
            failed.append(f"person {addr} is {people.get(addr)!r} != {name!r}")
    first = min(items, key=lambda i: i.occurred_at) if items else None
    to = [(str(n), str(a)) for n, a in (first.metadata.get("to") or [])] if first else []
    if "recipients" in checks and [a for _, a in to] != checks["recipients"]:
        failed.append(f"recipients {[a for _, a in to]} != {checks['recipients']}")
    named = {a: n for n, a in to}
    for addr, name in (checks.get("recipient_names") or {}).items():
        if named.get(addr) != name:
            failed.append(f"recipient {addr} named {named.get(addr)!r} != {name!r}")
    return failed


RUNNERS = {"email_reply": email_reply, "email_mime": email_mime, "email_threads": email_threads, "gmail": gmail}
