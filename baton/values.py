"""``value_class``: an immutable value defined without attrs (a named tuple).

attrs' import and class building are about a quarter of a hook's process
(``docs/performance.md``), so the values every hook path needs — the harness
protocol's (``baton.harnesses.protocol``) and the output screen's rules,
policy and outcome (``baton.domain.redaction``) — are named tuples: immutable,
compared and hashed by value, changed with ``_replace``. One definition,
used by both.
"""

from __future__ import annotations

from collections import namedtuple

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a prompt hook never needs it)
if TYPE_CHECKING:
    from typing import TypeVar, dataclass_transform

    _T = TypeVar("_T")

    @dataclass_transform(frozen_default=True)
    def value_class(cls: type[_T]) -> type[_T]:
        """To a type checker, a frozen dataclass: typed fields, the same constructor."""


def value_class(cls: type) -> type:  # type: ignore[no-redef]
    """``cls`` (annotated fields, defaults last, methods) as an immutable named tuple.

    ``typing.NamedTuple`` would do the same, but it turns each annotation into
    a ``ForwardRef`` and compiles it (0.27 ms a class here, against 0.05 ms):
    the annotations stay documentation, never evaluated.
    """
    fields = tuple(cls.__dict__.get("__annotations__", {}))
    defaults = [cls.__dict__[name] for name in fields if name in cls.__dict__]
    body = {key: item for key, item in cls.__dict__.items()
            if key not in fields and key not in ("__dict__", "__weakref__")}
    return type(cls.__name__, (namedtuple(cls.__name__, fields, defaults=defaults),), {**body, "__slots__": ()})
