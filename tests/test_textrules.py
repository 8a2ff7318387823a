"""One text rule at index time and question time: a ticket key indexed from a text is the key asked about."""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from briefing.ask.citations import refusal as citations_refusal
from briefing.model import ChunkLimits
from briefing.question.constraints import Directory, extract
from briefing.textrules import (
    STOPWORDS,
    find_ticket_keys,
    issue_ref,
    refusal,
    ticket_key,
    ticket_key_spans,
    ticket_prefixes,
)
from chunkers import code, documents, github, slack
from chunkers.jira import chunk_issue
from connectors.jira.normalise import issue_document

ROOT = Path(__file__).resolve().parents[1]
NOW = datetime(2026, 6, 15, 9, 0, tzinfo=UTC)
CHUNKERS = ("slack", "github", "documents", "code")

# (text, the ticket keys in it when no project is known)
CASES = [
    ("PLAT-123 is blocked by OPS-7", ["PLAT-123", "OPS-7"]),
    ("PLAT-1, OPS-7 and PLAT-1 again", ["PLAT-1", "OPS-7"]),
    ("fixed in PLAT-12.", ["PLAT-12"]),
    ("(PLAT-12), [OPS-3]; PAY-4: done", ["PLAT-12", "OPS-3", "PAY-4"]),
    ("see https://acme.atlassian.net/browse/PLAT-12", ["PLAT-12"]),
    ("/browse/PLAT-12?focusedCommentId=10001", ["PLAT-12"]),
    ("branch feature/PLAT-12-fix-login", ["PLAT-12"]),
    ("docs/PLAT-12.md", ["PLAT-12"]),
    ("PLAT-012 with a leading zero", ["PLAT-12"]),
    ("ABCDEFGHIJ-1 has the longest prefix", ["ABCDEFGHIJ-1"]),
    ("A2B-7 mixes digits in", ["A2B-7"]),
    # Standards, encodings, hashes, models, periods and pull requests: the stoplist.
    ("UTF-8, SHA-256, ISO-8601, COVID-19, GPT-4, MD-5, RFC-9110, HTTP-2, K8S-1", []),
    ("TLS-1, AES-128, RSA-2048, IEEE-754, PEP-8, CVE-2024-3094, GHSA-1", []),
    ("Q3-2026, H1-2026, FY26-2, PR-45, MR-9, RC-1", []),
    # Not standing alone: one letter, too long, glued to a word, a hyphen, a channel or a version.
    ("X-1 and A-12", []),
    ("ABCDEFGHIJK-1 is too long", []),
    ("MY_PROJ-1 and fooPLAT-1 and PLAT-1x and PLAT-1_2", []),
    ("pre-PLAT-1 and #PLAT-2 and #ops-7", []),
    ("v1.2-3, 1.2.3-4, RELEASE-1.2, PLAT-12.5, PLAT-12-3", []),
    ("plat-101 in lower case", []),
    ("", []),
]


def _index_paths(text: str) -> dict[str, list[str]]:
    """The ticket keys each chunker records for `text` (issue refs such as `#12` left out)."""

    def keys(found: list[str]) -> list[str]:
        return [t for t in found if not t.startswith(("#", "github:"))]

    return {
        "slack": keys(slack.find_tickets(text)),
        "github": keys(github.find_tickets(text, "acme/api")),
        "documents": keys(documents._tickets(text)),
        "code": keys(code._tickets(text)),
    }


def _question_path(text: str, directory: Directory | None = None) -> list[str]:
    return extract(text, now=NOW, directory=directory).tickets


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_index_and_question_find_the_same_keys(text: str, expected: list[str]) -> None:
    assert find_ticket_keys(text) == expected
    assert _index_paths(text) == dict.fromkeys(CHUNKERS, expected)
    assert _question_path(text) == expected


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_the_jira_chunker_follows_the_same_rule(text: str, expected: list[str]) -> None:
    data = {
        "key": "ZZ-1",
        "fields": {
            "summary": "Flaky deploys",
            "status": {"name": "Done"},
            "project": {"key": "ZZ"},
            "created": "2026-05-11T08:00:00.000+0000",
            "updated": "2026-05-12T08:00:00.000+0000",
            "comment": {"comments": [{"id": "5", "body": text or "-", "created": "2026-05-11T09:00:00.000+0000"}]},
        },
        "changelog": {"histories": []},
    }
    chunks = chunk_issue(issue_document(data, base_url="https://acme.atlassian.net"), limits=ChunkLimits())
    (comments,) = [c for c in chunks if c.metadata["section"] == "comments"]
    assert comments.tickets == ["ZZ-1", *expected]


def test_known_projects_win_over_case_and_the_stoplist() -> None:
    text = "are plat-101, ISO-9, OPS-40 and FOO-12 done? does GPT-4 help with UTF-8?"
    assert find_ticket_keys(text, known={"PLAT", "ISO", "OPS"}) == ["PLAT-101", "ISO-9", "OPS-40"]
    assert find_ticket_keys(text, known={"plat"}) == ["PLAT-101"]
    assert find_ticket_keys(text, known=set()) == find_ticket_keys(text) == ["OPS-40", "FOO-12"]
    # "#plat-1" is still a channel, and a version still a version, when PLAT is known.
    assert find_ticket_keys("#plat-1 v1.plat-2.3", known={"PLAT"}) == []


def test_a_lower_case_key_in_a_question_resolves_when_the_project_is_indexed() -> None:
    indexed = Directory(ticket_keys={"PLAT-1", "#17", "github:acme/api#12"})
    assert _question_path("what happened in plat-101 last week?", indexed) == ["PLAT-101"]
    assert _question_path("what happened in plat-101 last week?") == []
    # Issue refs alone do not make a project known, so upper-case keys still follow the default rule.
    assert _question_path("is OPS-7 done?", Directory(ticket_keys={"#17"})) == ["OPS-7"]


def test_spans_cover_the_key_as_written() -> None:
    text = "is plat-9 or PLAT-10 done"
    assert [(k, text[s:e]) for k, s, e in ticket_key_spans(text, {"PLAT"})] == [
        ("PLAT-9", "plat-9"),
        ("PLAT-10", "PLAT-10"),
    ]


_PREFIXES = ["PLAT", "plat", "OPS", "Ops", "UTF", "SHA", "Q3", "PR", "X", "A2B", "ABCDEFGHIJK", "v1", "ZZ"]
_NUMBERS = ["1", "12", "8", "012", "2026", "1.2", "3-4"]
_GLUE = [" ", " ", " ", "", ".", ". ", "/", "#", "-", "_", ", ", "(", ")", "\n", "-fix ", "x", "acme/api", ":"]
_EXTRAS = ["https://acme.atlassian.net/browse/", "#17", "github.com/acme/api/pull/9", "PR #", "&#", "v1.2-3"]


def _texts(n: int, seed: int = 20260601) -> list[str]:
    """Random texts of key-shaped atoms ("plat-012", "Q3-2026") and the glue that makes or breaks them."""
    rng = random.Random(seed)
    texts = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(1, 8)):
            atom = f"{rng.choice(_PREFIXES)}-{rng.choice(_NUMBERS)}" if rng.random() < 0.8 else rng.choice(_EXTRAS)
            parts += [rng.choice(_GLUE), atom]
        texts.append("".join(parts + [rng.choice(_GLUE)]))
    return texts


def test_property_chunker_path_equals_question_path() -> None:
    texts = _texts(600)
    # The generator must make keys and near misses, or the property says nothing.
    assert 150 < sum(bool(find_ticket_keys(t)) for t in texts) < 550
    for text in texts:
        indexed = find_ticket_keys(text)
        assert _index_paths(text) == dict.fromkeys(CHUNKERS, indexed), text
        assert _question_path(text) == indexed, text
        # Asked with the index's projects known, in any case, every indexed key is found again.
        directory = Directory(ticket_keys=set(indexed) | {"ZZ-1"})
        assert set(indexed) <= set(_question_path(text, directory)), text
        assert set(indexed) <= set(_question_path(text.lower(), directory)), text


def test_parsers_for_named_keys_and_refs() -> None:
    assert ticket_key("plat-9") == "PLAT-9"
    assert ticket_key(" UTF-8 ") == "UTF-8"  # named on purpose: no stoplist
    assert ticket_key("PLAT-9 and more") is None
    assert ticket_prefixes(["PLAT-1", "ops-2", "#17", "github:acme/api#12", "jira:PAY-3"]) == {"PLAT", "OPS"}
    assert issue_ref("acme/api#12") == ("acme/api", 12)
    assert issue_ref("#7") == (None, 7)
    assert issue_ref("&#39;") is None
    assert issue_ref("PLAT-1") is None


def test_issue_refs_at_index_and_question_time() -> None:
    text = "see acme/api#7, #8 and https://github.com/acme/web/pull/9; not &#39; or #help"
    assert extract(text, now=NOW).prs == ["7", "8", "9"]
    assert github.find_tickets(text, "acme/api") == ["github:acme/web#9", "github:acme/api#7", "github:acme/api#8"]
    assert documents._tickets(text) == ["github:acme/web#9", "github:acme/api#7"]


def test_refusal_is_one_sentence_everywhere() -> None:
    assert refusal("slack; 2026-06-08") == (
        "The sources do not cover this (searched slack; 2026-06-08): nothing in the indexed material answers it."
    )
    assert refusal("", "the evidence is about another team.") == (
        "The sources do not cover this: the evidence is about another team."
    )
    assert citations_refusal is refusal


def test_stopwords_are_the_embedders() -> None:
    from briefing.embed import STOPWORDS as EMBED_STOPWORDS

    assert {"the", "of", "and"} <= STOPWORDS
    assert EMBED_STOPWORDS == STOPWORDS


def test_no_other_module_defines_a_ticket_key_pattern() -> None:
    shape = re.compile(r"\[A-Z(?:a-z)?\]\[A-Z(?:a-z)?0-9\]")
    offenders = [
        str(path.relative_to(ROOT))
        for folder in ("src/briefing", "chunkers", "connectors")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path.name != "textrules.py" and shape.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_textrules_imports_only_re() -> None:
    source = (ROOT / "src" / "briefing" / "textrules.py").read_text(encoding="utf-8")
    imports = set(re.findall(r"^(?:from|import) ([\w.]+)", source, re.MULTILINE))
    assert imports <= {"__future__", "re", "collections.abc"}
