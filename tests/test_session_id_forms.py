"""`session end`, `session begin` and `bootstrap` take the session id as a positional `ID` (the spec's
form for `session end`) or as `--session-id ID`, never two different ones."""

from __future__ import annotations

from tests.cli_support import ledger_size, run, run_json

SCOPE = ("--owner", "a@example.com", "--branch", "main")


def _begin(capsys, project, session_id: str) -> None:
    run_json(capsys, project, "session", "begin", "--session-id", session_id, *SCOPE)


def test_session_end_accepts_the_id_as_session_id_option(capsys, project):
    _begin(capsys, project, "s-option")
    ended = run_json(capsys, project, "session", "end", "--session-id", "s-option",
                     "--handoff-steps", "write the parser", *SCOPE)
    left = run_json(capsys, project, "session", "handoff", *SCOPE)
    assert ended["sessionId"] == "s-option"
    assert "write the parser" in str(left)


def test_session_end_accepts_the_same_id_given_both_ways(capsys, project):
    _begin(capsys, project, "s-both")
    ended = run_json(capsys, project, "session", "end", "s-both", "--session-id", "s-both", *SCOPE)
    assert ended["sessionId"] == "s-both"


def test_session_end_with_two_different_ids_is_refused_and_writes_nothing(capsys, project):
    _begin(capsys, project, "s-one")
    before = ledger_size(project)
    code, out, err = run(capsys, project, "session", "end", "s-one", "--session-id", "s-two", *SCOPE)
    assert code == 2
    assert "two session ids" in err and "Traceback" not in err
    assert ledger_size(project) == before


def test_session_end_without_an_id_is_refused_naming_both_forms(capsys, project):
    before = ledger_size(project)
    code, out, err = run(capsys, project, "session", "end", *SCOPE)
    assert code == 2
    assert "session end ID" in err and "--session-id" in err
    assert ledger_size(project) == before


def test_a_misspelled_payload_field_is_refused_naming_it_and_nothing_is_written(capsys, project, tmp_path):
    _begin(capsys, project, "s-typo")
    payload = tmp_path / "payload.json"
    payload.write_text('{"nextSteps": ["write the parser"], "failedApproches": ["an in-memory cache"]}')
    before = ledger_size(project)
    code, out, err = run(capsys, project, "session", "end", "s-typo", "--handoff-input", str(payload), *SCOPE)
    assert code == 2 and "handoff.failedApproches: unknown field" in err and "failedApproaches" in err
    assert ledger_size(project) == before


def test_session_begin_accepts_the_id_as_a_positional_argument(capsys, project):
    begun = run_json(capsys, project, "session", "begin", "s-positional", *SCOPE)
    assert begun["sessionId"] == "s-positional"


def test_bootstrap_accepts_the_id_as_a_positional_argument(capsys, project):
    brief = run_json(capsys, project, "bootstrap", "s-brief", "--peek", *SCOPE)
    assert brief["sessionId"] == "s-brief" and brief["sessionIdGenerated"] is False


def test_session_begin_with_two_different_ids_is_refused_and_writes_nothing(capsys, project):
    before = ledger_size(project)
    code, out, err = run(capsys, project, "session", "begin", "s-one", "--session-id", "s-two", *SCOPE)
    assert code == 2 and "session begin got two session ids" in err
    assert ledger_size(project) == before


def test_the_same_id_spelled_with_surrounding_spaces_both_ways_is_one_id(capsys, project):
    begun = run_json(capsys, project, "session", "begin", " s-spaced", "--session-id", "s-spaced ", *SCOPE)
    assert begun["sessionId"] == "s-spaced"
