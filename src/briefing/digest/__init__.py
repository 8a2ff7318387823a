"""Briefings over a time window: the engine (`engine`), its model, rendering, windows and the timeline."""
