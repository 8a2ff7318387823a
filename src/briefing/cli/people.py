"""`brief people`: one record per person across sources, and the corrections `merge` and `split`."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from briefing.cli.common import cli_errors, load, out
from briefing.errors import InputError

if TYPE_CHECKING:
    from briefing.people import PersonRecord


def register(app: typer.Typer) -> None:
    people_app = typer.Typer(
        help="People across every source, one record each; merge and split correct the matching.",
        invoke_without_command=True,
        no_args_is_help=False,
    )
    app.add_typer(people_app, name="people")

    @people_app.callback()
    @cli_errors
    def list_people(
        ctx: typer.Context,
        json_out: Annotated[bool, typer.Option("--json", help="One JSON object on stdout.")] = False,
    ) -> None:
        """List people with the identities (Slack user, JIRA account, login, address...) each one has."""
        if ctx.invoked_subcommand is not None:
            return
        from briefing.service import Brief

        records = Brief(load()).person_records()
        if json_out:
            from briefing.people import suggestions

            pairs = [[left.id, right.id] for left, right in suggestions(records)]
            out.print_json(json.dumps({"people": [r.to_json() for r in records], "suggested_merges": pairs}))
            return
        table = Table("person", "name", "identities")
        for record in records:
            shown = []
            for identity in record.identities:
                extra = ", ".join([*identity.emails, *("@" + h.lstrip("@") for h in identity.handles)])
                shown.append(f"{identity.key}" + (f" ({extra})" if extra else ""))
            table.add_row(record.id, escape(record.name), escape("\n".join(shown)))
        out.print(table)
        from briefing.people import suggestions

        for left, right in suggestions(records):
            # A shared display name proves nothing (anyone can choose it): it is only offered, never applied.
            out.print(
                f"same name, not merged: {escape(left.name)} ({left.id}) and {escape(right.name)} ({right.id}); "
                f"if they are one person: brief people merge {left.identities[0].key} {right.identities[0].key}"
            )

    @people_app.command("merge")
    @cli_errors
    def merge_people(
        first: Annotated[str, typer.Argument(help="A person id, identity key, address, handle or name.")],
        second: Annotated[str, typer.Argument(help="The other person, named the same ways.")],
    ) -> None:
        """Record that two people are one (kept across re-ingests)."""
        from briefing import people
        from briefing.service import Brief

        brief = Brief(load())
        records = brief.person_records()
        left, right = _named(records, first), _named(records, second)
        if left.id == right.id:
            out.print(f"{escape(left.name)} is already one person ({left.id})")
            return
        corrections = people.Corrections.load(brief.people_file)
        people.merge(corrections, left, right)
        corrections.save(brief.people_file)
        records = brief.person_records()
        merged = people.find(records, left.identities[0].key)
        out.print(f"merged: {escape(left.name)} + {escape(right.name)} -> {merged.id if merged else '?'}")
        _restamp(brief.settings, records)

    @people_app.command("split")
    @cli_errors
    def split_person(
        identity: Annotated[
            str, typer.Argument(help="The identity to detach: its key (see `brief people`), address or handle.")
        ],
    ) -> None:
        """Detach one identity from the person it was matched to (kept across re-ingests)."""
        from briefing import people
        from briefing.service import Brief

        brief = Brief(load())
        records = brief.person_records()
        found = people.find_identity(records, identity)
        if found is None:
            raise InputError(f"'{identity}' names no single identity: use an identity key as `brief people` lists it")
        corrections = people.Corrections.load(brief.people_file)
        owner = next(r for r in records if found in r.identities)
        people.split(corrections, found, owner)
        corrections.save(brief.people_file)
        out.print(f"split: {escape(found.key)} is now a person of its own")
        _restamp(brief.settings, brief.person_records())


def _restamp(settings: Any, records: list[PersonRecord]) -> None:
    """The correction on the indexed chunks now (payloads only); when the index is busy, the way to do it later."""
    from briefing import people
    from briefing.errors import BriefError
    from briefing.index import Index

    try:
        with Index.open(settings) as index:
            if not index.exists():
                return
            changed = people.restamp(index, records)
            index.commit()
    except BriefError as exc:
        out.print(f"the index was not updated ({exc}): run `brief reindex --full` when it is free")
        return
    out.print(f"{changed} indexed chunk{'s' if changed != 1 else ''} updated")


def _named(records: list[PersonRecord], term: str) -> PersonRecord:
    from briefing.access import lookup

    return lookup(records, term, what="person")
