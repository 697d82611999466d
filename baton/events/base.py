"""The base of the event catalogue: ``DomainEvent``, the registry of classes
by type name, and ``decode``.

The classes themselves are defined by family, so that a command writing one
kind of event defines only that family's classes: ``baton.events.session``
(sessions and objectives: what every session start records),
``baton.events.baton`` (session batons), and ``baton.events.project``, ``.handoff`` and ``.detector`` (the project,
handoffs and the detector; importing it loads the whole catalogue, and every
class can be imported from it). ``decode`` and the projection runner load the
family module of an event's type on first sight of the type
(``baton.events.names.load_family``), so an event is always decoded and upcast with its class
and upcasters registered, whichever modules a process imported before.
Upcasters for old schemas are registered in the module that defines their
event's class (``baton.ledger.upcast.UPCASTERS``); a type no family names (a
retired one) loads the whole catalogue.
"""

from __future__ import annotations

from baton.events.names import DECODED, FAMILIES, load_family, split_stream, stream_of
from baton.ledger.envelope import Event, EventDraft
from baton.values import EMPTY_MAPPING, Value

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a hook never needs it)
if TYPE_CHECKING:
    from typing import Any, Callable, ClassVar, Mapping, TypeVar, dataclass_transform

    _C = TypeVar("_C")
    _T = TypeVar("_T")

    # What a value class is, spelled so that type checkers see keyword-only fields.
    @dataclass_transform(kw_only_default=True, frozen_default=True)
    class EventValue:
        """To a type checker, the base of frozen dataclasses whose fields are keyword-only."""
else:
    EventValue = Value
"""Every event class is a value class (``baton.values.Value``): a named tuple, built once,
whose fields are the base's (``key``, ``extra``) then the class's payload
members, with a hand-written ``__repr__`` (``DomainEvent``'s, which each inherits). Every command (hooks included)
defines the classes of the families it writes, and a replay builds one per
event it decodes: a named tuple is cheaper to define and to build than an
attrs class."""

def _event_repr(self: DomainEvent) -> str:
    return f"{type(self).__name__}(key={self.key!r}, data={self.data()!r})"


EMPTY: Mapping[str, Any] = EMPTY_MAPPING
"""The ``extra`` of an event built without one: shared, so read-only."""

FRESH_LIST: Any = object()
"""The default of a list-valued payload member (``redactions``, ``events``):
its class's ``__new__`` puts a new empty list in its place, as attrs'
``factory=list`` did, so no two events share one."""


class DomainEvent(EventValue):
    """One recorded fact, typed. Subclasses add their payload members as fields."""

    __repr__ = _event_repr  # not the named tuple's: every event class inherits it

    TYPE: ClassVar[str] = ""
    SCHEMA: ClassVar[int] = 1
    STREAM: ClassVar[str] = ""
    ERASABLE: ClassVar[tuple[str, ...]] = ()
    KEY_IN_DATA: ClassVar[bool] = False
    """Baton events also spell their key inside ``data`` (as the spec's telemetry does)."""

    key: str = ""
    """The aggregate's id within ``STREAM`` (from the envelope's stream)."""
    extra: Mapping[str, Any] = EMPTY
    """Payload members this version does not know; written back unchanged."""

    @property
    def stream(self) -> str:
        return stream_of(self.STREAM, self.key)

    def data(self) -> dict[str, Any]:
        """The payload as stored: every known member (None included) plus ``extra``."""
        out: dict[str, Any] = {"key": self.key} if self.KEY_IN_DATA else {}
        out.update(self.extra)
        for field in _payload_fields(type(self)):
            out[field] = getattr(self, field)
        return out

    def draft(self, *, actor: str | None = None, session: str | None = None) -> EventDraft:
        return EventDraft(self.TYPE, self.stream, self.data(), actor=actor, session=session, schema=self.SCHEMA)


_FIELDS: dict[type, tuple[str, ...]] = {}


def _payload_fields(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(name for name in cls._fields if name not in ("key", "extra"))  # type: ignore[attr-defined]
    return names


CATALOGUE: dict[str, type[DomainEvent]] = {}
"""Event type name → class: every event type Baton writes."""


def register(cls: type[DomainEvent]) -> type[DomainEvent]:
    if not cls.TYPE or cls.STREAM not in FAMILIES:
        raise TypeError(f"{cls.__name__} needs a TYPE and a STREAM from {FAMILIES}")
    if cls.TYPE in CATALOGUE:
        raise TypeError(f"event type {cls.TYPE} is defined twice")
    CATALOGUE[cls.TYPE] = cls
    return cls


_LAST: tuple[Event | None, DomainEvent | None] = (None, None)
"""The envelope ``decode`` read last, and its typed form: a fold hands one
event to every projection in turn, and several decode it (the handoff,
lineage and metrics folds; the baton and scope folds) — the second and
later ones get the same (frozen) object instead of building it again. Held
by identity, with the envelope kept alive, so it can never answer for
another event; one tuple, swapped whole, so threads never see half of it."""


def decode(event: Event) -> DomainEvent | None:
    """The typed form of a sealed (and upcast) envelope.

    None for a type this version does not know, an erased payload, or an
    event on a stream of another family than its type's (hand-written lines).
    """
    global _LAST
    last = _LAST
    if last[0] is event:
        return last[1]
    batch = DECODED.get()
    if batch is not None:
        known = batch.get(id(event))
        if known is not None and known[0] is event:
            return known[1]  # type: ignore[no-any-return]
    typed = _decode(event)
    _LAST = (event, typed)
    if batch is not None:
        batch[id(event)] = (event, typed)  # the envelope kept with it: its id names no other while held
    return typed


def derived(typed: Any, name: str, args: tuple[Any, ...], compute: Callable[[], _T]) -> _T:
    """``compute()``, a value two folds derive alike from one typed event and
    ``args`` (a baton's record, which the baton index and the baton scopes
    both build from a ``baton.created``): while the runner folds a batch,
    computed once and kept beside the decoded event (``DECODED``, held by
    identity with the event kept alive, as ``decode`` keeps it); else computed."""
    batch = DECODED.get()
    if batch is None:
        return compute()
    slot = (name, id(typed), args)
    known = batch.get(slot)
    if known is not None and known[0] is typed:
        return known[1]  # type: ignore[no-any-return]
    value = compute()
    batch[slot] = (typed, value)
    return value


def _decode(event: Event) -> DomainEvent | None:
    cls = CATALOGUE.get(event.type)
    if cls is None:
        load_family(event.type)
        cls = CATALOGUE.get(event.type)
    if cls is None or not isinstance(event.data, dict):
        return None
    family, key = split_stream(event.stream)
    if family != cls.STREAM:
        return None
    data = event.data
    names = _payload_fields(cls)
    known = {name: data[name] for name in names if name in data}
    extra = {k: v for k, v in data.items() if k not in known} if len(known) != len(data) else {}
    if cls.KEY_IN_DATA and extra.get("key") == key:
        del extra["key"]
    return cls(key=key, extra=extra, **known)
