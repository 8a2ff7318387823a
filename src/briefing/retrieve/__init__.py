"""Hybrid retrieval as of a query's `now`: candidates (dense + BM25 fused, named items, windows), rank, spread.

`Retriever` (retriever) runs one query through its View: candidate lists (candidates, links), the unit list
(units), ranking with boosts (rerank, versions) and spreading the top k (spread).
"""

from briefing.retrieve.model import Hit, Retrieval, SearchQuery
from briefing.retrieve.query import residual_query
from briefing.retrieve.rerank import Reranker
from briefing.retrieve.retriever import Retriever
from briefing.retrieve.spread import demote_near_duplicates, spread_documents
from briefing.retrieve.units import unit_context, unit_texts

__all__ = [
    "Hit",
    "Reranker",
    "Retrieval",
    "Retriever",
    "SearchQuery",
    "demote_near_duplicates",
    "residual_query",
    "spread_documents",
    "unit_context",
    "unit_texts",
]
