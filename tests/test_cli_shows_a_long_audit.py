"""``baton audit`` reads every event of the ledger for its redaction counts: at
100k events 4.6 s, silent at a terminal until the report. At a terminal it
shows how many events are read of about how many (the index's count), on
stderr, as ``verify`` shows its check; in a pipe or with ``--json``, nothing."""

from __future__ import annotations

from baton.commands import audit as audit_module
from tests.cli_support import run
from tests.test_cli_shows_a_long_catch_up import a_long_read_at_a_terminal, worked  # noqa: F401  (a fixture)

READING = "baton: reading the ledger:"


def _at_a_terminal(monkeypatch, capsys, project, *args: str) -> tuple[int, str, str]:
    return a_long_read_at_a_terminal(monkeypatch, capsys, project, audit_module, *args)


def test_an_audit_at_a_terminal_shows_its_progress_and_ends_its_line(worked, monkeypatch, capsys):  # noqa: F811
    code, out, said = _at_a_terminal(monkeypatch, capsys, worked, "audit")
    assert code == 0 and READING in said and out.startswith("Records:")
    last = said.rstrip("\n").split("\r")[-1].strip()
    done, about = last.removeprefix(READING).split()[0].split("/")
    assert done == about and said.endswith(" events\n")  # the whole count, its line ended once


def test_an_audit_with_json_shows_no_progress(worked, monkeypatch, capsys):  # noqa: F811
    code, _, said = _at_a_terminal(monkeypatch, capsys, worked, "--json", "audit")
    assert code == 0 and READING not in said


def test_an_audit_in_a_pipe_shows_no_progress(worked, monkeypatch, capsys):  # noqa: F811
    monkeypatch.setattr(audit_module, "PROGRESS_EVERY", 2)
    code, _, err = run(capsys, worked, "audit")
    assert code == 0 and READING not in err
