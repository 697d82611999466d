"""``Value``: an immutable value defined without attrs (a named tuple).

attrs' import and class building are about a quarter of a hook's process
(``docs/performance.md``), so the values every hook path needs — the harness
protocol's (``baton.harnesses.protocol``) and the output screen's rules,
policy and outcome (``baton.domain.redaction``) — are named tuples: immutable,
compared and hashed by value, changed with ``_replace``. One definition,
used by both: ``class X(Value):`` (its metaclass builds the tuple's class once,
from the class statement's namespace; ``value_class`` for a class made at run time).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from types import FunctionType

try:
    from _collections import _tuplegetter  # type: ignore[import-not-found]  # what namedtuple's fields are
except ImportError:  # another interpreter: a property over itemgetter reads the same
    from operator import itemgetter as _itemgetter

    def _tuplegetter(index: int, doc: object) -> property:
        return property(_itemgetter(index), doc=doc)  # type: ignore[arg-type,unused-ignore]


TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a prompt hook never needs it)
if TYPE_CHECKING:
    from typing import TypeVar, dataclass_transform

    _T = TypeVar("_T")
    _V = TypeVar("_V")

    @dataclass_transform(frozen_default=True)
    def value_class(cls: type[_T]) -> type[_T]:
        """To a type checker, a frozen dataclass: typed fields, the same constructor."""


def _same_value(self: tuple, other: object) -> bool:
    """Equal as attrs' classes are: the same class and equal fields (a plain tuple, or
    another value class with the same fields, is never equal)."""
    return other.__class__ is self.__class__ and tuple.__eq__(self, other)


def _other_value(self: tuple, other: object) -> bool:
    return not _same_value(self, other)


def _always_true(self: tuple) -> bool:
    """A value is true, as an attrs instance is, even with no fields (an empty tuple is false)."""
    return True


def _make(cls: type, iterable: Iterable[object]) -> tuple:
    made: tuple = tuple.__new__(cls, iterable)  # type: ignore[type-var,unused-ignore]
    if len(made) != len(cls._fields):  # type: ignore[attr-defined]
        raise TypeError(f"expected {len(cls._fields)} arguments, got {len(made)}")  # type: ignore[attr-defined]
    return made


def _replace_fields(self: tuple, /, **changes: object) -> tuple:
    made = self._make(map(changes.pop, self._fields, self))  # type: ignore[attr-defined]
    if changes:
        raise ValueError(f"Got unexpected field names: {list(changes)!r}")
    return made


def _as_dict(self: tuple) -> dict:
    return dict(zip(self._fields, self))  # type: ignore[attr-defined]


def _value_repr(self: tuple) -> str:
    shown = ", ".join(f"{name}={value!r}" for name, value in zip(self._fields, self))  # type: ignore[attr-defined]
    return f"{self.__class__.__name__}({shown})"


def _new_args(self: tuple) -> tuple:
    return tuple(self)


_tuple_new = tuple.__new__
_NEW_GLOBALS = {"_tuple_new": _tuple_new}


# ``__new__`` for each number of fields up to 26, as ``namedtuple`` writes it, compiled with this
# module (their bytecode is in its ``.pyc``): a value class takes the one of its number of fields,
# its parameters renamed, and no process parses or compiles source for it (an ``exec``: ~0.5 M
# instructions a number of fields, 11-14 of them on a hook path).
def _n0(_c):
    return _tuple_new(_c, ())


def _n1(_c, a):
    return _tuple_new(_c, (a,))


def _n2(_c, a, b):
    return _tuple_new(_c, (a, b))


def _n3(_c, a, b, c):
    return _tuple_new(_c, (a, b, c))


def _n4(_c, a, b, c, d):
    return _tuple_new(_c, (a, b, c, d))


def _n5(_c, a, b, c, d, e):
    return _tuple_new(_c, (a, b, c, d, e))


def _n6(_c, a, b, c, d, e, f):
    return _tuple_new(_c, (a, b, c, d, e, f))


def _n7(_c, a, b, c, d, e, f, g):
    return _tuple_new(_c, (a, b, c, d, e, f, g))


def _n8(_c, a, b, c, d, e, f, g, h):
    return _tuple_new(_c, (a, b, c, d, e, f, g, h))


def _n9(_c, a, b, c, d, e, f, g, h, i):
    return _tuple_new(_c, (a, b, c, d, e, f, g, h, i))


def _n10(_c, a, b, c, d, e, f, g, h, i, j):
    return _tuple_new(_c, (a, b, c, d, e, f, g, h, i, j))


def _n11(_c, a, b, c, d, e, f, g, h, i, j, k):
    return _tuple_new(_c, (a, b, c, d, e, f, g, h, i, j, k))


def _n12(_c, a, b, c, d, e, f, g, h, i, j, k, l):
    return _tuple_new(_c, (a, b, c, d, e, f, g, h, i, j, k, l))


def _n13(_c, a, b, c, d, e, f, g, h, i, j, k, l, m):
    return _tuple_new(_c, (a, b, c, d, e, f, g, h, i, j, k, l, m))


def _n14(_c, a, b, c, d, e, f, g, h, i, j, k, l, m, n):
    return _tuple_new(_c, (a, b, c, d, e, f, g, h, i, j, k, l, m, n))


def _n15(_c, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o):
    return _tuple_new(_c, (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o))


def _n16(_c, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p):
    return _tuple_new(_c, (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p))


def _n17(_c, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q):
    return _tuple_new(_c, (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q))


def _n18(_c, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r):
    return _tuple_new(_c, (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r))


def _n19(_c, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s):
    return _tuple_new(_c, (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s))


def _n20(_c, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t):
    return _tuple_new(_c, (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t))


def _n21(_c, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u):
    return _tuple_new(_c, (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u))


def _n22(_c, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v):
    return _tuple_new(_c, (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v))


def _n23(_c, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v, w):
    return _tuple_new(_c, (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v, w))


def _n24(_c, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x):
    return _tuple_new(_c, (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x))


def _n25(_c, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y):
    return _tuple_new(_c, (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y))


def _n26(_c, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, z):
    return _tuple_new(_c, (a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u, v, w, x, y, z))


_NEW_CODES: dict[int, object] = {n: f.__code__ for n, f in enumerate((
    _n0, _n1, _n2, _n3, _n4, _n5, _n6, _n7, _n8, _n9, _n10, _n11, _n12, _n13,
    _n14, _n15, _n16, _n17, _n18, _n19, _n20, _n21, _n22, _n23, _n24, _n25, _n26))}
"""The compiled ``__new__`` of each number of fields, by that number: those above, and any
larger number compiled once when a class first needs it (``_new``)."""


def _new(fields: tuple[str, ...], defaults: list[object]) -> FunctionType:
    """``__new__(_cls, <fields>)``, as ``namedtuple`` writes it: the code for that
    number of fields (``_NEW_CODES``; compiled here for a number above them), named
    ``__new__`` once for each number (``_NAMED_CODES``), its parameters then renamed
    for each class (``CodeType.replace``: renaming the parameters alone costs a fifth
    of renaming the function too)."""
    code = _NAMED_CODES.get(len(fields))
    if code is None:
        code = _NEW_CODES.get(len(fields))
        if code is None:
            names = ", ".join(f"_{index}" for index in range(len(fields)))
            compiled: dict[str, FunctionType] = {}
            exec(f"def __new__(_cls, {names}): return _tuple_new(_cls, ({names}{',' if len(fields) == 1 else ''}))",
                 _NEW_GLOBALS, compiled)
            code = _NEW_CODES[len(fields)] = compiled["__new__"].__code__
        code = _NAMED_CODES[len(fields)] = code.replace(co_name="__new__", co_qualname="__new__")  # type: ignore[attr-defined]
    renamed = code.replace(co_varnames=("_cls", *fields))  # type: ignore[attr-defined]
    return FunctionType(renamed, _NEW_GLOBALS, "__new__", tuple(defaults) or None)


_NAMED_CODES: dict[int, object] = {}
"""``_NEW_CODES``' code of each number of fields a class has needed, named ``__new__``."""


_CLASS_VARS = ("ClassVar", "typing.ClassVar")
"""How a ``ClassVar`` annotation (a class attribute, not a field) starts, as a string."""


_NO_DEFAULT = object()


class _ValueType(type):
    """The metaclass of ``Value``: a class statement naming ``Value`` (or a value class) as a
    base is built once, as an immutable named tuple (``_ValueType.__new__``)."""

    def __new__(mcls, name: str, bases: tuple[type, ...], namespace: dict[str, object],
                **kwargs: object) -> _ValueType:
        """``namespace`` (annotated fields, defaults last, methods) as a named tuple's class.

        Fields a value-class base defines come first, in its order; ``ClassVar``
        annotations are class attributes, not fields. Other bases (mixins of
        methods, with ``__slots__ = ()``) stay where the class statement names them;
        name ``Value`` first for the tuple's methods to come before theirs.

        ``typing.NamedTuple`` would do the same, but it turns each annotation into
        a ``ForwardRef`` and compiles it (0.27 ms a class here), and
        ``collections.namedtuple`` compiles a ``__new__`` for each class (~0.09 ms
        with the class around it); this builds one class from its namespace, once
        (``_new``; the methods every value has are ``Value``'s): the annotations
        stay documentation, never evaluated.
        """
        fields: dict[str, object] = {}
        for base in reversed(bases):
            for field in getattr(base, "_fields", ()):
                fields[field] = base._field_defaults.get(field, _NO_DEFAULT)  # type: ignore[attr-defined]
        body = dict(namespace)
        for field, annotation in namespace.get("__annotations__", {}).items():  # type: ignore[attr-defined]
            if not str(annotation).startswith(_CLASS_VARS):
                fields[field] = body.pop(field, _NO_DEFAULT)
        defaults = [value for value in fields.values() if value is not _NO_DEFAULT]
        names = tuple(fields)
        core = {"__slots__": (), "_fields": names, "__match_args__": names, "__new__": _new(names, defaults),
                "_field_defaults": dict(zip(names[len(names) - len(defaults):], defaults))}
        for index, field in enumerate(names):
            core[field] = _tuplegetter(index, None)
        if "__new__" in body:  # its ``super().__new__`` is the generated one: a class of its own below
            bases = (type.__new__(mcls, name, bases, {**core, "__module__": body.get("__module__"),
                                                      "__qualname__": body.get("__qualname__", name)}),)
            core = {"__slots__": ()}
        return type.__new__(mcls, name, bases, {**core, **body})


if TYPE_CHECKING:
    @dataclass_transform(frozen_default=True)
    class Value:
        """To a type checker, the base of frozen dataclasses: typed fields, the same constructor."""
else:
    Value = type.__new__(_ValueType, "Value", (tuple,), {
        "__module__": __name__, "__qualname__": "Value", "__slots__": (), "_fields": (), "_field_defaults": {},
        "__eq__": _same_value, "__ne__": _other_value, "__hash__": tuple.__hash__, "__bool__": _always_true,
        "_make": classmethod(_make), "_replace": _replace_fields, "_asdict": _as_dict, "__repr__": _value_repr,
        "__getnewargs__": _new_args,
        "__doc__": "The base of every value class (``class X(Value):``), built by ``type`` itself: what every "
                   "value has, ``collections.namedtuple``'s methods written once and attrs' equality and truth."})


def value_class(cls: type) -> type:  # type: ignore[no-redef]
    """``cls``, a class already built, as a value class (``class cls(Value):``, built again): for a class
    made at run time (``type(...)``). A class statement names ``Value`` as its base instead, built once."""
    if isinstance(cls, _ValueType):  # a value class's subclass: its class statement built it
        return cls
    body = {key: item for key, item in cls.__dict__.items() if key not in ("__dict__", "__weakref__")}
    made = _ValueType(cls.__name__, (Value, *(base for base in cls.__bases__ if base is not object)), body)
    for item in body.values():
        _point_class_cells(item, cls, made)
    return made


def _point_class_cells(item: object, old: type, new: type) -> None:
    """A method's ``__class__`` cell (what a bare ``super()`` reads) names ``new``,
    the class ``value_class`` made, instead of ``old``, the one it was given (as
    attrs does for the classes it remakes)."""
    if isinstance(item, (staticmethod, classmethod)):
        item = item.__func__
    if isinstance(item, property):
        for accessor in (item.fget, item.fset, item.fdel):
            _point_class_cells(accessor, old, new)
        return
    for cell in getattr(item, "__closure__", None) or ():
        try:
            if cell.cell_contents is old:
                cell.cell_contents = new
        except ValueError:  # an empty cell
            continue


def read_by_plan(cls: type, obj: object, plans: dict[type, tuple[list, frozenset[str]]],
                 plan_of: Callable[[type], tuple[list, frozenset[str]]]) -> object:
    """``cls`` from a written JSON object, member by member as its plan says (``plans[cls]``, else
    ``plan_of(cls)``, which makes it and keeps it in ``plans``): ``(JSON member,
    keyword, how it is read, the class it holds)`` per member, and the members it knows. How:
    ``model`` (one ``held`` read in turn), ``models`` (an array of them, to a tuple), ``tuple`` (an
    array of values), ``float`` (a number), ``object`` (a JSON object, copied) or ``value`` (as
    written); a ``null`` stays ``None``, but where an array belongs. Members it does
    not know are kept in ``extra``, passed only when there are any. The one reader of a stored
    record, for the record model (``handoff.stored_handoff``) and its views
    (``record_view.read_record``), each with its own plan.

    Raises:
        TypeError, ValueError, KeyError: where the object is not shaped as the plan reads it.
    """
    if type(obj) is not dict:
        raise TypeError(f"{cls.__name__} must be an object")
    members, known = plans.get(cls) or plan_of(cls)
    values: dict[str, object] = {}
    for key, name, how, held in members:
        if key not in obj:
            continue
        value = obj[key]
        if how == "value":
            pass
        elif how == "tuple":
            value = tuple(value)  # an array's own converter: a null array fails there too
        elif how == "models":
            if type(value) is not list:
                raise TypeError(f"{key} must be an array")
            value = tuple([read_by_plan(held, item, plans, plan_of) for item in value])
        elif value is None:
            pass
        elif how == "model":
            value = read_by_plan(held, value, plans, plan_of)
        elif how == "float":
            value = float(value)
        else:
            value = dict(value)
        values[name] = value
    if obj.keys() - known:
        values["extra"] = {k: v for k, v in obj.items() if k not in known}
    return cls(**values)


def replace(value: _V, **changes: object) -> _V:
    """A copy of ``value`` (a ``value_class`` instance) with ``changes``: what
    ``attrs.evolve`` is for an attrs class, typed for a type checker, which sees
    a value class as a frozen dataclass and so not its ``_replace``."""
    return value._replace(**changes)  # type: ignore[attr-defined]


class _EmptyMapping(Mapping):
    """A read-only empty mapping: the default of a value's mapping field (an event's
    ``extra``), shared by every value, never mutated. Unlike ``MappingProxyType({})``
    it copies and pickles (as itself): ``copy.deepcopy`` of a value works as it did
    for the attrs class, whose default was a new dict."""

    __slots__ = ()

    def __getitem__(self, key: object) -> object:
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "{}"

    def __reduce__(self) -> str:
        return "EMPTY_MAPPING"


EMPTY_MAPPING: Mapping = _EmptyMapping()
"""The one empty mapping value classes share as a default (``_EmptyMapping``)."""
