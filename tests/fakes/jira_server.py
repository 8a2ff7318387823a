"""Re-export: the fake JIRA server lives in the package (`briefing.devserver.jira`), which `brief demo` serves."""

from briefing.devserver.jira import JiraFake, Request

__all__ = ["JiraFake", "Request"]
