"""The strict readers (``baton.domain.record_reader``) accept exactly what
cattrs' converter accepts, and build the same values: ``handoff_from_json``
reads a record through them and asks the converter only to report a refusal.
Readers and writers walk a class's plan for its first records and run
generated code after: both ways read and write alike."""

from __future__ import annotations

import subprocess
import sys

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from baton.domain import handoff as model
from baton.domain.handoff import (
    MODEL_CLASSES,
    READERS,
    Handoff,
    HandoffInputError,
    handoff_from_json,
    handoff_to_json,
    json_keys,
)
from baton.domain.record_reader import StrictReaders
from tests.strategies import handoff_jsons, handoffs, json_values

ODD_VALUES = json_values | st.floats(allow_nan=False) | st.sampled_from(
    ["2026-09-02T14:30:00Z", "not a time", "018f0000-0000-7000-8000-0000000000a1", "draft", "fork", "pass", "high",
     "agent", "invalid", [], {}, ["x", 1], [{}], 0, 1.5, True])
"""What a mutated member takes: any JSON value, and values that are right for some members and wrong for others."""


def _paths(value, at=()):
    """Every member of every object in ``value``, as a path of keys and indexes."""
    if isinstance(value, dict):
        for key, member in value.items():
            yield (*at, key)
            yield from _paths(member, (*at, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _paths(item, (*at, i))


@st.composite
def mutated_records(draw):
    """A valid record with one member deleted, replaced by another value, or an unknown member added."""
    record = draw(handoff_jsons())
    paths = list(_paths(record))
    path = draw(st.sampled_from(paths))
    parent = record
    for step in path[:-1]:
        parent = parent[step]
    action = draw(st.sampled_from(["delete", "replace", "null", "add"]))
    if action == "delete":
        del parent[path[-1]]
    elif action == "replace":
        parent[path[-1]] = draw(ODD_VALUES)
    elif action == "null":
        parent[path[-1]] = None
    elif isinstance(parent, dict):
        parent[draw(st.sampled_from(["x_new", "extra", "$schema", "id"]))] = draw(ODD_VALUES)
    else:  # "add" inside an array: an item of another kind appended, so the record is still mutated
        parent.append(draw(ODD_VALUES))
    return record


def _quick(value):
    """What the converters make of ``value``: the quick one and the detailed one
    (what a refused record is reported by) must agree, and the readers are held to both."""
    verdicts = []
    for detailed in (False, True):
        try:
            verdicts.append(("read", model.converter(detailed=detailed).structure(value, Handoff)))
        except Exception:  # noqa: BLE001 - cattrs raises ExceptionGroups and plain errors alike
            verdicts.append(("refused", None))
    (quick, read), (slow, read_slowly) = verdicts
    assert quick == slow and _same(read, read_slowly), (quick, slow)
    return quick, read


WAYS = {"walking the plan": StrictReaders(MODEL_CLASSES, json_keys, READERS.named, compile_after=10**9),
        "generated": StrictReaders(MODEL_CLASSES, json_keys, READERS.named, compile_after=0)}
"""The two ways a reader reads: its first records walk the class's plan, later ones run generated code."""


def _strict(value, way):
    try:
        return "read", WAYS[way][Handoff](value)
    except (TypeError, ValueError, KeyError):
        return "refused", None


def _same(a, b) -> bool:
    """Equal, and equal in kind (a float read as a float, a tuple as a tuple): ``repr`` shows both."""
    return a == b and repr(a) == repr(b)


@pytest.mark.parametrize("way", WAYS)
@given(obj=handoff_jsons())
def test_the_strict_reader_reads_every_valid_record_as_the_converter_does(way, obj):
    (verdict, strict), (_, quick) = _strict(obj, way), _quick(obj)
    assert verdict == "read" and _same(strict, quick)


@pytest.mark.parametrize("way", WAYS)
@given(obj=mutated_records())
def test_the_strict_reader_refuses_what_the_converter_refuses_and_reads_the_rest_alike(way, obj):
    (verdict, strict), (expected, quick) = _strict(obj, way), _quick(obj)
    assert verdict == expected
    assert _same(strict, quick)


def test_a_class_is_read_by_walking_its_plan_until_its_reader_is_generated():
    readers = StrictReaders(MODEL_CLASSES, json_keys, READERS.named, compile_after=3)
    record = {"description": "a risk"}
    first = readers[model.Risk]
    assert [first(record) for _ in range(2)] == [model.Risk(description="a risk")] * 2
    assert readers[model.Risk] is first and first.walks_plan
    assert first(record) == model.Risk(description="a risk")  # the third: the reader is generated
    assert not getattr(readers[model.Risk], "walks_plan", False)
    assert readers[model.Risk](record) == model.Risk(description="a risk")


def test_preparing_the_record_model_generates_every_reader_and_writer_at_once():
    """What the hook server does before it forks the children that read and write records."""
    model.prepare_record_model()
    walking = [cls for cls in MODEL_CLASSES
               if getattr(READERS[cls], "walks_plan", False) or getattr(model._FRESH[cls], "walks_plan", False)]
    assert walking == []


@pytest.mark.parametrize("way", ["walking the plan", "generated"])
@given(h=handoffs())
def test_a_record_is_written_alike_by_walking_the_plan_and_by_the_generated_writers(way, h):
    expected = orjson.dumps(handoff_to_json(h))
    with pytest.MonkeyPatch.context() as patch:
        direct = {tuple: model._unstructure_items, list: model._unstructure_items, dict: model._unstructure_dict}
        fresh = model._FreshWriters(direct)
        patch.setattr(model, "_DIRECT", direct)
        patch.setattr(model, "_FRESH", fresh)
        patch.setattr(model, "COMPILE_AFTER", 10**9)
        if way == "generated":
            for cls in MODEL_CLASSES:
                fresh.compiled(cls)
        assert orjson.dumps(handoff_to_json(h)) == expected
        assert all(getattr(w, "walks_plan", False) == (way != "generated") for w in fresh.values())


@pytest.mark.parametrize("cls", MODEL_CLASSES, ids=lambda c: c.__name__)
def test_every_model_class_has_a_strict_reader(cls):
    assert callable(READERS[cls])


def test_a_class_outside_the_model_has_no_strict_reader():
    with pytest.raises(KeyError):
        READERS[dict]  # noqa: B018


def test_a_refused_record_is_still_reported_with_every_problem():
    record = model.handoff_to_json(model.new_draft(
        {"work": {"title": "t", "objective": "o"}}, id="018f0000-0000-7000-8000-0000000000a1",
        now="2026-09-02T14:30:00Z", project={"id": "p"}))
    record.update(id="NOT-A-UUID", status="finished")
    with pytest.raises(HandoffInputError) as caught:
        handoff_from_json(record)
    assert [p.split(":")[0] for p in caught.value.problems] == ["id", "status"]


def test_reading_a_valid_record_imports_no_cattrs():
    code = ("import sys\n"
            "from baton.domain.handoff import handoff_from_json, handoff_to_json, new_draft\n"
            "h = new_draft({'work': {'title': 't', 'objective': 'o'}}, id='018f0000-0000-7000-8000-0000000000a1',"
            " now='2026-09-02T14:30:00Z', project={'id': 'p'})\n"
            "assert handoff_from_json(handoff_to_json(h)) == h\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'cattrs'))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"


def test_the_converter_generates_the_hooks_of_the_classes_it_reads_only(monkeypatch):
    """cattrs reports a refused record; building its structure code for all 19
    classes up front would cost a report on a small draft ~9 ms."""
    import cattrs.gen

    built = []
    generate = cattrs.gen.make_dict_structure_fn

    def recording(cls, *args, **kwargs):
        built.append(cls)
        return generate(cls, *args, **kwargs)

    monkeypatch.setattr(cattrs.gen, "make_dict_structure_fn", recording)
    monkeypatch.setattr(model, "_converters", {})
    record = model.handoff_to_json(model.new_draft(
        {"work": {"title": "t", "objective": "o"}}, id="018f0000-0000-7000-8000-0000000000a1",
        now="2026-09-02T14:30:00Z", project={"id": "p"}))
    assert model.converter().structure(record, Handoff) == READERS[Handoff](record)
    assert {Handoff, model.Work, model.Summary, model.Lineage} <= set(built)
    assert not {model.Decision, model.Risk, model.Evidence, model.Automation} & set(built)
