"""The Slack Web API client: slack-sdk's WebClient with retries, refusing redirects that would leak the token."""

from __future__ import annotations

import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError
from slack_sdk.http_retry.builtin_handlers import ConnectionErrorRetryHandler, RateLimitErrorRetryHandler

from briefing.sources import ApiSource


class _SameOriginRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only to the same scheme, host and port: the token must never reach another host."""

    def redirect_request(
        self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any, newurl: str
    ) -> urllib.request.Request | None:
        old, new = urlsplit(req.full_url), urlsplit(newurl)
        if (old.scheme, old.hostname, old.port) != (new.scheme, new.hostname, new.port):
            raise urllib.error.HTTPError(newurl, code, "redirect to another host refused", headers, fp)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


class SafeWebClient(WebClient):
    """slack-sdk's WebClient, except that a redirect to another host is refused instead of followed.

    urllib, which the SDK uses, copies the `Authorization` header onto a redirected request whatever its host.
    The SDK has no option for this, so its one transport method is replaced by the same request made through an
    opener with `_SameOriginRedirects`.
    """

    def _perform_urllib_http_request_internal(self, url: str, req: urllib.request.Request) -> dict[str, Any]:
        if not url.lower().startswith(("http://", "https://")):
            raise SlackClientError(f"refusing a non-HTTP URL: {url.split('?')[0]}")
        handlers: list[Any] = [urllib.request.HTTPSHandler(context=self.ssl), _SameOriginRedirects()]
        if isinstance(self.proxy, str) and self.proxy:
            handlers.insert(0, urllib.request.ProxyHandler({"http": self.proxy, "https": self.proxy}))
        opener = urllib.request.build_opener(*handlers)
        with opener.open(req, timeout=self.timeout) as resp:
            charset = resp.headers.get_content_charset() or "utf-8"
            body = resp.read().decode(charset, errors="replace")
            return {"status": resp.code, "headers": resp.headers, "body": body}


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
