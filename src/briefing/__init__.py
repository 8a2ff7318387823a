"""brief: a briefing assistant for engineering managers."""

__version__ = "0.44.0"
