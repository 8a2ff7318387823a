"""Small synthetic per-case records with hand-computable metrics, shared by the evaluation tests."""

from __future__ import annotations

from typing import Any


def rec(
    cid: str,
    category: str,
    *,
    gold: list[str],
    hits: list[list[str]],
    cited: list[list[str]] | None = None,
    answer: str = "",
    no_answer: bool = False,
    expected_no_answer: bool = False,
    keywords: list[list[str]] | None = None,
    total_ms: float = 100.0,
) -> dict[str, Any]:
    return {
        "id": cid,
        "category": category,
        "question": "q",
        "gold_refs": gold,
        "answer_keywords": keywords or [],
        "expected_no_answer": expected_no_answer,
        "hits": [{"rank": i, "refs": refs, "chunk_id": f"c{i}", "score": 1.0} for i, refs in enumerate(hits, 1)],
        "citations": [{"n": i, "refs": refs} for i, refs in enumerate(cited or [], 1)],
        "answer": answer,
        "no_answer": no_answer,
        "timings_ms": {"retrieve": total_ms / 2, "total": total_ms},
    }


# A: gold g1 at rank 2, g2 at rank 7; cites g1 and a non-gold ref; answer has both keyword groups.
A = rec(
    "A",
    "fact",
    gold=["g1", "g2"],
    hits=[["x"], ["g1", "y"], ["z1"], ["z2"], ["z3"], ["z4"], ["g2"]],
    cited=[["g1", "y"]],
    answer="The root cause was PgBouncer pool exhaustion",
    keywords=[["pgbouncer"], ["pool", "connections"]],
    total_ms=100,
)
# B: answerable, nothing retrieved, refused (a false refusal).
B = rec("B", "fact", gold=["g3"], hits=[], no_answer=True, keywords=[["x"]], total_ms=200)
# C: unanswerable and refused (right). D: unanswerable but answered (wrong).
C = rec("C", "no_answer", gold=[], hits=[["x"]], no_answer=True, expected_no_answer=True, total_ms=300)
D = rec("D", "no_answer", gold=[], hits=[["x"]], cited=[["x"]], answer="pets", expected_no_answer=True, total_ms=400)
# E: answerable summary without gold refs or keywords: only no-answer accuracy applies.
E = rec("E", "summary", gold=[], hits=[["x"]], answer="lots happened", total_ms=500)
RECORDS = [A, B, C, D, E]
