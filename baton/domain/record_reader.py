"""Strict readers of the record model's classes, made per class on first use, without cattrs.

``baton.domain.handoff.structure`` reads a record through these first; only
an input they refuse is read again by cattrs' detailed converter, which
reports every problem with its path. Why not cattrs for both: a command that
folds one capture from another writer (a late event after ``baton sync``, in a
hook's own process) would import cattrs (~10 ms) and build a converter for
all 19 model classes (~9 ms) to read one record. A reader here is made for
the classes the record holds, when it first holds them, and walks the
class's plan (nothing compiled); from a class's ``COMPILE_AFTER``-th record
on (a replay) it is generated code, the same checks unrolled (``StrictReaders``).

Each reader accepts exactly what the converter's hooks accept and builds the
same value (tests/test_record_reader.py compares the two on generated
records): an object for a model class, every required member present,
strings where strings belong, ``true``/``false`` for booleans, a number
(not a boolean) for a ``float`` and read as a float, an array for a tuple,
one of the allowed strings for a ``Literal``, an object (copied) for a JSON
object, ``null`` for an optional member; the named types (timestamps, ids)
by the checks the model gives (``named``). Unknown members are kept in
``extra``. A refusal raises ``TypeError``, ``ValueError`` or ``KeyError``
(``OverflowError`` for an integer too large for a float, as the converter's
hook does) with no report: the caller asks the converter for that.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from types import UnionType
from typing import Any, Literal, Union, cast, get_args, get_origin

import attrs

from baton.model import FACTORY, is_plain

Check = Callable[[Any], Any]
"""A member's value as read from JSON -> the model's value; raises on a value the model refuses."""


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError("must be a string")
    return value


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError("must be true or false")
    return value


def _float(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError("must be a number")
    return float(value)


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("must be an integer")
    return value


def _json_object(value: Any) -> dict[Any, Any]:
    if not isinstance(value, dict):
        raise TypeError("must be an object")
    return dict(value)


def _str_items(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise TypeError("must be an array")
    for item in value:
        if not isinstance(item, str):
            raise TypeError("must be a string")
    return tuple(value)


_SCALARS: dict[Any, Check] = {str: _str, bool: _bool, float: _float, int: _int}


def _literal(allowed: tuple[Any, ...]) -> Check:
    choices = frozenset(allowed)

    def check_literal(value: Any) -> Any:
        if not isinstance(value, str) or value not in choices:
            raise ValueError("not one of the allowed values")
        return value

    return check_literal


def _optional(inner: Check) -> Check:
    def check_optional(value: Any) -> Any:
        return None if value is None else inner(value)

    return check_optional


def _items(item: Check) -> Check:
    def check_items(value: Any) -> tuple[Any, ...]:
        if not isinstance(value, list):
            raise TypeError("must be an array")
        return tuple([item(v) for v in value])

    return check_items


def member_types(cls: type) -> dict[str, Any]:
    """An attrs class's member types, its annotations (``from __future__ import annotations``:
    text) evaluated in its module as ``typing.get_type_hints`` would, in one ``eval`` for the
    class instead of one ``compile`` per member (~0.2 ms a class for a record of 13 classes)."""
    fields = [f for f in attrs.fields(cls) if f.name != "extra"]
    texts = [f for f in fields if isinstance(f.type, str)]
    types = {f.name: f.type for f in fields if not isinstance(f.type, str)}
    if texts:
        scope = dict(vars(sys.modules[cls.__module__]))
        values = eval(compile("(" + "".join(f"{f.type}," for f in texts) + ")",  # noqa: S307 - the class's own annotations
                              f"<baton types of {cls.__name__}>", "eval"), scope)
        types.update(zip([f.name for f in texts], values))
    return types


_ONLY_STR = frozenset((str,))

Plan = list[tuple[str, str, Check, bool]]
"""Per member of a class: its JSON key, its ``__init__`` name, its check, and whether it is required."""
COMPILE_AFTER = 16
"""How many records of a class are read by walking its plan before its reader is generated and
compiled (~0.3 ms a class): a command that folds one capture compiles nothing, a replay compiles
the readers of the classes it reads thousands of."""


class StrictReaders(dict[type, Callable[[Any], Any]]):
    """Per model class: its reader (JSON object -> model), made when the class
    is first read: one that walks the class's plan, then, from the
    ``compile_after``-th record of the class on, generated code (the same
    checks unrolled). ``keys``: a class's attributes and the JSON member each
    is read from (``extra`` left out); ``named``: the checks of types that are
    neither a scalar nor a shape (the ``NewType`` ones)."""

    def __init__(self, classes: Iterable[type], keys: Callable[[type], Mapping[str, str]],
                 named: Mapping[Any, Check], *, compile_after: int = COMPILE_AFTER) -> None:
        super().__init__()
        self.classes = frozenset(classes)
        self.json_keys = keys
        self.named: dict[Any, Check] = dict(named)
        self.compile_after = compile_after

    def __missing__(self, cls: type) -> Callable[[Any], Any]:
        if cls not in self.classes:
            raise KeyError(cls)
        plan = self.plan(cls)
        reader = self[cls] = self._walking(cls, plan) if self.compile_after > 0 else self._generate(cls, plan)
        return reader

    def compiled(self, cls: type) -> Callable[[Any], Any]:
        """``cls``'s generated reader, made now if it was not (the hook server, before it forks)."""
        reader: Callable[[Any], Any] = self[cls]
        if not getattr(reader, "walks_plan", False):
            return reader
        reader = self[cls] = self._generate(cls, self.plan(cls))
        return reader

    def plan(self, cls: type) -> Plan:
        keys, types = self.json_keys(cls), member_types(cls)
        return [(keys[f.name], f.alias, self.check(types[f.name]), f.default is attrs.NOTHING)
                for f in attrs.fields(cls) if f.name != "extra"]

    def check(self, kind: Any) -> Check:
        """The check of a member of type ``kind``."""
        if kind in self.named:
            return self.named[kind]
        if kind in _SCALARS:
            return _SCALARS[kind]
        if kind in self.classes:
            return self._model(kind)
        origin, args = get_origin(kind), get_args(kind)
        if origin is Literal:
            return _literal(args)
        if origin in (Union, UnionType) and len(args) == 2 and type(None) in args:
            return _optional(self.check(next(a for a in args if a is not type(None))))
        if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
            return _str_items if args[0] is str else _items(self.check(args[0]))
        if origin is dict:
            return _json_object
        raise TypeError(f"no strict reader for a member of type {kind!r}")

    def _model(self, cls: type) -> Check:
        readers = self

        def read_model(value: Any) -> Any:
            return readers[cls](value)

        return read_model

    def _walking(self, cls: type, plan: Plan) -> Callable[[Any], Any]:
        """The reader that walks the plan; it hands over to the generated one at ``compile_after`` records."""
        known = frozenset(key for key, *_ in plan)
        readers, left = self, [self.compile_after]

        def walk_plan(o: Any) -> Any:
            left[0] -= 1
            if left[0] <= 0:
                readers.compiled(cls)
            if not isinstance(o, dict):
                raise TypeError(f"{cls.__name__} must be an object")
            kw: dict[str, Any] = {}
            for key, name, check, required in plan:
                if key in o:
                    kw[name] = check(o[key])
                elif required:
                    raise KeyError(key)
            if not o.keys() <= known:
                kw["extra"] = {k: v for k, v in o.items() if k not in known}
            return cls(**kw)

        walk_plan.walks_plan = True  # type: ignore[attr-defined]
        return walk_plan

    def _generate(self, cls: type, plan: Plan) -> Callable[[Any], Any]:
        """``read_<Class>(o)``: the object checked, each required member read
        (a missing one raises ``KeyError``), each optional one read when
        present, the unknown ones kept in ``extra``. A member's check is
        written inline where its type allows (a scalar, a choice, an array of
        strings, choices or models, a JSON object, a model: ``_inline``), and
        the object is built as its ``__init__`` builds it — each field set to
        its value or default, arrays already tuples (what ``as_tuple`` would
        return) — when the class's ``__init__`` does no more than that
        (``baton.model.is_plain``); else ``cls(**members)``."""
        types = member_types(cls)
        fields = {f.alias: f for f in attrs.fields(cls)}
        direct = is_plain(cls) and "extra" in fields and all(
            f.converter is None or get_origin(types.get(f.name)) is tuple for f in fields.values() if f.name != "extra")
        scope: dict[str, Any] = {"cls": cls, "known": frozenset(key for key, *_ in plan), "readers": self,
                                 "new": object.__new__, "put": object.__setattr__, "only_str": _ONLY_STR}
        lines = [f"def read_{cls.__name__}(o):",
                 "    if not isinstance(o, dict):",
                 f"        raise TypeError('{cls.__name__} must be an object')",
                 "    obj = new(cls)" if direct else "    kw = {}"]
        for n, (key, name, check, required) in enumerate(plan):
            field = fields[name]
            scope[f"c{n}"] = check
            body = self._inline(types[field.name], f"c{n}", scope)
            lines += [f"    v = o[{key!r}]"] if required else [f"    if {key!r} in o:", f"        v = o[{key!r}]"]
            indent = "    " if required else "        "
            lines += [indent + line for line in body]
            if not direct:
                lines.append(f"{indent}kw[{name!r}] = v")
                continue
            if not required:
                made = isinstance(field.default, FACTORY)  # a new one per object, as ``__init__`` makes it
                scope[f"d{n}"] = cast(Any, field.default).factory if made else field.default
                default = f"d{n}()" if made else f"d{n}"
                lines += ["    else:", f"        v = {default}" if field.converter is None
                          else f"        v = convert{n}({default})"]
                scope[f"convert{n}"] = field.converter
            lines.append(f"    put(obj, {field.name!r}, v)")
        if direct:
            lines += ["    put(obj, 'extra', {} if o.keys() <= known else {k: x for k, x in o.items() if k not in known})",
                      "    return obj"]
        else:
            lines += ["    if not o.keys() <= known:",
                      "        kw['extra'] = {k: v for k, v in o.items() if k not in known}",
                      "    return cls(**kw)"]
        exec(compile("\n".join(lines), f"<baton read {cls.__name__}>", "exec"), scope)  # noqa: S102 - our own plan
        return cast("Callable[[Any], Any]", scope[f"read_{cls.__name__}"])

    def _inline(self, kind: Any, check: str, scope: dict[str, Any]) -> list[str]:
        """Statements that read ``v`` as a member of type ``kind``, leaving the
        model's value in ``v`` (raising as ``check``, the member's check, would);
        ``check`` itself is called for a type they do not spell out."""
        origin, args = get_origin(kind), get_args(kind)
        if origin in (Union, UnionType) and len(args) == 2 and type(None) in args:
            inner = self._inline(next(a for a in args if a is not type(None)), check, scope)
            return ["if v is not None:", *("    " + line for line in inner)]
        item = args[0] if origin is tuple and len(args) == 2 and args[1] is Ellipsis else None
        refuse = "raise TypeError('not of the member type')"
        if kind in self.classes:
            return [f"v = readers[{self._name(kind, scope)}](v)"]
        if item is not None and item in self.classes:
            return [f"if not isinstance(v, list): {refuse}", f"r = readers[{self._name(item, scope)}]",
                    "v = tuple([r(x) for x in v])"]
        if item is str:
            return [f"if not isinstance(v, list) or (v and not only_str.issuperset(map(type, v))): {refuse}",
                    "v = tuple(v)"]
        if item is not None and get_origin(item) is Literal:
            name = f"choices{len(scope)}"
            scope[name] = frozenset(get_args(item))
            return [f"if not isinstance(v, list) or not all([type(x) is str and x in {name} for x in v]): {refuse}",
                    "v = tuple(v)"]
        if kind in (str, bool, int) and kind not in self.named:
            return [f"if type(v) is not {kind.__name__}: {refuse}"]
        if origin is Literal:
            name = f"choices{len(scope)}"
            scope[name] = frozenset(args)
            return [f"if type(v) is not str or v not in {name}: {refuse}"]
        if origin is dict:
            return [f"if not isinstance(v, dict): {refuse}", "v = dict(v)"]
        return [f"v = {check}(v)"]  # a float, a named type (a timestamp, an id), anything else

    @staticmethod
    def _name(cls: type, scope: dict[str, Any]) -> str:
        name = f"model_{cls.__name__}"
        scope[name] = cls
        return name
