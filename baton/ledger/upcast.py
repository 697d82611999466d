"""Upcasters: old payloads are brought to the current schema on read.

The bytes in a feed never change (the chain would break); instead each reader
passes events through the registered upcasters, keyed by event type and the
schema version they upgrade *from*, applied until none matches. Like llm's
named migrations, each step is small, named and never edited once released.
"""

from __future__ import annotations

from baton.ledger.envelope import Event
from baton.values import replace

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a hook never needs it)
if TYPE_CHECKING:
    from typing import Any, Callable

    Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


class UpcasterRegistry:
    def __init__(self) -> None:
        self._steps: dict[tuple[str, int], Upcaster] = {}

    def register(self, event_type: str, from_schema: int) -> Callable[[Upcaster], Upcaster]:
        def decorate(fn: Upcaster) -> Upcaster:
            key = (event_type, from_schema)
            if key in self._steps:
                raise ValueError(f"an upcaster for {event_type} v{from_schema} is already registered")
            self._steps[key] = fn
            return fn

        return decorate

    def upgrades(self, event_type: str) -> bool:
        """Whether any step is registered for ``event_type`` (else ``upcast``
        returns every event of it as it is, and a reader may skip the call)."""
        return any(kind == event_type for kind, _schema in self._steps)

    def upcast(self, event: Event) -> Event:
        if event.data is None:
            return event
        data, schema = event.data, event.schema
        step = self._steps.get((event.type, schema))
        if step is None:
            return event
        while step is not None:
            data = step(dict(data))
            schema += 1
            step = self._steps.get((event.type, schema))
        return replace(event, data=data, schema=schema)


UPCASTERS = UpcasterRegistry()
"""The process-wide registry; the domain registers its steps here on import."""
