"""The event catalogue: one class per type, and every line a project writes reads back as it was."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from baton.events.catalogue import (
    CATALOGUE,
    FAMILIES,
    HandoffCaptured,
    HandoffForgotten,
    HandoffPromoted,
    HandoffRevised,
    decode,
)
from baton.values import replace
from tests.events_support import recorded

BATON_SOURCE = Path(__file__).resolve().parents[1] / "baton"


def test_every_event_type_is_registered_once_with_a_family():
    assert len(CATALOGUE) == len(set(CATALOGUE))
    for name, cls in CATALOGUE.items():
        assert cls.TYPE == name and cls.STREAM in FAMILIES and name.startswith(cls.STREAM + ".")


def test_an_event_type_is_spelled_only_in_the_catalogues_names():
    """``baton.events.names`` spells each type; the classes (``baton.events``) and
    everything else name it from there."""
    spelled = {}
    for path in BATON_SOURCE.rglob("*.py"):
        if path == BATON_SOURCE / "events" / "names.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and node.value in CATALOGUE:
                spelled.setdefault(str(path.relative_to(BATON_SOURCE)), []).append(node.value)
    assert spelled == {}


@pytest.mark.parametrize("cls", list(CATALOGUE.values()), ids=list(CATALOGUE))
def test_a_typed_event_survives_its_own_line(cls):
    key = "project" if cls.STREAM == "project" else "k1"
    event = cls(key="" if cls.STREAM == "project" else key)
    back = decode(recorded(event))
    assert back == event and back.data() == event.data()


def test_unknown_payload_members_are_kept_and_written_back():
    event = HandoffPromoted(key="h1", accepted_warnings=None, extra={"_redacted": [{"field": "x"}], "later": 1})
    line = recorded(event)
    assert decode(line).extra == {"_redacted": [{"field": "x"}], "later": 1}
    assert line.data == {"accepted_warnings": None, "_redacted": [{"field": "x"}], "later": 1}


def test_a_list_member_left_out_is_a_new_empty_list_for_each_event():
    """``redactions`` and ``events`` default to an empty list, as attrs' ``factory=list`` made
    them: a new one for each event, never one shared between events."""
    first, second = HandoffCaptured(key="h1"), HandoffCaptured(key="h1")
    assert first.redactions == [] and first.redactions is not second.redactions
    assert HandoffRevised(key="h1").redactions == [] and HandoffForgotten(key="h1").events == []
    assert HandoffCaptured(key="h1", redactions=None).redactions is None  # given, kept as it is


def test_an_event_is_a_named_tuple_that_still_shows_its_payload():
    event = HandoffPromoted(key="h1", accepted_warnings=["w"])
    assert repr(event) == "HandoffPromoted(key='h1', data={'accepted_warnings': ['w']})"
    assert event.data() == {"accepted_warnings": ["w"]} and not hasattr(event, "__dict__")


def test_an_erased_payload_or_an_unknown_type_decodes_to_nothing():
    line = recorded(HandoffPromoted(key="h1"))
    assert decode(replace(line, data=None)) is None
    assert decode(replace(line, type="handoff.someday")) is None


def test_an_event_on_another_family_stream_decodes_to_nothing():
    assert decode(replace(recorded(HandoffPromoted(key="h1")), stream="baton/h1")) is None


def test_every_line_of_a_real_project_decodes_and_reencodes_to_the_same_payload(tmp_path):
    from baton.app import Baton
    from baton.cli import main

    root = tmp_path / "proj"
    root.mkdir()
    assert main(["init", "--project", str(root)]) == 0
    assert main(["checkpoint", "create", "--no-input", "--project", str(root), "--title", "T",
                 "--objective", "O", "--decision", "D", "--open-item", "next"]) == 0
    assert main(["session", "end", "s1", "--handoff-steps", "a,b", "--project", str(root)]) == 0
    assert main(["bootstrap", "--session-id", "s2", "--project", str(root)]) == 0
    assert main(["session", "begin", "--session-id", "s3", "--objective", "o", "--project", str(root)]) == 0
    with Baton.open(root) as app:
        events = app.project.ledger.read_all()
    assert {e.type for e in events} >= {"project.initialized", "handoff.captured", "baton.created",
                                        "baton.claimed", "session.begun", "session.ended", "objective.set"}
    for event in events:
        typed = decode(event)
        assert typed is not None, event.type
        assert typed.data() == event.data and typed.stream == event.stream


@pytest.mark.parametrize("cls", list(CATALOGUE.values()), ids=list(CATALOGUE))
def test_an_event_decodes_in_a_process_that_has_not_loaded_its_family(cls):
    """``decode`` loads the module that defines the type's class (and
    registers its upcasters) on first sight of the type."""
    import subprocess
    import sys

    key = "" if cls.STREAM == "project" else "k1"
    line = recorded(cls(key=key))
    fields = line._asdict()
    code = ("from baton.events.base import decode; from baton.ledger.envelope import Event; "
            f"e = decode(Event(**{fields!r})); print(type(e).__name__, type(e).__module__)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.split() == [cls.__name__, cls.__module__], done.stderr[-1500:]
