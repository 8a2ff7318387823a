"""Who may see a GitHub repository's items (briefing.access): a public repository, everyone; a private or
internal one, its collaborators (`GET /repos/{owner}/{repo}/collaborators`, which with GitHub's default
`affiliation=all` includes people who have access through a team or the organisation).

Read on every sync, so a collaborator removed upstream loses access at the next run. A private repository whose
collaborators cannot be listed (the token lacks the permission) stays the workspace owner's (fail closed).
"""

from __future__ import annotations

from typing import Any

from briefing.model import EVERYONE, JSON, Failure, RawRecord, reader_id

ACCESS_KIND = "github_access"


def access_key(full_name: str) -> str:
    return f"access/{full_name}"


def repo_access(repo: Any, full_name: str) -> tuple[RawRecord | None, Failure | None]:
    """The repository's access record (PyGithub `Repository`), or the failure that kept it unknown."""
    private = bool(getattr(repo, "private", True)) or str(getattr(repo, "visibility", "") or "") == "internal"
    if not private:
        return RawRecord(access_key(full_name), ACCESS_KIND, {"repo": full_name, "public": True, "members": []}), None
    try:
        logins = sorted({str(user.login) for user in repo.get_collaborators() if getattr(user, "login", None)})
    except Exception as exc:  # noqa: BLE001 - any error: this repository stays the owner's
        return None, Failure(access_key(full_name), f"collaborators could not be listed: {exc}"[:300])
    return RawRecord(access_key(full_name), ACCESS_KIND, {"repo": full_name, "public": False, "members": logins}), None


def readers(access: JSON | None) -> tuple[str, ...] | None:
    """Reader tokens from a repository's access record; None (owner only) when there is none."""
    if access is None:
        return None
    if access.get("public"):
        return (EVERYONE,)
    return tuple(reader_id(f"github:{login}") for login in access.get("members") or [])
