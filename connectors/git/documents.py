"""Cached git records as Documents: a branch's commits by ISO week, each tag, each code file."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from briefing.model import JSON, Document, Failure, Item, Normalised, Person, RawRecord
from connectors.git.log import parse_time

SOURCE_TYPE = "git"
# Listed in an item's text; the full list stays in metadata.
MAX_FILES_IN_TEXT = 12


def normalise(records: Sequence[RawRecord], repo_name: str) -> Normalised:
    """Cached commits as weekly history documents per branch, and each tag and code file as its own document."""
    out = Normalised()
    weeks: dict[tuple[str, str], list[Item]] = defaultdict(list)
    people: dict[str, Person] = {}
    for record in records:
        try:
            if record.kind == "git_commit":
                item = _commit_item(record.data, repo_name)
                year, week, _ = item.occurred_at.isocalendar()
                weeks[(record.data.get("branch") or "HEAD", f"{year}-W{week:02d}")].append(item)
                _remember(people, record.data["author"], record.data.get("author_email", ""))
            elif record.kind == "git_tag":
                out.documents.append(_tag_document(record.data, repo_name))
            elif record.kind == "git_file":
                out.documents.append(_file_document(record.data, repo_name))
        except (KeyError, TypeError, ValueError) as exc:
            out.failures.append(Failure(record.key, f"unreadable cached {record.kind}: {exc!r}"))
    for (branch, week_label), items in sorted(weeks.items()):
        items.sort(key=lambda i: (i.occurred_at, i.ref))
        out.documents.append(
            Document(
                key=f"git:{repo_name}/{branch}/{week_label}",
                kind="git_history",
                source_type=SOURCE_TYPE,
                title=f"{repo_name} {branch}: commits in {week_label}",
                items=items,
                container=repo_name,
                metadata={"repo": repo_name, "branch": branch, "week": week_label},
            )
        )
    out.people = sorted(people.values(), key=lambda p: p.id)
    return out


def _commit_item(data: JSON, repo_name: str) -> Item:
    sha = data["sha"]
    files = data.get("files", [])
    text = data["subject"]
    if data.get("body", "").strip():
        text += "\n\n" + data["body"].strip()
    text += "\n\n" + _files_summary(files, data.get("insertions", 0), data.get("deletions", 0))
    return Item(
        ref=f"git:{repo_name}@{sha}",
        source_type=SOURCE_TYPE,
        kind="commit",
        text=text,
        occurred_at=parse_time(data["authored_at"]),
        author=data["author"],
        title=data["subject"],
        container=repo_name,
        metadata={
            "sha": sha,
            "short_sha": sha[:7],
            "subject": data["subject"],
            "body": data.get("body", ""),
            "branch": data.get("branch", ""),
            "author_email": data.get("author_email", ""),
            "committer": data.get("committer", ""),
            "committed_at": data.get("committed_at", ""),
            "parents": data.get("parents", []),
            "files": files,
            "insertions": data.get("insertions", 0),
            "deletions": data.get("deletions", 0),
        },
    )


def _tag_document(data: JSON, repo_name: str) -> Document:
    name = data["name"]
    ref = f"git:{repo_name}@tag:{name}"
    lines = [f"Tag {name} on {data['commit'][:7]}"]
    if data.get("message"):
        lines.append(data["message"])
    if data.get("commits"):
        since = f" since {data['previous_tag']}" if data.get("previous_tag") else ""
        lines.append(f"Commits{since}:")
        lines.extend(f"- {c['sha'][:7]} {c['subject']}" for c in data["commits"])
    item = Item(
        ref=ref,
        source_type=SOURCE_TYPE,
        kind="tag",
        text="\n".join(lines),
        occurred_at=parse_time(data["created_at"]),
        author=data.get("tagger") or None,
        title=f"{repo_name} {name}",
        container=repo_name,
        metadata={k: data.get(k) for k in ("name", "commit", "annotated", "previous_tag", "message")},
    )
    return Document(
        key=ref,
        kind="git_history",
        source_type=SOURCE_TYPE,
        title=f"{repo_name} tag {name}",
        items=[item],
        container=repo_name,
        metadata={"repo": repo_name, "tag": name},
    )


def _file_document(data: JSON, repo_name: str) -> Document:
    path = data["path"]
    ref = f"git:{repo_name}:{path}"
    item = Item(
        ref=ref,
        source_type=SOURCE_TYPE,
        kind="code_file",
        text=data["text"],
        occurred_at=parse_time(data["committed_at"]),
        title=path,
        container=repo_name,
        metadata={"path": path, "blob": data["blob"], "commit": data["commit"], "branch": data["branch"]},
    )
    return Document(
        key=ref,
        kind="code_file",
        source_type=SOURCE_TYPE,
        title=f"{repo_name}/{path}",
        items=[item],
        container=repo_name,
        metadata={"repo": repo_name, "path": path, "blob": data["blob"], "commit": data["commit"]},
    )


def _files_summary(files: list[JSON], insertions: int, deletions: int) -> str:
    if not files:
        return "No files changed."
    names = []
    for f in files[:MAX_FILES_IN_TEXT]:
        moved = f"{f['old_path']} -> " if f.get("old_path") else ""
        stat = " (binary)" if f.get("binary") else f" (+{f['insertions']} -{f['deletions']})"
        names.append(f"{moved}{f['path']}{stat}")
    more = f", and {len(files) - MAX_FILES_IN_TEXT} more" if len(files) > MAX_FILES_IN_TEXT else ""
    plural = "s" if len(files) != 1 else ""
    return f"Files changed ({len(files)} file{plural}, +{insertions} -{deletions}): {', '.join(names)}{more}"


def _remember(people: dict[str, Person], name: str, email: str) -> None:
    key = email.lower() or name
    if key not in people:
        people[key] = Person(id=f"git:{key}", name=name, emails=(email.lower(),) if email else ())
