"""Text rules shared by indexing and questions: ticket keys, issue refs, stopwords and the refusal sentence.

A key found in a chunk at index time must be found in a question about it, so both sides call the same
functions here. The ticket-key rule (and, at the end, the rule for characters that draw nothing):

- shape: a letter, then 1-9 letters or digits, a dash and a number (`PLAT-12`), standing alone: not glued to a
  word, `#` or `-` on the left (`foo-PLAT-1`, `#ops-1` is a channel), and not followed by a word character or
  by `-`/`.` and a digit (`PLAT-1-2`, `RELEASE-1.2`, `CVE-2024-3094`). A path or URL around it is fine
  (`/browse/PLAT-12`), and so is a slug after it (`PLAT-12-fix-login`, a branch name);
- without known projects: the prefix is upper case and not a well-known non-ticket token (`UTF-8`, `SHA-256`,
  `ISO-8601`, `COVID-19`, `GPT-4`, `Q3-2026`, `PR-45`: the stoplist);
- with known projects (the prefixes of the keys found at index time): known keys win, in any case and even when
  stoplisted (`plat-101`), and an unknown prefix is not a key, since nothing in the index can carry it.

Only `re` is imported here: chunkers use this module, and it must stay cheap and free of source names.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

__all__ = [
    "ISSUE_REF",
    "ISSUE_URL",
    "NAMED_ISSUE_REF",
    "PROJECT_KEY",
    "STOPWORDS",
    "TICKET_KEY",
    "TICKET_STOPLIST",
    "find_ticket_keys",
    "heading_anchor",
    "is_ticket_prefix",
    "issue_ref",
    "own_words",
    "refusal",
    "ticket_key",
    "ticket_key_spans",
    "ticket_prefixes",
    "visible",
]

# A project key as a tracker writes it; the prefix of its ticket keys.
PROJECT_KEY = re.compile(r"[A-Z][A-Z0-9]{1,9}")
TICKET_KEY = re.compile(r"(?<![\w#-])([A-Za-z][A-Za-z0-9]{1,9})-(\d+)(?!\w|[-.]\d)")
# Upper-case words written with a dash and a number that name standards, encodings, hashes, protocols, models,
# platforms or periods, not tickets. "PR" and "MR" are pull and merge requests (read as issue refs).
TICKET_STOPLIST = frozenset(
    """UTF UCS SHA MD ISO IEC IEEE ANSI ECMA RFC CVE GHSA PEP AES RSA TLS SSL HTTP HTTPS IPV TCP UDP P2P B2B B2C
    E2E CP WIN ES GO PG K8S X86 ARM BASE GPT LLAMA CLAUDE GEMINI COVID UTC GMT RC PR MR""".split()
)
# Periods: quarters, halves, fiscal years ("Q3-2026", "H1-26", "FY26-2").
_PERIOD = re.compile(r"Q[1-4]|H[12]|FY\d{0,4}")
_WHOLE_KEY = re.compile(r"([A-Za-z][A-Za-z0-9]{1,9})-(\d+)")

# An issue or pull request: `owner/repo#12` or a bare `#12` (not an HTML entity `&#12;`, not inside a word or path).
ISSUE_REF = re.compile(r"(?<![\w/&#.-])(?:(?P<repo>[\w.-]+/[\w.-]+))?#(?P<number>\d+)\b")
# The same in a web address: `.../owner/repo/pull/12` or `.../issues/12`.
ISSUE_URL = re.compile(r"github\.com/(?P<repo>[\w.-]+/[\w.-]+)/(?:pull|issues)/(?P<number>\d+)")
# Written out in a question: "PR 45", "PR#46", "pull request 47", "issue #12", "MR-9".
NAMED_ISSUE_REF = re.compile(
    r"\b(?:prs?|pull[\s-]requests?|mrs?|merge[\s-]requests?|issues?)\s*(?:#|no\.?\s*|number\s+|-)?\s*"
    r"(?P<number>\d+)\b",
    re.IGNORECASE,
)

# A common English stopword list (function words only); lexical scores (BM25, word overlap) should not spend
# weight on them.
STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below between
    both but by can could did do does doing down during each few for from further had has have having he her here
    hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of
    off on once only or other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up very was we were what
    when where which while who whom why will with would you your yours yourself yourselves""".split()
)


def is_ticket_prefix(prefix: str, known: Collection[str] | None = None) -> bool:
    """Whether `prefix` (as written) starts a ticket key under the rule above; `known` holds upper-case prefixes."""
    if known:
        return prefix.upper() in known
    return prefix.isupper() and prefix not in TICKET_STOPLIST and not _PERIOD.fullmatch(prefix)


def ticket_key_spans(text: str, known: Iterable[str] | None = None) -> list[tuple[str, int, int]]:
    """Every ticket key in `text` as (normalised key, start, end), in order; `known`: the index's key prefixes."""
    upper = {p.upper() for p in known} if known is not None else None
    found: list[tuple[str, int, int]] = []
    for m in TICKET_KEY.finditer(text):
        if is_ticket_prefix(m[1], upper):
            found.append((f"{m[1].upper()}-{int(m[2])}", m.start(), m.end()))
    return found


def find_ticket_keys(text: str, known: Iterable[str] | None = None) -> list[str]:
    """The distinct ticket keys in `text` (`PLAT-12`), in first-seen order; see the module docstring for the rule."""
    return list(dict.fromkeys(key for key, _, _ in ticket_key_spans(text, known)))


def ticket_key(value: str) -> str | None:
    """`value` read as one ticket key named on purpose ("plat-9" -> "PLAT-9"), else None; no stoplist applies."""
    m = _WHOLE_KEY.fullmatch(value.strip())
    return f"{m[1].upper()}-{int(m[2])}" if m else None


def ticket_prefixes(keys: Iterable[str]) -> set[str]:
    """The project prefixes of the ticket keys among `keys` (other refs, such as `#12`, are skipped)."""
    return {key.split("-", 1)[0] for key in map(ticket_key, keys) if key}


def issue_ref(value: str) -> tuple[str | None, int] | None:
    """`value` read as one issue ref: `owner/repo#12` -> ("owner/repo", 12), `#12` -> (None, 12), else None."""
    m = ISSUE_REF.fullmatch(value.strip())
    return (m["repo"], int(m["number"])) if m else None


# A line a reply quotes from earlier text: "> " in Markdown, Slack, GitHub and JIRA (its "{quote}" and "bq."
# read as "> "), and the mail reader's inline-review quotes; on a unit's first line, after the stamp a chunker
# writes before the body ("[2026-06-04 09:00] ana requested changes: > ..."), which stays (group 1).
_STAMP = r"[ \t]*\[[^\]\n]{1,40}\][^\n>]{0,160}?:"
_QUOTED_LINE = re.compile(rf"^((?:{_STAMP})?)[ \t]*>(?![\d=])")  # ">100 rows", ">= 2" compare, not quote
_STAMP_ONLY = re.compile(rf"(?:{_STAMP})?\s*")
_FENCE = re.compile(r"^[ \t]*```")


def own_words(text: str) -> str:
    """A reply's own words: `text` with the lines it quotes ("> ...") blanked, so that what it quotes is never
    read as its author's; fenced code stays as written ("> prompt" in a shell session is code). A text that is
    all quote (or flattened to one line after its quote) comes back as ""."""
    if ">" not in text:
        return text
    out: list[str] = []
    in_code = False
    for line in text.split("\n"):
        if _FENCE.match(line):
            in_code = not in_code
        m = None if in_code else _QUOTED_LINE.match(line)
        out.append(line if m is None else m[1])
    own = "\n".join(out).strip("\n")
    return "" if _STAMP_ONLY.fullmatch(own) else own


def refusal(scope: str, reason: str = "") -> str:
    """The one sentence for "the sources do not cover this", naming what was searched and why."""
    searched = f" (searched {scope})" if scope else ""
    why = reason.strip().rstrip(".") or "nothing in the indexed material answers it"
    return f"The sources do not cover this{searched}: {why}."


def heading_anchor(heading: str) -> str:
    """The fragment Markdown renderers (GitHub, Docusaurus, MkDocs) give a heading: "What's New?" -> "whats-new".
    Section links are built with it at index time, and answers read a link's section back with it."""
    slug = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return slug.replace(" ", "-")


# Characters that draw nothing and only split or steer text: the zero-width space Slack puts into a real name that
# looks like a handle ("antoniodavide.<U+200B>cali"), the word joiner, the byte-order mark, the soft hyphen and the
# direction marks, embeddings and isolates. A name holding one matches nothing typed by hand, nor a question copied
# from the chat matches a name typed by hand. The zero-width joiners (U+200C, U+200D) shape scripts and emoji and stay.
_INVISIBLE = dict.fromkeys(
    map(ord, "\u00ad\u200b\u200e\u200f\u2060\ufeff\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
)


def visible(text: str) -> str:
    """`text` without the characters that draw nothing (`_INVISIBLE`): a name as it is typed."""
    return text.translate(_INVISIBLE)
