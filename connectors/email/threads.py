"""Cached messages -> one `Document` per thread, for every mail source (local files, IMAP, Gmail).

Threads follow the jwz algorithm: References (each id the parent of the next, the last the message's parent),
else In-Reply-To, including ids of messages that are not in the mailbox (two replies to an older, absent parent
are one thread), and Gmail thread ids; then the base subject ("Re[4]:", "AW:", "SV:", "Fwd:" and list tags
such as "[linux-arm]" removed) within a time window. A reference link between two messages whose base subjects
and dates both disagree (other subjects, more than `LINK_WINDOW` apart) is taken as false and not followed. A
patch series sent without threading headers joins its cover letter (`[PATCH v2 0/7]`) by sender, version and
length. Items are ordered depth-first along the reply tree, so each patch is followed by its review.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from urllib.parse import quote

from briefing.model import JSON, Document, Failure, Item, Normalised, Person, RawRecord, reader_email
from connectors.email.headers import mbox_from_date
from connectors.email.mime import MimeError, Parsed, data_to_raw, parse, sender_label, trim_diff

_PREFIX = re.compile(
    r"^\s*(?:(?:re|fwd?|fw|aw|sv|vs|antw|wg|tr|rif|odp|enc|res)\s*(?:\[\d+\]|\(\d+\))?\s*:\s*)+", re.IGNORECASE
)
# A leading list tag ("[linux-arm]", "[List]"), not a patch tag ("[PATCH v2 3/7]", "[RFC]").
_LIST_TAG = re.compile(r"^\s*\[(?![^\]]*\b(?:PATCH|RFC|GIT PULL|PULL))[^\]]{1,60}\]\s*", re.IGNORECASE)
LINK_WINDOW = timedelta(days=60)
SUBJECT_WINDOW = timedelta(days=30)
SAME_SUBJECT_WINDOW = timedelta(days=3)
_SERIES = re.compile(r"\[(?:[^\]]*?\b)?PATCH\b(?P<tags>[^\]]*)\]", re.IGNORECASE)
_SERIES_NUM = re.compile(r"\b(\d+)/(\d+)\b")
_VERSION = re.compile(r"\bv(\d+)\b", re.IGNORECASE)
_KIND = "email_thread"


def base_subject(subject: str) -> str:
    """The subject without reply/forward prefixes ("Re[4]:", "AW:", "SV:", "Fwd:") and list tags, for grouping."""
    text = subject
    while True:
        stripped = _LIST_TAG.sub("", _PREFIX.sub("", text))
        if stripped == text:
            break
        text = stripped
    return " ".join(text.split()) or subject.strip()


def series_info(subject: str) -> JSON | None:
    """`{"version": 2, "number": 3, "total": 7}` for `[PATCH v2 3/7] ...`, else None (a lone `[PATCH]` has 1/1)."""
    if _PREFIX.match(subject):
        return None
    found = _SERIES.search(subject)
    if not found:
        return None
    tags = found.group("tags")
    num = _SERIES_NUM.search(tags)
    version = _VERSION.search(tags)
    return {
        "version": int(version.group(1)) if version else 1,
        "number": int(num.group(1)) if num else 1,
        "total": int(num.group(2)) if num else 1,
    }


class _Union:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, key: str) -> str:
        self.parent.setdefault(key, key)
        root = key
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[key] != root:
            self.parent[key], key = root, self.parent[key]
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra


def _when(parsed: Parsed) -> datetime:
    return parsed.date or datetime(1970, 1, 1, tzinfo=UTC)


def message_url(parsed: Parsed) -> str:
    """The list archive's address when the message carries one (Archived-At), else an RFC 2392 `mid:` link."""
    return parsed.archived_at or f"mid:{quote(parsed.message_id, safe='@.')}"


def container_of(parsed: Parsed, folder: str) -> str:
    if parsed.list_id:
        return parsed.list_id.split(".", 1)[0]
    return folder


def normalise(records: Sequence[RawRecord], *, source_type: str = "email") -> Normalised:
    """Parse every cached message once and group them into thread documents."""
    out = Normalised()
    parsed: dict[str, tuple[Parsed, JSON]] = {}
    for record in records:
        try:
            message = parse(data_to_raw(record.data), known_date=known_date(record.data))
        except MimeError as exc:
            out.failures.append(Failure(record.key, f"not a readable message: {exc}"))
            continue
        except Exception as exc:  # noqa: BLE001 - one malformed message must never abort the run
            out.failures.append(Failure(record.key, f"could not be parsed: {type(exc).__name__}: {exc}"))
            continue
        message.message_id = record.key
        if record.data.get("thread_id"):
            message.gmail_thread = str(record.data["thread_id"])
        # Decoded leniently and indexed, but counted: the user should know some text may be garbled.
        out.failures.extend(Failure(record.key, note) for note in message.notes if "charset" in note)
        parsed[record.key] = (message, record.data)
    for thread in threads([p for p, _ in parsed.values()]):
        out.documents.append(_document(thread, {k: d for k, (_, d) in parsed.items()}, source_type))
    out.people = _people([p for p, _ in parsed.values()])
    return out


def known_date(data: JSON) -> datetime | None:
    """When the mailbox says a message arrived: the mbox `From ` line, the server's internal date, the file's time."""
    found = mbox_from_date(str(data.get("mbox_from") or ""))
    if found is None and data.get("internal_date"):
        try:
            found = datetime.fromtimestamp(int(str(data["internal_date"])) / 1000, UTC)
        except (TypeError, ValueError, OverflowError):
            found = None
    if found is None and data.get("file_time"):
        try:
            found = datetime.fromisoformat(str(data["file_time"]))
        except ValueError:
            found = None
    return found


def threads(messages: Sequence[Parsed]) -> list[list[Parsed]]:
    """Messages grouped into threads, each ordered depth-first along its reply tree."""
    by_id = {m.message_id: m for m in messages}
    union = _Union()
    for m in messages:
        union.find(m.message_id)
        for parent, child in reference_links(m):
            if plausible_link(by_id.get(parent), by_id.get(child)):
                union.union(parent, child)
        if m.gmail_thread:
            union.union(m.message_id, f"gmail-thread:{m.gmail_thread}")
    _join_series(messages, union)
    _join_by_subject(messages, union)
    groups: dict[str, list[Parsed]] = defaultdict(list)
    for m in messages:
        groups[union.find(m.message_id)].append(m)
    ordered = [_tree_order(group, by_id) for group in groups.values()]
    ordered.sort(key=lambda t: (_when(t[0]), t[0].message_id))
    return ordered


def reference_links(m: Parsed) -> list[tuple[str, str]]:
    """(parent, child) pairs the message states (jwz): its References chain, then itself under the last id."""
    chain = list(dict.fromkeys(m.references))
    if m.in_reply_to and m.in_reply_to[0] not in chain:
        chain.append(m.in_reply_to[0])
    chain = [ref for ref in chain if ref != m.message_id]
    links = list(zip(chain, chain[1:], strict=False))
    if chain:
        links.append((chain[-1], m.message_id))
    return links


def _subjects_agree(a: Parsed, b: Parsed) -> bool:
    sa, sb = base_subject(a.subject).lower(), base_subject(b.subject).lower()
    if sa == sb or (min(len(sa), len(sb)) >= 8 and (sa in sb or sb in sa)):
        return True
    return sa == "(no subject)" or sb == "(no subject)"


def plausible_link(parent: Parsed | None, child: Parsed | None) -> bool:
    """A reference is followed unless both ends are here and disagree on subject and on time (over LINK_WINDOW).

    A reply may change the subject, or come months later under the same subject; a message that does both while
    naming the other in References is taken as a client's stale or copied header.
    """
    if parent is None or child is None or parent.date is None or child.date is None:
        return True
    return _subjects_agree(parent, child) or abs(child.date - parent.date) <= LINK_WINDOW


def _join_series(messages: Sequence[Parsed], union: _Union) -> None:
    """Patches of one series sent without threading headers join their cover letter (or first patch)."""
    heads: dict[tuple[str, int, int], list[Parsed]] = defaultdict(list)
    for m in messages:
        info = series_info(m.subject)
        if info and info["total"] > 1 and info["number"] in (0, 1):
            heads[(m.sender[1], info["version"], info["total"])].append(m)
    for m in messages:
        info = series_info(m.subject)
        if not info or info["total"] <= 1 or m.references or m.in_reply_to:
            continue
        candidates = heads.get((m.sender[1], info["version"], info["total"]), [])
        near = [h for h in candidates if abs(_when(h) - _when(m)) <= timedelta(days=2) and h is not m]
        if near:
            head = min(near, key=lambda h: (series_info(h.subject) or {}).get("number", 9))
            union.union(head.message_id, m.message_id)


def _join_by_subject(messages: Sequence[Parsed], union: _Union) -> None:
    """Messages without threading headers join by base subject (jwz): a reply ("Re: X") the latest message about X
    within SUBJECT_WINDOW before it, a plain repeat of the subject the latest one within SAME_SUBJECT_WINDOW.

    A patch of a series is left to the series rule; "(no subject)" never groups.
    """
    by_subject: dict[str, list[Parsed]] = defaultdict(list)
    for m in messages:
        key = base_subject(m.subject).lower()
        if key and key != "(no subject)":
            by_subject[key].append(m)
    for m in messages:
        if m.references or m.in_reply_to or series_info(m.subject):
            continue
        reply = bool(_PREFIX.match(_LIST_TAG.sub("", m.subject)))
        window = SUBJECT_WINDOW if reply else SAME_SUBJECT_WINDOW
        candidates = [
            s
            for s in by_subject.get(base_subject(m.subject).lower(), [])
            if s is not m
            and timedelta(0) <= _when(m) - _when(s) <= window
            and (_when(s), s.message_id) < (_when(m), m.message_id)
        ]
        if candidates:
            union.union(max(candidates, key=_when).message_id, m.message_id)


def _parent(m: Parsed, members: dict[str, Parsed]) -> str | None:
    for ref in [*reversed(m.in_reply_to), *reversed(m.references)]:
        if ref in members and ref != m.message_id:
            return ref
    return None


def _tree_order(group: list[Parsed], by_id: dict[str, Parsed]) -> list[Parsed]:
    members = {m.message_id: m for m in group}
    children: dict[str | None, list[Parsed]] = defaultdict(list)
    for m in group:
        children[_parent(m, members)].append(m)

    def key(m: Parsed) -> tuple[int, datetime, str]:
        info = series_info(m.subject)
        # A cover letter (0/N) first, then patches in series order, then replies by date.
        return (info["number"] if info else 10_000, _when(m), m.message_id)

    out: list[Parsed] = []
    seen: set[str] = set()
    stack = sorted(children[None], key=key, reverse=True)
    while stack:
        m = stack.pop()
        if m.message_id in seen:
            continue
        seen.add(m.message_id)
        out.append(m)
        stack.extend(sorted(children.get(m.message_id, []), key=key, reverse=True))
    # Reference cycles leave members unreached: append them by date rather than lose them.
    out.extend(sorted((m for m in group if m.message_id not in seen), key=key))
    return out


def message_readers(m: Parsed) -> list[str]:
    """Who may see one message (briefing.access): its sender and every To and Cc address, a list's included."""
    return [reader_email(addr) for _, addr in [m.sender, *m.to, *m.cc] if addr]


def _recipients(m: Parsed) -> list[str]:
    return [name or addr for name, addr in [*m.to, *m.cc]]


def _document(thread: list[Parsed], data: dict[str, JSON], source_type: str) -> Document:
    root = thread[0]
    folder = str(data.get(root.message_id, {}).get("folder", ""))
    container = container_of(root, folder)
    items: list[Item] = []
    for m in thread:
        info = series_info(m.subject)
        text = m.body
        listed = list(m.attachments)
        for attachment in listed:
            text += f"\n[attachment {attachment['name']} ({attachment['type']})]"
            if attachment.get("text"):
                text += "\n" + trim_diff(str(attachment["text"]))[:4000]
        metadata: JSON = {
            "message_id": m.message_id,
            "subject": m.subject,
            "from": m.sender,
            "to": m.to,
            "cc": m.cc,
            "attachments": [{"name": a["name"], "type": a["type"]} for a in listed],
            "folder": data.get(m.message_id, {}).get("folder", ""),
            "readers": message_readers(m),
        }
        if info:
            metadata["series"] = info
        if m.notes:
            metadata["notes"] = m.notes
        items.append(
            Item(
                ref=f"email:{m.message_id}",
                source_type=source_type,
                kind="message",
                text=text.strip() or "(no text)",
                occurred_at=_when(m),
                author=sender_label(m.sender),
                title=m.subject,
                url=message_url(m),
                container=container,
                thread=root.message_id,
                metadata=metadata,
            )
        )
    return Document(
        key=f"email:{root.message_id}",
        kind=_KIND,
        source_type=source_type,
        title=base_subject(root.subject),
        items=items,
        url=message_url(root),
        container=container,
        metadata={
            "root": root.message_id,
            "messages": len(thread),
            "participants": list(dict.fromkeys(sender_label(m.sender) for m in thread)),
            "recipients": list(dict.fromkeys(r for m in thread for r in _recipients(m)))[:20],
        },
    )


def _people(messages: Sequence[Parsed]) -> list[Person]:
    names: dict[str, str] = {}
    for m in messages:
        for name, addr in [m.sender, *m.to, *m.cc]:
            if addr and (name or addr not in names):
                names[addr] = name or names.get(addr, "") or addr.split("@")[0]
    return [Person(id=f"email:{addr}", name=name, emails=(addr,)) for addr, name in sorted(names.items())]
