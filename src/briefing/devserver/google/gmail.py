"""The fake's Gmail v1: search with Gmail's query operators, profile, labels, raw messages and history."""

from __future__ import annotations

import base64
import email.parser
import email.policy
import re
from datetime import timedelta
from typing import Any

from briefing.devserver.google.shapes import error, page
from briefing.devserver.google.state import JSON, GmailMessage, GoogleFake


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


_TOKEN = re.compile(r'-?\{|\}|-?\(|\)|-?(?:[\w.]+:)?"[^"]*"|[^\s{}()]+')


def _parse(tokens: list[str], pos: int, closer: str | None) -> tuple[tuple[str, list[Any]], int]:
    terms: list[Any] = []
    while pos < len(tokens):
        tok = tokens[pos]
        if closer is not None and tok == closer:
            return ("or" if closer == "}" else "and", terms), pos + 1
        neg = tok.startswith("-") and len(tok) > 1
        body = tok[1:] if neg else tok
        if body in ("{", "("):
            group, pos = _parse(tokens, pos + 1, "}" if body == "{" else ")")
            terms.append(("not", [group]) if neg else group)
            continue
        if tok.upper() == "OR" and terms and pos + 1 < len(tokens):
            nxt, _ = _parse(tokens[pos + 1 : pos + 2], 0, None)
            terms[-1] = ("or", [terms[-1], nxt])
            pos += 2
            continue
        term = ("term", [body])
        terms.append(("not", [term]) if neg else term)
        pos += 1
    return ("and", terms), pos


def _age(value: str) -> timedelta | None:
    found = re.fullmatch(r"(\d+)([dmy])", value.lower())
    if not found:
        return None
    n = int(found.group(1))
    return timedelta(days=n * {"d": 1, "m": 30, "y": 365}[found.group(2)])


def _matches(node: Any, message: GmailMessage, fake: GoogleFake) -> bool:
    kind, args = node
    if kind == "and":
        return all(_matches(a, message, fake) for a in args)
    if kind == "or":
        return any(_matches(a, message, fake) for a in args)
    if kind == "not":
        return not _matches(args[0], message, fake)
    text: str = args[0]
    key, sep, value = text.partition(":")
    value = value.strip('"').lower()
    if not sep:
        value = text.strip('"').lower()
    headers = email.parser.BytesParser(policy=email.policy.default).parsebytes(message.raw)
    names = {lid: name.lower() for lid, name in fake.labels.items()}
    label_names = {names.get(x, x.lower()) for x in message.labels} | {x.lower() for x in message.labels}
    key = key.lower() if sep else ""
    if key == "rfc822msgid":
        return str(headers.get("Message-ID", "")).strip().strip("<>").lower() == value.strip("<>")
    if key in ("from", "to", "subject"):
        return value in str(headers.get(key, "")).lower()
    if key in ("label", "in"):
        return value.replace("-", " ") in {n.replace("-", " ") for n in label_names} or value in label_names
    if key == "category":
        return f"category_{value}" in label_names
    if key in ("newer_than", "older_than"):
        age = _age(value)
        if age is None:
            return False
        newer = message.internal >= fake.now - age
        return newer if key == "newer_than" else not newer
    if key == "has" or key == "is":
        return False
    needle = value if not sep else text.lower()
    return needle in message.raw.decode("utf-8", "replace").lower()


def search(fake: GoogleFake, query: str) -> list[GmailMessage]:
    tree, _ = _parse(_TOKEN.findall(query), 0, None)
    return [m for m in fake.messages.values() if _matches(tree, m, fake)]


def gmail(fake: GoogleFake, path: str, one: dict[str, str], params: dict[str, list[str]]) -> tuple[int, JSON]:
    """The status and body of a GET under `/gmail/v1/users/me` (`path` is the rest)."""
    if path == "/profile":
        return 200, {
            "emailAddress": "manager@kestrelpay.example",
            "messagesTotal": len(fake.messages),
            "historyId": str(fake.history_id),
        }
    if path == "/labels":
        return 200, {
            "labels": [{"id": k, "name": v, "type": "system" if k == v else "user"} for k, v in fake.labels.items()]
        }
    if path == "/messages":
        found = search(fake, one.get("q", "")) if one.get("q") else list(fake.messages.values())
        wanted = params.get("labelIds", [])
        found = [m for m in found if all(x in m.labels for x in wanted)]
        if one.get("includeSpamTrash", "false") != "true":
            found = [m for m in found if not {"TRASH", "SPAM"} & set(m.labels)]
        found.sort(key=lambda m: m.history_id, reverse=True)
        chunk, token = page(found, one, fake.page_size)
        body: JSON = {"resultSizeEstimate": len(found)}
        if chunk:
            body["messages"] = [{"id": m.id, "threadId": m.thread_id} for m in chunk]
        if token:
            body["nextPageToken"] = token
        return 200, body
    if path.startswith("/messages/"):
        message = fake.messages.get(path.rsplit("/", 1)[1])
        if message is None:
            return 404, error(404, "NOT_FOUND", "notFound", "Requested entity was not found.")
        if one.get("format") != "raw":
            return 400, error(400, "INVALID_ARGUMENT", "invalidArgument", "this fake serves format=raw only")
        return 200, {
            "id": message.id,
            "threadId": message.thread_id,
            "labelIds": message.labels,
            "snippet": "",
            "historyId": str(message.history_id),
            "internalDate": str(int(message.internal.timestamp() * 1000)),
            "sizeEstimate": len(message.raw),
            "raw": _b64url(message.raw),
        }
    if path == "/history":
        start = int(one.get("startHistoryId") or 0)
        if start < fake.history_floor:
            return 404, error(404, "NOT_FOUND", "notFound", "Requested entity was not found.")
        kinds = set(params.get("historyTypes", [])) or None
        entries = []
        for entry in fake.history:
            if int(entry["id"]) <= start:
                continue
            if kinds is not None:
                entry = {k: v for k, v in entry.items() if k in ("id", "messages") or _history_type(k) in kinds}
            entries.append(entry)
        chunk, token = page(entries, one, fake.page_size)
        body = {"historyId": str(fake.history_id)}
        if chunk:
            body["history"] = chunk
        if token:
            body["nextPageToken"] = token
        return 200, body
    return 404, error(404, "NOT_FOUND", "notFound", "Not Found")


def _history_type(key: str) -> str:
    """`messagesAdded` (a history record's key) -> `messageAdded` (its `historyTypes` value)."""
    return key.replace("messages", "message").replace("labels", "label")
