"""Re-export: the fake Slack Web API lives in the package (`briefing.devserver.slack`), which `brief demo` serves."""

from briefing.devserver.slack import TOKEN, Request, SlackFake

__all__ = ["TOKEN", "Request", "SlackFake"]
