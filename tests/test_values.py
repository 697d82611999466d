"""``baton.values.Value``: named tuples that behave as the attrs values they replace, each built once by its class statement."""

from __future__ import annotations

import inspect
from collections import namedtuple
from typing import ClassVar

import pytest

from baton.values import Value, replace, value_class


class _Greeting:
    __slots__ = ()

    def greet(self) -> str:
        return f"hello {self.name}"  # type: ignore[attr-defined]


class _Base(Value, _Greeting):
    KIND: ClassVar[str] = "base"
    name: str = ""
    size: int = 0


class _Child(_Base):
    KIND = "child"
    note: str | None = None


class _Twin(Value):
    name: str = ""
    size: int = 0


class _Empty(Value):
    pass


def test_a_value_equals_only_a_value_of_its_own_class() -> None:
    assert _Base("a", 1) == _Base("a", 1)
    assert _Base("a", 1) != _Twin("a", 1)
    assert _Base("a", 1) != ("a", 1) and ("a", 1) != _Base("a", 1)


def test_equal_values_hash_alike() -> None:
    assert {_Base("a", 1): "x"}[_Base("a", 1)] == "x"


def test_a_value_without_fields_is_true() -> None:
    assert bool(_Empty()) is True


def test_a_subclass_has_its_bases_fields_first_and_its_own_after() -> None:
    assert _Child._fields == ("name", "size", "note")
    assert _Child(name="a", note="n") == _Child("a", 0, "n")


def test_class_variables_are_not_fields() -> None:
    assert "KIND" not in _Child._fields and _Child().KIND == "child" and _Base().KIND == "base"


def test_a_mixins_methods_are_inherited() -> None:
    assert _Child(name="ann").greet() == "hello ann"
    assert isinstance(_Child(), _Base)


def test_a_value_has_no_instance_dictionary() -> None:
    assert not hasattr(_Child(), "__dict__")


def test_replace_gives_a_copy_with_the_changes() -> None:
    value = _Child(name="a", note="n")
    assert replace(value, note="m") == _Child(name="a", note="m") and value.note == "n"


class _Tidy(Value):
    name: str = ""

    def __new__(cls, name: str = "") -> "_Tidy":
        return super().__new__(cls, name.strip())

    @property
    def shout(self) -> str:
        return super().__repr__().upper()


def test_a_bare_super_in_a_value_class_reaches_the_named_tuple() -> None:
    assert _Tidy("  a ").name == "a"
    assert _Tidy("b").shout == "_TIDY(NAME='B')"


class _Counted:
    __slots__ = ()
    built: ClassVar[list[type]] = []

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        _Counted.built.append(cls)


class _Once(Value, _Counted):
    name: str = ""


def test_a_value_class_is_built_once_by_its_class_statement() -> None:
    """The class ``class _Once(Value, ...)`` binds is the only one built for it (a decorator
    rebuilding it would build two, and ``__init_subclass__`` would see both)."""
    assert _Counted.built == [_Once]
    assert _Once("a") == _Once(name="a") and _Once._fields == ("name",) and not hasattr(_Once(), "__dict__")


def test_a_class_made_at_run_time_becomes_a_value_class() -> None:
    made = value_class(type("Made", (_Greeting,), {"__annotations__": {"name": "str"}, "__module__": __name__}))
    assert made("ann").greet() == "hello ann" and isinstance(made("ann"), Value) and made("a") == made(name="a")


def test_the_shared_empty_mapping_copies_and_pickles_as_itself() -> None:
    import copy
    import pickle

    from baton.values import EMPTY_MAPPING

    assert copy.deepcopy(EMPTY_MAPPING) is EMPTY_MAPPING
    assert pickle.loads(pickle.dumps(EMPTY_MAPPING)) is EMPTY_MAPPING
    assert dict(EMPTY_MAPPING) == {} and "x" not in EMPTY_MAPPING


def test_an_event_with_its_default_extra_deep_copies_and_pickles() -> None:
    import copy
    import pickle

    from baton.events.session import SessionBegun

    event = SessionBegun(key="s1", session="s1")
    assert copy.deepcopy(event) == event and pickle.loads(pickle.dumps(event)) == event


def _class_of(count: int, defaults: int = 0) -> type:
    names = [f"f{index}" for index in range(count)]
    body = {"__annotations__": dict.fromkeys(names, "int"), "__module__": __name__,
            **{name: -1 for name in names[count - defaults:] if defaults}}
    return value_class(type(f"V{count}", (), body))


@pytest.mark.parametrize("count", range(0, 31))
def test_a_value_class_of_any_number_of_fields_is_built_as_namedtuple_builds_one(count: int) -> None:
    """The same constructor as ``collections.namedtuple``'s (its signature, positional and by
    keyword, with defaults), whether its ``__new__`` was compiled with the module (up to 26
    fields) or for this number of fields (above)."""
    names = [f"f{index}" for index in range(count)]
    made, tuple_class = _class_of(count, defaults=min(count, 2)), namedtuple("T", names, defaults=[-1] * min(count, 2))
    assert inspect.signature(made.__new__) == inspect.signature(tuple_class.__new__)
    assert made.__new__.__name__ == made.__new__.__qualname__ == "__new__"
    values = list(range(count))
    assert tuple(made(*values)) == tuple(made(**dict(zip(names, values)))) == tuple(tuple_class(*values))
    assert tuple(made(*values[:count - 2])) == tuple(tuple_class(*values[:count - 2]))
    with pytest.raises(TypeError) as too_many:
        tuple_class(*values, 0)
    with pytest.raises(TypeError) as ours:
        made(*values, 0)
    assert str(ours.value) == str(too_many.value).removeprefix("T.")  # namedtuple's names its class


@pytest.mark.parametrize("count", [0, 1, 2, 11, 26])
def test_a_value_class_of_up_to_26_fields_compiles_no_source(count: int, monkeypatch) -> None:
    """Its ``__new__`` is one compiled with ``baton.values`` (its ``.pyc``): no ``exec`` parses
    and compiles one in the process (~0.5 M instructions a number of fields)."""
    import builtins

    def refuse(*args, **kwargs):
        raise AssertionError("compiled source for a value class")

    monkeypatch.setattr(builtins, "exec", refuse)
    assert tuple(_class_of(count)(*range(count))) == tuple(range(count))


def test_the_compiled_new_of_each_number_of_fields_is_the_one_exec_would_compile() -> None:
    from baton import values

    for count, code in values._NEW_CODES.items():
        names = ", ".join(f"_{index}" for index in range(count))
        compiled: dict = {}
        exec(f"def __new__(_cls, {names}): return _tuple_new(_cls, ({names}{',' if count == 1 else ''}))",
             {"_tuple_new": tuple.__new__}, compiled)
        expected = compiled["__new__"].__code__
        assert (code.co_code, code.co_argcount, code.co_names, code.co_nlocals) == \
               (expected.co_code, expected.co_argcount, expected.co_names, expected.co_nlocals), count
