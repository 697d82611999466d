"""A key one typo away from a schema field is kept (extensions are allowed) and named back."""

from __future__ import annotations

from baton.app import Baton
from baton.domain.field_hints import unknown_field_hints
from tests.handoff_support import baton, payload


def test_a_misspelled_section_is_named_with_the_field_it_probably_meant():
    assert unknown_field_hints({"sumary": {}}) == (
        "sumary is not a field of the handoff schema (kept as an extension); did you mean summary?",)


def test_misspelled_keys_inside_sections_and_items_are_named_with_their_path():
    hints = unknown_field_hints({"work": {"tilte": "t"}, "decisions": [{"decision": "d", "rational": "r"}]})
    assert any("work.tilte" in h and "work.title" in h for h in hints)
    assert any("decisions[0].rational" in h and "decisions[0].rationale" in h for h in hints)


def test_a_deliberate_extension_and_known_fields_get_no_hint():
    assert unknown_field_hints({**payload(), "ticket": "ABC-1", "open_questions": ["q"]}) == ()


def test_a_capture_with_a_typo_is_kept_and_its_result_says_what_was_probably_meant(project):
    with Baton.open(project) as app:
        result = app.capture({**payload(), "failed_attempt": [{"approach": "x", "outcome": "failed"}]})
    assert result.record["failed_attempt"]  # kept as given
    assert any("did you mean failed_attempts?" in h for h in result.to_json()["hints"])


def test_an_amend_with_a_typo_says_so_too(project):
    with Baton.open(project) as app:
        handoff_id = app.capture(payload()).handoff_id
        result = app.amend(handoff_id, changes={"summary": {"curent_state": "x"}})
    assert any("summary.curent_state" in h for h in result.hints)


def test_the_cli_prints_the_hint_under_the_capture(project):
    (project / "h.json").write_text('{"work": {"title": "t", "objective": "o"}, "sumary": {}}')
    out = baton(project, "checkpoint", "create", "--input", str(project / "h.json"))
    assert out.returncode == 0 and "hint: sumary is not a field" in out.stdout
