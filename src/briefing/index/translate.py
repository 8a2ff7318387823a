"""A `Filter` in an engine's own filter models: every rule written once, for both engines."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from briefing.index.filter import Filter

# A reader id no chunk carries: an empty scope still filters (sees nothing) rather than dropping the condition.
NO_READER = "\x00nobody"


class FilterModels:
    """How one engine spells a filter's parts; `translate` writes every rule once, for both engines.

    qdrant-client (`briefing.index.client.ClientModels`) and qdrant-edge (`briefing.index.edge.EdgeModels`) have
    the same filter shape (must/should of field conditions) in two sets of model classes.
    """

    def any_of(self, key: str, values: Sequence[str]) -> Any:
        """`key` holds any of `values` (a keyword, or one element of a keyword list)."""
        raise NotImplementedError

    def range(self, key: str, *, gte: float | None = None, lte: float | None = None, lt: float | None = None) -> Any:
        raise NotImplementedError

    def empty(self, key: str) -> Any:
        """`key` is missing, null or an empty list."""
        raise NotImplementedError

    def all_of(self, must: Sequence[Any] = (), should: Sequence[Any] = ()) -> Any:
        """Every condition in `must` and (when given) at least one in `should`."""
        raise NotImplementedError


def conditions(
    flt: Filter, m: FilterModels, *, first_valid_until: float | None = -math.inf, last_written: float | None = None
) -> list[Any]:
    """`flt`'s conditions (all must hold), in one engine's models. `first_valid_until` is the earliest
    `valid_until_ts` any point of the index holds (None: no point holds one); the superseded-by-then condition is
    left out where it cannot exclude a point (a cut before it), which is the same result at a fraction of the
    embedded engine's cost. The default always writes it. Likewise `last_written`, no earlier than every point's
    `written_ts` (or `start_ts` without one): a cut at or after it leaves the written-by-then condition out."""
    must: list[Any] = []
    if flt.as_of is not None:
        # What was written by then (`written_ts`); chunks indexed before it existed were written at their start.
        cut = flt.as_of.timestamp()
        if last_written is None or last_written > cut:
            must.append(
                m.all_of(
                    should=[
                        m.range("written_ts", lte=cut),
                        m.all_of([m.empty("written_ts"), m.range("start_ts", lte=cut)]),
                    ]
                )
            )
        # ...and not superseded by then (`valid_until`, strictly after the cut: the next float up is `> cut`).
        if first_valid_until is not None and first_valid_until <= cut:
            must.append(
                m.all_of(
                    should=[m.empty("valid_until_ts"), m.range("valid_until_ts", gte=math.nextafter(cut, math.inf))]
                )
            )
    for key, values in (
        ("source_name", flt.source_names),
        ("source_type", flt.source_types),
        ("container", flt.containers),
        ("authors", flt.authors),
        ("tickets", flt.tickets),
        ("doc_key", flt.doc_keys),
        ("doc_id", flt.doc_ids),
        ("refs", flt.refs),
    ):
        if values:
            must.append(m.any_of(key, values))
    if flt.readers is not None:  # the access scope, a hard filter applied before anything is ranked
        must.append(m.any_of("readers", list(flt.readers or (NO_READER,))))
    if flt.start is not None:
        must.append(m.range("end_ts", gte=flt.start.timestamp()))
    if flt.end is not None:
        must.append(m.range("start_ts", lt=flt.end.timestamp()))
    return must


def translate(
    flt: Filter | None,
    m: FilterModels,
    should: Sequence[Filter] = (),
    *,
    first_valid_until: float | None = -math.inf,
    last_written: float | None = None,
) -> Any:
    """Our `Filter` (AND of fields, OR within one) in one engine's models; `should` adds an OR of filters;
    `first_valid_until` and `last_written` as in `conditions`.

    None when nothing is filtered (both engines then read everything).
    """
    bounds = {"first_valid_until": first_valid_until, "last_written": last_written}
    must = conditions(flt, m, **bounds) if flt is not None else []
    any_of = [m.all_of(conditions(f, m, **bounds)) for f in should]
    if not must and not any_of:
        return None
    return m.all_of(must, any_of)
