"""Unattended operation: the workspace lock, run logs, Prometheus metrics, schedules, watches, delivery, doctor.

Each module has one job and imports only light libraries at module level, so the pipeline and the ask path can
call into them (`briefing.ops.hooks`) without slowing `brief --help` or a cold ask.
"""
