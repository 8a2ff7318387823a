"""The Slack Web API client: slack-sdk's WebClient with retries, refusing redirects that would leak the token."""

from __future__ import annotations

from slack_sdk.http_retry.builtin_handlers import ConnectionErrorRetryHandler, RateLimitErrorRetryHandler

from briefing.safe_http import SafeWebClient
from briefing.sources import ApiSource


def make_client(base_url: str, token: str, config: ApiSource) -> SafeWebClient:
    """A client of the Web API at `base_url` that retries connection errors and rate limits `max_retries` times."""
    return SafeWebClient(
        token=token,
        base_url=base_url if base_url.endswith("/") else base_url + "/",
        timeout=int(config.timeout_s),
        retry_handlers=[
            ConnectionErrorRetryHandler(max_retry_count=config.max_retries),
            RateLimitErrorRetryHandler(max_retry_count=config.max_retries),
        ],
    )
