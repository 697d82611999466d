"""The event type names the read path routes by are the catalogue's own."""

from __future__ import annotations

from baton.events import catalogue as events
from baton.events import names as event_names


def test_every_event_class_takes_its_type_from_the_names_of_its_family():
    for type_name, cls in events.CATALOGUE.items():
        assert cls.TYPE == type_name
        assert type_name in event_names.TYPES_OF_FAMILY[cls.STREAM]


def test_every_named_type_has_its_class_in_the_catalogue():
    named = {t for types in event_names.TYPES_OF_FAMILY.values() for t in types}
    assert named == set(events.CATALOGUE)


def test_each_familys_tuple_lists_the_catalogues_classes_in_order():
    assert event_names.HANDOFF_TYPES == tuple(cls.TYPE for cls in events.HANDOFF_EVENTS)
    assert event_names.SESSION_TYPES == tuple(cls.TYPE for cls in events.SESSION_EVENTS)
    assert event_names.OBJECTIVE_TYPES == tuple(cls.TYPE for cls in events.OBJECTIVE_EVENTS)
    assert event_names.DETECTOR_TYPES == tuple(cls.TYPE for cls in events.DETECTOR_EVENTS)
    assert event_names.BATON_TYPES == tuple(t for t, cls in events.CATALOGUE.items() if cls.STREAM == events.BATON)


def test_the_stream_helpers_are_the_catalogues():
    assert events.split_stream is event_names.split_stream and events.stream_of is event_names.stream_of
    assert event_names.handoff_stream("abc") == "handoff/abc"
