"""The harness protocol's values (``baton.values.Value``): named tuples, no attrs."""

from __future__ import annotations

import pytest

from baton.harnesses.protocol import SessionMetadata
from baton.values import Value


class Sample(Value):
    """A sample value."""

    name: str
    size: NotDefinedAnywhere  # noqa: F821 - annotations are documentation, never evaluated
    note: str | None = None
    """A documented field with a default."""

    def shout(self) -> str:
        return self.name.upper()


def test_a_value_takes_its_fields_in_order_with_defaults_last_and_keeps_its_methods():
    value = Sample("a", 2)
    assert (value.name, value.size, value.note) == ("a", 2, None)
    assert Sample("a", 2, note="n").note == "n"
    assert value.shout() == "A" and Sample.__doc__ == "A sample value."


def test_a_value_is_immutable_and_compared_and_hashed_by_its_fields():
    value = Sample("a", 2)
    with pytest.raises(AttributeError):
        value.name = "b"
    assert value == Sample("a", 2) and value != Sample("a", 3)
    assert hash(value) == hash(Sample("a", 2))
    assert not hasattr(value, "__dict__")


def test_a_session_metadata_reads_as_it_did_as_an_attrs_class():
    metadata = SessionMetadata("claude-code", "SessionStart", "session_start", "s1", source="startup")
    assert repr(metadata).startswith("SessionMetadata(harness='claude-code'")
    assert metadata._replace(source="resume").source == "resume" and metadata.reason is None
