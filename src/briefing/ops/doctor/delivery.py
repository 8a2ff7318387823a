"""The doctor's delivery check: a password that would cross the network in clear text."""

from __future__ import annotations

from briefing.ops.doctor.report import Report
from briefing.settings import EmailDelivery, Settings

_LOCAL = {"localhost", "127.0.0.1", "::1"}


def check_delivery(report: Report, settings: Settings) -> None:
    for name in type(settings.delivery).model_fields:
        cfg = getattr(settings.delivery, name)
        if not isinstance(cfg, EmailDelivery) or not cfg.password_env or cfg.tls != "none":
            continue
        check = f"delivery.{name}"
        if not cfg.allow_plaintext_auth:
            report.add(
                check,
                "error",
                f'tls = "none" with password_env: brief refuses to send the password to {cfg.host} in clear text',
                'set tls = "starttls" or "ssl"; allow_plaintext_auth = true only for a relay on this machine',
                exit_code=2,
            )
        else:
            remote = cfg.host.strip("[]").lower() not in _LOCAL
            report.add(
                check,
                "warning" if remote else "info",
                f"allow_plaintext_auth = true: the password for {cfg.host} is sent without TLS"
                + (", across the network" if remote else " (a local relay)"),
                'set tls = "starttls" or "ssl" and remove allow_plaintext_auth',
            )
