"""No regular expression on ingested Markdown backtracks super-linearly: long runs of every markup character."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from connectors.files.markdown import clean_markdown, code_spans, split_front_matter

SIZE = 20_000  # the old inline-code pattern took 15 s on 8,000 backticks; linear code takes milliseconds
LIMIT_S = 30  # a generous bound for the whole case: a hang, not a slow machine, trips it
SINGLE = list("`*_[]()!<>{}#-~|:/\\\"'= \t.")
COMPOSITE = [
    "![",
    "](",
    "![a](",
    "<!--",
    "{/*",
    "<script",
    "<br",
    " <br",
    'title="',
    "alt='",
    "``x",
    "> a",
    "{#",
    "# ",
    "<a ",
    "<p>",
    "&lt;",
    "import x from ",
    ":::",
]


@contextmanager
def deadline(seconds: int) -> Iterator[None]:
    def expired(signum: int, frame: object) -> None:
        raise TimeoutError(f"still running after {seconds} s: a pattern backtracks")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _inputs(unit: str) -> dict[str, str]:
    run = (unit * (SIZE // len(unit) + 1))[:SIZE]
    return {
        "run": run,
        "run in prose": f"Intro words {run} closing words",
        "run in a tag line": f"<div>{run}",
        "run in a heading": f"## {run}",
        "alternating": ((unit + "a") * (SIZE // (len(unit) + 1)))[:SIZE],
    }


@pytest.mark.parametrize("unit", SINGLE + COMPOSITE)
def test_long_runs_of_each_markup_character_finish(unit: str) -> None:
    for name, body in _inputs(unit).items():
        for mdx in (False, True):
            with deadline(LIMIT_S):
                clean_markdown(body, mdx=mdx)
                split_front_matter(f"---\n{body}\n")
            assert name  # every shape ran to the end


def test_code_spans_cost_is_linear_in_the_runs() -> None:
    line = "`" * SIZE  # one run: no span, no pairing attempt per character
    assert code_spans(line) == []
    pairs = "`a` " * (SIZE // 4)
    assert len(code_spans(pairs)) == SIZE // 4
    mixed = "``a`b``"  # a run closes only at a run of the same length (CommonMark)
    assert code_spans(mixed) == [(0, len(mixed))]


def test_code_spans_and_comments_still_clean_as_before() -> None:
    text = "Use `a <!-- b -->` here <!-- hidden --> and {/* gone */} ![logo](x.png) and <br/> done"
    cleaned = clean_markdown(text, mdx=True)
    assert "`a <!-- b -->`" in cleaned and "hidden" not in cleaned and "gone" not in cleaned
    assert "(image: logo)" in cleaned
    assert clean_markdown("## Setup {#setup}\n\nBody\n", mdx=False).splitlines()[0] == "## Setup"
