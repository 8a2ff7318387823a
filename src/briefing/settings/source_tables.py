"""Source tables: every registered source type's config model, as one union discriminated by `type`."""

from __future__ import annotations

from typing import Annotated, Any, Union

from pydantic import Field, TypeAdapter


def source_union() -> Any:
    """A discriminated union of every registered source type's config model (rebuilt when the registry changes)."""
    from briefing import registry

    models = tuple(d.config for d in registry.descriptors())
    return TypeAdapter(Annotated[Union[models], Field(discriminator="type")])  # type: ignore[arg-type]  # noqa: UP007


def source_adapter() -> TypeAdapter[Any]:
    """Validate one source table on its own (used by tests and `brief sources`)."""
    adapter: TypeAdapter[Any] = source_union()
    return adapter


def source_types() -> tuple[str, ...]:
    """The registered source types, as a source table's `type` names them."""
    from briefing import registry

    return registry.source_types()
