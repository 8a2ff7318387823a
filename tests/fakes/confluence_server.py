"""Re-export: the fake Confluence server lives in the package (`briefing.devserver.confluence`)."""

from briefing.devserver.confluence import CONTEXT, FakeConfluence, load, serve

__all__ = ["CONTEXT", "FakeConfluence", "load", "serve"]
