"""`brief doctor`: what is wrong with this setup, each problem with its fix.

Checks the config, each API source's credentials (one cheap authenticated call: the first batch of a dry-run
fetch, which opens with the vendor's identity or search call), the model files (sha256), the index (collection,
vector size, model, payload indexes, points against the raw cache), the raw cache, disk space, the schedules and
the last run of each. The exit code is the worst finding's: 0 when everything is fine or informational,
1 for warnings, and for errors the exit code of the error family (5 for rejected credentials, ...).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from briefing.ops.doctor.delivery import check_delivery
from briefing.ops.doctor.report import SEVERITY, Finding, Report
from briefing.ops.doctor.schedules import check_schedules
from briefing.ops.doctor.sources import check_config, check_credentials, check_paths
from briefing.ops.doctor.storage import check_cache, check_disk, check_index, check_models
from briefing.settings import Settings

__all__ = [
    "SEVERITY",
    "Finding",
    "Report",
    "check_cache",
    "check_config",
    "check_delivery",
    "check_credentials",
    "check_disk",
    "check_index",
    "check_models",
    "check_paths",
    "check_schedules",
    "run_checks",
]


def run_checks(
    settings: Settings,
    *,
    tabfile: Path | None = None,
    online: bool = True,
    probe: Callable[[Settings, str], None] | None = None,
) -> Report:
    report = Report()
    check_config(report, settings)
    check_paths(report, settings)
    check_delivery(report, settings)
    if online:
        check_credentials(report, settings, probe)
    check_models(report, settings)
    check_index(report, settings)
    check_cache(report, settings)
    check_disk(report, settings)
    check_schedules(report, settings, tabfile)
    return report
