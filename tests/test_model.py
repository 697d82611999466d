"""baton.model: attrs classes with shared methods behave as attrs' generated ones would."""

from __future__ import annotations

import attrs
import pytest

from baton.model import as_tuple, frozen, mutable


@frozen
class Point:
    x: int
    y: int = 0
    note: str = attrs.field(default="", eq=False, repr=False)


@frozen
class Other:
    x: int
    y: int = 0


@frozen
class Named:
    name: str

    def __repr__(self) -> str:
        return f"<{self.name}>"


@frozen
class Child(Named):
    extra: int = 0


@mutable
class Box:
    items: list = attrs.field(factory=list)


def test_equal_fields_make_equal_values():
    assert Point(1, 2) == Point(1, 2) and Point(1, 2) != Point(1, 3)


def test_a_field_left_out_of_equality_is_ignored():
    assert Point(1, 2, note="a") == Point(1, 2, note="b")


def test_values_of_different_classes_are_never_equal():
    assert Point(1, 2) != Other(1, 2)


def test_equal_frozen_values_hash_alike():
    assert hash(Point(1, 2, note="a")) == hash(Point(1, 2, note="b"))
    assert len({Point(1, 2), Point(1, 2), Point(2, 1)}) == 2


def test_mutable_values_compare_but_are_unhashable():
    assert Box([1]) == Box([1])
    with pytest.raises(TypeError):
        hash(Box())


def test_repr_shows_the_fields_shown():
    assert repr(Point(1, 2, note="hidden")) == "Point(x=1, y=2)"


def test_a_written_repr_is_kept_and_inherited():
    assert repr(Named("a")) == "<a>" and repr(Child("b", 1)) == "<b>"


def test_frozen_values_stay_frozen_and_evolve():
    p = Point(1, 2)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        p.x = 5  # type: ignore[misc]
    assert attrs.evolve(p, x=5) == Point(5, 2)


def test_the_shared_tuple_converter_makes_tuples_as_converter_tuple_does():
    from baton.model import as_tuple as AS_TUPLE

    @frozen
    class Seq:
        items: tuple = attrs.field(factory=tuple, converter=AS_TUPLE)

    assert Seq(["a", "b"]).items == ("a", "b") and Seq().items == ()
    assert attrs.evolve(Seq(), items=iter("xy")).items == ("x", "y")


@frozen
class Seq:
    items: tuple = attrs.field(factory=tuple, converter=as_tuple)
    label: str = "x"
    _hidden: int = 0
    extra: dict = attrs.field(factory=dict, kw_only=True)


@frozen
class Checked:
    n: int = attrs.field(validator=attrs.validators.instance_of(int))


@frozen
class Later:
    n: int
    twice: int = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "twice", self.n * 2)


def test_evolve_equals_attrs_evolve_and_converts_only_what_changed():
    """``model.evolve`` copies the unchanged fields and converts the changed
    ones, as ``attrs.evolve`` (which runs ``__init__`` again) gives them."""
    from baton.model import evolve

    base = Seq([1, 2], label="a", hidden=3, extra={"k": 1})
    for changes in ({}, {"items": [3]}, {"label": "b"}, {"hidden": 4}, {"extra": {"z": 2}, "items": (9,)}):
        got, want = evolve(base, **changes), attrs.evolve(base, **changes)
        assert got == want and type(got) is Seq and type(got.items) is tuple
        assert (got.items, got.label, got._hidden, got.extra) == (want.items, want.label, want._hidden, want.extra)
    assert evolve(base, label="b").items is base.items  # unchanged: the very same object
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        evolve(base, label="b").label = "c"  # type: ignore[misc]


def test_evolve_leaves_validators_post_init_and_unknown_fields_to_attrs():
    from baton.model import evolve

    with pytest.raises(TypeError):
        evolve(Checked(1), n="not an int")  # the validator ran
    assert evolve(Later(2), n=5).twice == 10  # __attrs_post_init__ ran
    with pytest.raises(TypeError):
        evolve(Seq(), nothing=1)  # no such field: attrs' own error
