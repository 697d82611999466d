"""schemas/handoff-v0.1.json: the published JSON Schema agrees with the model and the fixtures."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, get_args, get_origin, get_type_hints

import attrs
import jsonschema
import orjson
import pytest
from hypothesis import given

from baton.domain import handoff as m
from tests.strategies import handoffs

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = orjson.loads((ROOT / "schemas" / "handoff-v0.1.json").read_bytes())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
EXAMPLES = sorted((ROOT / "examples").glob("*.json"))


def errors_of(obj) -> list[str]:
    return [e.message for e in VALIDATOR.iter_errors(obj)]


def test_the_schema_is_a_valid_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$id"] == m.SCHEMA_URI


def test_there_are_example_fixtures():
    names = {p.name for p in EXAMPLES}
    assert {"handoff-ready.json", "handoff-draft.json"} <= names


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_validates_against_the_schema(path):
    assert errors_of(orjson.loads(path.read_bytes())) == []


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_reads_and_writes_back_unchanged(path):
    obj = orjson.loads(path.read_bytes())
    assert m.handoff_to_json(m.handoff_from_json(obj)) == obj


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_is_labelled_synthetic(path):
    assert "SYNTHETIC" in orjson.loads(path.read_bytes()).get("synthetic", "")


@given(handoffs())
def test_every_written_handoff_validates_against_the_schema(h):
    assert errors_of(m.handoff_to_json(h)) == []


def test_the_schema_rejects_a_record_without_its_draft_fields():
    obj = orjson.loads((ROOT / "examples" / "handoff-draft.json").read_bytes())
    del obj["work"]
    assert any("'work' is a required property" in e for e in errors_of(obj))


def test_the_schema_rejects_an_enum_value_outside_the_spec():
    obj = orjson.loads((ROOT / "examples" / "handoff-draft.json").read_bytes())
    obj["status"] = "done"
    assert errors_of(obj)


def test_the_schema_rejects_a_timestamp_without_a_zone():
    obj = orjson.loads((ROOT / "examples" / "handoff-draft.json").read_bytes())
    obj["created_at"] = "2026-09-02T15:10:00"
    assert errors_of(obj)


def test_the_schema_allows_unknown_fields_at_every_level():
    path = ROOT / "examples" / "handoff-forward-compatible.json"
    obj = orjson.loads(path.read_bytes())
    assert obj["x_future_top_level"] and obj["work"]["x_estimate"] and errors_of(obj) == []


def _schema_props(ref_or_obj: dict) -> dict:
    target = ref_or_obj
    if "$ref" in target:
        target = SCHEMA["$defs"][target["$ref"].rsplit("/", 1)[1]]
    return target


def _enum_of(prop: dict) -> set | None:
    if "enum" in prop:
        return {v for v in prop["enum"] if v is not None}
    if prop.get("type") == "array":
        return _enum_of(prop["items"])
    return None


def _literal_of(tp) -> set | None:
    if get_origin(tp) is Literal:
        return set(get_args(tp))
    for arg in get_args(tp):
        found = _literal_of(arg)
        if found is not None:
            return found
    return None


def _def_for(cls) -> dict:
    if cls is m.Handoff:
        return SCHEMA
    snake = "".join("_" + c.lower() if c.isupper() else c for c in cls.__name__).lstrip("_")
    return SCHEMA["$defs"][snake]


@pytest.mark.parametrize("cls", m.MODEL_CLASSES, ids=lambda c: c.__name__)
def test_schema_and_model_name_the_same_fields_and_enum_values(cls):
    definition = _def_for(cls)
    hints = get_type_hints(cls)
    keys = {f.metadata.get("baton_json_key", f.name): f for f in attrs.fields(cls) if f.name != "extra"}
    assert set(definition["properties"]) == set(keys)
    required = {k for k, f in keys.items() if f.default is attrs.NOTHING}
    assert set(definition.get("required", ())) == required
    for key, field in keys.items():
        prop = _schema_props(definition["properties"][key])
        model_enum = _literal_of(hints[field.name])
        schema_enum = _enum_of(prop)
        assert model_enum == schema_enum, key


def test_no_object_of_the_schema_names_a_key_twice():
    import json

    twice: list[str] = []

    def pairs(items: list[tuple[str, object]]) -> dict:
        keys = [k for k, _ in items]
        twice.extend(sorted({k for k in keys if keys.count(k) > 1}))
        return dict(items)

    json.loads((ROOT / "schemas" / "handoff-v0.1.json").read_text(), object_pairs_hook=pairs)
    assert twice == []  # a JSON parser keeps one of the two silently: an edit to the other is lost
