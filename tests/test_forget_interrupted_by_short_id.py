"""A ``baton forget`` killed before its rewrite, named again by the short id the user typed (tester-use20 T1).

The forget is a real process killed with SIGKILL right after its ``handoff.forgotten`` append
(``tests/test_forget.py``'s seam). Run again with the same short id (or a prefix), it finishes
exactly as with the full id; until then nothing says the handoff was erased or its record gone.
"""

from __future__ import annotations

import pytest

from tests.cli_support import run, run_json
from tests.conftest import run_baton
from tests.test_forget import (  # noqa: F401 - ``forgettable`` is a fixture
    SECRET_TEXT,
    _forget_killed_after_its_record,
    files_holding,
    forgettable,
)


def _short(handoff: str) -> str:
    return handoff[-8:]


@pytest.mark.parametrize("named", ["short id", "prefix of the short id", "prefix of the full id"])
def test_forget_run_again_by_the_id_the_user_typed_finishes_an_interrupted_forget(capsys, project, forgettable,
                                                                                 named):
    token = {"short id": _short(forgettable), "prefix of the short id": _short(forgettable)[:5],
             "prefix of the full id": forgettable[:13]}[named]
    _forget_killed_after_its_record(project, token)
    assert files_holding(project / ".baton" / "ledger", SECRET_TEXT)
    done = run_baton("forget", token, "--yes", cwd=project)
    assert done.returncode == 0, done.stderr
    assert f"forgot handoff {forgettable}" in done.stdout
    assert files_holding(project / ".baton" / "ledger", SECRET_TEXT) == []
    assert run_json(capsys, project, "verify")["unfinished_forgets"] == []


def test_a_handoff_whose_forget_was_interrupted_is_not_said_to_be_erased(capsys, project, forgettable):
    _forget_killed_after_its_record(project, _short(forgettable))
    code, _out, err = run(capsys, project, "handoff", "show", _short(forgettable))
    assert code == 4
    assert "erased" not in err and "gone" not in err
    assert "interrupted" in err and f"forgetting it again (`baton forget {forgettable}`, confirmed)" in err


def test_the_refusal_of_an_interrupted_forgets_handoff_names_the_payloads_left_in_json(capsys, project, forgettable):
    _forget_killed_after_its_record(project, _short(forgettable))
    error = run_json(capsys, project, "resume", _short(forgettable), expect=4)["error"]
    assert error["details"]["unfinished_forget"] == forgettable
    assert error["details"]["payloads"] == run_json(capsys, project, "verify")["unfinished_forgets"][0]["payloads"]


def test_once_the_forget_finished_the_short_id_says_it_was_erased(capsys, project, forgettable):
    _forget_killed_after_its_record(project, _short(forgettable))
    run_json(capsys, project, "forget", _short(forgettable), "--yes")
    code, _out, err = run(capsys, project, "handoff", "show", _short(forgettable))
    assert code == 4 and "was erased by `baton forget`" in err
    code, _out, err = run(capsys, project, "forget", _short(forgettable), "--yes")
    assert code == 4 and "was erased by `baton forget`" in err
