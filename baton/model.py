"""attrs classes that are cheap to define: ``frozen`` and ``mutable``.

Every ``baton`` process — each hook, each agent tool call — defines the
classes of the modules it imports, and attrs writes and ``compile()``s the
source of each class's ``__init__``, ``__eq__``, ``__hash__`` and
``__repr__`` when the class is defined: 0.7 ms a class here, about 45 ms of a
60-class command (``docs/performance.md``). No bytecode cache keeps that
work. These decorators keep attrs' generated ``__init__`` (fields, defaults,
validators, converters, slots, frozenness: everything cattrs and
``attrs.evolve`` rely on) and give every class the same three shared
methods instead of generated ones, which cuts the cost of a class by more
than half:

- ``__eq__``: same class and equal field values (fields with ``eq=False``
  left out), as attrs' generated one;
- ``__hash__``: of the class and the field values for ``frozen`` classes;
  ``mutable`` ones are unhashable, as attrs makes them;
- ``__repr__``: ``Name(field=value, ...)`` over the fields with ``repr=True``.

A class that writes its own ``__repr__`` (or ``__eq__``) keeps it.

attrs still writes and compiles each class's ``__init__`` (~1 M instructions a
class). ``precompiled`` registers those sources compiled beforehand, with a
module of their own (``baton.domain.record_inits``, the record model's, written
by ``scripts/record_inits.py``): a class whose ``__init__`` source attrs writes
is one of them takes its compiled form, the same bytecode; any other source is
compiled by attrs as before.

A slotted class is built twice (attrs makes the class, then a copy with
``__slots__``): ~0.15 ms more a class. Classes a process builds a handful
of times (results, settings, a scope, a command) are ``frozen(slots=False)``
or ``mutable(slots=False)``; those built by the thousand in a replay or a
listing (``Event``, ``FeedHead``, ``Cursor``, a record) keep their slots.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from types import FunctionType
from typing import TYPE_CHECKING, Any, TypeVar, cast

import attrs
from attr import _make as _attrs_make

T = TypeVar("T")


def _values(obj: Any) -> tuple:
    return tuple(getattr(obj, a.name) for a in obj.__attrs_attrs__ if a.eq)


def _eq(self: Any, other: Any) -> bool:
    if other.__class__ is not self.__class__:
        return NotImplemented
    return _values(self) == _values(other)


def _hash(self: Any) -> int:
    return hash((self.__class__, _values(self)))


def _repr(self: Any) -> str:
    shown = ", ".join(f"{a.name}={getattr(self, a.name, attrs.NOTHING)!r}"
                      for a in self.__attrs_attrs__ if a.repr)
    return f"{self.__class__.__qualname__}({shown})"


def _shared_methods(cls: Any, *, hashable: bool) -> Any:
    """Install the shared methods where the class neither writes nor inherits its own."""
    if cls.__eq__ in (object.__eq__, _eq):
        cls.__eq__ = _eq
        cls.__hash__ = _hash if hashable else None
    if cls.__repr__ in (object.__repr__, _repr):
        cls.__repr__ = _repr
    return cls


_PRECOMPILED: dict[str, Callable[[], dict[str, Any]]] = {}
"""The methods attrs writes for a class, by the exact source attrs would compile: a
function compiled with its module (its ``.pyc``) that defines them and returns them by name."""

_ATTRS_COMPILE = getattr(_attrs_make, "_linecache_and_compile", None)
"""Where attrs compiles the source it writes for a class (``_ClassBuilder._eval_snippets``)."""


def precompiled(made: Mapping[str, Callable[[], dict[str, Any]]]) -> None:
    """Classes defined from now on whose methods attrs writes as one of ``made``'s
    sources take that source's compiled form instead of compiling it: ~1 M
    instructions a class of the record model (``baton.domain.record_inits``)."""
    _PRECOMPILED.update(made)


def _compiled(script: str, filename: str, globs: dict[str, Any] | None,
              locals: Mapping[str, object] | None = None) -> dict[str, Any]:
    """attrs' ``_linecache_and_compile`` for a source compiled beforehand: the same
    ``def`` statements run in attrs' globals (defaults evaluated there, as
    ``eval`` of the source does), their functions returned by name."""
    made = _PRECOMPILED.get(script)
    if made is None:
        return cast(Any, _ATTRS_COMPILE)(script, filename, globs, locals)
    locs: Any = {} if locals is None else locals
    locs.update(FunctionType(made.__code__, globs if globs is not None else {})())
    return cast(dict[str, Any], locs)


def _built(build: Callable[[], T]) -> T:
    """``build()`` (an attrs decorator applied), reading precompiled sources while it runs."""
    if not _PRECOMPILED or _ATTRS_COMPILE is None:
        return build()
    _attrs_make._linecache_and_compile = _compiled
    try:
        return build()
    finally:
        _attrs_make._linecache_and_compile = _ATTRS_COMPILE


def shared_frozen(maybe_cls: type[T] | None = None, **options: Any) -> Any:
    """``attrs.frozen`` (immutable, slotted unless ``slots=False``) with the shared methods."""

    def wrap(cls: type[T]) -> type[T]:
        return _built(lambda: attrs.frozen(_shared_methods(cls, hashable=True), eq=False, repr=False, **options))

    return wrap if maybe_cls is None else wrap(maybe_cls)


def shared_mutable(maybe_cls: type[T] | None = None, **options: Any) -> Any:
    """``attrs.define`` (mutable, slotted) with the shared methods; instances are unhashable."""

    def wrap(cls: type[T]) -> type[T]:
        return _built(lambda: attrs.define(_shared_methods(cls, hashable=False), eq=False, repr=False, **options))

    return wrap if maybe_cls is None else wrap(maybe_cls)


if TYPE_CHECKING:
    # Type checkers see attrs' own decorators, which mypy's attrs plugin understands (the fields, the
    # generated ``__init__``): what these build is the same class with three shared methods.
    from attrs import define as mutable
    from attrs import frozen
else:
    frozen, mutable = shared_frozen, shared_mutable


def as_tuple(value: Any) -> tuple:
    """``tuple(value)``, as an attrs converter: attrs reads a converter's
    signature for every field that has one when a class is defined, and the
    builtin ``tuple``'s takes ``inspect`` ~0.5 ms to parse from its text — a
    Python function's is read from its code object, and this one's is read
    once (``__signature__``: the record model has ~20 such fields)."""
    return tuple(value)


as_tuple.__signature__ = inspect.signature(as_tuple)  # type: ignore[attr-defined]


_NOT_PLAIN = False
_EVOLVE_PLANS: dict[type, Any] = {}


def _evolve_plan(cls: type) -> Any:
    """``cls``'s attributes and, by ``__init__`` name, (attribute, converter);
    ``_NOT_PLAIN`` for a class whose ``__init__`` does more than convert and
    set each field (validators, ``init=False`` fields, ``__attrs_post_init__``,
    ``on_setattr`` hooks): ``evolve`` leaves those to ``attrs.evolve``."""
    if (not attrs.has(cls) or hasattr(cls, "__attrs_post_init__") or hasattr(cls, "__attrs_pre_init__")
            or "_attrs_cached_hash" in getattr(cls, "__slots__", ())):
        return _NOT_PLAIN
    fields = attrs.fields(cls)
    if any(not f.init or f.validator is not None or isinstance(f.converter, attrs.Converter)
           or f.on_setattr not in (None, attrs.setters.NO_OP) for f in fields):
        return _NOT_PLAIN
    return [f.name for f in fields], {f.alias: (f.name, f.converter) for f in fields}


FACTORY: type = type(attrs.Factory(list))
"""The class of a field's default that is made anew per object (``attrs.Factory``, a function to type checkers)."""


def is_plain(cls: type) -> bool:
    """``cls``'s ``__init__`` only converts and sets each field (``_evolve_plan``),
    every converter is ``as_tuple`` and no default takes ``self``: an object
    built field by field with ``object.__setattr__`` equals one ``__init__``
    builds (the handoff record's generated readers build them so)."""
    plan = _EVOLVE_PLANS.get(cls)
    if plan is None:
        plan = _EVOLVE_PLANS[cls] = _evolve_plan(cls)
    return plan is not _NOT_PLAIN and all(
        f.converter in (None, as_tuple)
        and not (isinstance(f.default, FACTORY) and cast(Any, f.default).takes_self) for f in attrs.fields(cls))


def evolve(inst: T, **changes: Any) -> T:
    """``attrs.evolve(inst, **changes)``, without running ``__init__`` again:
    the unchanged fields are copied as they are (their converters ran when
    they were set), the changed ones go through their converter. Replay
    evolves a record at every event it folds. A class whose ``__init__``
    does more than that (``_evolve_plan``), and a change naming no field,
    go through ``attrs.evolve`` itself."""
    cls = inst.__class__
    plan = _EVOLVE_PLANS.get(cls)
    if plan is None:
        plan = _EVOLVE_PLANS[cls] = _evolve_plan(cls)
    if plan is _NOT_PLAIN or not changes.keys() <= plan[1].keys():
        return cast(T, attrs.evolve(cast(Any, inst), **changes))
    names, by_alias = plan
    new = object.__new__(cls)
    put = object.__setattr__
    for name in names:
        put(new, name, getattr(inst, name))
    for alias, value in changes.items():
        name, convert = by_alias[alias]
        put(new, name, value if convert is None else convert(value))
    return new


__all__: list[str] = ["FACTORY", "as_tuple", "evolve", "frozen", "is_plain", "mutable"]
