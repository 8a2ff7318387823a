"""The doctor's report: findings with a severity and a fix, and the exit code the worst of them gives."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from briefing.errors import BriefError

SEVERITY = {"ok": 0, "info": 1, "warning": 2, "error": 3}


@dataclass
class Finding:
    check: str
    severity: str  # ok, info, warning, error
    message: str
    fix: str = ""
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "severity": self.severity,
            "message": self.message,
            "fix": self.fix,
            "exit_code": self.exit_code,
        }


@dataclass
class Report:
    findings: list[Finding] = field(default_factory=list)

    def add(self, check: str, severity: str, message: str, fix: str = "", exit_code: int | None = None) -> None:
        code = exit_code if exit_code is not None else {"ok": 0, "info": 0, "warning": 1, "error": 1}[severity]
        self.findings.append(Finding(check, severity, message, fix, code))

    def error(self, check: str, exc: BriefError, fix: str = "") -> None:
        self.add(check, "error", str(exc), fix, exc.exit_code)

    @property
    def exit_code(self) -> int:
        worst = max((SEVERITY[f.severity] for f in self.findings), default=0)
        if worst < SEVERITY["warning"]:
            return 0
        worst_codes = [f.exit_code for f in self.findings if SEVERITY[f.severity] == worst]
        # The first error that has its own family's code (5 credentials, 2 config, ...) says most.
        return next((code for code in worst_codes if code > 1), 1)

    def to_json(self) -> dict[str, Any]:
        counts = {s: sum(f.severity == s for f in self.findings) for s in SEVERITY}
        return {"exit_code": self.exit_code, "counts": counts, "findings": [f.to_json() for f in self.findings]}


def human_size(n: float) -> str:
    """`n` bytes in binary units, as findings quote sizes (`1.5 GiB`)."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"
