"""The HTTP client of every model request: redirects kept within their origin, and abandoned requests closed.

httpx, under LiteLLM and the provider SDKs, strips only `Authorization` when a redirect leaves the origin: an
Anthropic `x-api-key`, a Gemini `x-goog-api-key` and the prompt itself (the evidence) would go to the other host
with a 307. Here a redirect to another scheme, host or port is refused before anything is sent there.

A request whose caller gave up on it (the router's budget ended while its worker thread waited for the server) is
closed at once: `cancel(thread)` shuts down the socket that thread is reading, so the server sees the connection
end instead of working on for a client that left, and that thread's later requests fail at once.
"""

from __future__ import annotations

import socket
import threading
from typing import Any

import httpcore
import httpx

from briefing.safe_http import same_origin


class RedirectRefused(httpx.HTTPError):
    """A model server redirected a request to another origin; nothing was sent there."""


def refuse_cross_origin(response: httpx.Response) -> None:
    """httpx response hook: a redirect whose target is another origin ends the request with `RedirectRefused`."""
    location = response.headers.get("location")
    if not response.is_redirect or not location:
        return
    source = str(response.request.url)
    target = str(response.request.url.join(location))
    if not same_origin(source, target):
        refused = RedirectRefused(
            f"the model server redirected to another host ({httpx.URL(target).host}); refused, nothing sent there"
        )
        refused.request = response.request  # provider handlers read it when they wrap the error
        raise refused


_CANCELLED: set[int] = set()  # threads whose requests were abandoned
_READING: dict[int, Any] = {}  # thread -> the stream it is blocked on now
_LOCK = threading.Lock()


class Cancelled(httpcore.ReadError):
    """The caller abandoned this request; its connection was shut down."""


def allow(thread: int | None = None) -> None:
    """Requests from `thread` (this one by default) may run: work starts or ends on it (thread ids are reused)."""
    with _LOCK:
        _CANCELLED.discard(thread if thread is not None else threading.get_ident())


def cancel(thread: int) -> None:
    """Abandon `thread`'s model requests: the one in flight is shut down, later ones fail before sending."""
    with _LOCK:
        _CANCELLED.add(thread)
        stream = _READING.get(thread)
    if stream is not None:
        stream.abort()


class _Stream(httpcore.NetworkStream):
    """A connection whose blocking read another thread can end (`abort`: shutdown, so the server sees it close)."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self.inner = inner

    def _check(self) -> None:
        if threading.get_ident() in _CANCELLED:
            self.abort()
            raise Cancelled("the request was abandoned by its caller")

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        me = threading.get_ident()
        with _LOCK:
            _READING[me] = self
        try:
            self._check()
            return self.inner.read(max_bytes, timeout)
        except OSError as exc:
            if me in _CANCELLED:
                raise Cancelled("the request was abandoned by its caller") from exc
            raise
        finally:
            with _LOCK:
                _READING.pop(me, None)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._check()
        self.inner.write(buffer, timeout)

    def close(self) -> None:
        self.inner.close()

    def abort(self) -> None:
        sock = self.inner.get_extra_info("socket")
        if isinstance(sock, socket.socket):
            try:
                sock.shutdown(socket.SHUT_RDWR)  # wakes the blocked read and sends the server a FIN
            except OSError:
                pass

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None) -> Any:
        return _Stream(self.inner.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> Any:
        return self.inner.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    """httpcore's own backend, its connections wrapped in `_Stream`."""

    def __init__(self, inner: httpcore.NetworkBackend) -> None:
        self.inner = inner

    def connect_tcp(self, *args: Any, **kwargs: Any) -> httpcore.NetworkStream:
        return _Stream(self.inner.connect_tcp(*args, **kwargs))

    def connect_unix_socket(self, *args: Any, **kwargs: Any) -> httpcore.NetworkStream:
        return _Stream(self.inner.connect_unix_socket(*args, **kwargs))

    def sleep(self, seconds: float) -> None:
        self.inner.sleep(seconds)


def safe_client(**kwargs: Any) -> httpx.Client:
    """An httpx client that follows redirects only within the same origin and whose requests `cancel` can end."""
    client = httpx.Client(follow_redirects=True, event_hooks={"response": [refuse_cross_origin]}, **kwargs)
    # httpx builds its httpcore pools (the direct one and one per proxy from the environment) with no backend
    # argument: wrap each pool's backend in place.
    transports = [getattr(client, "_transport", None), *getattr(client, "_mounts", {}).values()]
    for transport in transports:
        pool = getattr(transport, "_pool", None)
        if pool is not None and hasattr(pool, "_network_backend"):
            pool._network_backend = _Backend(pool._network_backend)
    return client


# LiteLLM sends these providers' requests through its own HTTP handler, which takes the client per request; the
# OpenAI SDK's providers (openai, azure, lm_studio, litellm_proxy and most OpenAI-compatible ids) use
# `litellm.client_session` instead. Measured against a redirecting local server with LiteLLM 1.110.
HANDLER_PROVIDERS = frozenset(
    {
        "anthropic",
        "azure_ai",
        "bedrock",
        "cohere_chat",
        "deepseek",
        "fireworks_ai",
        "gemini",
        "groq",
        "hosted_vllm",
        "huggingface",
        "mistral",
        "ollama",
        "ollama_chat",
        "openrouter",
        "together_ai",
        "xai",
    }
)


def guard_litellm(model: str) -> Any:
    """Route LiteLLM's requests for `model` through `safe_client`; returns the `client` to pass per request, or None.

    The OpenAI SDK's providers read LiteLLM's process-wide session, set here once; the others get a handler.
    """
    import litellm

    if not isinstance(litellm.client_session, httpx.Client) or not _is_safe(litellm.client_session):
        litellm.client_session = safe_client()
    provider = model.split("/", 1)[0] if "/" in model else ""
    if provider not in HANDLER_PROVIDERS:
        return None
    return _handler()


def _is_safe(client: httpx.Client) -> bool:
    return refuse_cross_origin in client.event_hooks.get("response", [])


_HANDLER: Any = None


def _handler() -> Any:
    """One shared LiteLLM HTTP handler over `safe_client` (DSPy deep-copies request arguments: it copies as itself)."""
    global _HANDLER
    if _HANDLER is None:
        from litellm.llms.custom_httpx.http_handler import HTTPHandler

        class SafeHandler(HTTPHandler):  # type: ignore[misc]  # litellm's handler is untyped here
            def __deepcopy__(self, memo: dict[int, Any]) -> SafeHandler:
                return self

        _HANDLER = SafeHandler(client=safe_client())
    return _HANDLER
