"""DSPy language models from `[llm]` settings: LiteLLM model ids, the key read from a named variable."""

from __future__ import annotations

import os
from typing import Any

from briefing.errors import ModelError
from briefing.settings import LLMSettings, secret

# LiteLLM otherwise fetches its model price list from GitHub on first use; brief never downloads at run time.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


# LiteLLM retries with backoff inside one call: a refused connection cost 9-14 s before the router could fall
# back. The router has a deterministic fallback and a budget (`timeout_s` for the whole loop), so its LM makes one
# attempt per step and fails fast; the answer LM, with no fallback but extractive, retries once.
ROUTER_RETRIES = 0
ANSWER_RETRIES = 1


LLM_EXTRA = "pip install 'brief[llm]'"

# Sent as the key to a server on this machine when `api_key_env` is unset: local servers ignore it, and the
# OpenAI SDK refuses to send a request without one ("Missing credentials").
LOCAL_PLACEHOLDER_KEY = "local-no-key"


def is_loopback(api_base: str | None) -> bool:
    """True for an `api_base` on this machine (localhost, 127.0.0.0/8, ::1): the only place a key may be absent."""
    if not api_base:
        return False
    import ipaddress
    from urllib.parse import urlsplit

    host = (urlsplit(api_base if "//" in api_base else f"//{api_base}").hostname or "").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def require_dspy(what: str) -> None:
    """DSPy and LiteLLM are the optional `llm` extra: without them, one line naming the extra (exit 8)."""
    from briefing.sources import not_installed

    missing = not_installed("dspy", "litellm", "langgraph")
    if missing:
        raise ModelError(
            f"{what} needs the LLM extra, and {' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} not "
            f"installed: {LLM_EXTRA} (or remove [llm] model from the config for extractive answers)"
        )


def build_lm(settings: LLMSettings, *, router: bool = False) -> Any:
    """The answer LM, or the router LM (`router_model`, else `model`); None when no model is configured.

    Each request is bounded by `timeout_s`; the router's requests also by what is left of `router_timeout_s`
    (the router sets its deadline per loop); the router's LM never retries (the router falls back instead).
    """
    model = (settings.router_model or settings.model) if router else settings.model
    if not model:
        return None
    require_dspy(f"[llm] {'router_model' if router and settings.router_model else 'model'} = '{model}'")

    kwargs: dict[str, Any] = {}
    if settings.api_key_env:
        kwargs["api_key"] = secret(settings.api_key_env, setting="llm.api_key_env").get_secret_value()
    elif is_loopback(settings.api_base):
        kwargs["api_key"] = LOCAL_PLACEHOLDER_KEY  # a local server needs no key; the provider SDK needs one set
    if settings.api_base:
        kwargs["api_base"] = settings.api_base
    from briefing.ask.llm_http import guard_litellm

    client = guard_litellm(model)  # redirects followed only within the server's origin, for every provider
    try:
        return _timed_lm_class()(
            "router" if router else "answer",
            model,
            engine="litellm",
            temperature=settings.temperature,
            max_tokens=settings.max_tokens,
            timeout=min(settings.timeout_s, settings.router_timeout_s) if router else settings.timeout_s,
            num_retries=ROUTER_RETRIES if router else ANSWER_RETRIES,
            cache=False,
            **kwargs,
        ).with_client(client)
    except Exception as exc:  # the message may echo kwargs; name the setting, never the key
        raise ModelError(
            f"[llm] {'router_model' if router and settings.router_model else 'model'} '{model}' could not be "
            f"set up ({type(exc).__name__}): use a LiteLLM model id such as 'openai/gpt-4o-mini' or "
            "'ollama_chat/llama3.1'"
        ) from None


def _timed_lm_class() -> Any:
    """`dspy.LM` that records every request: its role, duration, tokens when the server reports usage, and errors."""
    import threading
    import time

    import dspy

    class TimedLM(dspy.LM):  # type: ignore[misc]  # dspy ships no type information
        def __init__(self, role: str, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.role = role
            self.calls: list[dict[str, Any]] = []  # appended whole (atomic); plain data, so the LM can be copied
            self.deadlines: dict[int, float] = {}  # per thread: the monotonic time its requests must end by
            self.http_client: Any = None  # LiteLLM's per-request HTTP handler (briefing.ask.llm_http), if any

        def with_client(self, client: Any) -> TimedLM:
            self.http_client = client
            return self

        def set_deadline(self, seconds: float | None) -> None:
            """Requests from this thread end within `seconds` from now in all (None: only `timeout_s` each)."""
            if seconds is None:
                self.deadlines.pop(threading.get_ident(), None)
            else:
                self.deadlines[threading.get_ident()] = time.monotonic() + seconds

        def forward(self, *args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            call: dict[str, Any] = {"role": self.role, "model": self.model}
            deadline = self.deadlines.get(threading.get_ident())
            try:
                if deadline is not None:  # DSPy's JSON retry after a failed chat parse must not outlive the budget
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise TimeoutError("the router's time budget is over")
                    kwargs["timeout"] = min(float(self.kwargs.get("timeout") or left), left)
                if self.http_client is not None:
                    kwargs["client"] = self.http_client
                response = super().forward(*args, **kwargs)
            except BaseException as exc:
                call["error"] = type(exc).__name__
                raise
            else:
                usage = getattr(response, "usage", None)
                for key in ("prompt_tokens", "completion_tokens"):
                    value = getattr(usage, key, None) if usage is not None else None
                    if isinstance(value, int):
                        call[key] = value
                return response
            finally:
                call["ms"] = round((time.perf_counter() - started) * 1000, 1)
                self.calls.append(call)

    return TimedLM


def calls_since(lm: Any, start: int) -> list[dict[str, Any]]:
    """The requests `lm` made after its `start`-th one (empty for an LM that does not record them)."""
    return list(getattr(lm, "calls", [])[start:])


def call_count(lm: Any) -> int:
    return len(getattr(lm, "calls", []))
