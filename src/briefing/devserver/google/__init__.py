"""A local Google API server for tests: OAuth token endpoint, Gmail v1 and Calendar v3, with Google's shapes.

- `/token`: the OAuth 2.0 token endpoint a credentials file names as `token_uri`. It grants access tokens for
  an authorized-user refresh token (`grant_type=refresh_token` with the client id and secret) and for a
  service account's signed JWT (`urn:ietf:params:oauth:grant-type:jwt-bearer`, the RS256 signature checked
  against the key pair the fake made; `aud` is Google's token endpoint, as google-auth addresses it, or this
  one). Errors are RFC 6749 JSON.
- `/gmail/v1/users/me/...`: `profile`, `labels`, `messages` (with `q`, `labelIds`, `maxResults`, `pageToken`),
  `messages/{id}?format=raw` (base64url), `history` (`startHistoryId`, `historyTypes`, paging; 404 below the
  oldest history id kept). Queries understand the operators the tests use: words, `"phrases"`, `from:`,
  `to:`, `subject:`, `label:`, `in:`, `category:`, `rfc822msgid:`, `newer_than:`/`older_than:` (d, m, y),
  `-negation`, `(...)` and `{...}` (any of).
- `/calendar/v3/calendars/{id}/events`: unexpanded listing with `nextSyncToken`; a `syncToken` lists what changed
  since, deleted events as `{"id", "status": "cancelled"}`; 410 for a token older than `token_floor`.

Every API call needs `Authorization: Bearer <a token this server granted>` (401 otherwise, with Google's error
body). Switches: `rate_limit` (calls answering 429, or 403 `rateLimitExceeded` when `rate_limit_403`, with
`Retry-After`), `revoke()` (granted tokens stop working, so the client must refresh), `redirect_to` (answer
every API call with a 302 there). Every request lands in `log`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from briefing.devserver._http import running
from briefing.devserver.google.gmail import search
from briefing.devserver.google.handler import Handler
from briefing.devserver.google.state import GmailMessage, GoogleFake, Logged

__all__ = ["GmailMessage", "GoogleFake", "Logged", "search", "serve"]


@contextmanager
def serve(fake: GoogleFake) -> Iterator[GoogleFake]:
    """Serve `fake` on 127.0.0.1 for the block; `fake.url` is its base URL (no trailing slash)."""
    with running(Handler, fake) as port:
        fake.url = f"http://127.0.0.1:{port}"
        yield fake
