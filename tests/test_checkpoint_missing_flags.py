"""`checkpoint create` from flags alone names the flags it still needs, not the payload's paths."""

from __future__ import annotations

import json

from tests.cli_support import ledger_size, run


def test_without_title_and_objective_it_names_both_flags(capsys, project):
    before = ledger_size(project)
    code, _, err = run(capsys, project, "checkpoint", "create", "--no-input")
    assert code == 2 and "needs --title (what the work is) and --objective (what done looks like)" in err and "work:" not in err
    assert ledger_size(project) == before


def test_without_objective_it_names_that_flag(capsys, project):
    code, out, _ = run(capsys, project, "checkpoint", "create", "--no-input", "--title", "Parser", "--json")
    error = json.loads(out)["error"]
    assert code == 2 and error["code"] == "invalid_handoff" and "needs --objective" in error["message"]


def test_an_input_file_still_gets_the_payload_paths(capsys, project, tmp_path):
    body = tmp_path / "handoff.json"
    body.write_text(json.dumps({"summary": {"current_state": "half done"}}))
    code, _, err = run(capsys, project, "checkpoint", "create", "--input", str(body))
    assert code == 2 and "work: required" in err
