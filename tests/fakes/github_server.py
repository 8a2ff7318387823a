"""Re-export: the fake GitHub server lives in the package (`briefing.devserver.github`)."""

from briefing.devserver.github import PREFIX, FakeGitHub, blob_sha, load, serve

__all__ = ["PREFIX", "FakeGitHub", "blob_sha", "load", "serve"]
