"""Delivery of digests and watch notifications: stdout, a file, e-mail over SMTP, or a chat message.

Targets come from `[delivery]` in the config (several at once; stdout when none is set). Secrets are read from
the environment variables the config names, only when a message is sent, and never appear in errors. Every
text is neutralised first (briefing.ops.safe); chat messages also escape `<`, `>` and `&`, so ingested text
cannot mention `@channel` or forge a link.
"""

from __future__ import annotations

import smtplib
import ssl
import sys
from collections.abc import Callable
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate
from pathlib import Path
from typing import Any, Protocol, TextIO

from briefing.errors import AuthError, BriefError, ConfigError
from briefing.ops.safe import neutralise
from briefing.ops.scrub import remember, scrub
from briefing.settings import ChatDelivery, EmailDelivery, Settings, secret


class DeliveryError(BriefError):
    """A message could not be delivered (a watch keeps it queued and retries it at the next run)."""

    exit_code = 14


@dataclass(frozen=True)
class Message:
    """One notification or digest: a subject line, a plain-text body, and a stable key (dedup, Message-ID)."""

    subject: str
    text: str
    key: str


class Target(Protocol):
    name: str

    def send(self, message: Message) -> None: ...


class StreamTarget:
    def __init__(self, stream: TextIO | None = None, name: str = "stdout") -> None:
        self.stream = stream
        self.name = name

    def send(self, message: Message) -> None:
        stream = self.stream or sys.stdout
        stream.write(f"{neutralise(message.subject)}\n{neutralise(message.text)}\n\n")
        stream.flush()


class FileTarget:
    def __init__(self, path: Path, name: str = "file") -> None:
        self.path = path
        self.name = name

    def send(self, message: Message) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(f"## {neutralise(message.subject)}\n\n{neutralise(message.text)}\n\n")
        except OSError as exc:
            raise DeliveryError(
                f"delivery.file {self.path}: cannot be written ({exc.strerror}): fix the path"
            ) from None


def _message_id(key: str) -> str:
    safe = "".join(ch if ch.isalnum() or ch in ".-_" else "-" for ch in key)[:180]
    return f"<{safe}@brief.local>"


class EmailTarget:
    def __init__(self, config: EmailDelivery, resolve: Callable[[Path], Path], name: str) -> None:
        self.config = config
        self.resolve = resolve
        self.name = name

    def _context(self) -> ssl.SSLContext:
        cafile = str(self.resolve(self.config.ca_file)) if self.config.ca_file else None
        return ssl.create_default_context(cafile=cafile)

    def send(self, message: Message) -> None:
        cfg = self.config
        mail = EmailMessage()
        mail["Subject"] = " ".join(neutralise(message.subject).split())
        mail["From"] = cfg.sender
        mail["To"] = ", ".join(cfg.to)
        mail["Date"] = formatdate(localtime=True)
        # Stable per notification: a resend after a crash is recognisably the same message.
        mail["Message-ID"] = _message_id(message.key)
        mail.set_content(neutralise(message.text))
        where = f"delivery.{self.name} {cfg.host}:{cfg.port}"
        user = password = None
        if cfg.password_env:
            if cfg.tls == "none" and not cfg.allow_plaintext_auth:
                raise ConfigError(
                    f'delivery.{self.name}: tls = "none" with password_env would send the password in clear text: '
                    f'set tls = "starttls" or "ssl" (or allow_plaintext_auth = true for a local relay)'
                )
            user = secret(cfg.user_env, setting=f"delivery.{self.name}.user_env").get_secret_value()
            password = secret(cfg.password_env, setting=f"delivery.{self.name}.password_env").get_secret_value()
            remember([password])  # the user name alone is no secret, and short ones are common words
        # Bytes as written: `send_message` flattens with mangle_from_, turning a body line "From ..." into ">From".
        data = mail.as_bytes(policy=mail.policy.clone(linesep="\r\n"))
        try:
            smtp: smtplib.SMTP
            if cfg.tls == "ssl":
                smtp = smtplib.SMTP_SSL(cfg.host, cfg.port, timeout=cfg.timeout_s, context=self._context())
            else:
                smtp = smtplib.SMTP(cfg.host, cfg.port, timeout=cfg.timeout_s)
            with smtp:
                smtp.ehlo()
                if cfg.tls == "starttls":
                    smtp.starttls(context=self._context())
                    smtp.ehlo()
                if user is not None and password is not None:
                    _login(smtp, user, password)
                smtp.sendmail(cfg.sender, list(cfg.to), data)
        except smtplib.SMTPAuthenticationError:
            raise AuthError(
                f"{where} rejected the login from {cfg.user_env} / {cfg.password_env}: export valid credentials"
            ) from None
        except smtplib.SMTPNotSupportedError:
            raise DeliveryError(
                f'{where} does not offer STARTTLS: set delivery.{self.name}.tls = "ssl" (port 465)'
            ) from None
        except ssl.SSLError as exc:
            raise DeliveryError(
                f"{where}: TLS failed ({exc.reason}): check the port, tls, or ca_file for a private certificate"
            ) from None
        except (smtplib.SMTPException, OSError) as exc:
            # A server reply may echo what was sent (the AUTH string): scrubbed before it goes anywhere.
            reason = scrub(f"{type(exc).__name__}: {exc}", [password])
            raise DeliveryError(f"{where}: {reason}; the message was not sent") from None


def _login(smtp: smtplib.SMTP, user: str, password: str) -> None:
    """AUTH PLAIN when offered (one round trip, over TLS), else smtplib's own choice among the offered mechanisms.

    smtplib's `login` falls through to the next mechanism after a rejection; some servers then wait for a
    LOGIN continuation, which turns a wrong password into a timeout instead of a clear rejection.
    """
    smtp.ehlo_or_helo_if_needed()
    offered = str(smtp.esmtp_features.get("auth", "")).upper().split()
    if "PLAIN" in offered:
        smtp.user, smtp.password = user, password
        smtp.auth("PLAIN", smtp.auth_plain)
    else:
        smtp.login(user, password)


def chat_escape(text: str) -> str:
    """Slack's mrkdwn control characters as entities: no `<!channel>` mention or forged link from data."""
    return neutralise(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class ChatTarget:
    """chat.postMessage through slack-sdk, to a channel id, #name or user id (a DM)."""

    def __init__(self, config: ChatDelivery, name: str) -> None:
        self.config = config
        self.name = name

    def send(self, message: Message) -> None:
        from slack_sdk.errors import SlackApiError, SlackClientError
        from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler

        cfg = self.config
        setting = f"delivery.{self.name}.token_env"
        token = secret(cfg.token_env, setting=setting).get_secret_value()
        from briefing.safe_http import web_client

        client = web_client(token, cfg.base_url)  # a redirect to another host is refused, never followed
        # chat.postMessage allows about one message a second per channel: wait as asked rather than drop one.
        client.retry_handlers.append(RateLimitErrorRetryHandler(max_retry_count=3))
        text = f"*{chat_escape(message.subject)}*\n{chat_escape(message.text)}"
        try:
            client.chat_postMessage(channel=cfg.channel, text=text, unfurl_links=False, unfurl_media=False)
        except SlackApiError as exc:
            error = exc.response.get("error") if exc.response is not None else None
            if error in ("invalid_auth", "not_authed", "token_revoked", "account_inactive"):
                raise AuthError(f"the chat API rejected the token from {cfg.token_env} ({setting}): {error}") from None
            raise DeliveryError(
                f"delivery.{self.name}: chat.postMessage to {cfg.channel} failed ({error}): "
                "check the channel and that the app is a member with chat:write"
            ) from None
        except (SlackClientError, OSError) as exc:
            reason = scrub(f"{type(exc).__name__}: {exc}", [token])
            raise DeliveryError(f"delivery.{self.name}: the API could not be reached ({reason})") from None


def _kind(annotation: Any) -> type | None:
    """The delivery class a `[delivery]` field holds (its annotation without `| None`)."""
    for option in getattr(annotation, "__args__", (annotation,)):
        if option in (EmailDelivery, ChatDelivery, Path, bool):
            return option  # type: ignore[no-any-return]
    return None


def targets(settings: Settings, *, stream: TextIO | None = None) -> list[Target]:
    """The configured delivery targets, named by their `[delivery]` key, in its order; stdout when none is set."""
    delivery = settings.delivery
    found: list[Target] = []
    for name, info in type(delivery).model_fields.items():
        value = getattr(delivery, name)
        kind = _kind(info.annotation)
        if value is None or value is False:
            continue
        if kind is bool:
            found.append(StreamTarget(stream, name=name))
        elif kind is Path:
            found.append(FileTarget(settings.resolve(value), name=name))
        elif kind is EmailDelivery:
            found.append(EmailTarget(value, settings.resolve, name=name))
        elif kind is ChatDelivery:
            found.append(ChatTarget(value, name=name))
    return found or [StreamTarget(stream)]
