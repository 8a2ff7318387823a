"""Local stand-ins for the vendors' REST APIs, serving the bundled sample team to `brief demo` and the tests.

Each module speaks one vendor's documented response shapes (paging, rate limits, auth errors) for the endpoints
our connectors call, so the real SDKs run unchanged against them: `slack` (the Web API under `/api/`, fed
from an export folder), `jira` (JIRA Cloud v3 and Server v2), `confluence` (REST v1 under `/wiki`), `github`
(REST under `/api/v3`, like GitHub Enterprise), `google` (an OAuth token endpoint, Gmail v1 and Calendar v3; tests
only, not served by the demo). `git_repo` builds the sample's local git repository. The
servers bind 127.0.0.1 only and never reach the network.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

# The demo's credentials: the servers accept only these, and they protect nothing but fictional data.
DEMO_USER = "demo@kestrelpay.example"
DEMO_TOKEN = "demo"
# Exports carry no team URL; the sample's is the one its file permalinks use, so both Slack connectors agree.
SAMPLE_SLACK_TEAM = {"url": "https://kestrelpay.slack.com/", "team": "Kestrel Pay", "team_id": "T01KESTREL"}


@contextmanager
def serve_sample(sample_dir: Path) -> Iterator[dict[str, str]]:
    """Serve `sample_dir`'s slack_export/, jira/, confluence/ and github/; yields {source type: base URL} until exit.

    Each server runs in a daemon thread on an ephemeral 127.0.0.1 port and accepts `DEMO_USER`/`DEMO_TOKEN`
    (basic auth for the Atlassian ones, a token for Slack and GitHub). A folder that is missing is not served.
    """
    from briefing.devserver import confluence, github, jira, slack

    urls: dict[str, str] = {}
    with ExitStack() as stack:
        if (sample_dir / "slack_export" / "channels.json").is_file():
            chat = slack.SlackFake.from_export(sample_dir / "slack_export", token=DEMO_TOKEN, team=SAMPLE_SLACK_TEAM)
            chat.page_size = 200  # what the connector asks for; the tests lower it to exercise paging
            urls["slack"] = chat.start()
            stack.callback(chat.stop)
        if (sample_dir / "jira" / "issues.json").is_file():
            auth = jira.JiraFake.basic(DEMO_USER, DEMO_TOKEN)
            tracker = jira.JiraFake.from_dir(sample_dir / "jira", credentials=auth)
            urls["jira"] = tracker.start()
            stack.callback(tracker.stop)
        if (sample_dir / "confluence" / "pages.json").is_file():
            pages, comments = confluence.load(sample_dir / "confluence")
            wiki = stack.enter_context(
                confluence.serve(confluence.FakeConfluence(pages, comments, user=DEMO_USER, token=DEMO_TOKEN))
            )
            urls["confluence"] = wiki.base_url
        repos = github.load(sample_dir / "github") if (sample_dir / "github").is_dir() else {}
        if repos:
            code = github.FakeGitHub(repos, token=DEMO_TOKEN)
            code.per_page = 100  # GitHub's own maximum; the tests lower it to exercise paging
            urls["github"] = stack.enter_context(github.serve(code)).api
        yield urls
