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
    MINTED: ClassVar[Mapping[str, Any]] = EMPTY
    """The payload members whose values Baton itself makes, never a person, an agent or a harness:
    member → the shape it makes them in (``ID``, ``IDS``, ``TIME``, ``PROCESS``, or the set of the only words it
    writes there). A value of that shape cannot hold a secret, and the last screen before the ledger
    passes it over (``told_values``); a value of any other shape is screened as any text is."""

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


ID = "id"
"""A handoff's id, as Baton mints it (``baton.ledger.ids.uuid7``): 36 characters, lowercase hex and dashes."""
IDS = "ids"
"""A list of ids (``ID``)."""
TIME = "time"
"""A time as Baton writes it (``baton.ledger.clock.rfc3339_micros``: ``2026-12-08T00:04:48.433532Z``)."""

PROCESS = "process"
"""A harness process as Baton reads it from ``/proc`` (``baton.launch.harness_process``): ``{"pid", "start",
"boot", "pidns"}``, three whole numbers and the machine's boot id (an ``ID``'s shape)."""
_PROCESS_KEYS = frozenset({"pid", "start", "boot", "pidns"})

_HEX = frozenset("0123456789abcdef")
_DIGITS = frozenset("0123456789")
_TIME_MARKS = {4: "-", 7: "-", 10: "T", 13: ":", 16: ":", 19: ".", 26: "Z"}


def _is_id(value: Any) -> bool:
    return (type(value) is str and len(value) == 36 and value[8] == value[13] == value[18] == value[23] == "-"
            and _HEX.issuperset(value.replace("-", "")) and value.count("-") == 4)


def _is_time(value: Any) -> bool:
    return (type(value) is str and len(value) == 27
            and all(value[i] == mark for i, mark in _TIME_MARKS.items())
            and _DIGITS.issuperset(value[i] for i in range(26) if i not in _TIME_MARKS))


def minted(shape: Any, value: Any) -> bool:
    """Whether ``value`` has ``shape``, a shape Baton mints values in (``DomainEvent.MINTED``)."""
    if shape == ID:
        return _is_id(value)
    if shape == IDS:
        return type(value) is list and all(_is_id(item) for item in value)
    if shape == TIME:
        return _is_time(value)
    if shape == PROCESS:
        return (type(value) is dict and value.keys() == _PROCESS_KEYS and _is_id(value["boot"])
                and all(type(value[name]) is int for name in ("pid", "start", "pidns")))
    return type(value) is str and isinstance(shape, frozenset) and value in shape


def told_values(event_type: str, data: Any) -> list[Any] | None:
    """The values of an event's payload that a person, an agent or a harness could have written, for
    the last screen before the ledger (``Project.screen``): every member's value but those Baton
    mints in their shape (``DomainEvent.MINTED``: ids, times, the event's own words), and not the
    members' names, which are its class's fields (code, not input). None: screen the payload whole,
    names included (a type no class this process defined, a payload that is not an object, or a member
    its class does not name: ``extra``)."""
    cls = CATALOGUE.get(event_type)
    if cls is None or type(data) is not dict:
        return None
    names = _payload_fields(cls)
    shapes = cls.MINTED
    told = []
    for name, value in data.items():
        if name not in names and not (name == "key" and cls.KEY_IN_DATA):
            return None
        shape = shapes.get(name)
        if shape is None or not minted(shape, value):
            told.append(value)
    return told


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
