"""The one HTTP layer of the API connectors: retries, `Retry-After`, error mapping, credentials on redirect.

The SDKs keep their own request code; this module plugs in at their transport seam. `HttpLayer.retry()` is a
urllib3 `Retry` (PyGithub takes it as `retry=`; `HttpLayer.session()` mounts it in a requests session that
atlassian-python-api takes as `session=`), so every request of every connector is retried the same way:

- 429, 5xx, timeouts and refused connections are retried up to the source's `max_retries`, each attempt bounded
  by its `timeout_s`; GitHub's 403 with rate-limit headers counts as a 429, any other 403 does not.
- The wait is the server's `Retry-After` (seconds or an HTTP-date), or GitHub's `X-RateLimit-Reset`, or an
  exponential backoff; a server asking for more than `MAX_WAIT_S` is not waited for (a cron job gives up).
- What is still failing after the retries becomes one user-facing error, decided by status code and exception
  type (`HttpLayer.error`), never by the words of a message.

Sleeping and the clock are attributes (`sleep`, `clock`) so that tests never wait on the wall clock.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from email.utils import parsedate_to_datetime
from typing import Any, Self, TypeVar

import requests
import urllib3
from requests.adapters import HTTPAdapter
from urllib3.exceptions import ConnectTimeoutError, MaxRetryError, NewConnectionError, ReadTimeoutError, ResponseError

from briefing.errors import AuthError, BriefError, RateLimitedError, SourceError, SourceTimeoutError
from briefing.safe_http import same_origin

T = TypeVar("T")

RETRY_STATUSES = frozenset({403, 429, 500, 502, 503, 504})
BACKOFF_BASE_S = 1.0
BACKOFF_MAX_S = 60.0
# A cron job should give up and say so rather than sleep longer than this on one request.
MAX_WAIT_S = 900.0
MAX_REDIRECTS = 5


class SourceUnreadableError(SourceError):
    """The vendor cannot be read at all: unreachable, or still failing (5xx) after every retry."""


def is_fatal(error: BaseException) -> bool:
    """Whether an error ends the whole run, rather than being one item's failure."""
    return isinstance(error, AuthError | RateLimitedError | SourceTimeoutError | SourceUnreadableError)


def _rate_limited(status: int, headers: Mapping[str, str]) -> bool:
    """429, or GitHub's 403 that is a primary (remaining 0) or secondary (Retry-After) rate limit."""
    if status == 429:
        return True
    return status == 403 and (headers.get("Retry-After") is not None or headers.get("X-RateLimit-Remaining") == "0")


class HttpLayer:
    """Retry policy and error mapping of one configured source; shared by every request it makes."""

    def __init__(
        self,
        *,
        source: str,
        vendor: str,
        base_url: str,
        credentials: str,
        max_retries: int = 5,
        timeout_s: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        max_wait_s: float = MAX_WAIT_S,
        hint: str = "",
    ) -> None:
        self.source = source
        self.vendor = vendor
        self.base_url = base_url.rstrip("/")
        self.credentials = credentials
        self.max_retries = max(0, max_retries)
        self.timeout_s = timeout_s
        self.sleep = sleep
        self.clock = clock
        self.max_wait_s = max_wait_s
        # What to check when the vendor answers 404 or another 4xx (e.g. the Cloud form of base_url).
        self.hint = hint or f"check sources.{source}.base_url and the source's settings"
        self.retries = 0  # retries made so far by this source (all requests together)
        self.refused_wait: float | None = None  # set when a server asked for a wait longer than max_wait_s

    # Transport ---------------------------------------------------------------------------------------------

    def retry(self) -> urllib3.Retry:
        """The urllib3 retry policy for this source (PyGithub's `retry=`, or an HTTPAdapter's `max_retries`)."""
        return _Retry(
            total=self.max_retries,
            connect=self.max_retries,
            read=self.max_retries,
            status=self.max_retries,
            other=0,
            redirect=MAX_REDIRECTS,
            allowed_methods=None,  # every call here reads (JIRA's search may be a POST): retry them all
            status_forcelist=RETRY_STATUSES,
            raise_on_status=False,  # hand the last response to the SDK, which raises with its status code
            respect_retry_after_header=True,
            layer=self,
        )

    def session(self) -> requests.Session:
        """A requests session that retries through `retry()` and drops credentials on a cross-origin redirect."""
        session = _Session(self.timeout_s)
        adapter = HTTPAdapter(max_retries=self.retry())
        session.mount("https://", adapter)
        session.mount("http://", adapter)
        session.max_redirects = MAX_REDIRECTS
        return session

    def wait(self, response: Any, attempt: int) -> float:
        """Seconds to wait before retry `attempt` (1-based) after `response` (None: an error, no answer)."""
        headers: Mapping[str, str] = getattr(response, "headers", None) or {}
        header = headers.get("Retry-After")
        if header:
            asked = self._retry_after(header)
            if asked is not None:
                return asked
        reset = headers.get("X-RateLimit-Reset")
        if headers.get("X-RateLimit-Remaining") == "0" and reset and reset.isdigit():
            return max(float(reset) - self.clock(), 0.0)
        return min(BACKOFF_BASE_S * 2.0 ** max(attempt - 1, 0), BACKOFF_MAX_S)

    def _retry_after(self, header: str) -> float | None:
        try:
            return max(float(header), 0.0)
        except ValueError:
            pass
        try:
            when = parsedate_to_datetime(header)
        except (TypeError, ValueError, IndexError):
            return None
        return max(when.timestamp() - self.clock(), 0.0)

    # Errors ------------------------------------------------------------------------------------------------

    def call(self, what: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """`fn(*args, **kwargs)` (an SDK call), its HTTP failures raised as the user-facing error family."""
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            error = self.error(exc, what)
            if error is None:
                raise
            raise error from None

    def check(self, response: requests.Response, what: str) -> requests.Response:
        """A response the SDK handed back unchecked (atlassian's advanced mode): raise when it failed."""
        if response.status_code >= 400:
            raise self.for_status(response.status_code, response.headers, what)
        return response

    def error(self, exc: BaseException, what: str) -> BriefError | None:
        """The user-facing error for an SDK/requests exception, or None when it is not an HTTP failure."""
        status, headers = _status_of(exc)
        if status is not None:
            return self.for_status(status, headers, what)
        if isinstance(exc, requests.RequestException):
            return self._transport_error(exc, what)
        return None

    def for_status(self, status: int, headers: Mapping[str, str], what: str) -> BriefError:
        """The error for an HTTP status that is still failing after the retries."""
        prefix = f"source '{self.source}': {self.vendor}"
        if _rate_limited(status, headers):
            refused, self.refused_wait = self.refused_wait, None
            if refused is not None:
                return RateLimitedError(
                    f"{prefix} asked to wait {refused:.0f} s (HTTP {status}) before reading {what}, longer than "
                    f"brief waits ({self.max_wait_s:.0f} s): run again later"
                )
            return RateLimitedError(
                f"{prefix} kept rate limiting (HTTP {status}) while reading {what} after {self.max_retries} "
                f"retries: wait and run again, or raise sources.{self.source}.max_retries"
            )
        if status == 401:
            return AuthError(
                f"{prefix} rejected the credentials (HTTP 401) while reading {what}: check the environment "
                f"variables named by {self.credentials}"
            )
        if status == 403:
            return AuthError(
                f"{prefix} refused access (HTTP 403) to {what}: check that the credentials named by "
                f"{self.credentials} may read it"
            )
        if status >= 500:
            return SourceUnreadableError(
                f"{prefix} at {self.base_url} kept failing (HTTP {status}) while reading {what} after "
                f"{self.max_retries} retries: retry later"
            )
        if status == 404:
            return SourceError(
                f"{prefix} answered HTTP 404 for {what} (missing, or not visible to the credentials named by "
                f"{self.credentials}): {self.hint}"
            )
        return SourceError(f"{prefix} answered HTTP {status} for {what}: {self.hint}")

    def _transport_error(self, exc: requests.RequestException, what: str) -> BriefError:
        reason = exc.args[0].reason if exc.args and isinstance(exc.args[0], MaxRetryError) else None
        timed_out = isinstance(exc, requests.Timeout) or (
            isinstance(reason, ReadTimeoutError | ConnectTimeoutError) and not isinstance(reason, NewConnectionError)
        )
        if timed_out:
            return SourceTimeoutError(
                f"source '{self.source}': {self.vendor} at {self.base_url} did not answer {what} within "
                f"sources.{self.source}.timeout_s={self.timeout_s:g}s after {self.max_retries} retries: "
                f"retry later or raise sources.{self.source}.timeout_s"
            )
        return SourceUnreadableError(
            f"source '{self.source}': cannot reach {self.vendor} at {self.base_url} ({type(exc).__name__}) "
            f"after {self.max_retries} retries: check sources.{self.source}.base_url"
        )


def _status_of(exc: BaseException) -> tuple[int | None, Mapping[str, str]]:
    """The HTTP status (and headers) an exception carries: requests' HTTPError or PyGithub's GithubException."""
    if isinstance(exc, requests.HTTPError):
        response = exc.response
        if response is not None:
            return response.status_code, response.headers
        return None, {}
    status = getattr(exc, "status", None)
    if isinstance(status, int) and not isinstance(status, bool) and type(exc).__module__.startswith("github"):
        headers = getattr(exc, "headers", None)
        return status, _header_map(headers)
    return None, {}


def _header_map(headers: Any) -> Mapping[str, str]:
    """PyGithub lower-cases header names: look them up case-insensitively."""
    if not isinstance(headers, Mapping):
        return {}
    return requests.structures.CaseInsensitiveDict({str(k): str(v) for k, v in headers.items()})


class _Retry(urllib3.Retry):
    """urllib3's retry with this project's wait rule, an injectable sleep, and a retry counter."""

    def __init__(self, *args: Any, layer: HttpLayer | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.layer = layer

    def new(self, **kw: Any) -> Self:
        made = super().new(**kw)
        made.layer = self.layer
        return made

    def increment(
        self,
        method: str | None = None,
        url: str | None = None,
        response: Any = None,
        error: Exception | None = None,
        _pool: Any = None,
        _stacktrace: Any = None,
    ) -> Self:
        layer = self.layer
        if response is not None and layer is not None and error is None:
            status = int(response.status)
            headers = response.headers
            if status == 403 and not _rate_limited(status, headers):
                # A permission problem, not a rate limit: answer at once (raise_on_status=False returns it).
                raise MaxRetryError(_pool, url or "", ResponseError(f"HTTP {status}"))
            if _rate_limited(status, headers):
                asked = layer.wait(response, len(self.history) + 1)
                if asked > layer.max_wait_s:
                    layer.refused_wait = asked
                    raise MaxRetryError(_pool, url or "", ResponseError(f"HTTP {status}"))
        made = super().increment(method, url, response, error, _pool, _stacktrace)
        if layer is not None:
            layer.retries += 1
        return made

    def sleep(self, response: Any = None) -> None:
        if self.layer is None:
            super().sleep(response)
            return
        self.layer.sleep(self.layer.wait(response, len(self.history)))


class _Session(requests.Session):
    """Every attempt bounded by the source's `timeout_s`; credentials go only to the origin they were given for."""

    def __init__(self, timeout_s: float) -> None:
        super().__init__()
        self.timeout_s = timeout_s

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:
        # The SDKs round or default their own timeout; the configured one (a float) is the bound.
        kwargs["timeout"] = self.timeout_s
        return super().send(request, **kwargs)

    def should_strip_auth(self, old_url: str, new_url: str) -> bool:
        """Any change of scheme, host or port drops the credentials (requests keeps them on http -> https)."""
        return not same_origin(old_url, new_url)

    def rebuild_auth(self, prepared_request: requests.PreparedRequest, response: requests.Response) -> None:
        super().rebuild_auth(prepared_request, response)
        if self.should_strip_auth(response.request.url or "", prepared_request.url or ""):
            for name in ("Authorization", "Cookie", "Proxy-Authorization"):
                prepared_request.headers.pop(name, None)
