"""The JQL of a JIRA run: the configured scope, and times in the account's own zone at JQL's minute precision."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from briefing.errors import ConfigError
from connectors.jira import JiraSource


def scope(name: str, config: JiraSource) -> str:
    """The configured projects and JQL, without any time bound."""
    clauses: list[str] = []
    if config.projects:
        keys = ", ".join(f'"{p}"' for p in config.projects)
        clauses.append(f"project in ({keys})")
    if config.jql:
        clauses.append(f"({config.jql})")
    if not clauses:
        raise ConfigError(f"source '{name}': set projects (or jql) so the JIRA connector knows which issues to read")
    return " AND ".join(clauses)


def account_zone(name: Any) -> ZoneInfo:
    """The zone `/myself` reports (JQL reads dates in it); UTC when it names none or one unknown here."""
    try:
        return ZoneInfo(str(name)) if name else ZoneInfo("UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def jql_time(moment: datetime, zone: ZoneInfo, *, ceil: bool) -> str:
    """JQL's minute-precision date in the account's zone; rounded outward so no edge issue is missed."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    local = moment.astimezone(zone)
    if ceil and (local.second or local.microsecond):
        local += timedelta(minutes=1)
    return local.strftime("%Y-%m-%d %H:%M")
