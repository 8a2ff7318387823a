"""HTTP clients of the core (chat delivery, the Slack bot) that never carry a credential to another host.

urllib, under slack-sdk, copies the `Authorization` header onto a redirected request whatever its host; requests
strips it only on a host change and keeps it across a scheme or port change. Here a redirect is followed only to
the same scheme, host and port, and refused otherwise. The connectors' HTTP layer (`connectors/http.py` and the
Slack connector's client) applies the same rule to every source.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from slack_sdk import WebClient
from slack_sdk.errors import SlackClientError


def same_origin(old_url: str, new_url: str) -> bool:
    """Whether a redirect stays on the same scheme, host and port (the only redirect that keeps credentials)."""
    old, new = urlsplit(old_url), urlsplit(new_url)
    return (old.scheme, old.hostname, old.port) == (new.scheme, new.hostname, new.port)


class SameOriginRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only to the same origin; any other is an HTTP error, nothing sent there."""

    def redirect_request(
        self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any, newurl: str
    ) -> urllib.request.Request | None:
        if not same_origin(req.full_url, newurl):
            raise urllib.error.HTTPError(newurl, code, "redirect to another host refused", headers, fp)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


class SafeWebClient(WebClient):
    """slack-sdk's WebClient whose one transport method uses an opener with `SameOriginRedirects`."""

    def _perform_urllib_http_request_internal(self, url: str, req: urllib.request.Request) -> dict[str, Any]:
        if not url.lower().startswith(("http://", "https://")):
            raise SlackClientError(f"refusing a non-HTTP URL: {url.split('?')[0]}")
        handlers: list[Any] = [urllib.request.HTTPSHandler(context=self.ssl), SameOriginRedirects()]
        if isinstance(self.proxy, str) and self.proxy:
            handlers.insert(0, urllib.request.ProxyHandler({"http": self.proxy, "https": self.proxy}))
        opener = urllib.request.build_opener(*handlers)
        with opener.open(req, timeout=self.timeout) as resp:
            charset = resp.headers.get_content_charset() or "utf-8"
            body = resp.read().decode(charset, errors="replace")
            return {"status": resp.code, "headers": resp.headers, "body": body}


def web_client(token: str, base_url: str | None = None) -> SafeWebClient:
    """A chat Web API client for `token` at `base_url` (the vendor's own by default)."""
    return SafeWebClient(token=token, base_url=base_url or WebClient.BASE_URL)
