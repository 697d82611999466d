"""``resume`` reads a stored record as values (``baton.domain.record_view``) that mirror the record model.

The model is the one definition of a record: these tests fail when the values drift from it — a
field added to (or renamed in, or dropped from) a model class that its view does not have, another
default, another JSON member — and when a stored record reads into other values than the model
reads it, member for member. The brief, its score and its freshness computed from either are the
same; a document not shaped as a fold writes one is read by the model, which says what is wrong.
"""

from __future__ import annotations

from typing import get_origin

import attrs
import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from baton.domain import record_view
from baton.domain.brief import render_resume_brief
from baton.domain.freshness import ArtifactFact, freshness_from_facts
from baton.domain.handoff import MODEL_CLASSES, Handoff, _stored_plan, handoff_to_json, json_keys, stored_handoff
from baton.domain.quality import score_quality
from baton.domain.record_view import VIEWS, HandoffView, plan_of, read_record
from baton.errors import HandoffInputError
from tests.strategies import handoffs, stored_draft

_TEXT = st.text(max_size=8)
_UNKNOWN = st.dictionaries(st.sampled_from(["x_note", "branch", "worktree", "open_questions"]),
                           st.one_of(_TEXT, st.lists(_TEXT, max_size=2)), max_size=2)


def _tree(value):
    """A model instance or a view as (its model class's name, {field: value}), recursively; tuples
    and mappings as themselves, so that a list where a tuple belongs, or an int where a float does, differs."""
    if attrs.has(type(value)):
        return (type(value).__name__, {f.name: _tree(getattr(value, f.name)) for f in attrs.fields(type(value))})
    if hasattr(value, "_fields"):
        return (type(value).__name__.removesuffix("View"), {name: _tree(getattr(value, name)) for name in value._fields})
    if isinstance(value, tuple):
        return ("tuple", tuple(_tree(item) for item in value))
    if isinstance(value, dict) or type(value).__name__ == "_EmptyMapping":
        return ("mapping", {key: _tree(item) for key, item in dict(value).items()})
    return (type(value).__name__, value)


@st.composite
def stored_documents(draw) -> dict:
    """A record as the index stores it, with unknown members here and there (each kept in ``extra``)."""
    doc = orjson.loads(orjson.dumps(handoff_to_json(draw(handoffs()))))
    for member in (doc, doc["project"], doc["work"], doc["summary"], doc["lineage"], *doc["decisions"],
                   *doc["artifacts"], *doc["open_items"]):
        member.update(draw(_UNKNOWN))
    return doc


# -- the views are the model's classes --------------------------------------------------


@pytest.mark.parametrize("model", MODEL_CLASSES, ids=lambda cls: cls.__name__)
def test_each_model_class_has_a_view_with_its_fields(model):
    assert set(VIEWS[model.__name__]._fields) == {f.name for f in attrs.fields(model)}


def test_every_view_is_a_model_classs():
    assert set(VIEWS) == {cls.__name__ for cls in MODEL_CLASSES}


@pytest.mark.parametrize("model", MODEL_CLASSES, ids=lambda cls: cls.__name__)
def test_each_views_defaults_are_the_model_classs(model):
    view = VIEWS[model.__name__]
    for f in attrs.fields(model):
        if f.default is attrs.NOTHING:
            assert f.name not in view._field_defaults, f.name
        else:
            default = f.default.factory() if isinstance(f.default, attrs.Factory) else f.default
            assert _tree(view._field_defaults[f.name]) == _tree(default), f.name


@pytest.mark.parametrize("model", MODEL_CLASSES, ids=lambda cls: cls.__name__)
def test_each_view_reads_the_model_classs_json_members_the_way_it_does(model):
    """The JSON member of each field and how it is read — a model (of which class), an array of
    them, an array of values, a float, an object or a value — as the model reads a stored record
    (``handoff._stored_plan``)."""
    plan, _ = plan_of(VIEWS[model.__name__])
    read_as = {name: (key, how, held and held.__name__.removesuffix("View")) for key, name, how, held in plan}
    modelled = {}
    for key, name, how, sub in _stored_plan(model)[0]:
        if how == "value" and get_origin(sub) is tuple:
            how = "tuple"
        modelled[name] = (key, how, sub.__name__ if how in ("model", "models") else None)
    assert read_as == modelled
    assert {name: key for name, (key, *_) in read_as.items()} == json_keys(model)


# -- a stored record reads into the model's values ---------------------------------------


@given(stored_documents())
def test_a_stored_record_reads_into_the_values_the_record_model_reads(doc):
    view = read_record(doc)
    assert type(view) is HandoffView
    assert _tree(view) == _tree(stored_handoff(doc))


@given(stored_documents(), st.sampled_from(["fresh", "stale", "unknown"]), st.sampled_from(["prompt", "md"]))
def test_a_stored_records_score_and_brief_are_the_record_models(doc, state, format):
    heads = {"fresh": (doc["project"].get("repository") or {}).get("head"), "stale": "f" * 40, "unknown": None}
    view, model = read_record(doc), stored_handoff(doc)
    facts = {a["path"]: ArtifactFact(exists=True, inside_root=True, sha256=a.get("content_hash"))
             for a in doc["artifacts"]}
    freshness = freshness_from_facts(view, facts, heads[state])
    assert freshness == freshness_from_facts(model, facts, heads[state])
    quality = score_quality(view, freshness_state=freshness.state)
    assert quality == score_quality(model, freshness_state=freshness.state)
    assert render_resume_brief(view, freshness, quality, max_tokens=900, format=format).to_json() == \
        render_resume_brief(model, freshness, quality, max_tokens=900, format=format).to_json()


# -- a document not shaped as a stored record --------------------------------------------


@pytest.mark.parametrize("change", [
    {"decisions": "not an array"}, {"work": ["not", "an", "object"]}, {"decisions": None}, {"flags": None},
    {"project": {"repository": None}}, {"artifacts": [{"path": "a.py"}]}, {"automation": {"trigger": "hook", "score": "x"}},
], ids=str)
def test_a_document_not_shaped_as_a_stored_record_is_read_by_the_record_model_which_says_why(change):
    with pytest.raises(HandoffInputError) as by_model:
        stored_handoff(stored_draft(**change))
    with pytest.raises(HandoffInputError) as by_view:
        read_record(stored_draft(**change))
    assert str(by_view.value) == str(by_model.value)


def test_a_document_the_values_decline_but_the_model_reads_is_read_by_the_model(monkeypatch):
    monkeypatch.setattr(record_view, "read_by_plan", lambda cls, obj, plans, plan_of: (_ for _ in ()).throw(TypeError("declined")))
    doc = stored_draft()
    assert type(read_record(doc)) is Handoff
    assert read_record(doc) == stored_handoff(doc)
