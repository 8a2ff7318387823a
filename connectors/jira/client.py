"""The atlassian-python-api JIRA client over the shared HTTP layer, and the settings that name its credentials."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

from atlassian import Jira

from briefing.errors import ConfigError
from briefing.sources import secret
from connectors.http import HttpLayer
from connectors.jira import JiraSource


def credentials(name: str, config: JiraSource) -> str:
    """The settings naming the credentials, for messages (never their values)."""
    settings = [f"sources.{name}.token_env ({config.token_env or 'unset'})"]
    if config.user_env:
        settings.insert(0, f"sources.{name}.user_env ({config.user_env})")
    return " and ".join(settings)


def make_client(name: str, config: JiraSource) -> tuple[Jira, HttpLayer]:
    """The client of source `name` (Cloud or Server by its address unless `cloud` says), and its HTTP layer."""
    if not config.base_url:
        raise ConfigError(f"source '{name}': set base_url (e.g. https://acme.atlassian.net)")
    cloud = config.cloud
    if cloud is None:
        cloud = (urlparse(config.base_url).hostname or "").endswith(".atlassian.net")
    token = secret(config.token_env, setting=f"sources.{name}.token_env").get_secret_value()
    common: dict[str, Any] = {
        "cloud": cloud,
        "timeout": config.timeout_s,
        # connectors.http (the session's adapter) owns retries; the SDK's single silent retry would double it.
        "retry_with_header": False,
    }
    http = HttpLayer(
        source=name,
        vendor="JIRA",
        base_url=config.base_url,
        credentials=credentials(name, config),
        max_retries=config.max_retries,
        timeout_s=config.timeout_s,
    )
    common["session"] = http.session()
    if config.user_env:
        user = secret(config.user_env, setting=f"sources.{name}.user_env").get_secret_value()
        client = Jira(config.base_url, username=user, password=token, **common)
    else:
        client = Jira(config.base_url, token=token, **common)
    return client, http
