"""The plain reader and writer (``baton.domain.handoff``): a record read and
written without cattrs is the very record the converter reads and writes.

A command that reads one record (``resume``) uses them instead of building
the converter; the converter still reads whatever they refuse, so every
problem is reported as before. Compared on generated records, on
corruptions of them, and through the resume brief rendered from each.
"""

from __future__ import annotations

import subprocess
import sys

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baton.domain import handoff as m
from tests.strategies import draft, handoff_jsons, handoffs, json_values

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _by_converter(doc):
    try:
        return m.converter(detailed=False).structure(doc, m.Handoff)
    except Exception:  # noqa: BLE001 - the converter refuses it
        return None


def _same(a, b) -> bool:
    """Equal models that also write the same bytes (1 is not 1.0, a tuple not a list)."""
    convert = m.converter(detailed=False).unstructure
    return a == b and orjson.dumps(convert(a)) == orjson.dumps(convert(b))


@SETTINGS
@given(handoff_jsons())
def test_a_stored_record_reads_as_the_converter_reads_it(doc):
    plain = m.plain_structure(doc, m.Handoff)
    assert plain is not None
    assert _same(plain, _by_converter(doc))


def _paths(value, at=()):
    yield at
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, (*at, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _paths(child, (*at, i))


def _replace(value, path, new):
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        out = dict(value)
        if new is _DELETE and not rest:
            del out[head]
        else:
            out[head] = _replace(value[head], rest, new)
        return out
    out = list(value)
    if new is _DELETE and not rest:
        del out[head]
    else:
        out[head] = _replace(value[head], rest, new)
    return out


_DELETE = object()
odd_values = json_values | st.floats(allow_nan=False) | st.sampled_from(
    ["not-a-uuid", "2026-13-45T99:99:99Z", "2026-09-02T14:30:00Z", "018f0000-0000-7000-8000-000000000000",
     "draft", "ready", "high", "merge", "", True, 1, 1.5, [], {}])


@SETTINGS
@given(handoff_jsons(), st.data())
def test_a_damaged_record_is_refused_by_both_or_read_alike(doc, data):
    """A value of another type, a key removed, one added: the plain reader
    refuses what the converter refuses, and reads the rest the same way."""
    paths = [p for p in _paths(doc) if p]
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths))
        new = data.draw(st.just(_DELETE) | odd_values)
        doc = _replace(doc, path, new)
        paths = [p for p in _paths(doc) if p]
        if not paths:
            break
    plain, converted = m.plain_structure(doc, m.Handoff), _by_converter(doc)
    if converted is None:
        assert plain is None
    elif plain is not None:
        assert _same(plain, converted)


@SETTINGS
@given(handoffs())
def test_a_record_writes_the_same_json_as_the_converter_writes_it(h):
    plain, converted = m._plain_unstructure(h), m.converter(detailed=False).unstructure(h)
    assert orjson.dumps(plain) == orjson.dumps(converted)  # the same members, values and order


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(handoff_jsons(status="ready"), st.sampled_from(["fresh", "partially_stale", "stale", "unknown"]))
def test_the_resume_brief_from_the_plain_reader_is_the_brief_from_the_converter(doc, state):
    from baton.domain.brief import render_resume_brief
    from baton.domain.freshness import FreshnessReport
    from baton.domain.quality import score_quality

    def brief(h):
        freshness = FreshnessReport(state=state, evaluated=True, captured_head="abc1234", head_now="def5678",
                                    head_moved=True, reasons=("synthetic",))
        quality = score_quality(h, freshness_state=freshness.state)
        return (render_resume_brief(h, freshness, quality, max_tokens=4000).to_json(),
                render_resume_brief(h, freshness, quality, max_tokens=4000, format="md").to_json())

    assert brief(m.plain_structure(doc, m.Handoff)) == brief(_by_converter(doc))


def test_a_refused_record_is_reported_field_by_field_as_before():
    doc = m.handoff_to_json(draft())
    doc["work"]["title"] = 3
    del doc["summary"]["completed"]
    assert m.plain_structure(doc, m.Handoff) is None
    try:
        m.handoff_from_json(doc)
    except m.HandoffInputError as exc:
        assert "work.title: must be a string, not a number" in exc.problems
    else:  # pragma: no cover
        raise AssertionError("a title that is a number was read")


def test_reading_and_writing_a_record_in_a_fresh_process_does_not_import_cattrs():
    code = ("import sys, orjson; from baton.domain import handoff as m; "
            f"doc = orjson.loads({orjson.dumps(m.handoff_to_json(draft())).decode()!r}); "
            "m.handoff_to_json(m.handoff_from_json(doc)); print('cattrs' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr
