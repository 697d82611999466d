"""``baton verify`` (and ``doctor`` and ``repair``, which run it) checks every event of the
ledger: at 100k events 3-5 s, silent at a terminal until the verdict. At a
terminal they show how many events are checked of about how many, on stderr
(as ``rebuild`` shows its replay); in a pipe or with ``--json``, nothing."""

from __future__ import annotations

import pytest

from baton.ledger import verify as verify_module
from tests.cli_support import run
from tests.test_cli_shows_a_long_catch_up import a_long_read_at_a_terminal, worked  # noqa: F401  (a fixture)

VERIFYING = "baton: verifying the ledger:"


def _at_a_terminal(monkeypatch, capsys, project, *args: str) -> tuple[int, str, str]:
    return a_long_read_at_a_terminal(monkeypatch, capsys, project, verify_module, *args)


@pytest.mark.parametrize("command", ["verify", "doctor", "repair"])
def test_a_check_of_the_ledger_at_a_terminal_shows_its_progress_and_ends_its_line(  # noqa: F811
        worked, monkeypatch, capsys, command):
    code, out, said = _at_a_terminal(monkeypatch, capsys, worked, command)
    assert code == 0 and VERIFYING in said and ("verified" in out or "verifies" in out)
    last = said.rstrip("\n").split("\r")[-1].strip()
    done, about = last.removeprefix(VERIFYING).split()[0].split("/")
    assert done == about and said.endswith(" events\n")  # the whole count, its line ended once


@pytest.mark.parametrize("command", ["verify", "doctor", "repair"])
def test_a_check_of_the_ledger_with_json_shows_no_progress(worked, monkeypatch, capsys, command):  # noqa: F811
    code, _, said = _at_a_terminal(monkeypatch, capsys, worked, "--json", command)
    assert code == 0 and VERIFYING not in said


def test_a_check_of_the_ledger_in_a_pipe_shows_no_progress(worked, monkeypatch, capsys):  # noqa: F811
    monkeypatch.setattr(verify_module, "PROGRESS_EVERY", 2)
    code, _, err = run(capsys, worked, "verify")
    assert code == 0 and VERIFYING not in err
