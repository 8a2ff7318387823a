"""Re-export: the fake Google APIs (OAuth token endpoint, Gmail v1, Calendar v3) live in the package."""

from briefing.devserver.google import GoogleFake, serve

__all__ = ["GoogleFake", "serve"]
