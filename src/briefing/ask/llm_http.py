"""The HTTP client of every model request: a redirect is followed only within its origin, never to another host.

httpx, under LiteLLM and the provider SDKs, strips only `Authorization` when a redirect leaves the origin: an
Anthropic `x-api-key`, a Gemini `x-goog-api-key` and the prompt itself (the evidence) would go to the other host
with a 307. Here a redirect to another scheme, host or port is refused before anything is sent there.
"""

from __future__ import annotations

from typing import Any

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


def safe_client(**kwargs: Any) -> httpx.Client:
    """An httpx client that follows redirects only within the same scheme, host and port."""
    return httpx.Client(follow_redirects=True, event_hooks={"response": [refuse_cross_origin]}, **kwargs)


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
