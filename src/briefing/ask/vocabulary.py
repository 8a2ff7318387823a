"""The workspace's own vocabulary at answer time: which indexed documents hold each word of the question.

A question word that occurs nowhere in the workspace ("Kinesis", "webinar", "parental"), or only in documents
the context does not draw on, is strong evidence that the sources do not cover the question, whatever the
similarity of its closest sentences. Word overlap with the context alone cannot see this: a word missing from
eight context chunks may still be all over the corpus (retrieval missed it), or nowhere at all.

The document frequencies are read from the sparse (BM25) index itself, one single-term query per question
word (a question's words in one batch, reading only the documents of the hits), with the same tokeniser as
retrieval, through the asker's `View` (the same as-of and reader scope).
Nothing is written at ingest, so the vocabulary is exact after every incremental ingest, deletion and reindex,
and old indexes work as they are. Each lookup returns at most `limit` chunks: a word is only told apart as
absent, rare (fewer than `limit` chunks, every document known) or common; a common word's documents are not all
listed, nor needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from briefing.embed import Embedder
    from briefing.index import Index
    from briefing.view import View

# Chunks fetched per word: enough to tell "in one or two documents" from "common" (each query is under a ms).
LOOKUP_LIMIT = 8


# The verbs of saying: "What did Ana ask / mention / suggest?" names the act, not what was said. A workspace whose
# messages never use the verb still holds what she said: its absence is no sign the question is off its topic.
# Where the workspace does use it, it is looked up like any word.
SAYING = frozenset(
    """ask asks asked asking mention mentions mentioned post posts posted share shares shared write writes wrote
    talk talked tell told announce announces announced propose proposes proposed suggest suggests suggested
    recommend recommends recommended report reports reported complain complains complained explain explains
    explained confirm confirms confirmed reply replies replied respond responded comment comments commented raise
    raised flag flagged""".split()
)


@dataclass(frozen=True)
class Spread:
    """Where one word occurs: the matching chunks found (at most the lookup limit) and their documents."""

    chunks: int
    docs: frozenset[str]
    complete: bool  # fewer chunks than the limit were found, so `docs` is every document holding the word

    @property
    def absent(self) -> bool:
        return self.chunks == 0


class Vocabulary:
    """Document frequencies of question words, read from the sparse index at ask time.

    `index` is the index whose words these are; every lookup reads it through the asker's `View` of it.
    """

    def __init__(self, index: Index, embedder: Embedder, *, limit: int = LOOKUP_LIMIT) -> None:
        self.index = index
        self.embedder = embedder
        self.limit = limit

    def spread(self, words: Sequence[str], *, view: View) -> dict[str, Spread]:
        """Each word's spread over the chunks `view` sees (as of its moment, for its readers). A word the BM25
        tokeniser drops (one of its stop words) is left out: it says nothing about coverage; so is a verb of saying
        no chunk holds (`SAYING`)."""
        words = list(dict.fromkeys(w for w in words if w))
        if not words:
            return {}
        pairs = [(w, v) for w, v in zip(words, self.embedder.sparse(words, query=True), strict=True) if v.indices]
        found = view.sparse_docs([v for _, v in pairs], limit=self.limit)
        return {
            word: Spread(chunks=len(docs), docs=frozenset(docs), complete=len(docs) < self.limit)
            for (word, _), docs in zip(pairs, found, strict=True)
            if docs or word not in SAYING
        }
