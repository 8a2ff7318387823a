"""Google APIs (Gmail v1, Calendar v3) through google-api-python-client: credentials, transport, errors.

- The client is built from the discovery document that ships inside google-api-python-client
  (`static_discovery=True`): nothing is downloaded. `base_url` (a test server, a proxy) replaces Google's root
  (`https://gmail.googleapis.com/`, `https://www.googleapis.com/`) through `client_options.api_endpoint`; the
  API's own path (`calendar/v3/`) follows it, as on Google.
- Credentials come from `credentials_file`: a service-account key (optionally acting for a user of its domain
  through domain-wide delegation) or an OAuth authorized-user file (client id, secret and refresh token). Tokens
  are refreshed at the `token_uri` that file names. An OAuth *client* file (`installed`/`web`) is not enough on its
  own: it needs a consent flow once, whose authorized-user file is what brief reads.
- The bearer token goes to the API origin only: every request is checked against it and redirects are not
  followed, so a redirect to another host never receives the token. Plain `http://` is accepted only for
  loopback hosts (tests and local proxies), for the API and for the token endpoint alike.
- 429, 5xx and a 403 whose reason is `rateLimitExceeded`/`userRateLimitExceeded` are retried with the source's
  `max_retries`, waiting for `Retry-After` (or an exponential backoff) through `connectors.http.HttpLayer`, so a
  rate limit still failing after the retries exits 6, as for every other connector; 401 and other 403s exit 5.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from requests.structures import CaseInsensitiveDict

from briefing.errors import AuthError, BriefError, ConfigError, RateLimitedError, SourceError, SourceTimeoutError
from briefing.sources import remember_secret
from connectors.http import HttpLayer, SourceUnreadableError

T = TypeVar("T")

GMAIL_SCOPE = "https://www.googleapis.com/auth/gmail.readonly"
CALENDAR_SCOPE = "https://www.googleapis.com/auth/calendar.readonly"
_RATE_REASONS = frozenset({"rateLimitExceeded", "userRateLimitExceeded", "quotaExceeded"})
_RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_ROOTS = {"gmail": "https://gmail.googleapis.com/", "calendar": "https://www.googleapis.com/"}
_SERVICE_PATHS = {"gmail": "", "calendar": "calendar/v3/"}
_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


def _origin(url: str) -> tuple[str, str, int]:
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return parts.scheme, (parts.hostname or "").lower(), port


def check_url(url: str, setting: str) -> None:
    """https, or http to a loopback host only; anything else is a config error naming the setting."""
    scheme, host, _ = _origin(url)
    if scheme == "https" and host:
        return
    if scheme == "http" and host in _LOOPBACK:
        return
    raise ConfigError(f"{setting} = '{url}': use an https:// address (plain http only for 127.0.0.1 / localhost)")


def error_reason(content: bytes | str | None) -> str:
    """The first `errors[].reason` (or `error.status`) of a Google JSON error body; '' when there is none."""
    if not content:
        return ""
    try:
        body = json.loads(content)
    except (ValueError, TypeError):
        return ""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return ""
    for entry in error.get("errors") or []:
        if isinstance(entry, dict) and entry.get("reason"):
            return str(entry["reason"])
    return str(error.get("status") or "")


def rate_limited(status: int, content: bytes | str | None) -> bool:
    return status == 429 or (status == 403 and error_reason(content) in _RATE_REASONS)


class _Response:
    """What `HttpLayer.wait` reads from a response: its headers."""

    def __init__(self, headers: Mapping[str, str]) -> None:
        self.headers: Mapping[str, str] = CaseInsensitiveDict(dict(headers))


class Transport:
    """An httplib2-compatible `request` for googleapiclient: one origin, retries, no redirects.

    `inner` is a `google_auth_httplib2.AuthorizedHttp` (adds the bearer token, refreshes it on 401).
    """

    def __init__(self, inner: Any, layer: HttpLayer, endpoint: str) -> None:
        self.inner = inner
        self.layer = layer
        self.origin = _origin(endpoint)
        self.endpoint = endpoint

    def request(
        self,
        uri: str,
        method: str = "GET",
        body: Any = None,
        headers: Mapping[str, str] | None = None,
        redirections: int = 0,
        connection_type: Any = None,
    ) -> tuple[Any, bytes]:
        if _origin(uri) != self.origin:
            raise SourceError(
                f"source '{self.layer.source}': refused to send credentials to {_origin(uri)[1]} (not the configured "
                f"endpoint {self.endpoint}): check sources.{self.layer.source}.base_url"
            )
        attempt = 0
        while True:
            try:
                response, content = self.inner.request(
                    uri, method, body=body, headers=dict(headers or {}), redirections=0, connection_type=connection_type
                )
            except TimeoutError as exc:
                if attempt >= self.layer.max_retries:
                    raise SourceTimeoutError(
                        f"source '{self.layer.source}': {self.layer.vendor} at {self.endpoint} did not answer within "
                        f"sources.{self.layer.source}.timeout_s={self.layer.timeout_s:g}s after {attempt} retries: "
                        f"retry later or raise sources.{self.layer.source}.timeout_s"
                    ) from exc
                self._pause(None, attempt)
                attempt += 1
                continue
            except OSError as exc:
                if attempt >= self.layer.max_retries:
                    raise SourceUnreadableError(
                        f"source '{self.layer.source}': cannot reach {self.layer.vendor} at {self.endpoint} "
                        f"({type(exc).__name__}) after {attempt} retries: check sources.{self.layer.source}.base_url"
                    ) from exc
                self._pause(None, attempt)
                attempt += 1
                continue
            status = int(response.status)
            if (status in _RETRY_STATUSES or rate_limited(status, content)) and attempt < self.layer.max_retries:
                wait = self.layer.wait(_Response(response), attempt + 1)
                if rate_limited(status, content) and wait > self.layer.max_wait_s:
                    self.layer.refused_wait = wait
                    return response, content
                self._pause(response, attempt, wait)
                attempt += 1
                continue
            return response, content

    def _pause(self, response: Any, attempt: int, wait: float | None = None) -> None:
        if wait is None:
            wait = self.layer.wait(_Response(response) if response is not None else None, attempt + 1)
        self.layer.retries += 1
        self.layer.sleep(wait)

    # googleapiclient reads these from the http object it is given.
    @property
    def timeout(self) -> Any:
        return getattr(self.inner, "timeout", None)


def require_google(source: str) -> None:
    """The Google API client is the optional `google` extra: without it, one line naming the source and the extra."""
    from briefing.sources import not_installed

    missing = not_installed("googleapiclient", "google.auth", "google_auth_httplib2")
    if missing:
        raise ConfigError(
            f"sources.{source}: Gmail and Google Calendar sources need the Google API client, and "
            f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} not installed: "
            "pip install 'brief[google]'"
        )


def load_credentials(path: Path, *, setting: str, scopes: list[str], delegated_user: str | None = None) -> Any:
    """google-auth credentials from a service-account or authorized-user JSON file; AuthError (exit 5) otherwise."""
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise AuthError(
            f"{setting}: {path} does not exist: point it at a service-account or OAuth token file"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise AuthError(f"{setting}: {path} cannot be read ({type(exc).__name__}): check the file") from None
    except ValueError:
        raise AuthError(f"{setting}: {path} is not JSON: point it at a Google credentials file") from None
    if not isinstance(info, dict):
        raise AuthError(f"{setting}: {path} is not a Google credentials file (a JSON object)")
    for key in ("private_key", "client_secret", "refresh_token", "token", "access_token"):
        value = info.get(key)
        if isinstance(value, str):
            remember_secret(value)
    kind = info.get("type")
    if kind is None and ("installed" in info or "web" in info):
        raise AuthError(
            f"{setting}: {path} is an OAuth client file: authorise it once with a consent flow (for example "
            "`gcloud auth application-default login --client-id-file=FILE --scopes=...`) and point "
            f"{setting} at the authorized-user file that produces"
        )
    token_uri = info.get("token_uri")
    if isinstance(token_uri, str):
        check_url(token_uri, f"token_uri in {path}")
    try:
        if kind == "service_account":
            from google.oauth2 import service_account

            creds: Any = service_account.Credentials.from_service_account_info(info, scopes=scopes)  # type: ignore[no-untyped-call]
            if delegated_user:
                creds = creds.with_subject(delegated_user)
            return creds
        if kind == "authorized_user":
            from google.oauth2.credentials import Credentials

            user = Credentials.from_authorized_user_info(info, scopes=scopes)  # type: ignore[no-untyped-call]
            # google-auth always points these at Google's endpoint; the file's own token_uri is the one to use.
            return user.with_token_uri(token_uri) if isinstance(token_uri, str) and token_uri else user
    except (ValueError, KeyError) as exc:
        # google-auth names the missing field; the values are never in its message.
        raise AuthError(f"{setting}: {path} is incomplete ({type(exc).__name__}: {exc}): download it again") from None
    raise AuthError(
        f"{setting}: {path} has type '{kind}': use a service-account key (type service_account) or an OAuth "
        "authorized-user file (type authorized_user)"
    )


def build_service(
    api: str,
    version: str,
    *,
    credentials: Any,
    layer: HttpLayer,
    base_url: str | None,
    timeout_s: float,
) -> Any:
    """A googleapiclient service from the bundled discovery document, talking only to `base_url` (or Google)."""
    import google_auth_httplib2
    import httplib2
    from googleapiclient.discovery import build

    root = base_url or _ROOTS[api]
    if not root.endswith("/"):
        root += "/"
    # api_endpoint replaces the discovery document's whole base URL: the root plus the API's service path.
    endpoint = root + _SERVICE_PATHS[api]
    raw = httplib2.Http(timeout=timeout_s)
    raw.follow_redirects = False
    raw.follow_all_redirects = False
    authed = google_auth_httplib2.AuthorizedHttp(credentials, http=raw)
    transport = Transport(authed, layer, endpoint)
    return build(
        api,
        version,
        http=transport,
        static_discovery=True,
        cache_discovery=False,
        client_options={"api_endpoint": endpoint},
    )


class Caller:
    """Runs one googleapiclient request and turns what still fails into the project's error family."""

    def __init__(self, layer: HttpLayer, credentials_setting: str) -> None:
        self.layer = layer
        self.credentials_setting = credentials_setting

    def __call__(self, what: str, request: Any) -> Any:
        return self.run(what, request.execute)

    def run(self, what: str, fn: Callable[[], T]) -> T:
        from google.auth import exceptions as auth_exceptions
        from googleapiclient.errors import HttpError

        try:
            return fn()
        except HttpError as exc:
            raise self.for_status(int(exc.resp.status), exc.resp, exc.content, what) from None
        except auth_exceptions.RefreshError:
            # The token endpoint's answer may echo the grant: it is not shown.
            raise AuthError(
                f"source '{self.layer.source}': the token endpoint refused to refresh the credentials in "
                f"{self.credentials_setting} while reading {what}: authorise again and replace the file"
            ) from None
        except auth_exceptions.TransportError as exc:
            raise SourceUnreadableError(
                f"source '{self.layer.source}': the token endpoint named in {self.credentials_setting} cannot be "
                f"reached ({type(exc).__name__}) while reading {what}: check the file's token_uri"
            ) from None

    def for_status(self, status: int, headers: Mapping[str, str], content: bytes | None, what: str) -> BriefError:
        prefix = f"source '{self.layer.source}': {self.layer.vendor}"
        if rate_limited(status, content):
            refused, self.layer.refused_wait = self.layer.refused_wait, None
            if refused is not None:
                return RateLimitedError(
                    f"{prefix} asked to wait {refused:.0f} s (HTTP {status}) before reading {what}, longer than "
                    f"brief waits ({self.layer.max_wait_s:.0f} s): run again later"
                )
            return RateLimitedError(
                f"{prefix} kept rate limiting (HTTP {status}) while reading {what} after {self.layer.max_retries} "
                f"retries: wait and run again, or raise sources.{self.layer.source}.max_retries"
            )
        if status == 401:
            return AuthError(
                f"{prefix} rejected the credentials from {self.credentials_setting} (HTTP 401) while reading "
                f"{what}: authorise again and replace the file"
            )
        if status == 403:
            reason = error_reason(content)
            return AuthError(
                f"{prefix} refused access (HTTP 403{', ' + reason if reason else ''}) to {what}: check that the "
                f"account in {self.credentials_setting} may read it and that the API is enabled for its project"
            )
        if status >= 500:
            return SourceUnreadableError(
                f"{prefix} kept failing (HTTP {status}) while reading {what} after {self.layer.max_retries} "
                "retries: retry later"
            )
        return SourceError(f"{prefix} answered HTTP {status} for {what}: {self.layer.hint}")


def layer_for(source: str, vendor: str, base_url: str | None, credentials: str, config: Any, hint: str) -> HttpLayer:
    return HttpLayer(
        source=source,
        vendor=vendor,
        base_url=base_url or "https://www.googleapis.com",
        credentials=credentials,
        max_retries=config.max_retries,
        timeout_s=config.timeout_s,
        hint=hint,
    )


def credentials_path(ctx: Any, value: Path | None) -> Path:
    """The source's credentials file; first of all, the Google API client must be installed."""
    require_google(ctx.name)
    if value is None:
        raise AuthError(f"sources.{ctx.name}.credentials_file is not set: name a service-account or OAuth token file")
    resolved: Path = ctx.resolve(Path(value))
    return resolved
