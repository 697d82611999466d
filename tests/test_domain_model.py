"""The canonical handoff model (§7.1, §7.2): reading, writing, drafts, ids and file names."""

from __future__ import annotations

import re

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from baton.domain.handoff import (
    SCHEMA_URI,
    Handoff,
    HandoffInputError,
    handoff_file_name,
    handoff_from_json,
    handoff_relpath,
    handoff_to_json,
    id_matches,
    new_draft,
    short_id,
)
from baton.errors import InputError
from baton.ledger.ids import uuid7
from tests.strategies import SYNTHETIC_PROJECT, draft, handoff_jsons, handoffs, minimal_payload, timestamps, uuid7s

ID = "018f0000-0000-7000-8000-0000000000a1"
NOW = "2026-09-02T14:30:00Z"


def problems_of(obj) -> list[str]:
    with pytest.raises(HandoffInputError) as info:
        handoff_from_json(obj)
    return info.value.problems


def base_json(**changes) -> dict:
    obj = handoff_to_json(draft())
    obj.update(changes)
    return obj


# --------------------------------------------------------------------------- round trips


@given(handoffs())
def test_model_to_json_to_model_is_the_identity(h):
    assert handoff_from_json(handoff_to_json(h)) == h


@given(handoffs())
def test_round_trip_survives_serialization_to_bytes(h):
    raw = orjson.dumps(handoff_to_json(h))
    assert handoff_from_json(orjson.loads(raw)) == h


@given(handoff_jsons())
def test_json_to_model_to_json_is_exact_for_canonical_json(obj):
    assert handoff_to_json(handoff_from_json(obj)) == obj


@given(handoffs())
def test_none_is_never_written(h):
    def nulls(value):
        if isinstance(value, dict):
            # unknown fields and free-form JSON (quality, detector inputs) are data, kept as given
            return any(v is None or nulls(v) for k, v in value.items()
                       if not k.startswith("x_") and k not in ("quality", "inputs"))
        if isinstance(value, list):
            return any(nulls(v) for v in value)
        return False

    assert not nulls(handoff_to_json(h))


def test_explicit_null_reads_as_absent():
    obj = base_json(origin=None, automation=None)
    obj["summary"]["current_state"] = None
    h = handoff_from_json(obj)
    assert h.origin is None and h.automation is None and h.summary.current_state is None
    assert "origin" not in handoff_to_json(h)


def test_spec_arrays_are_written_even_when_empty():
    out = handoff_to_json(draft())
    for key in ("decisions", "artifacts", "evidence", "failed_attempts", "open_items", "risks", "redactions"):
        assert key in out
    assert out["work"]["scope"] == [] and out["lineage"]["parents"] == []


def test_baton_extension_fields_are_omitted_when_unset():
    out = handoff_to_json(draft())
    for key in ("flags", "resumed_at", "superseded_by", "archived_reason"):
        assert key not in out


# --------------------------------------------------------------------------- unknown fields


def test_unknown_top_level_fields_are_preserved():
    obj = base_json(x_future={"nested": [1, 2]}, another="value")
    out = handoff_to_json(handoff_from_json(obj))
    assert out["x_future"] == {"nested": [1, 2]} and out["another"] == "value"


def test_unknown_nested_fields_are_preserved_at_every_level():
    obj = base_json()
    obj["project"]["x_p"] = 1
    obj["project"]["repository"] = {"vcs": "git", "head": "abc1234", "x_r": [True]}
    obj["work"]["x_w"] = "w"
    obj["summary"]["x_s"] = {"a": None}
    obj["open_items"][0]["x_o"] = 2
    obj["decisions"] = [{"id": "D-1", "decision": "d", "x_d": "kept"}]
    obj["validation"] = {"status": "pass", "checks": [{"name": "schema", "status": "pass", "x_c": 3}], "x_v": 4}
    obj["lineage"]["x_l"] = "l"
    out = handoff_to_json(handoff_from_json(obj))
    assert out["project"]["x_p"] == 1
    assert out["project"]["repository"]["x_r"] == [True]
    assert out["work"]["x_w"] == "w"
    assert out["summary"]["x_s"] == {"a": None}
    assert out["open_items"][0]["x_o"] == 2
    assert out["decisions"][0]["x_d"] == "kept"
    assert out["validation"]["checks"][0]["x_c"] == 3 and out["validation"]["x_v"] == 4
    assert out["lineage"]["x_l"] == "l"


def test_an_unknown_field_named_extra_is_preserved_as_data():
    obj = base_json(extra={"k": "v"})
    h = handoff_from_json(obj)
    assert h.extra == {"extra": {"k": "v"}}
    assert handoff_to_json(h)["extra"] == {"k": "v"}


def test_unknown_fields_never_override_known_ones():
    h = draft()
    import attrs

    clash = attrs.evolve(h, extra={"status": "ready"})
    assert handoff_to_json(clash)["status"] == "draft"


# --------------------------------------------------------------------------- every problem at once


def test_every_problem_is_reported_at_once_with_its_field_path():
    obj = base_json(status="bogus", id=3)
    del obj["work"]["objective"]
    obj["work"]["scope"] = "src/**"
    obj["decisions"] = [{"id": "D-1"}]
    problems = problems_of(obj)
    assert "work.objective: required" in problems
    assert any(p.startswith("status: must be one of") for p in problems)
    assert any(p.startswith("id: must be a string") for p in problems)
    assert any(p.startswith("work.scope: must be an array") for p in problems)
    assert "decisions[0].decision: required" in problems
    assert len(problems) == 5


def test_the_input_error_exits_2_and_carries_one_note_per_problem():
    with pytest.raises(InputError) as info:
        handoff_from_json({})
    err = info.value
    assert err.exit_code == 2
    assert err.__notes__ == err.problems == err.details["problems"]
    assert "schema_version: required" in err.problems and "lineage: required" in err.problems


def test_a_record_that_is_not_an_object_is_refused():
    assert problems_of([1, 2]) == ["(handoff): must be an object, not an array"]


@pytest.mark.parametrize(("path", "value", "message"), [
    (("work", "title"), 7, "must be a string, not a number"),
    (("artifacts",), [{"path": "a", "role": "modified", "sensitive": "no"}], "must be true or false"),
    (("automation",), {"trigger": "manual", "score": True}, "must be a number"),
    (("summary", "completed"), "done", "must be an array, not a string"),
    (("project",), "p", "must be an object, not a string"),
])
def test_json_types_are_strict(path, value, message):
    obj = base_json()
    target = obj
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    assert any(message in p for p in problems_of(obj))


@pytest.mark.parametrize(("where", "bad"), [
    ("kind", "story"), ("status", "done"),
])
def test_enum_values_outside_the_spec_are_refused(where, bad):
    problems = problems_of(base_json(**{where: bad}))
    assert len(problems) == 1 and problems[0].startswith(f"{where}: must be one of")


def test_nested_enum_values_are_refused_with_the_allowed_values():
    obj = base_json(artifacts=[{"path": "a", "role": "touched"}], lineage={"relation": "adopt"})
    problems = problems_of(obj)
    assert any(p.startswith("artifacts[0].role: must be one of 'modified'") for p in problems)
    assert any(p.startswith("lineage.relation: must be one of 'root'") for p in problems)


@pytest.mark.parametrize("bad", ["2026-09-02", "2026-09-02T14:30:00", "yesterday", "2026-13-02T14:30:00Z",
                                 "2026-09-02T14:30:00Z\n", "\uff12026-09-02T14:30:00Z"])
def test_timestamps_must_be_rfc3339_with_a_zone(bad):
    assert any(p.startswith("created_at: must be an RFC 3339") for p in problems_of(base_json(created_at=bad)))


@pytest.mark.parametrize("bad", ["not-a-uuid", "018F0000-0000-7000-8000-0000000000A1", ""])
def test_ids_must_be_lowercase_uuids(bad):
    assert problems_of(base_json(id=bad)) == ["id: must be a lowercase UUID"]


def test_malformed_lineage_references_are_refused_on_reading():
    problems = problems_of(base_json(lineage={"parents": ["../etc"], "relation": "continue"}))
    assert problems == ["lineage.parents[0]: must be a lowercase UUID"]


# --------------------------------------------------------------------------- new_draft


def test_new_draft_fills_what_baton_owns():
    h = new_draft({"work": {"title": "t", "objective": "o"}}, id=ID, now=NOW, project=SYNTHETIC_PROJECT)
    assert (h.schema_version, h.schema_uri, h.kind, h.status) == ("0.1", SCHEMA_URI, "handoff", "draft")
    assert h.id == ID and h.created_at == h.updated_at == NOW
    assert h.project.id == SYNTHETIC_PROJECT["id"]
    assert h.lineage.relation == "root" and h.lineage.parents == ()
    assert h.validation.status == "not_run" and h.decisions == () and h.summary.completed == ()


def test_new_draft_keeps_the_payload_lineage_and_kind():
    parent = "018f0000-0000-7000-8000-0000000000b2"
    h = draft(minimal_payload(kind="checkpoint", lineage={"parents": [parent], "relation": "continue"}))
    assert h.kind == "checkpoint" and h.lineage.parents == (parent,)


def test_new_draft_refuses_fields_baton_manages_and_reports_them_with_other_problems():
    with pytest.raises(HandoffInputError) as info:
        new_draft({"status": "ready", "id": ID, "work": {"title": "t"}}, id=ID, now=NOW, project=SYNTHETIC_PROJECT)
    problems = info.value.problems
    assert "status: set by Baton, do not supply it" in problems
    assert "id: set by Baton, do not supply it" in problems
    assert "work.objective: required" in problems


def test_new_draft_refuses_another_schema_version():
    with pytest.raises(HandoffInputError) as info:
        draft(minimal_payload(schema_version="0.2"))
    assert info.value.problems == ["schema_version: must be '0.1', not '0.2'"]


def test_new_draft_keeps_unknown_payload_fields():
    assert handoff_to_json(draft(minimal_payload(x_hint="kept")))["x_hint"] == "kept"


def test_new_draft_refuses_a_payload_that_is_not_an_object():
    with pytest.raises(HandoffInputError):
        new_draft(["work"], id=ID, now=NOW, project=SYNTHETIC_PROJECT)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- ids and file names


@given(uuid7s())
def test_short_id_is_eight_hex_digits_from_the_random_tail(hid):
    s = short_id(hid)
    assert re.fullmatch(r"[0-9a-f]{8}", s) and hid.endswith(s)


def test_ids_minted_in_the_same_millisecond_have_different_short_ids():
    ids = [uuid7(1_790_000_000_000_000_000) for _ in range(50)]
    assert len({short_id(i) for i in ids}) == 50


@given(uuid7s())
def test_an_id_is_matched_by_itself_its_short_id_and_a_long_prefix(hid):
    assert id_matches(hid, hid) and id_matches(short_id(hid), hid) and id_matches(hid[:8], hid)
    assert id_matches(hid.upper(), hid)


def test_a_short_prefix_does_not_match():
    assert not id_matches(ID[:4], ID) and not id_matches("", ID)


@given(timestamps(), uuid7s())
def test_file_name_is_compact_created_at_then_short_id(ts, hid):
    name = handoff_file_name(ts, hid)
    assert re.fullmatch(r"\d{8}T\d{6}Z--[0-9a-f]{8}\.json", name)
    assert name.startswith(ts[:19].replace("-", "").replace(":", ""))


def test_file_name_uses_utc_whole_seconds():
    assert handoff_file_name("2026-09-02T16:30:00.987+02:00", ID) == "20260902T143000Z--000000a1.json"


def test_materialized_path_is_under_baton_handoffs():
    assert handoff_relpath(draft()) == ".baton/handoffs/20260902T143000Z--000000a1.json"


def test_handoff_is_a_frozen_value():
    h = draft()
    with pytest.raises(AttributeError):
        h.status = "ready"  # type: ignore[misc]
    assert isinstance(h, Handoff) and h.open_items[0].id == "O-001"


# --------------------------------------------------------------------------- the two converters


@given(handoff_jsons())
def test_the_quick_and_the_detailed_converter_read_a_record_alike(obj):
    from baton.domain.handoff import converter

    assert converter(detailed=False).structure(obj, Handoff) == converter().structure(obj, Handoff)


def test_reading_a_valid_record_builds_no_converter(monkeypatch):
    """A valid record is read by its classes' strict readers (``READERS``), not cattrs."""
    from baton.domain import handoff as model

    monkeypatch.setattr(model, "_converters", {})
    handoff_from_json(base_json())
    assert model._converters == {}


def test_a_refused_record_is_reported_by_the_detailed_converter_with_every_problem(monkeypatch):
    from baton.domain import handoff as model

    monkeypatch.setattr(model, "_converters", {})
    problems = problems_of(base_json(id="NOT-A-UUID", status="finished"))
    assert len(problems) == 2 and set(model._converters) == {True}


# --------------------------------------------------------------------------- writing like an earlier version


@given(handoffs(), handoffs(), st.booleans(), st.booleans(), st.booleans())
def test_writing_like_an_earlier_version_equals_writing_afresh(old, other, new_validation, new_work, new_status):
    """``handoff_to_json(new, like=(old, its JSON))`` reuses the JSON of the
    members ``new`` shares with ``old`` — whole, or field by field for a
    member that is an evolved copy (a promotion's ``validation``) — and is
    equal to writing ``new`` from scratch."""
    import attrs

    changes = {}
    if new_validation:  # one field of a nested model changed, its checks shared
        changes["validation"] = attrs.evolve(old.validation, accepted_warnings=other.validation.accepted_warnings,
                                             status=other.validation.status)
    else:  # a whole new nested model
        changes["validation"] = other.validation
    if new_work:
        changes["work"] = other.work
    if new_status:
        changes["status"] = other.status
        changes["updated_at"] = other.updated_at
    new = attrs.evolve(old, **changes)
    assert handoff_to_json(new, like=(old, handoff_to_json(old))) == handoff_to_json(new)


def _reference_json(obj):
    """What a record's JSON is, spelled out over attrs' fields: members in
    field order under their JSON names, ``None`` and omitted empty arrays left
    out, arrays as lists, then the unknown members kept in ``extra``."""
    import attrs

    from baton.domain.handoff import json_keys

    if attrs.has(type(obj)):
        keys = json_keys(type(obj))
        out = {}
        for f in attrs.fields(type(obj)):
            value = getattr(obj, f.name)
            if f.name == "extra" or value is None or (f.metadata.get("baton_omit_empty") and value == ()):
                continue
            out[keys[f.name]] = _reference_json(value)
        for key, value in obj.extra.items():
            out.setdefault(key, value)
        return out
    if isinstance(obj, (tuple, list)):
        return [_reference_json(v) for v in obj]
    if isinstance(obj, dict):
        return {k: _reference_json(v) for k, v in obj.items()}
    return obj


@given(handoffs())
def test_a_record_is_written_member_by_member_in_field_order_byte_for_byte(h):
    """The generated writer of each model class (``_unstructure_fresh``) gives
    the same bytes, member order included, as the rules it unrolls."""
    import orjson

    assert orjson.dumps(handoff_to_json(h)) == orjson.dumps(_reference_json(h))


@given(handoff_jsons())
def test_reading_a_record_keeps_its_unknown_members_in_extra(obj):
    """Unknown members land in ``extra`` of the object being built (set on it
    as it is built, not through an evolved copy), and reading what was
    written gives the same record back."""
    from baton.domain.handoff import json_keys

    h = handoff_from_json(obj)
    known = set(json_keys(Handoff).values())
    assert h.extra == {k: v for k, v in obj.items() if k not in known}
    assert handoff_from_json(handoff_to_json(h)) == h


def test_a_model_writer_is_generated_only_when_a_value_of_its_class_is_written(monkeypatch):
    """Reading a record compiles no writer; writing one compiles those of the
    classes it holds (a draft has no decision: no ``Decision`` writer)."""
    from baton.domain import handoff as model

    writers = model._FreshWriters({})
    monkeypatch.setattr(model, "_FRESH", writers)
    monkeypatch.setattr(model, "_MODELS", model._ModelWriters())
    record = model.stored_handoff(handoff_to_json(draft()))
    assert model.converter(detailed=False).structure(handoff_to_json(record), Handoff) == record
    writers.clear()
    assert not record.decisions
    assert model._MODELS[Handoff](record) == _reference_json(record)
    assert {Handoff, type(record.work), type(record.lineage)} <= set(writers)
    assert model.Decision not in writers
    model.prepare_record_model()
    assert set(model.MODEL_CLASSES) <= set(writers)


def test_writing_a_record_needs_no_converter():
    """``handoff_to_json`` runs the model classes' own writers: a process that
    writes a record it read from the index imports no cattrs."""
    import subprocess
    import sys

    stored = orjson.dumps(base_json(decisions=[{"id": "D-1", "decision": "keep it", "alternatives_considered": [],
                                                "evidence_ids": []}]))
    code = ("import sys, orjson; from baton.domain.handoff import handoff_to_json, stored_handoff; "
            "doc = orjson.loads(sys.stdin.buffer.read()); h = stored_handoff(doc); "
            "assert handoff_to_json(h) == doc == handoff_to_json(h, like=(h, doc)); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'cattrs'))")
    r = subprocess.run([sys.executable, "-c", code], input=stored, capture_output=True)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == b"[]"


# --------------------------------------------------------------------------- reading a stored record


@given(handoffs())
def test_a_stored_record_reads_back_as_the_model_that_wrote_it(h):
    from baton.domain.handoff import stored_handoff

    assert stored_handoff(orjson.loads(orjson.dumps(handoff_to_json(h)))) == h


@given(handoff_jsons())
def test_a_stored_record_reads_as_the_strict_reader_reads_it(obj):
    """Unknown members kept in ``extra`` at every level, arrays as tuples,
    a ``float`` member's whole number as a float: the very model."""
    from baton.domain.handoff import stored_handoff

    stored = stored_handoff(obj)
    assert stored == handoff_from_json(obj)
    assert handoff_to_json(stored) == handoff_to_json(handoff_from_json(obj))


def test_a_stored_score_that_is_a_whole_number_reads_as_a_float():
    from baton.domain.handoff import stored_handoff

    obj = base_json(automation={"trigger": "threshold", "score": 3, "reasons": []})
    assert type(stored_handoff(obj).automation.score) is float


@pytest.mark.parametrize("change", [{"decisions": "not an array"}, {"work": ["not", "an", "object"]},
                                    {"validation": {"status": "pass", "quality": ["not", "an", "object"]}}], ids=str)
def test_a_stored_document_that_is_not_shaped_as_a_record_is_refused_as_the_strict_reader_refuses_it(change):
    """The shape is what the stored reader looks at (its values were checked
    before a fold wrote them); a document of another shape is read strictly."""
    from baton.domain.handoff import stored_handoff

    obj = base_json(**change)
    with pytest.raises(HandoffInputError) as info:
        stored_handoff(obj)
    assert info.value.problems == problems_of(obj)
